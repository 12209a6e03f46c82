"""papers.search behaves the same on SQLite FTS5 and PostgreSQL tsvector."""

from __future__ import annotations

import json
import random

import pytest
from django.db import connection

from papers.kept.papers import refresh_counts
from papers.models import Paper
from papers.search import marked, search
from papers.search.query import parse

pytestmark = pytest.mark.django_db

DOCS = {
    "graph-nets": (
        "Graph Neural Networks for Molecules",
        "We learn molecular graphs.",
        "Ada Lovelace",
    ),
    "vision": (
        "Vision Transformers at Scale",
        "Images are worth many words; learning at scale.",
        "Alan Turing",
    ),
    "nets-in-abstract": (
        "A Survey",
        "This survey covers graph neural networks broadly.",
        "Grace Hopper",
    ),
    "author-only": ("Unrelated Title", "Nothing to see.", "Graph Person"),
    "bert": (
        "BERT: Pre-training of Deep Bidirectional Transformers",
        "Language understanding.",
        "Jacob Devlin",
    ),
    "gpt": ("Language Models are Few-Shot Learners", "We train GPT-3.", "Tom Brown"),
    "sota": ("A state-of-the-art parser", "Parsing the art of the state.", "Noam Chomsky"),
}


@pytest.fixture
def docs(db):
    for slug, (title, abstract, authors) in DOCS.items():
        Paper.objects.create(slug=slug, title=title, abstract=abstract, author_names=authors)


def slugs(text, **kwargs):
    page = search(text, Paper.objects.all(), **kwargs)
    found = dict(Paper.objects.filter(id__in=page.ids).values_list("id", "slug"))
    return [found[i] for i in page.ids]


def test_all_words_must_match_with_stemming(docs):
    assert set(slugs("graph network ")) == {"graph-nets", "nets-in-abstract"}
    assert slugs("molecule learned ") == ["graph-nets"]  # molecules, learn


def test_title_weighs_more_than_abstract_and_abstract_more_than_authors(docs):
    assert slugs("graph ") == ["graph-nets", "nets-in-abstract", "author-only"]


def test_exact_phrase(docs):
    assert slugs('"neural networks"') == ["graph-nets", "nets-in-abstract"]
    assert slugs('"networks neural"') == []


def test_excluded_words(docs):
    assert slugs("graph -survey ") == ["graph-nets", "author-only"]
    assert slugs('graph -"neural networks" ') == ["author-only"]


def test_or(docs):
    assert set(slugs("bert OR gpt ")) == {"bert", "gpt"}


def test_a_question_finds_papers_that_omit_its_stop_words(docs):
    # PostgreSQL's English configuration ignores "how", "can", "we" and "what": SQLite
    # must not require them either, or the two engines answer the question differently.
    assert set(slugs("how can we learn about graph networks ")) == {"graph-nets"}
    assert set(slugs("what is the state of graph neural networks ")) == {
        "graph-nets", "nets-in-abstract"
    }  # fmt: skip
    assert parse("what can we do ").empty


def test_a_long_query_with_a_word_no_paper_holds_finds_the_papers_of_every_other_word(docs):
    assert slugs("Language Models are Many-Shot Learners ") == ["gpt"]  # no paper: "many shot"
    assert slugs("language models banana learners ") == ["gpt"]


def test_a_long_query_with_a_wrong_word_some_paper_holds_still_finds_all_but_one(docs):
    assert slugs("language models parsers learners ") == ["gpt"]  # "parser": another paper


def test_a_long_query_with_two_words_no_paper_holds_finds_nothing(docs):
    assert slugs("language models banana orchestra learners ") == []


def test_a_long_query_relaxed_reads_its_last_word_as_typed(docs):
    """Relaxed, a prefix would be expanded in each conjunction of the union (slow); a
    last word being typed that no paper holds as typed is the one left out."""
    assert parse("language models are few shot banan").relaxed().has_prefix is False
    assert slugs("language models are few shot banan") == ["gpt"]


def test_last_word_matches_as_a_prefix_while_typing(docs):
    # Both match in their titles; each engine's ranking orders such a tie its own way.
    assert sorted(slugs("transf")) == ["bert", "vision"]
    assert slugs("transf ") == []  # a finished word is a word


def test_a_typed_last_word_matches_as_a_prefix_of_its_stem(db):
    # "learning" stems to "learn": while typing it also finds "learners", on both engines
    # (SQLite's FTS5 stems a prefix term before matching it).
    Paper.objects.create(slug="learners", title="Few-shot learners", abstract="")
    Paper.objects.create(slug="learning", title="Learning to rank", abstract="")
    assert set(slugs("learning")) == {"learners", "learning"}
    assert slugs("learning ") == ["learning"]


def test_hyphenated_words_read_as_a_phrase(docs):
    assert slugs("state-of-the-art ") == ["sota"]


def test_diacritics_fold(docs):
    Paper.objects.create(slug="nystrom", title="Nyströmformer attention", abstract="")
    assert slugs("nystromformer ") == ["nystrom"]


@pytest.mark.parametrize(
    "text",
    [
        '"unbalanced quote',
        "NEAR(graph neural)",
        "graph*",
        "^graph",
        "title:graph",
        "a" * 10_000,
        "graph\x00neural",
        "😀 graph 🧠",
        "'; DROP TABLE papers_paper; --",
        "graph AND OR NOT",
        "-",
        '""',
        "OR",
        "(((",
        "\\",
        "%_%",
    ],
)
def test_any_input_is_safe(docs, text):
    page = search(text, Paper.objects.all())
    # An answer, consistent with itself (the count is the ids it pages through), and
    # nothing written.
    assert page.total == len(page.ids) <= len(DOCS)
    assert set(page.ids) <= set(Paper.objects.values_list("id", flat=True))
    assert Paper.objects.count() == len(DOCS)


def test_only_excluded_words_is_no_query(docs):
    assert parse("-graph").empty


def test_counts_are_exact_and_results_paginate_stably(db):
    for i in range(45):
        Paper.objects.create(slug=f"p{i}", title=f"Deep learning {i}", abstract="learning")
    first = search("learning ", Paper.objects.all(), offset=0, limit=20)
    second = search("learning ", Paper.objects.all(), offset=20, limit=20)
    third = search("learning ", Paper.objects.all(), offset=40, limit=20)
    assert first.total == 45 and not first.capped
    assert len(set(first.ids + second.ids + third.ids)) == 45


def test_filters_restrict_matches(docs):
    base = Paper.objects.exclude(slug="graph-nets")
    page = search("graph ", base)
    assert page.total == 2 and Paper.objects.get(slug="graph-nets").id not in page.ids


def test_highlights_are_escaped_and_marked(db):
    Paper.objects.create(
        slug="x", title="<script>alert(1)</script> graph", abstract="a graph <b>bold</b>"
    )
    page = search("graph ", Paper.objects.all())
    title, snippet = page.highlights[page.ids[0]]
    assert "<script>" not in title and "&lt;script&gt;" in title
    assert "<mark>graph</mark>" in title.lower()
    assert "<b>" not in snippet and "<mark>" in snippet


def test_highlighting_leaves_another_page_in_flight_on_the_connection_alone(db):
    """Two pages highlighted at once on one connection (an in-memory database under a
    threaded test server shares it) share the probe table: neither may fail on the
    other's rows, read them, or delete them."""
    from django.db import connection

    from papers.search.backends import backend_for

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's probe table")
    ours = Paper.objects.create(slug="ours", title="graph ours", abstract="graph")
    theirs = Paper.objects.create(slug="theirs", title="graph theirs", abstract="graph")
    base = Paper.objects.all()
    engine = backend_for(parse("graph"), base)
    engine.highlights([theirs.id])  # creates the probe
    probe = engine.PROBE
    with connection.cursor() as cursor:  # the other page, mid-way: both papers written
        for paper in (ours, theirs):
            cursor.execute(
                f"INSERT INTO {probe} (rowid, title, abstract, author_names) "
                "VALUES (%s, %s, %s, '')",
                [paper.id, paper.title, paper.abstract],
            )
    found = engine.highlights([ours.id])
    assert list(found) == [ours.id] and "<mark>graph</mark>" in marked(found[ours.id][0])
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT rowid FROM {probe}")
        assert [row[0] for row in cursor.fetchall()] == [theirs.id]


def test_newest_and_implementations_sorts(db):
    Paper.objects.create(slug="old", title="graph old", published="2010-01-01", code_link_count=5)
    Paper.objects.create(slug="new", title="graph new", published="2020-01-01", code_link_count=1)
    assert slugs("graph ", sort="newest") == ["new", "old"]
    assert slugs("graph ", sort="implementations") == ["old", "new"]
    assert slugs("", sort="newest") == ["new", "old"]


def test_newest_first_puts_undated_papers_last_on_every_engine(db):
    Paper.objects.create(slug="undated", title="graph undated", published=None)
    Paper.objects.create(slug="old", title="graph old", published="2010-01-01")
    Paper.objects.create(slug="new", title="graph new", published="2020-01-01")
    assert slugs("graph ", sort="newest") == ["new", "old", "undated"]
    assert slugs("", sort="newest") == ["new", "old", "undated"]
    assert slugs("", sort="implementations") == ["new", "old", "undated"]


def test_highlights_mark_the_words_a_typed_prefix_matched(db):
    Paper.objects.create(slug="learners", title="Few-shot learners", abstract="Learners learn.")
    page = search("learning", Paper.objects.all())
    title, snippet = page.highlights[page.ids[0]]
    assert "<mark>learners</mark>" in title and "<mark>Learners</mark>" in snippet


def test_a_ranked_page_counts_its_candidates_in_the_same_query(docs, django_assert_num_queries):
    from papers.search import ranked_page

    with django_assert_num_queries(1):
        ids, count = ranked_page("graph", Paper.objects.all(), offset=0, limit=2)
    assert count == 3
    found = dict(Paper.objects.filter(id__in=ids).values_list("id", "slug"))
    assert [found[i] for i in ids] == ["graph-nets", "nets-in-abstract"]
    with django_assert_num_queries(2):  # past the end: the count is asked for on its own
        assert ranked_page("graph", Paper.objects.all(), offset=10, limit=2) == ([], 3)


def test_finished_text_does_not_match_its_last_word_as_a_prefix(docs):
    from papers.search import ranked_page

    assert slugs("vis") == ["vision"]  # typing: "vis" may become "vision"
    assert ranked_page("vis", Paper.objects.all(), offset=0, limit=5) == ([], 0)
    assert parse("the", typing=False).empty


def test_a_ranked_page_covers_only_its_window_of_candidates(docs):
    from papers.search import ranked_page

    ids, count = ranked_page("graph", Paper.objects.all(), offset=0, limit=5, candidates=2)
    assert (len(ids), count) == (2, 2)
    assert ranked_page("graph", Paper.objects.all(), offset=2, limit=5, candidates=2) == ([], 2)


def test_the_ranked_window_is_the_first_matches_by_id_however_rows_are_stored(db):
    """The same search ranks the same papers on every request: on PostgreSQL the window
    was whichever matches a scan met first (an updated row moves to the end of the
    scan, and a large table's scan starts where the previous one stopped)."""
    from papers.search import ranked_page

    papers = [
        Paper.objects.create(slug=f"p{i}", title=f"Survey {i}", abstract="graph") for i in range(6)
    ]
    Paper.objects.filter(id__in=[p.id for p in papers[:3]]).update(conference="NeurIPS")
    ids, count = ranked_page("graph", Paper.objects.all(), offset=0, limit=10, candidates=3)
    assert (ids, count) == ([p.id for p in papers[:3]], 3)


def test_postgres_keeps_the_search_vector_in_the_row(db):
    # Matching and scoring read the vector of every candidate: out of line (TOAST) that
    # is several times slower at archive scale (migration 0003).
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL storage setting")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attstorage FROM pg_attribute "
            "WHERE attrelid = 'papers_paper'::regclass AND attname = 'search_vector'"
        )
        assert cursor.fetchone()[0] == "m"


@pytest.fixture
def cap(monkeypatch):
    """A count cap of 3: result sets above it are ranked the way the archive's common
    words are."""
    import papers.search

    monkeypatch.setattr(papers.search, "COUNT_CAP", 3)


def test_above_the_count_cap_title_matches_come_first(db, cap):
    for i in range(3):
        Paper.objects.create(slug=f"abstract-{i}", title=f"Survey {i}", abstract="graph work")
    Paper.objects.create(slug="title", title="Graph models", abstract="Models.")
    page = search("graph ", Paper.objects.all())
    assert page.capped and page.total_display == "3+"
    assert page.ids[0] == Paper.objects.get(slug="title").id
    second = search("graph ", Paper.objects.all(), offset=1, limit=20)
    assert set(second.ids) | {page.ids[0]} == set(Paper.objects.values_list("id", flat=True))


def test_above_the_count_cap_excluded_words_stay_excluded(db, cap):
    for i in range(4):
        Paper.objects.create(slug=f"keep-{i}", title=f"Graph {i}", abstract="graph")
    Paper.objects.create(slug="drop", title="Graph survey", abstract="graph")
    page = search("graph -survey ", Paper.objects.all(), limit=20)
    assert page.capped and Paper.objects.get(slug="drop").id not in page.ids
    assert len(page.ids) == 4


def test_a_typed_word_with_more_matches_than_are_counted_is_searched_as_typed(db, cap):
    # Its prefix would only add matches past the count: "10,000+" either way, and the
    # engine is spared merging every word the prefix starts.
    for i in range(4):
        Paper.objects.create(slug=f"learning-{i}", title=f"Learning {i}", abstract="")
    Paper.objects.create(slug="learners", title="Few-shot learners", abstract="Transformers.")
    page = search("learning", Paper.objects.all(), limit=20)
    assert page.capped and Paper.objects.get(slug="learners").id not in page.ids
    # A rarer word is still matched as a prefix while typing.
    assert slugs("transf") == ["learners"]


def test_filters_apply_above_the_count_cap(db, cap):
    for i in range(5):
        Paper.objects.create(slug=f"code-{i}", title=f"Graph {i}", code_link_count=1)
    for i in range(5):
        Paper.objects.create(slug=f"none-{i}", title=f"Graph none {i}")
    page = search("graph ", Paper.objects.filter(code_link_count__gt=0), limit=20)
    assert page.capped and len(page.ids) == 4  # pages reach the counted window (cap + 1)
    assert not Paper.objects.filter(id__in=page.ids, code_link_count=0).exists()


@pytest.mark.parametrize("small_set", [0, 100_000])
def test_filter_sets_checked_early_or_late_give_the_same_page(make_paper, monkeypatch, small_set):
    # A filter's set of papers is checked against each match before the paper row is
    # read when it is small (SQLite), or with the row otherwise: the page is the same.
    from papers.models import CodeLink, PaperTask, Sample, Task
    from papers.querysets import filter_papers, paper_id_sets
    from papers.search.backends.sqlite import SQLiteBackend

    monkeypatch.setattr(SQLiteBackend, "SMALL_SET", small_set)
    papers = [make_paper(title=f"Graph study {i}") for i in range(6)]
    CodeLink.objects.filter(paper__in=papers[:3]).update(framework="jax")
    Sample.objects.filter(paper__in=papers[1:5], status="timed_out").update(status="ran")
    refresh_counts(Paper.objects.values_list("id", flat=True))
    shared = Task.objects.create(slug="shared", name="Shared")
    PaperTask.objects.bulk_create(PaperTask(paper=p, task=shared) for p in papers[2:])
    for filters in (
        {"task": "shared"},
        {"task": "shared", "framework": "jax"},
        {"task": "shared", "status": "ran"},
        {"framework": "jax", "status": "ran"},
    ):
        base = filter_papers(Paper.objects.visible(), filters)
        expected = search("graph ", base, limit=20)
        narrowed = search("graph ", base, limit=20, narrowed_by=paper_id_sets(filters))
        assert narrowed.ids == expected.ids and narrowed.total == expected.total
        assert narrowed.total == base.filter(title__icontains="graph").count() > 0


@pytest.mark.parametrize("text", ["graph", "graph "])  # finished, and being typed
def test_within_a_filter_set_smaller_than_the_cap_the_matches_are_read_once(
    db, cap, monkeypatch, text
):
    """More papers match than are counted, but the task holds fewer: every match it
    holds is scored at once (at 576k papers, a common word within a task of 9,000
    papers read the word's every match three times: once in id order to count them,
    once as typed, once to score them)."""
    from django.test.utils import CaptureQueriesContext

    from papers import querysets
    from papers.models import PaperTask, Task

    monkeypatch.setattr(querysets, "FEW_ROWS", 1)  # the task's papers are a set, not a list
    others = [Paper.objects.create(slug=f"other-{i}", title=f"Graph {i}") for i in range(4)]
    inside = [
        Paper.objects.create(slug="abstract", title="Survey", abstract="A graph."),
        Paper.objects.create(slug="title", title="Graph", abstract="Models."),
    ]
    task = Task.objects.create(slug="small", name="Small")
    PaperTask.objects.bulk_create(PaperTask(paper=p, task=task) for p in inside)
    with CaptureQueriesContext(connection) as captured:
        base, sets = querysets.narrowed_papers(Paper.objects.visible(), {"task_ids": [task.id]})
        page = search(text, base, limit=20, facets=True, narrowed_by=sets)
    assert sets and page.ids == [inside[1].id, inside[0].id] and page.total == 2
    assert page.facets and not set(page.ids) & {p.id for p in others}
    if connection.vendor == "sqlite":
        reads = [q["sql"] for q in captured if "papers_paper_fts MATCH" in q["sql"]]
        assert len(reads) == 1, reads


def _statements(captured, text: str) -> list[str]:
    return [q["sql"] for q in captured if text in q["sql"]]


def test_matches_expected_within_the_cap_are_scored_without_being_counted_first(db, cap):
    """SQLite counts a query's matches on the newest ids (all of them in a small archive)
    first: within the cap they are scored at once (a phrase of common words at 576k
    papers: 120 ms, where counting them in id order first took 180), above it they are
    ordered by title without scoring."""
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's estimate")
    for i in range(2):
        Paper.objects.create(slug=f"phrase-{i}", title=f"Neural network {i}", abstract="")
    for i in range(4):
        Paper.objects.create(slug=f"graph-{i}", title=f"Graph {i}", abstract="A graph.")
    with CaptureQueriesContext(connection) as captured:
        assert search('"neural network"', Paper.objects.all(), limit=20).total == 2
    assert not _statements(captured, "WITH w AS MATERIALIZED")  # no title-first window
    assert len(_statements(captured, "papers_paper_fts MATCH")) == 2  # estimate, scored page
    with CaptureQueriesContext(connection) as captured:
        assert search("graph ", Paper.objects.all(), limit=20).capped
    assert not _statements(captured, "bm25(")
    with CaptureQueriesContext(connection) as captured:  # no order that scores: no estimate
        assert search('"neural network"', Paper.objects.all(), sort="newest").total == 2
    assert len(_statements(captured, "papers_paper_fts MATCH")) == 1


def test_sqlite_estimates_matches_from_the_newest_ids(db, monkeypatch):
    from papers.search.backends import backend_for
    from papers.search.backends.sqlite import SQLiteBackend

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's estimate")
    monkeypatch.setattr(SQLiteBackend, "SAMPLE_MIN", 10)
    monkeypatch.setattr(SQLiteBackend, "SAMPLE", 0.25)
    for i in range(40):  # "graph" in 1 in 2 of the oldest 30, every one of the newest 10
        title = "Graph" if i >= 30 or i % 2 else "Survey"
        Paper.objects.create(slug=f"p-{i}", title=f"{title} {i}", abstract="")
    engine = backend_for(parse("graph", typing=False), Paper.objects.all())
    assert engine.expected_matches(cap=1) == 40  # the newest 10 ids, all matches, times 4
    assert backend_for(parse("zebra", typing=False), Paper.objects.all()).expected_matches(1) == 0


@pytest.mark.parametrize("text", ["zebra", "zebr", "zebra graph survey", "zebra graph survey "])
def test_a_search_nothing_matches_is_not_counted_again(docs, text):
    """An empty first page is an empty result: no count of the matches follows it, nor a
    scoring of them, nor their facets."""
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        page = search(text, Paper.objects.all(), limit=20, facets=True)
    assert (page.ids, page.total) == ([], 0)
    assert page.facets["code"] == {"has_code": 0, "official": 0}
    assert not _statements(captured, "AS counted")
    if connection.vendor == "sqlite":
        assert not _statements(captured, "bm25(") or not _statements(captured, "WITH w AS")


@pytest.mark.parametrize(
    ("text", "kwargs"),
    [
        ("attention", {}),
        ("attention ", {"sort": "newest"}),
        ("atten", {}),  # a typed prefix: the word as typed matches nothing
        ("attention", {"offset": 100}),  # past the end of the results
        ("attention -survey", {"sort": "implementations"}),
    ],
)
def test_facets_counted_with_the_page_equal_a_count_of_every_match(make_paper, text, kwargs):
    """The page, its count and its facets come from one query: the facets must be those
    of every match, not of the page."""
    from papers.search.backends import backend_for, facet_counts

    for _ in range(4):
        make_paper()
    for i in range(3):
        Paper.objects.create(slug=f"plain-{i}", title=f"Attention without code {i}")
    Paper.objects.create(slug="survey", title="An attention survey", code_link_count=2)
    base = Paper.objects.all()
    page = search(text, base, facets=True, limit=2, **kwargs)
    engine = backend_for(page.parsed, base)
    assert page.facets == facet_counts(*engine.matches(10_000), using=base.db)
    assert page.facets["code"]["has_code"] == (4 if "-survey" in text else 5)
    assert page.total == (7 if "-survey" in text else 8)


@pytest.mark.realdata
def test_a_huge_abstract_does_not_slow_the_highlighted_snippet(db, realdata_abstracts):
    """FTS5's snippet() costs the square of the matches in its text: an abstract that is
    one word 20,000 times takes seconds to highlight (a megabyte, minutes). Snippets are
    taken from a bounded start of the abstract, so the cost is bounded; the real
    abstracts' snippets stay what they were."""
    import time

    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL's ts_headline is linear in the text")
    Paper.objects.create(slug="flood", title="Flood", abstract="attention " * 20_000)
    started = time.perf_counter()
    page = search("attention", Paper.objects.filter(slug="flood"))
    assert time.perf_counter() - started < 1.0
    assert "<mark>attention</mark>" in page.highlights[page.ids[0]][1]
    # Real abstracts: the same snippet as FTS5 gives over the whole text.
    for slug, abstract in realdata_abstracts:
        Paper.objects.create(slug=slug, title=slug, abstract=abstract)
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE VIRTUAL TABLE temp.whole USING fts5(title, abstract, author_names, "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
        cursor.execute(
            "INSERT INTO temp.whole (rowid, title, abstract, author_names) "
            "SELECT id, title, abstract, author_names FROM papers_paper WHERE slug != 'flood'"
        )
        for word in ("learning", "network", "the"):
            cursor.execute(
                "SELECT rowid, snippet(whole, 1, ?, ?, '…', 40) FROM whole WHERE whole MATCH ?",
                ["\x02", "\x03", f'"{word}"'],
            )
            whole = dict(cursor.fetchall())
            page = search(f'"{word}"', Paper.objects.exclude(slug="flood"), limit=20)
            assert page.ids
            for pk in page.ids:
                assert page.highlights[pk][1] == marked(whole[pk]), pk


@pytest.fixture
def realdata_abstracts() -> list[tuple[str, str]]:
    """The longest real abstracts (API-crawled papers), up to 2,790 characters."""
    import json

    from tests.conftest import realdata

    path = realdata("1pha__BayesianActiveLearning/converted/valid_dataset.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows.sort(key=lambda row: -len(row["abstract"]))
    return [(f"real-{i}", row["abstract"]) for i, row in enumerate(rows[:200])]


@pytest.fixture
def real_papers(db) -> list[Paper]:
    """2,625 real papers (title and abstract) from ../shared/realdata, indexed."""
    from tests.conftest import realdata

    path = realdata("1pha__BayesianActiveLearning/converted/test_dataset.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    papers = Paper.objects.bulk_create(
        Paper(slug=f"real-{i}", title=r["title"], abstract=r["abstract"] or "")
        for i, r in enumerate(records)
    )
    # The planner's statistics as an import of these papers leaves them: an earlier
    # test's import may have left statistics of a near-empty table, which lead SQLite
    # to plans hundreds of times slower at this size.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return papers


def _rank_of(text: str, paper: Paper) -> int | None:
    ids = search(text, Paper.objects.visible(), limit=10).ids
    return ids.index(paper.id) + 1 if paper.id in ids else None


@pytest.mark.realdata
def test_a_pasted_title_finds_its_paper_first(real_papers):
    """success@1 of 200 real titles pasted whole (a title that another paper shares
    word for word counts as found if either is first)."""
    rng = random.Random(3)
    sample = rng.sample(real_papers, 200)
    by_title: dict[str, set[int]] = {}
    for paper in real_papers:
        by_title.setdefault(paper.title.casefold(), set()).add(paper.id)
    firsts = 0
    for paper in sample:
        ids = search(paper.title, Paper.objects.visible(), limit=1).ids
        firsts += bool(ids) and ids[0] in by_title[paper.title.casefold()]
    assert firsts / len(sample) >= 0.95, firsts


@pytest.mark.realdata
def test_a_pasted_title_with_one_word_changed_is_still_in_the_top_three(real_papers):
    """One word of the title (not a common one) replaced by another: the paper is among
    the first three results for 95% of 200 real titles."""
    rng = random.Random(4)
    found = tried = 0
    for paper in rng.sample(real_papers, 200):
        words = paper.title.split()
        changeable = [i for i, w in enumerate(words) if len(w) > 3 and w.isalpha()]
        if len(words) < 4 or not changeable:
            continue
        i = rng.choice(changeable)
        words[i] = rng.choice(["banana", "orchestra", "velvet", "tundra"])
        tried += 1
        rank = _rank_of(" ".join(words) + " ", paper)
        found += rank is not None and rank <= 3
    assert tried >= 150 and found / tried >= 0.95, (found, tried)
