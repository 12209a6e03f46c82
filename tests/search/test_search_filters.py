"""Search's framework and sample-status filters and its facets read each paper's own
counts (Paper.frameworks, Paper.sample_statuses); they must say what the code links and
samples say, on every engine, above and below the count cap."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections import Counter

import pytest
from django.db import connection
from django.db.models import Exists, OuterRef

from papers import querysets
from papers.kept.papers import refresh_counts
from papers.models import CodeLink, Paper, Repository, Sample
from papers.querysets import filter_papers, paper_id_sets
from papers.search import search

pytestmark = pytest.mark.django_db

FRAMEWORKS = ["pytorch", "pytorch", "tf", "jax", "", 'we"ird']
STATUSES = ["ran", "ran", "ran_honours", "timed_out", 'odd "one"']
FILTERS = [
    {},
    {"framework": "pytorch"},
    {"framework": 'we"ird'},
    {"framework": "nothing-has-this"},
    {"status": "ran"},
    {"status": 'odd "one"'},
    {"has_code": True, "framework": "tf"},
    {"official": True, "status": "ran_honours"},
    {"framework": "jax", "status": "timed_out"},
    {"year_from": 2015, "framework": "pytorch"},
]


@pytest.fixture
def archive(db):
    """Forty papers, most titled "Graph …", with random code links and samples; some
    hidden, some undated."""
    rng = random.Random(7)
    for i in range(40):
        paper = Paper.objects.create(
            slug=f"p-{i}",
            title=f"Graph study {i}" if i % 7 else f"Other topic {i}",
            hidden=i % 11 == 5,
            published=None if i % 9 == 4 else dt.date(2010 + i % 12, 1 + i % 12, 1),
        )
        for j in range(rng.choice([0, 0, 1, 2, 3])):
            repository = Repository.objects.create(url=f"https://github.com/o{i}/r{j}")
            CodeLink.objects.create(
                paper=paper,
                repository=repository,
                framework=rng.choice(FRAMEWORKS),
                is_official=rng.random() < 0.4,
            )
        for j in range(rng.choice([0, 0, 0, 2, 4])):
            Sample.objects.create(paper=paper, position=j, repo="o/r", status=rng.choice(STATUSES))
    refresh_counts(Paper.objects.values_list("id", flat=True))


@pytest.fixture
def per_paper(monkeypatch):
    """Every related-row filter checked per paper, none read first as a list of ids
    (what a filter with many rows does: querysets.narrowed_papers)."""
    monkeypatch.setattr(querysets, "_few_paper_ids", lambda rows: None)


def _as_before(filters: dict):
    """The filters as they read the code links and samples themselves."""
    papers = Paper.objects.visible()
    if filters.get("has_code"):
        papers = papers.filter(code_link_count__gt=0)
    if filters.get("official"):
        papers = papers.filter(has_official_code=True)
    if framework := filters.get("framework"):
        papers = papers.filter(
            Exists(CodeLink.objects.filter(paper=OuterRef("pk"), framework=framework))
        )
    if status := filters.get("status"):
        papers = papers.filter(Exists(Sample.objects.filter(paper=OuterRef("pk"), status=status)))
    if year := filters.get("year_from"):
        papers = papers.filter(published__gte=dt.date(year, 1, 1))
    return papers


def _facets(ids) -> dict[str, dict[str, int]]:
    """The facets counted from the code links and samples of these papers."""
    papers = Paper.objects.filter(id__in=ids)
    links = CodeLink.objects.filter(paper__in=papers).exclude(framework="")
    frameworks = Counter(f for _, f in set(links.values_list("paper_id", "framework")))
    samples = Sample.objects.filter(paper__in=papers)
    statuses = Counter(s for _, s in set(samples.values_list("paper_id", "status")))
    code = {
        "has_code": papers.filter(code_link_count__gt=0).count(),
        "official": papers.filter(has_official_code=True).count(),
    }
    return {"code": code, "framework": dict(frameworks), "status": dict(statuses)}


def _newest(ids) -> list[int]:
    rows = Paper.objects.filter(id__in=ids).values_list("id", "published")
    undated = sorted((pk for pk, day in rows if day is None), reverse=True)
    dated = sorted(((day, pk) for pk, day in rows if day is not None), reverse=True)
    return [pk for _, pk in dated] + undated


def cleaned(filters: dict) -> dict:
    """The filters as SearchForm cleans them: a framework as the stored spellings it
    matches (here the one given)."""
    if "framework" in filters:
        return {**filters, "frameworks": [filters["framework"]]}
    return filters


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f) if f else "none")
@pytest.mark.parametrize("text", ["graph ", "graph", ""])
@pytest.mark.parametrize("few_rows", [querysets.FEW_ROWS, 0], ids=["rows first", "per paper"])
def test_filters_and_facets_say_what_the_code_links_and_samples_say(
    archive, filters, text, few_rows, monkeypatch
):
    monkeypatch.setattr(querysets, "FEW_ROWS", few_rows)
    expected = _as_before(filters)
    if text:
        expected = expected.filter(title__icontains="graph")
    ids = set(expected.values_list("id", flat=True))
    base = filter_papers(Paper.objects.visible(), cleaned(filters))
    for sort in ("relevance", "newest"):
        page = search(
            text,
            base,
            sort=sort,
            limit=50,
            facets=True,
            narrowed_by=paper_id_sets(cleaned(filters)),
        )
        assert (page.total, page.capped) == (len(ids), False)
        assert set(page.ids) == ids
        assert page.facets == _facets(ids)
    assert page.ids == _newest(ids)


@pytest.mark.parametrize(
    "filters",
    [{}, {"framework": "pytorch"}, {"status": "ran"}, {"has_code": True, "framework": "tf"}],
    ids=repr,
)
def test_above_the_count_cap_the_window_is_the_first_filtered_matches_by_id(
    archive, filters, monkeypatch
):
    import papers.search

    monkeypatch.setattr(papers.search, "COUNT_CAP", 3)
    matches = sorted(
        _as_before(filters).filter(title__icontains="graph").values_list("id", flat=True)
    )
    assert len(matches) > 4
    base = filter_papers(Paper.objects.visible(), cleaned(filters))
    page = search("graph ", base, sort="newest", limit=20, facets=True)
    assert page.capped and page.facets is None
    assert page.ids == _newest(matches[:4])  # the counted window: cap + 1


def test_postgres_reads_a_common_words_matches_in_id_order_from_the_gist_index(archive):
    """papers_paper_search_gist (migration 0012) can give the window's matches in its
    order, so the planner need not read every row on the way; the window must stay
    ordered the way the index orders them."""
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL index")
    from papers.search.backends import backend_for
    from papers.search.query import parse

    engine = backend_for(parse("graph "), Paper.objects.visible())
    sql, params = engine._window(10)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "papers_paper_search_gist" in plan and "Sort" not in plan


def test_postgres_walks_only_papers_with_code_when_the_filters_ask_for_code(archive, per_paper):
    """A has-code or framework filter walks the GiST index of the visible papers with
    code (migration 0014): no row of a paper without code is read only to be dropped."""
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL index")
    for filters in ({"has_code": True}, {"framework": "pytorch"}):
        plan = _walk_plan(filters)
        assert set(_walked_by(plan)) == {"papers_paper_code_search_gist"}, (filters, plan)


def test_postgres_checks_a_range_of_years_in_the_walked_index(archive, per_paper):
    """Walking a common word's matches in id order, a range of years is an index
    condition (migration 0025): a match outside the range is never read from the table
    only to be dropped."""
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL index")
    for filters in ({"year_from": 2019, "year_to": 2020}, {"year_from": 2019, "has_code": True}):
        plan = _walk_plan(filters)
        walked = _walked_by(plan)
        assert len(walked) == 1, (filters, plan)
        (conditions,) = walked.values()
        assert "published >=" in conditions and "@@" in conditions, (filters, plan)


def _walk_plan(filters: dict) -> list[str]:
    """The plan of the window of "graph" within the filtered papers, with the walk forced."""
    from papers.search.backends import backend_for
    from papers.search.query import parse

    base = filter_papers(Paper.objects.visible(), cleaned(filters))
    sql, params = backend_for(parse("graph "), base)._window(10)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        return [row[0] for row in cursor.fetchall()]


def _walked_by(plan: list[str]) -> dict[str, str]:
    """The indexes whose scan yields rows in id order (the walk), with their index
    conditions."""
    found, index, condition = {}, None, ""
    for line in plan:
        if line.lstrip().startswith("->") or not line.startswith(" "):  # a plan node
            scan = re.search(r"Index Scan using (\w+)", line)
            index, condition = (scan.group(1) if scan else None), ""
        elif index and "Index Cond:" in line:
            condition = line
        elif index and "Order By: (id <-> " in line:
            found[index] = condition
    return found


def test_postgres_walks_the_gist_index_only_for_a_query_with_many_matches(archive, per_paper):
    """A rare word's window walked in id order would check every entry of the GiST
    index: papers_search_in_id_order() sends it to the GIN index instead, from
    PostgreSQL's estimate of the filtered matches."""
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL function")
    from papers.search.backends import backend_for
    from papers.search.query import parse

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE papers_paper")

    def walks(text: str, filters: dict) -> bool:
        base = filter_papers(Paper.objects.visible(), cleaned(filters))
        engine = backend_for(parse(text), base)
        matches = engine._matching('"papers_paper"."search_vector"').order_by().values("id")
        sql = connection.ops.compose_sql(*matches.query.sql_with_params())
        with connection.cursor() as cursor:
            cursor.execute("SELECT papers_search_in_id_order(%s, NULL, 10)", [sql])
            return cursor.fetchone()[0]

    assert walks("graph ", {})  # 30 of 40 papers
    assert not walks("nowhere ", {})
    assert not walks("graph ", {"framework": "nothing-has-this"})


def test_postgres_counts_words_that_come_together_on_a_sample(db):
    """PostgreSQL estimates a conjunction of words as if each came independently of the
    others: words that nearly always come together (state of the art) would be sent to
    the GIN index, which reads every match, and words that never do would walk the
    whole GiST index. The choice counts the words on a sample of papers as well
    (migration 0027)."""
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL function")
    from papers.search.backends import backend_for
    from papers.search.query import parse

    texts = ["alpha beta gamma delta omega"] * 600 + ["zeta alpha"] * 700 + ["zeta"] * 700
    Paper.objects.bulk_create(
        Paper(slug=f"p{i}", title=f"Paper {i}", abstract=text) for i, text in enumerate(texts)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE papers_paper")

    def walks(text: str, *, sampled: bool = True) -> bool:
        engine = backend_for(parse(text, typing=False), Paper.objects.all())
        vector = '"papers_paper"."search_vector"'
        matches = engine._matching(vector).order_by().values("id")
        sql = connection.ops.compose_sql(*matches.query.sql_with_params())
        query, params = engine.tsquery()
        words = connection.ops.compose_sql(f"{vector} @@ {query}", params) if sampled else None
        with connection.cursor() as cursor:
            cursor.execute("SELECT papers_search_in_id_order(%s, %s, 10)", [sql, words])
            return cursor.fetchone()[0]

    # In 65%, 30%, 30% and 30% of the papers (estimated together in 35), together in 600.
    assert not walks("alpha beta gamma delta", sampled=False)
    assert walks("alpha beta gamma delta")
    # In 30% and 70% of the papers (estimated together in 420), together in none.
    assert walks("omega zeta", sampled=False)
    assert not walks("omega zeta")


@pytest.mark.parametrize(
    "filters",
    [{"status": "nothing-has-this"}, {"framework": "nothing-has-this"}, {"author": "nobody"}],
    ids=repr,
)
def test_a_filter_value_no_row_has_answers_without_reading_the_papers(archive, filters):
    """Read first, an empty set of rows leaves nothing to search: no paper is read (at
    576k papers, checking each for a status no sample has took ~0.9 s)."""
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        base, sets = querysets.narrowed_papers(Paper.objects.visible(), cleaned(filters))
        for text in ("graph ", ""):
            page = search(text, base, limit=20, facets=True, narrowed_by=sets)
            assert (page.ids, page.total, page.capped) == ([], 0, False)
            assert page.facets["framework"] == {} and page.facets["status"] == {}
    assert not [q["sql"] for q in captured if '"papers_paper"' in q["sql"]]


def test_an_authors_filter_leads_with_the_authors_papers(make_paper):
    """An author's (or a repository's) papers are read first and the search or list
    runs over their ids, not over every paper checked for the author."""
    from django.test.utils import CaptureQueriesContext

    papers = [make_paper(title=f"Graph work {i}", authors=["Ada Lovelace"]) for i in range(3)]
    make_paper(title="Graph work by another")
    slug = papers[0].authorships.first().author.slug
    for text in ("graph", ""):
        with CaptureQueriesContext(connection) as captured:
            base, sets = querysets.narrowed_papers(Paper.objects.visible(), {"author": slug})
            page = search(text, base, sort="newest", limit=20, narrowed_by=sets)
        assert sorted(page.ids) == sorted(p.id for p in papers)
        assert not any("EXISTS(SELECT" in q["sql"] for q in captured), captured.captured_queries


def test_sqlite_checks_each_match_in_the_search_index_not_the_paper_row(archive, per_paper):
    if connection.vendor != "sqlite":
        pytest.skip("an SQLite index")
    from papers.search.backends import backend_for
    from papers.search.query import parse

    base = filter_papers(Paper.objects.visible(), cleaned({"has_code": True, "framework": "tf"}))
    sql, params = backend_for(parse("graph "), base)._window(10)
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        plan = "\n".join(row[-1] for row in cursor.fetchall())
    assert "USING COVERING INDEX paper_search_idx" in plan


def test_the_framework_names_offered_are_every_distinct_name_links_give(archive):
    """The names walked one index lookup at a time are the DISTINCT of the links' names,
    in the same order, blank left out, hidden papers' links counted (a name stays typeable)."""
    expected = list(
        CodeLink.objects.exclude(framework="")
        .order_by("framework")
        .values_list("framework", flat=True)
        .distinct()
    )
    assert set(expected) == {"pytorch", "tf", "jax", 'we"ird'}
    assert querysets.frameworks() == expected
    CodeLink.objects.all().delete()
    assert querysets.frameworks() == []
