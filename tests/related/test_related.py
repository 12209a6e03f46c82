"""Related papers: compute_related, the paper page's section, and the admin."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from html import unescape

import numpy as np
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.models import Paper, PaperTask, RelatedPaper, Task
from papers.related import neighbours, state
from papers.related.lists import LIST_SIZE
from papers.templatetags.papers_tags import cut_title, snippet
from tests.conftest import realdata

pytestmark = pytest.mark.django_db

TOPICS = {
    "vision": "image pixel convolutional segmentation object detection camera visual "
    "resolution photo bounding box",
    "speech": "speech audio acoustic speaker phoneme waveform spoken utterance recognition "
    "microphone prosody",
    "graphs": "graph node edge message passing neighbourhood adjacency molecule link "
    "vertex spectral",
    "control": "reinforcement agent policy reward environment robot trajectory exploration "
    "actor critic",
}
COMMON = "we propose a novel method results show that our approach improves state of the art"


@pytest.fixture(autouse=True)
def state_dir(settings, tmp_path):
    settings.RELATED_STATE_DIR = tmp_path / "related-state"
    return settings.RELATED_STATE_DIR


def topical_papers(per_topic: int = 15, seed: int = 0, start: int = 0) -> dict[str, str]:
    """Papers whose words come from one topic's list and a list every paper uses: slug ->
    topic. Each topic gets its Task, as an import would link it."""
    rng = random.Random(seed)
    topics = {}
    for topic, words in TOPICS.items():
        task, _ = Task.objects.get_or_create(slug=f"task-{topic}", defaults={"name": topic})
        vocabulary = words.split()
        for i in range(start, start + per_topic):
            own = rng.sample(vocabulary, 6)
            common = rng.sample(COMMON.split(), 8)
            words = own + common
            rng.shuffle(words)
            paper = Paper.objects.create(
                slug=f"{topic}-{i}",
                title=" ".join(rng.sample(vocabulary, 3)).title(),
                abstract=" ".join(words * 2) + ".",
            )
            PaperTask.objects.create(paper=paper, task=task)
            topics[paper.slug] = topic
    return topics


def lists() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    rows = RelatedPaper.objects.select_related("paper", "related").order_by("paper_id", "rank")
    for row in rows:
        if not row.hidden:
            out.setdefault(row.paper.slug, []).append(row.related.slug)
    return out


def rows() -> set[tuple]:
    return set(RelatedPaper.objects.values_list("id", "paper_id", "related_id", "score", "rank"))


def compute(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command("compute_related", *args, stdout=out, verbosity=1)
    return out.getvalue()


def page(client, slug: str) -> str:
    response = client.get(f"/paper/{slug}")
    assert response.status_code == 200
    return response.content.decode()


def section(body: str) -> str:
    match = re.search(r'<section class="related".*?</section>', body, re.S)
    return match.group(0) if match else ""


# --- the cut rules -----------------------------------------------------------------


def test_title_is_cut_at_50_characters_with_an_ellipsis():
    title = "The Depth Delusion: Why Transformers Should Be Wider, Not Deeper"
    assert cut_title(title) == "The Depth Delusion: Why Transformers Should Be Wid…"  # the seed
    assert len(cut_title(title)) == 51
    assert cut_title(title[:50]) == title[:50]  # 50 characters: nothing cut, no ellipsis
    assert cut_title("Short title") == "Short title"


def test_snippet_cuts_at_a_word_boundary_to_at_most_240_characters():
    words = [f"w{i:03d}" for i in range(100)]  # "w000 w001 …": 4-letter words, 5 apart
    text = " ".join(words)
    cut = snippet(text)
    assert cut.endswith("…")
    body = cut[:-1]
    assert len(body) <= 240
    assert text.startswith(body) and text[len(body)] == " "  # ends where a word ends
    assert body.split() == words[: len(body.split())]
    assert len(body) > 240 - 5  # and no earlier than the last boundary allows


def test_snippet_keeps_a_word_that_ends_exactly_at_240():
    text = "a" * 239 + "b" + " next words"
    assert snippet(text) == "a" * 239 + "b…"


def test_snippet_leaves_a_short_abstract_whole_and_reads_line_breaks_as_spaces():
    assert snippet("A short abstract.") == "A short abstract."
    assert snippet("Two\nlines  here") == "Two lines here"
    assert snippet("x" * 300) == "x" * 240 + "…"  # one endless word: cut where it must


# --- the section on the paper page --------------------------------------------------


LONG_TITLE = "Scaling Laws for Very Deep Transformers and the Width They Need to Work"
LONG_ABSTRACT = (
    "Transformers deliver outstanding performance across a wide range of tasks and are "
    "now a dominant backbone architecture for large language models. Their task-solving "
    "performance is improved by increasing parameter size, as shown in recent scaling "
    "studies; here we ask how depth and width should grow together, and answer it."
)


def test_section_shows_the_seed_form_with_links_and_the_full_text_on_expand(client):
    paper = Paper.objects.create(slug="the-paper", title="The paper", abstract="About depth.")
    other = Paper.objects.create(slug="deep-and-wide", title=LONG_TITLE, abstract=LONG_ABSTRACT)
    short = Paper.objects.create(slug="short-one", title="Short one", abstract="Brief.")
    RelatedPaper.objects.create(paper=paper, related=other, score=0.9, rank=0)
    RelatedPaper.objects.create(paper=paper, related=short, score=0.8, rank=1)

    html = section(page(client, "the-paper"))
    assert "<h2" in html and "Related papers" in html
    entries = re.findall(r"<li>(.*?)</li>", html, re.S)
    assert len(entries) == 2
    first, second = entries
    link = re.search(r'<a class="related-title" href="([^"]+)"([^>]*)>([^<]*)</a>', first)
    assert link.group(1) == "/paper/deep-and-wide"
    assert unescape(link.group(3)) == LONG_TITLE[:50] + "…"
    assert f'title="{LONG_TITLE}"' in link.group(2)  # the full title on hover
    assert f'aria-label="{LONG_TITLE}"' in link.group(2)  # and read out in full
    summary = re.search(r'<span class="when-closed">([^<]*)</span>', first).group(1)
    assert unescape(summary) == snippet(LONG_ABSTRACT)
    assert len(summary) <= 241 and summary.endswith("…") and summary != LONG_ABSTRACT
    assert "<details" in first and unescape(first).count(LONG_ABSTRACT) == 1  # on expand
    assert LONG_TITLE in unescape(re.search(r"<details.*</details>", first, re.S).group(0))
    # A short title and abstract are shown whole, with nothing to expand.
    assert ">Short one</a>" in second and "Brief." in second and "<details" not in second
    assert "title=" not in second


def test_a_paper_with_no_related_papers_shows_no_section(client):
    Paper.objects.create(slug="alone-here", title="Alone", abstract="Nothing near.")
    body = page(client, "alone-here")
    assert "Related papers" not in body and 'class="related"' not in body


def test_hidden_entries_and_hidden_papers_never_show(client):
    paper = Paper.objects.create(slug="the-paper", title="The paper")
    shown = Paper.objects.create(slug="shown-one", title="Shown one")
    hidden_paper = Paper.objects.create(slug="hidden-one", title="Hidden one", hidden=True)
    hidden_entry = Paper.objects.create(slug="entry-hidden", title="Entry hidden")
    RelatedPaper.objects.create(paper=paper, related=hidden_paper, score=0.9, rank=0)
    RelatedPaper.objects.create(paper=paper, related=hidden_entry, score=0.8, rank=1, hidden=True)
    RelatedPaper.objects.create(paper=paper, related=shown, score=0.7, rank=2)
    html = section(page(client, "the-paper"))
    assert "Shown one" in html
    assert "Hidden one" not in html and "Entry hidden" not in html


def test_the_section_costs_one_query_however_long_the_list(client):
    paper = Paper.objects.create(slug="the-paper", title="The paper")
    others = [Paper.objects.create(slug=f"other-{i}", title=f"Other {i}") for i in range(20)]
    RelatedPaper.objects.create(paper=paper, related=others[0], score=0.9, rank=0)
    with CaptureQueriesContext(connection) as one:
        page(client, "the-paper")
    for i, other in enumerate(others[1:], start=1):
        RelatedPaper.objects.create(paper=paper, related=other, score=0.5, rank=i)
    with CaptureQueriesContext(connection) as twenty:
        body = page(client, "the-paper")
    assert section(body).count("<li>") == 20
    assert len(one) > 0 and len(twenty) == len(one)


def test_the_papers_json_is_unaffected(client):
    topical_papers(per_topic=4)
    before = client.get("/paper/vision-0.json").json()
    compute()
    assert RelatedPaper.objects.filter(paper__slug="vision-0").exists()
    after = client.get("/paper/vision-0.json")
    assert after.json() == before
    assert "related" not in json.dumps(after.json()).lower()


# --- compute_related ------------------------------------------------------------------


def test_compute_related_lists_papers_of_the_same_topic():
    topics = topical_papers()
    output = compute()
    assert "Related papers (full): 60 papers" in output
    found = lists()
    assert set(found) == set(topics)
    for slug, related in found.items():
        assert len(related) == LIST_SIZE and slug not in related
        same = sum(topics[r] == topics[slug] for r in related[:10])
        assert same >= 9, (slug, related)  # 14 others share its topic, 45 do not
    scores = list(
        RelatedPaper.objects.filter(paper__slug="speech-3")
        .order_by("rank")
        .values_list("score", flat=True)
    )
    assert scores == sorted(scores, reverse=True) and 0 < scores[-1] <= scores[0] <= 1


def test_recomputing_is_idempotent():
    topical_papers()
    compute()
    before = rows()
    output = compute()
    assert "0 created, 0 updated, 0 deleted" in output and "Nothing changed." in output
    assert rows() == before


def test_a_hidden_paper_is_left_out_of_every_list_and_staff_hidden_entries_stay_hidden():
    topical_papers()
    compute()
    paper = Paper.objects.get(slug="graphs-0")
    first = RelatedPaper.objects.get(paper=paper, rank=0)
    first.hidden = True  # staff hide the entry in the admin
    first.save()
    Paper.objects.filter(slug="graphs-1").update(hidden=True)
    compute()
    found = lists()
    assert all("graphs-1" not in related for related in found.values())
    assert "graphs-1" not in found
    entry = RelatedPaper.objects.get(pk=first.pk)
    assert entry.hidden and entry.related_id == first.related_id
    assert first.related.slug not in found["graphs-0"]
    assert len(found["graphs-0"]) == LIST_SIZE  # filled up from further down


def test_fewer_than_three_papers_get_no_lists():
    Paper.objects.create(slug="one-paper", title="One", abstract="Graph neural networks.")
    Paper.objects.create(slug="two-paper", title="Two", abstract="Graph message passing.")
    assert "no lists" in compute()
    assert not RelatedPaper.objects.exists()


def test_a_deleted_paper_leaves_the_other_lists_whole(client):
    topical_papers(per_topic=6)
    compute()
    gone = Paper.objects.get(slug="vision-1")
    listing = RelatedPaper.objects.filter(related=gone).values_list("paper__slug", flat=True)
    holders = list(listing)
    assert holders
    gone.delete()  # the rows naming it go with it
    for slug in holders:
        assert "vision-1" not in section(page(client, slug))
        assert section(page(client, slug))


def test_an_import_leaves_lists_stale_but_never_shows_what_it_hid(client, tmp_path):
    topical_papers(per_topic=6)
    compute()
    before = rows()
    record = {
        "paper_url": "https://paperswithcode.com/paper/a-newer-vision-paper",
        "title": "Segmentation Of Images",
        "abstract": "Image pixel segmentation with a convolutional camera model.",
    }
    dump = tmp_path / "papers.json"
    dump.write_text(json.dumps([record]))
    call_command("import_archive", str(dump), verbosity=0)
    assert rows() == before  # stale until the next compute_related
    Paper.objects.filter(slug="vision-2").update(hidden=True)
    holders = RelatedPaper.objects.filter(related__slug="vision-2").values_list(
        "paper__slug", flat=True
    )
    for slug in holders:
        html = section(page(client, slug))
        assert html and "/paper/vision-2" not in html


# --- --only-new -------------------------------------------------------------------------


def test_databases_that_differ_in_anything_keep_separate_states(monkeypatch):
    """The state is one file per database: another engine, server or name is another
    database, whose run never reads this one's vectors."""
    here = state.database_key()
    for key, value in (("ENGINE", "another.engine"), ("HOST", "elsewhere"), ("NAME", "other")):
        monkeypatch.setitem(connection.settings_dict, key, value)
        assert state.database_key() != here
        monkeypatch.undo()
    assert state.database_key() == here


def test_only_new_without_an_earlier_run_computes_everything():
    topical_papers(per_topic=5)
    output = compute("--only-new")
    assert "computed every list" in output
    assert len(lists()) == 20


def test_only_new_touches_only_the_new_papers_and_the_lists_they_enter():
    topical_papers(per_topic=15)
    compute()
    before = {
        paper: set(group)
        for paper, group in _group(
            RelatedPaper.objects.values_list("paper_id", "id", "related_id", "score", "rank")
        ).items()
    }
    fresh = topical_papers(per_topic=3, seed=7, start=100)  # 12 new papers, 3 a topic
    output = compute("--only-new")
    assert "12 new papers" in output
    new_ids = set(Paper.objects.filter(slug__in=fresh).values_list("id", flat=True))
    after = {
        paper: set(group)
        for paper, group in _group(
            RelatedPaper.objects.values_list("paper_id", "id", "related_id", "score", "rank")
        ).items()
    }
    assert new_ids <= set(after)  # every new paper has its list
    for paper, entries in before.items():
        related_now = {row[1] for row in after[paper]}
        if related_now & new_ids:
            continue  # a new paper entered this list: it was rewritten
        assert after[paper] == entries  # untouched, row for row
    entered = [p for p in before if {row[1] for row in after[p]} & new_ids]
    assert entered  # new papers did enter some existing lists

    # The lists are what an exact search with the stored model gives over every paper.
    saved = state.load()
    assert set(saved.ids) == set(Paper.objects.values_list("id", flat=True))
    found, _ = neighbours.exact_top_k(
        saved.vectors, saved.vectors, LIST_SIZE, self_index=np.arange(len(saved.ids))
    )
    expected = {int(saved.ids[i]): [int(saved.ids[j]) for j in row] for i, row in enumerate(found)}
    got = {
        paper: [r for r, _ in sorted(((row[1], row[3]) for row in entries), key=lambda e: e[1])]
        for paper, entries in after.items()
    }
    assert got == expected

    # A second --only-new with nothing new writes nothing.
    assert "Nothing changed." in compute("--only-new")


def test_only_new_searches_again_the_lists_that_named_a_deleted_paper():
    topical_papers(per_topic=8)
    compute()
    gone = Paper.objects.get(slug="speech-0")
    holders = set(RelatedPaper.objects.filter(related=gone).values_list("paper_id", flat=True))
    gone.delete()
    compute("--only-new")
    for paper in holders:
        assert RelatedPaper.objects.filter(paper_id=paper).count() == LIST_SIZE


def _group(values):
    out: dict[int, list[tuple]] = {}
    for paper, *rest in values:
        out.setdefault(paper, []).append(tuple(rest))
    return out


# --- real papers --------------------------------------------------------------------------


@pytest.mark.realdata
def test_on_real_papers_a_list_is_dominated_by_its_own_area():
    path = realdata("1pha__BayesianActiveLearning/converted/test_dataset.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    sample = random.Random(5).sample(records, 1000)
    area = {}
    for i, r in enumerate(sample):  # text only: the labels stay here
        Paper.objects.create(slug=f"real-{i}", title=r["title"], abstract=r["abstract"])
        area[f"real-{i}"] = r["area"]
    compute()
    found = lists()
    assert len(found) == 1000
    share = [
        sum(area[o] == area[slug] for o in related[:10]) / 10 for slug, related in found.items()
    ]
    sizes = Counter(area.values())
    chance = sum(n * (n - 1) for n in sizes.values()) / (1000 * 999)
    assert np.mean(share) >= 0.5, np.mean(share)  # chance is about 0.12
    assert np.mean(share) > 4 * chance
    assert np.median(share) >= 0.5


# --- the admin --------------------------------------------------------------------------


def test_the_admin_shows_a_papers_related_list(admin_client):
    topical_papers(per_topic=6)
    compute()
    paper = Paper.objects.get(slug="control-0")
    body = admin_client.get(f"/admin/papers/paper/{paper.pk}/change/").content.decode()
    assert "Related papers" in body or "related papers" in body
    for entry in RelatedPaper.objects.filter(paper=paper).select_related("related"):
        assert entry.related.title in body
    assert 'name="related_entries-0-hidden"' in body


# --- neighbour search -----------------------------------------------------------------


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def test_top_k_rows_picks_what_a_full_sort_picks():
    rng = np.random.default_rng(3)
    s = rng.standard_normal((50, 5000)).astype(np.float32)
    s[0, :4990] = -np.inf  # a row with only ten candidates: padded, not invented
    idx, top = neighbours.top_k_rows(s, 25)
    order = np.argsort(-s, axis=1, kind="stable")[:, :25]
    assert (idx[1:] == order[1:]).all()
    assert np.allclose(top[1:], np.take_along_axis(s, order, axis=1)[1:])
    assert set(idx[0, :10]) == set(range(4990, 5000)) and (idx[0, 10:] == -1).all()
    assert np.isneginf(top[0, 10:]).all()


def test_the_inverted_file_finds_nearly_what_exact_search_finds():
    rng = np.random.default_rng(4)
    centres = rng.standard_normal((30, 16))
    vectors = _unit(centres[rng.integers(0, 30, 6000)] + 0.6 * rng.standard_normal((6000, 16)))
    exact, _ = neighbours.exact_top_k(vectors, vectors, 20, self_index=np.arange(6000))
    approx, _ = neighbours.all_top_k(vectors, 20, exact_up_to=0, cell_size=100, probes=8)
    assert (approx != np.arange(6000)[:, None]).all()  # never its own neighbour
    recall = np.mean([len(set(a) & set(b)) / 20 for a, b in zip(exact, approx, strict=True)])
    assert recall >= 0.98, recall  # 0.99 here; one probed cell gives 0.71
