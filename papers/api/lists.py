"""Fetching what a page of API results needs, in a fixed number of queries.

Each helper takes the rows of one page and adds what every row needs (authors,
frameworks, ranks) in one query, so an endpoint's query count never grows with the
page size.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django import forms
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from papers import search as fulltext
from papers.api import shapes
from papers.api.http import page_of
from papers.models import (
    CodeLink,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    PaperAuthor,
    Repository,
    ranked_rows,
)
from papers.paging import Window

# The columns a paper in the API needs; the record's JSON blocks, most of a row's
# bytes, are never read.
PAPER_COLUMNS = (
    "id", "slug", "arxiv_id", "nips_id", "url_abs", "url_pdf", "title", "abstract",
    "published", "conference", "conference_url_abs", "conference_url_pdf", "proceeding",
    "updated_at", "hidden", "has_report", "sample_count", "sample_statuses", "report_read_at",
)  # fmt: skip
# What a record's `source` and contributor read (shapes.provenance).
SOURCE_COLUMNS = ("edited_in_admin", "contributed_by", "contributed_at")
METHOD_COLUMNS = (
    "id", "slug", "name", "full_name", "description", "updated_at", "introduced_by__slug",
    "paper_url",
)  # fmt: skip
NEWEST = fulltext.SORT_ORDER["newest"]


def with_source[Q: QuerySet](records: Q, *columns: str) -> Q:
    """`columns` of the records and what says where their values come from, their
    contributor read in the same query (a contributed row costs no query of its own)."""
    return records.select_related("contributed_by").only(*columns, *SOURCE_COLUMNS)


def sourced[M: Model](model: type[M]) -> QuerySet[M]:
    """The model's records with their contributor, for shapes that say where each comes
    from (shapes.provenance): no query per contributed record."""
    return model.objects.select_related("contributed_by")


class NoParameters(forms.Form):
    """Single objects take no query parameters."""


def author_names(paper_ids: list[int]) -> dict[int, list[str]]:
    """Each paper's authors in order, spelled as its record spells them: one query."""
    names: dict[int, list[str]] = {}
    rows = (
        PaperAuthor.objects.filter(paper_id__in=paper_ids)
        .order_by("paper_id", "position")
        .values_list("paper_id", "name", "author__name")
    )
    for paper_id, spelled, name in rows:
        names.setdefault(paper_id, []).append(spelled or name)
    return names


def paper_rows(papers: list[Paper]) -> list[dict[str, Any]]:
    names = author_names([p.id for p in papers])
    return [shapes.paper(p, names.get(p.id, [])) for p in papers]


def paper_page(
    request: HttpRequest, papers: QuerySet[Paper], page: Window, count: int | None = None
) -> dict[str, Any]:
    """A page of papers, newest first: count (unless given), page, authors (three queries)."""
    count = papers.count() if count is None else count
    rows = list(with_source(papers.order_by(*NEWEST), *PAPER_COLUMNS)[page.offset : page.stop])
    return page_of(request, page, count, paper_rows(rows))


def first_frameworks(repository_ids: list[int]) -> dict[int, str]:
    """Each repository's framework, from its first code link that names one."""
    frameworks: dict[int, str] = {}
    rows = (
        CodeLink.objects.filter(repository_id__in=repository_ids)
        .exclude(framework="")
        .order_by("repository_id", "id")
        .values_list("repository_id", "framework")
    )
    for repository_id, framework in rows:
        frameworks.setdefault(repository_id, framework)
    return frameworks


def repository_rows(repositories: list[Repository]) -> list[dict[str, Any]]:
    frameworks = first_frameworks([r.id for r in repositories])
    return [shapes.repository(r, frameworks.get(r.id, "")) for r in repositories]


def methods_with_paper(methods: QuerySet[Method]) -> QuerySet[Method]:
    return methods.select_related("introduced_by").only(*METHOD_COLUMNS)


def method_row(m: Method) -> dict[str, Any]:
    """A method fetched through methods_with_paper()."""
    return shapes.method(m, m.paper_slug or None)


def ranked_results(rows: list[LeaderboardRow]) -> list[dict[str, Any]]:
    """Results with their rank on their own leaderboard, for rows of any boards: two
    queries (the boards' metrics, and every row of those boards, slimmed to what ranking
    reads). `rows` must have their paper select_related."""
    board_ids = sorted({row.leaderboard_id for row in rows})
    metrics: dict[int, list[LeaderboardMetric]] = defaultdict(list)
    for m in LeaderboardMetric.objects.filter(leaderboard_id__in=board_ids):
        metrics[m.leaderboard_id].append(m)
    peers: dict[int, list[LeaderboardRow]] = defaultdict(list)
    ranking = LeaderboardRow.objects.filter(leaderboard_id__in=board_ids).only(
        "id", "leaderboard_id", "position", "metric_values"
    )
    for peer in ranking:
        peers[peer.leaderboard_id].append(peer)
    ranks: dict[int, int | None] = {}
    for board_id, board_rows in peers.items():
        for ranked in ranked_rows(metrics[board_id], board_rows):
            ranks[ranked.id] = ranked.rank
    return [
        shapes.result(
            row,
            ranks.get(row.id),
            metrics[row.leaderboard_id][0].name if metrics[row.leaderboard_id] else None,
        )
        for row in rows
    ]


# The matches a `q` search ranks, in index order (the site ranks the 10,001 it counts).
# Ranking reads every candidate's text vector, so its cost grows with the window: 1,000
# keeps a search for a word in half the abstracts ("learning") under the API's list
# goal (p95 < 100 ms, bench/api.py) on both engines, and a client pages through at most
# that many results.
SEARCH_WINDOW = 1000


def searched_papers(
    q: str | fulltext.ParsedQuery, base: QuerySet[Paper], page: Window
) -> tuple[int, list[Paper]]:
    """Papers matching `q` in relevance order, scored as the site's search scores them,
    over the first SEARCH_WINDOW matches; the count says how many of those a client can
    page through."""
    ids, count = fulltext.ranked_page(
        q, base, offset=page.offset, limit=page.size, candidates=SEARCH_WINDOW
    )
    by_id = {p.id: p for p in with_source(Paper.objects.filter(id__in=ids), *PAPER_COLUMNS)}
    return count, [by_id[pk] for pk in ids if pk in by_id]


def paper_list_page(
    request: HttpRequest,
    q: str | fulltext.ParsedQuery,
    base: QuerySet[Paper],
    page: Window,
    count: int | None = None,
) -> dict:
    """A page of `base` searched for `q` (ranked), or newest first without words; `count`,
    when given, is how many `base` holds (kept, for a list too long to count per request)."""
    parsed = q if isinstance(q, fulltext.ParsedQuery) else fulltext.parse(q, typing=False)
    if parsed.empty:
        return paper_page(request, base, page, count)
    count, papers = searched_papers(parsed, base, page)
    return page_of(request, page, count, paper_rows(papers))
