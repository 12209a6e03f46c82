"""How the contribution forms behave on the page: opened in place with htmx or as a page
of their own, errors beside the field they are about, the answer after a write."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from papers.contributions.site import FieldErrors
from papers.models import CodeLink, Dataset, Paper, Proposal, Task
from tests.contribute.conftest import make_user, signed_in

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "contribute-code"}
PAGES = {
    "/paper/{slug}": [
        ("/paper/{slug}/contribute/code", "Add code"),
        ("/paper/{slug}/contribute/result", "Add a result"),
        ("/paper/{slug}/contribute/correction", "Suggest a correction"),
    ],
    "/sota/task-1-on-dataset-1": [("/sota/task-1-on-dataset-1/contribute/result", "Add a result")],
    "/task/task-1": [("/task/task-1/contribute/description", "Suggest an edit")],
    "/dataset/dataset-1": [("/dataset/dataset-1/contribute/description", "Suggest an edit")],
    "/method/method-1": [("/method/method-1/contribute/description", "Suggest an edit")],
}


@pytest.fixture
def paper(make_paper):
    return make_paper()


def field_errors(page: str, field: str) -> list[str]:
    """The errors shown in the box of the form's field `field`."""
    box = re.search(rf'<div class="field[^"]*" data-field="{field}">(.*?)</div>', page, re.S)
    assert box, f"no field {field!r} in the form"
    found = re.findall(r'<span class="field-error"[^>]*>(.*?)</span>', box[1], re.S)
    return [html.unescape(error) for error in found]


@pytest.mark.parametrize("page", PAGES)
def test_a_signed_in_reader_s_buttons_open_the_form_in_place_and_link_to_its_page(
    paper, trusted, page
):
    html = signed_in(trusted).get(page.format(slug=paper.slug)).content.decode()
    for url, label in PAGES[page]:
        url = url.format(slug=paper.slug)
        button = re.search(rf'<a class="contribute-open" href="{url}"[^>]*>{label}', html)
        assert button, (url, label)
        target = re.search(r'hx-target="#([\w-]+)"', button[0])[1]
        assert f'id="{target}"' in html
        assert f'hx-get="{url}"' in button[0]


@pytest.mark.parametrize("page", PAGES)
def test_a_visitor_sees_the_buttons_as_links_to_sign_in_and_no_form(paper, page):
    html = Client().get(page.format(slug=paper.slug)).content.decode()
    for url, label in PAGES[page]:
        url = url.format(slug=paper.slug).replace("/", "%2F")
        assert re.search(rf'href="/accounts/login/\?next={url}"[^>]*>{label}', html), url
    assert "csrfmiddlewaretoken" not in html
    assert "hx-post" not in html


def test_the_form_is_a_fragment_for_htmx_and_a_page_without_it(paper, trusted):
    client = signed_in(trusted)
    url = f"/paper/{paper.slug}/contribute/code"
    fragment = client.get(url, **HTMX)
    html = fragment.content.decode()
    assert fragment.status_code == 200
    assert "<html" not in html and "<h1" not in html
    assert html.lstrip().startswith("<form")
    assert f'hx-post="{url}"' in html and 'hx-target="#contribute-code"' in html
    assert "csrfmiddlewaretoken" in html
    page = client.get(url)
    html = page.content.decode()
    assert "<html" in html and html.count("<h1") == 1
    assert f'<form class="contribute-form" method="post" action="{url}"' in html
    assert 'id="contribute-code"' in html
    assert "no-store" in page["Cache-Control"] or "max-age=0" in page["Cache-Control"]
    assert "HX-Request" in page["Vary"]


def test_a_write_by_htmx_answers_what_happened_in_place(paper, trusted, contributor):
    url = f"/paper/{paper.slug}/contribute/code"
    done = signed_in(trusted).post(url, {"url": "https://github.com/a/b"}, **HTMX)
    assert done.status_code == 200
    assert "Your code link is live." in done.content.decode()
    done = signed_in(contributor).post(url, {"url": "https://github.com/c/d"}, **HTMX)
    proposal = Proposal.objects.get()
    html = done.content.decode()
    assert f"Recorded as proposal #{proposal.pk}; a moderator will review it." in html
    assert f'href="/accounts/profile/#proposal-{proposal.pk}"' in html


def test_errors_show_beside_their_field_in_place_and_on_the_page(paper, trusted):
    client = signed_in(trusted)
    url = f"/paper/{paper.slug}/contribute/code"
    for extra in (HTMX, {}):
        response = client.post(url, {"url": "https://github.com/only-an-owner"}, **extra)
        assert response.status_code == 400
        html = response.content.decode()
        assert field_errors(html, "url") == ["This names no repository (https://host/owner/name)."]
        assert field_errors(html, "framework") == []
        assert 'value="https://github.com/only-an-owner"' in html  # what was typed is kept
    assert not CodeLink.objects.filter(repository__url__contains="only-an-owner").exists()


@pytest.mark.parametrize(
    ("url", "data", "field", "error"),
    [
        ("/paper/{slug}/contribute/code", {"url": "not a url at all"}, "url",
         "Enter the repository's web address."),
        ("/paper/{slug}/contribute/code", {"url": "https://github.com/lab1/model1"}, "url",
         "This paper already links this repository."),
        ("/paper/{slug}/contribute/result", {"task": "No such task", "dataset": "Dataset 1",
         "model": "m", "metrics": "Top-1 Accuracy: 1"}, "task", "No task has this name or id."),
        ("/paper/{slug}/contribute/result", {"task": "Task 1", "dataset": "Dataset 1",
         "model": "m", "metrics": "just words"}, "metrics",
         "Write each line as \"name: value\" ('just words')."),
        ("/paper/{slug}/contribute/result", {"task": "Task 1", "dataset": "Dataset 1",
         "model": "m", "metrics": "BLEU: 30"}, "metrics",
         "This leaderboard has no metric 'BLEU'; its metrics: Top-1 Accuracy"),
        ("/paper/{slug}/contribute/result", {"task": "Task 1", "dataset": "Dataset 1",
         "model": "m", "metrics": "Top-1 Accuracy: lots"}, "metrics",
         "'lots' is not a number (91.2 or 91.2%)."),
        ("/sota/task-1-on-dataset-1/contribute/result", {"paper": "1999.99999", "model": "m",
         "metric_0": "1"}, "paper", "No paper here has this arXiv id or id."),
        ("/sota/task-1-on-dataset-1/contribute/result", {"paper": "paper-1", "model": "m",
         "metric_0": ""}, "metric_0", "Give at least one metric value."),
        ("/paper/{slug}/contribute/correction", {"title": "T", "arxiv_id": "nonsense"},
         "arxiv_id", "Not an arXiv id (2006.12467)."),
        ("/paper/{slug}/contribute/correction", {"title": "T", "arxiv_id": "2101.00002"},
         "arxiv_id", "Another paper has arXiv id 2101.00002."),
        ("/paper/{slug}/contribute/correction", {"title": "T", "tasks": "Task 1\nNo such"},
         "tasks", "No task with id or name 'No such'."),
        ("/paper/{slug}/contribute/correction", {"title": ""}, "title",
         "This field is required."),
    ],
)  # fmt: skip
def test_a_value_the_write_cannot_take_is_named_beside_its_field(
    make_paper, trusted, contributor, url, data, field, error
):
    paper = make_paper()
    make_paper()  # another paper: its arXiv id is taken
    for user in (trusted, contributor):
        response = signed_in(user).post(url.format(slug=paper.slug), data)
        assert response.status_code == 400
        assert field_errors(response.content.decode(), field) == [error]
    assert not Proposal.objects.exists()


def test_a_correction_that_changes_nothing_is_refused_above_the_form(paper, trusted):
    client = signed_in(trusted)
    url = f"/paper/{paper.slug}/contribute/correction"
    form = client.get(url).context["form"]
    response = client.post(url, {k: v or "" for k, v in form.initial.items()})
    assert response.status_code == 400
    assert "Nothing is changed: edit a field first." in response.content.decode()


def test_the_write_s_own_refusals_are_shown_beside_the_form_s_field(paper, trusted, monkeypatch):
    def refuse(operation, body):
        raise FieldErrors({"methodology": ["at most 500 characters"], "paper": ["bad"]})

    monkeypatch.setattr("papers.views.contribute.prepare", refuse)
    response = signed_in(trusted).post(
        "/sota/task-1-on-dataset-1/contribute/result",
        {"paper": paper.slug, "model": "m", "metric_0": "1"},
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert field_errors(html, "model") == ["at most 500 characters"]
    assert field_errors(html, "paper") == ["bad"]


def test_the_result_form_suggests_the_paper_s_tasks_and_their_boards_datasets(paper, trusted):
    html = signed_in(trusted).get(f"/paper/{paper.slug}/contribute/result").content.decode()
    assert '<datalist id="result-tasks"><option value="Task 1">' in html
    assert 'list="result-datasets"' in html and '<option value="Dataset 1">' in html


def test_the_board_s_form_asks_a_value_for_each_of_its_metrics(paper, trusted):
    html = signed_in(trusted).get("/sota/task-1-on-dataset-1/contribute/result").content.decode()
    assert '<label for="id_metric_0">Top-1 Accuracy</label>' in html


def test_a_new_board_s_metric_directions_come_from_their_names(paper, trusted):
    Dataset.objects.create(slug="fresh", name="Fresh")
    signed_in(trusted).post(
        f"/paper/{paper.slug}/contribute/result",
        {"task": "Task 1", "dataset": "Fresh", "model": "m", "metrics": "Error: 3\nAccuracy: 9"},
    )
    board = Task.objects.get(slug="task-1").leaderboards.get(dataset__slug="fresh")
    assert [(m.name, m.is_lower_better) for m in board.metrics.all()] == [
        ("Error", True),
        ("Accuracy", False),
    ]


def test_a_form_for_a_record_that_does_not_exist_is_a_404(trusted):
    client = signed_in(trusted)
    for url in (
        "/paper/nope/contribute/code",
        "/paper/nope/contribute/nope",
        "/sota/nope-on-nope/contribute/result",
        "/task/nope/contribute/description",
    ):
        assert client.get(url).status_code == 404


def test_a_hidden_paper_takes_no_contribution(make_paper, trusted):
    paper = make_paper()
    Paper.objects.filter(pk=paper.pk).update(hidden=True)
    assert signed_in(trusted).get(f"/paper/{paper.slug}/contribute/code").status_code == 404


def test_the_staff_see_the_forms_too(paper):
    staff = make_user("staff")
    assert signed_in(staff).get(f"/paper/{paper.slug}/contribute/correction").status_code == 200


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/paper/{slug}/contribute/code", "url"),
        ("/paper/{slug}/contribute/result", "task"),
        ("/paper/{slug}/contribute/correction", "tasks"),
        ("/sota/task-1-on-dataset-1/contribute/result", "paper"),
        ("/task/task-1/contribute/description", "description"),
    ],
)
def test_a_nul_character_in_a_field_is_an_error_beside_it_not_a_500(paper, trusted, url, field):
    data = {"title": "T", "model": "m", "metrics": "a: 1", "dataset": "Dataset 1", "metric_0": "1"}
    response = signed_in(trusted).post(url.format(slug=paper.slug), {**data, field: "a\x00b"})
    assert response.status_code == 400
    assert field_errors(response.content.decode(), field) == ["Null characters are not allowed."]
