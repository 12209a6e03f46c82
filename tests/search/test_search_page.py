"""/search: results, filters, direct hits, htmx fragments, and no 500 on odd input."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.kept.papers import refresh_counts
from papers.models import (
    CodeLink,
    Dataset,
    Method,
    Paper,
    PaperDataset,
    PaperMethod,
    PaperTask,
    Task,
)

pytestmark = pytest.mark.django_db

SEED_SLUG = "limits-to-depth-efficiencies-of-self"


def _text(body: str) -> str:
    """The page's text as read: tags dropped, whitespace runs as one space."""
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


@pytest.fixture
def seeded(seed_paper):
    for i in range(30):
        Paper.objects.create(
            slug=f"width-study-{i}",
            title=f"Width study {i}",
            abstract="Depth and width of networks.",
            published=f"20{10 + i % 10}-01-01",
        )


def test_results_are_ranked_highlighted_and_counted(client, seeded):
    body = client.get("/search", {"q": "self-attention depth"}).content.decode()
    assert "1 paper" in body
    assert "<mark>" in body and "Interplay" in body
    assert "16 Ran" not in body  # counts are per status, by label
    assert ">10 Ran</a>" in body and ">4 Ran, drafted contract wrong</a>" in body


def test_arxiv_id_or_slug_goes_straight_to_the_paper(client, seeded):
    for q in ["2006.12467", "arXiv:2006.12467v3", SEED_SLUG]:
        response = client.get("/search", {"q": q})
        assert response.status_code == 302 and response["Location"] == f"/paper/{SEED_SLUG}"


def test_htmx_gets_the_results_fragment_and_a_plain_get_the_page(client, seeded):
    full = client.get("/search", {"q": "width"})
    fragment = client.get("/search", {"q": "width"}, headers={"HX-Request": "true"})
    assert "<html" in full.content.decode() and '<section id="results"' in full.content.decode()
    body = fragment.content.decode()
    assert '<section id="results"' in body and "<html" not in body
    assert '<p id="result-count" hx-swap-oob="innerHTML">31 results</p>' in body
    assert "HX-Request" in fragment["Vary"]
    restore = client.get(
        "/search",
        {"q": "width"},
        headers={"HX-Request": "true", "HX-History-Restore-Request": "true"},
    )
    assert "<html" in restore.content.decode()


def test_typing_an_arxiv_id_does_not_navigate_away(client, seeded):
    response = client.get(
        "/search", {"q": "2006.12467"}, headers={"HX-Request": "true", "HX-Trigger": "q"}
    )
    assert response.status_code == 200
    submitted = client.get(
        "/search", {"q": "2006.12467"}, headers={"HX-Request": "true", "HX-Trigger": "search-form"}
    )
    assert submitted["HX-Redirect"] == f"/paper/{SEED_SLUG}"


def test_pages_keep_the_filters_and_stop_at_a_clear_limit(client, seeded):
    body = client.get("/search", {"q": "width", "year_from": "2011"}).content.decode()
    assert "year_from=2011" in body and "page=2" in body
    deep = client.get("/search", {"q": "width", "page": "51"})
    assert deep.status_code == 200 and "Results stop at page 50" in deep.content.decode()


def test_filters(client, seeded):
    assert "1 paper" in client.get("/search", {"status": "ran_violates"}).content.decode()
    assert "1 paper" in client.get("/search", {"has_code": "1"}).content.decode()
    assert "0 papers" in client.get("/search", {"official": "1"}).content.decode()
    assert "1 paper" in client.get("/search", {"framework": "pytorch"}).content.decode()
    body = client.get("/search", {"year_from": "2019", "year_to": "2019"}).content.decode()
    assert "3 papers" in body


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"year_from": "abc"}, "year_from"),
        ({"page": "0"}, "page"),
        ({"page": "-3"}, "page"),
        ({"sort": "random"}, "sort"),
        ({"has_code": "maybe"}, "has_code"),
        ({"year_from": "2020", "year_to": "2010"}, "year_to"),
        ({"task": "x" * 300}, "task"),
        ({"status": "ran\x00"}, "status"),
    ],
)
def test_invalid_filter_values_are_a_400_naming_the_parameter(client, db, params, name):
    response = client.get("/search", params)
    assert response.status_code == 400
    assert name in response.content.decode()


@pytest.mark.parametrize(
    "q",
    [
        '"unbalanced',
        "NEAR(",
        "*",
        "^",
        ":",
        "a" * 10_000,
        "nul\x00byte",
        "😀",
        "' OR 1=1; --",
        "-x",
    ],
)
def test_any_query_is_safe(client, seeded, q):
    response = client.get("/search", {"q": q})
    assert response.status_code == 200
    assert len(re.findall(r"<h1[ >]", response.content.decode())) == 1


def test_facets_count_every_match_not_only_the_page(client, make_paper):
    for _ in range(22):
        make_paper()  # "Paper N about attention", official PyTorch code, two samples
    for i in range(3):
        Paper.objects.create(slug=f"no-code-{i}", title=f"Attention without code {i}")
    body = client.get("/search", {"q": "attention "}).content.decode()
    assert "25 papers" in body and body.count('class="result-title"') == 20
    text = _text(body)
    assert "with code 22" in text and "official code 22" in text
    assert "pytorch 22" in text and "Ran, honours its contract 22" in text
    assert "Timed out 22" in text
    body = client.get("/search", {"has_code": "1"}).content.decode()  # no words
    assert "22 papers" in body and "with code 22" in _text(body) and "pytorch 22" in _text(body)


def test_facets_are_left_out_past_the_count_cap(client, make_paper, monkeypatch):
    from papers import search as fulltext

    for _ in range(3):
        make_paper()
    monkeypatch.setattr(fulltext, "COUNT_CAP", 2)
    body = client.get("/search", {"q": "attention "}).content.decode()
    assert "2+ papers" in body and "with code" not in _text(body)
    assert body.count('class="result-title"') == 3  # capped count, every match listed


def test_query_count_is_constant(client, seeded):
    with CaptureQueriesContext(connection) as few:
        client.get("/search", {"q": "width", "has_code": "0"})
    for i in range(30, 60):
        Paper.objects.create(
            slug=f"width-more-{i}", title=f"Width more {i}", published="2015-01-01"
        )
    with CaptureQueriesContext(connection) as many:
        client.get("/search", {"q": "width"})
    assert len(many) == len(few)


def test_a_submitted_form_loses_its_empty_parameters(client, db):
    response = client.get("/search", {"q": "graph", "task": "", "sort": "", "has_code": "1"})
    assert response.status_code == 302 and response["Location"] == "/search?q=graph&has_code=1"
    assert client.get("/search", {"q": ""})["Location"] == "/search"
    htmx = client.get("/search", {"q": "graph", "task": ""}, headers={"HX-Request": "true"})
    assert htmx.status_code == 200  # htmx leaves empty fields out itself


def _sort_select(body: str) -> str:
    return body.split('<select name="sort">', 1)[1].split("</select>", 1)[0]


def test_without_a_chosen_sort_words_rank_by_relevance(client, seeded):
    body = client.get("/search", {"q": "width"}).content.decode()
    assert "Most relevant first" in body
    # No option chosen: the browser shows the first, "Relevance, or newest without words".
    assert " selected" not in _sort_select(body)
    chosen = client.get("/search", {"q": "width", "sort": "newest"}).content.decode()
    assert '<option value="newest" selected>' in _sort_select(chosen)
    assert "Newest first" in client.get("/search").content.decode()
    assert (
        "Newest first" in client.get("/search", {"q": "width", "sort": "newest"}).content.decode()
    )


@pytest.fixture
def named(seeded):
    qa = Task.objects.create(slug="question-answering", name="Question Answering")
    Task.objects.create(slug="question-answering-2", name="question answering", hidden=True)
    method = Method.objects.create(slug="lstm", name="LSTM")
    dataset = Dataset.objects.create(slug="squad", name="SQuAD")
    seed = Paper.objects.get(slug=SEED_SLUG)
    PaperTask.objects.create(paper=seed, task=qa)
    PaperMethod.objects.create(paper=seed, method=method)
    PaperDataset.objects.create(paper=seed, dataset=dataset)
    CodeLink.objects.filter(paper=seed).update(framework="PyTorch")
    refresh_counts([seed.pk])  # as the admin and imports do
    return seed


@pytest.mark.parametrize(
    "params",
    [
        {"task": "Question Answering"},
        {"task": "question answering"},
        {"task": "QUESTION-ANSWERING"},
        {"task": "question-answering"},
        {"method": "lstm"},
        {"method": "Lstm"},
        {"dataset": "squad"},
        {"framework": "pytorch"},
        {"framework": "PYTORCH"},
        {"status": "Ran, violates its contract"},
        {"status": "RAN_VIOLATES"},
    ],
)
def test_filters_take_names_or_slugs_in_any_case(client, named, params):
    body = client.get("/search", params).content.decode()
    assert "1 paper" in body and "The Depth-to-Width Interplay" in body


def test_an_unknown_name_says_so_and_suggests_the_nearest(client, named):
    body = client.get("/search", {"task": "Questoin Answring"}).content.decode()
    assert "No task is named “Questoin Answring”" in body
    assert 'href="/search?task=Question+Answering">Question Answering</a>' in body
    assert "0 papers" in body
    body = client.get("/search", {"framework": "pytorh"}).content.decode()
    assert "No framework is named" in body and ">PyTorch</a>" in body


def test_suggestions_while_a_filter_is_typed(client, named):
    fragment = client.get(
        "/search/names/task", {"task": "quest"}, headers={"HX-Request": "true"}
    ).content.decode()
    assert fragment == (
        '<datalist id="task-options"><option value="Question Answering"></option></datalist>'
    )  # the hidden case-only duplicate is not offered
    page = client.get("/search/names/task", {"task": "quest"}).content.decode()
    assert 'href="/search?task=Question%20Answering"' in page
    assert client.get("/search/names/colour", {"colour": "x"}, follow=True).status_code == 404


def test_typing_an_arxiv_id_offers_the_paper_first(client, seeded):
    body = client.get(
        "/search", {"q": "2006.12467"}, headers={"HX-Request": "true", "HX-Trigger": "q"}
    ).content.decode()
    assert 'class="direct-hit"' in body and f'href="/paper/{SEED_SLUG}"' in body


def test_an_invalid_filter_shows_the_search_page_with_the_message(client, db):
    response = client.get("/search", {"q": "x", "year_from": "2020", "year_to": "2010"})
    body = response.content.decode()
    assert response.status_code == 400
    assert 'id="search-form"' in body and 'role="alert"' in body and "year_to" in body
    assert 'name="year_to" value="2010"' in body
    fragment = client.get(
        "/search", {"year_from": "2020", "year_to": "2010"}, headers={"HX-Request": "true"}
    )
    assert fragment.status_code == 400 and '<section id="results"' in fragment.content.decode()


def test_a_title_with_a_word_no_paper_holds_says_which_word_it_left_out(client, db):
    Paper.objects.create(slug="gpt", title="Language Models are Few-Shot Learners")
    Paper.objects.create(slug="sota", title="A State-of-the-art Parser")
    text = _text(
        client.get("/search", {"q": "Language Models are Banana Learners "}).content.decode()
    )
    assert "1 paper for" in text
    # SQLite looks for the words no paper holds (SQLiteBackend.absent_groups) and names
    # them; PostgreSQL answers the relaxed query without looking.
    named = "no paper holds “banana”, so these match the others."
    said = named if connection.vendor == "sqlite" else "these match all but one."
    assert f"No paper matches every word: {said}" in text
    # A wrong word some paper holds: which one is wrong is not known.
    text = _text(client.get("/search", {"q": "Language Models Parser Learners "}).content.decode())
    assert "No paper matches every word: these match all but one." in text
    text = _text(
        client.get("/search", {"q": "Language Models are Few-Shot Learners"}).content.decode()
    )
    assert "No paper matches every word" not in text
