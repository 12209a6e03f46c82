"""What every full-text engine behind papers.search answers, and how it keeps its index.

An engine (papers.search.backends.sqlite: FTS5; .postgresql: tsvector with GIN and GiST
indexes) is two classes. Its `Backend` answers one search: the same questions about a
parsed query within a filtered set of papers (a Paper queryset): one page of ids in a
given order over a bounded window of matches together with how many matches that window
holds, how many match (up to a cap), the matches as a subquery (for facet counts), and
the highlighted title and snippet of given ids. Its `FullTextIndex` keeps the index in
step with bulk writes (papers.search.index).

Ranking every match of a common word is too slow at archive scale, so relevance is
computed over a bounded window: the first `window` matches by id are scored
(bm25 / ts_rank, title weighing more than abstract, abstract more than authors) and
ordered by score, ties by id. A query with fewer matches than that is ranked exactly.
The search page makes the window the counted one (COUNT_CAP + 1), so a single query
both counts and ranks, and the engine reads each match once. A TIERED backend (SQLite)
orders a window above the cap by title match instead of scoring it
(title_first_window()).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet

from papers.search.facets import FACET_COLUMNS, facet_selects, facets_from
from papers.search.query import ParsedQuery

CANDIDATES = 5000
# Orders of a window's rows, over the columns every window carries (see _window): by
# score (the backend's direction), newest first, most implementations first. Undated
# papers, and those whose date is flagged uncertain, come last in either engine (the
# order of papers.models.NEWEST_FIRST).
_NEWEST = "CASE WHEN date_uncertain THEN NULL ELSE published END DESC NULLS LAST, id DESC"
ORDERS = {
    "newest": _NEWEST,
    "implementations": f"code_link_count DESC, {_NEWEST}",
}


class Backend:
    RELEVANCE = "score, id"
    # Whether a result set above the count cap is ordered by title_first_window() rather
    # than scored over a window of its first matches (see search()).
    TIERED = False
    # The keys of a JSON object column `shape`, one row each, as `key`: the engine's
    # part of the facet counts (facets.facet_selects).
    JSON_KEYS = ""
    # The engine's FullTextIndex.
    index_class: type[FullTextIndex]
    # Besides score: what the orders and the facets read (facets.facet_selects).
    COLUMNS = (
        "id",
        "published",
        "date_uncertain",
        "code_link_count",
        "has_official_code",
        "sample_count",
        "frameworks",
        "sample_statuses",
    )

    def __init__(self, parsed: ParsedQuery, base: QuerySet, narrowed_by: Sequence[QuerySet] = ()):
        self.parsed = parsed
        self.base = base  # the filtered papers the query searches within
        # Sets of paper ids (a `paper_id` column) that `base` is already restricted to:
        # a backend may use them to reject a match early (SQLiteBackend) or to let a
        # small one lead the plan (PostgresBackend).
        self.narrowed_by = tuple(narrowed_by)
        self.connection = connections[base.db]  # the request's database (a replica, maybe)

    def reading(self, parsed: ParsedQuery) -> Backend:
        """The same search of the same papers for another reading of the text."""
        other = copy.copy(self)
        other.parsed = parsed
        return other

    def _fetch(self, sql: str, params) -> list[tuple]:
        with self.connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def _window(self, limit: int, *, score: bool = True) -> tuple[str, tuple]:
        """SQL of the first `limit` matches by id, with the columns id, score
        (NULL unless `score`) and the rest of COLUMNS."""
        raise NotImplementedError

    def matches(self, limit: int) -> tuple[str, tuple]:
        """SQL of the first `limit` matches with the columns facets count (FACET_COLUMNS,
        see papers.search.facets)."""
        sql, params = self._window(limit, score=False)
        return f"SELECT {', '.join(FACET_COLUMNS)} FROM ({sql}) AS matches", params

    def _ordered_window(self, candidates: int, order: str) -> tuple[str, tuple, str]:
        """The window's SQL and params, and the ORDER BY of a page over it. Only a
        relevance order scores the window: newest first and most implementations read
        its columns alone (bm25 reads every match of every word before its first row)."""
        relevance = order == "relevance"
        sql, params = self._window(candidates, score=relevance)
        return sql, params, self.RELEVANCE if relevance else ORDERS[order]

    def ranked_window(
        self, offset: int, limit: int, candidates: int = CANDIDATES, order: str = "relevance"
    ) -> tuple[list[int], int | None]:
        """A page of ids ordered over the first `candidates` matches, and how many matches
        that window holds (at most `candidates`) from the same query; None when the page
        is past the end (a first page that is empty: none match, so 0)."""
        sql, params, order_by = self._ordered_window(candidates, order)
        rows = self._fetch(
            f"SELECT id, COUNT(*) OVER () FROM ({sql}) AS candidates ORDER BY {order_by} "
            f"LIMIT {int(limit)} OFFSET {int(offset)}",
            params,
        )
        return [row[0] for row in rows], window_count(rows, first=offset == 0 and limit > 0)

    def ranked_window_with_facets(
        self, offset: int, limit: int, candidates: int, order: str, cap: int
    ) -> tuple[list[int], int, dict[str, dict[str, int]] | None]:
        """ranked_window() (with the window's count even past its end) and, from the
        same query, the facet counts over the window when it holds `cap` matches or
        fewer (None above): the matches are found once for the page, its count and its
        facets."""
        sql, params, order_by = self._ordered_window(candidates, order)
        within = f"(SELECT COUNT(*) FROM m) <= {int(cap)}"
        rows = self._fetch(
            f"WITH m AS MATERIALIZED ({sql}) "
            "SELECT kind, value, n, position FROM ("
            f"SELECT 'page' AS kind, '' AS value, id AS n, position FROM ("
            f"SELECT id, ROW_NUMBER() OVER (ORDER BY {order_by}) AS position FROM m "
            f"ORDER BY {order_by} LIMIT {int(limit)} OFFSET {int(offset)}) AS page "
            "UNION ALL SELECT 'count', '', COUNT(*), 0 FROM m "
            "UNION ALL SELECT facet, value, n, 0 FROM ("
            f"{facet_selects(self.JSON_KEYS, where=within)}"
            ") AS facets) AS answer",
            params,
        )
        page = sorted((position, n) for kind, _, n, position in rows if kind == "page")
        counted = next(n for kind, _, n, _ in rows if kind == "count")
        facet_rows = [row[:3] for row in rows if row[0] not in ("page", "count")]
        facets = facets_from(facet_rows) if counted <= cap else None
        return [pk for _, pk in page], counted, facets

    def count(self, cap: int) -> int:
        """How many papers match, counting no further than cap + 1."""
        sql, params = self.matches(cap + 1)
        return self._fetch(f"SELECT COUNT(*) FROM ({sql}) AS counted", params)[0][0]

    def ids(self, cap: int) -> list[int]:
        sql, params = self.matches(cap)
        return [row[0] for row in self._fetch(sql, params)]

    def expected_matches(self, cap: int) -> float | None:
        """The engine's estimate of how many papers match, from one quick query, or
        None for an engine that cannot tell without reading them; `cap`: the count
        past which the caller only needs to know that there are more."""
        return None

    def absent_groups(self) -> list[int]:
        """Positions of the query's groups that no paper in the index matches, for an
        engine whose relaxed query (ParsedQuery.relaxed) reads every conjunction's words
        (SQLite); [] for one that finds a relaxed query's matches from its two rarest
        groups alone (PostgreSQL's GIN index), where probing common words costs more."""
        return []

    def title_first_window(
        self, offset: int, limit: int, candidates: int
    ) -> tuple[list[int], int | None]:
        """For backends that are TIERED (see search())."""
        raise NotImplementedError

    def highlights(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        raise NotImplementedError


def window_count(rows: list[tuple], *, first: bool) -> int | None:
    """The count of the window a page was read from, each row holding it second: None
    for a page past the end, whose rows hold no count, unless it is the `first` page of
    some rows (then nothing matches)."""
    if rows:
        return rows[0][1]
    return 0 if first else None


class IndexBatch:
    """One batch's papers, as the full-text index must learn them (`bulk_writes()`)."""

    def __init__(self):
        self.added: list[int] = []
        self.changed: list[tuple[int, str, str, str]] = []  # id and the OLD title/abstract/names

    def add(self, ids: Sequence[int]) -> None:
        self.added.extend(ids)

    def change(self, old_rows: Sequence[tuple[int, str, str, str]]) -> None:
        self.changed.extend(old_rows)


class FullTextIndex:
    """An engine's full-text index as bulk writes keep it (see papers.search.index): per
    batch, or deferred while an import mostly adds papers and built once at its end."""

    # Whether changed papers' previous text must be handed to the batch.
    needs_old_text = False

    def __init__(self, connection: BaseDatabaseWrapper):
        self.connection = connection

    def deferred(self) -> bool:
        """Whether the index is waiting for an import to build it."""
        raise NotImplementedError

    def defer(self) -> None:
        """Stop keeping the index up to date until `build()` (committed at once)."""
        raise NotImplementedError

    def build(self) -> None:
        """Build the whole index from papers_paper and end the deferral, in one
        transaction."""
        raise NotImplementedError

    def end_deferral(self) -> None:
        """The index is kept again (in the transaction that built it)."""

    @contextmanager
    def bulk_writes(self, *, deferred: bool = False) -> Iterator[IndexBatch]:
        """One batch's writes to papers. `deferred`: the index is built later
        (`defer()`), so the batch's papers are not indexed now."""
        yield IndexBatch()
