"""The engines behind papers.search: SQLite FTS5 and PostgreSQL tsvector/GIN.

Both answer the same questions about a parsed query within a filtered set of papers
(a Paper queryset): one page of ids in a given order over a bounded window of matches
together with how many matches that window holds, how many match (up to a cap), the
matches as a subquery (for facet counts), and the highlighted title and snippet of
given ids.

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
import re
from collections.abc import Sequence
from functools import cached_property
from itertools import islice

from django.db import connections
from django.db.models import BigIntegerField, BooleanField, FloatField, QuerySet, Value
from django.db.models.expressions import RawSQL

from papers.search.facets import FACET_COLUMNS, facet_selects, facets_from
from papers.search.query import ParsedQuery, Term

CANDIDATES = 5000
_WORD = re.compile(r"[^\W_]+")  # a token of FTS5's unicode61 tokenizer, near enough
MARK_START, MARK_END = "\x02", "\x03"  # replaced by <mark> after HTML-escaping
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
        is past the end."""
        sql, params, order_by = self._ordered_window(candidates, order)
        rows = self._fetch(
            f"SELECT id, COUNT(*) OVER () FROM ({sql}) AS candidates ORDER BY {order_by} "
            f"LIMIT {int(limit)} OFFSET {int(offset)}",
            params,
        )
        return [row[0] for row in rows], (rows[0][1] if rows else None)

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
            f"{facet_selects(self.connection.vendor, where=within)}"
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

    def title_first_window(
        self, offset: int, limit: int, candidates: int
    ) -> tuple[list[int], int | None]:
        """For backends that are TIERED (see search())."""
        raise NotImplementedError

    def highlights(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        raise NotImplementedError


class SQLiteBackend(Backend):
    TIERED = True
    # A covering index of COLUMNS and the filters' columns (migrations 0011, 0017): each match
    # FTS5 yields is checked in its entry (~0.3 µs) rather than in the paper's row, which
    # holds the abstract (~2 µs). Without statistics SQLite looks a rowid up in the table,
    # so the window names the index.
    INDEX = "paper_search_idx"
    SMALL_SET = 25_000  # rows; see _small_sets
    WEIGHTS = "10.0, 3.0, 1.0"  # title, abstract, author_names
    RELEVANCE = "score, id"  # bm25() is lower for better matches
    # A private, per-connection FTS5 table the page's papers are copied into to be
    # highlighted (see highlights()).
    PROBE = "temp.papers_highlight"
    # snippet() weighs every window around every match against every other match: its
    # cost is the square of the matches in the text (one word 20,000 times: seconds).
    # So an abstract is snippeted from its first SNIPPET_WORDS words (real abstracts
    # have fewer than 500), read from its first SNIPPET_CHARS characters.
    SNIPPET_WORDS = 1000
    SNIPPET_CHARS = 20_000

    def match(self, *, title: bool = False) -> str:
        """The FTS5 expression; `title`: the positive words must all be in the title (the
        excluded words stay excluded from every column)."""
        positive = " AND ".join(
            "(" + " OR ".join(self._term(t) for t in group) + ")" for group in self.parsed.groups
        )
        negative = "".join(f" NOT {self._term(t)}" for t in self.parsed.excluded)
        if title:
            positive = f"{{title}} : ({positive})"
        return f"({positive}){negative}"

    @staticmethod
    def _term(term: Term) -> str:
        # Only \w characters reach here (see query.py), so quoting is always safe.
        # A prefix term also matches the word itself (FTS5 stems it first: "learning"*
        # is learn*), as on PostgreSQL; an added OR of the exact word would only make
        # bm25() read that word's postings once more.
        quoted = '"' + " ".join(term.words) + '"'
        return f"{quoted}*" if term.prefix else quoted

    def _window(self, limit: int, *, score: bool = True) -> tuple[str, tuple]:
        # SQLite flattens the filtered subquery into a join driven by the FTS index.
        base = self.base.order_by().values(*self.COLUMNS)
        base_sql, base_params = base.query.sql_with_params()
        table = f'FROM "{base.model._meta.db_table}"'
        base_sql = base_sql.replace(table, f"{table} INDEXED BY {self.INDEX}", 1)
        columns = ", ".join(f"base.{c} AS {c}" for c in self.COLUMNS[1:])
        # bm25() reads every match of every word once per query, before the first row, to
        # weigh the words: only a ranking asks for it, never a count.
        scored = f"bm25(papers_paper_fts, {self.WEIGHTS})" if score else "NULL"
        early, early_params = self._small_sets
        sql = (
            f"SELECT papers_paper_fts.rowid AS id, {scored} AS score, {columns} "
            f"FROM papers_paper_fts JOIN ({base_sql}) AS base ON base.id = papers_paper_fts.rowid "
            f"WHERE papers_paper_fts MATCH %s{early} LIMIT {int(limit)}"
        )
        return sql, (*base_params, self.match(), *early_params)

    def reading(self, parsed: ParsedQuery) -> Backend:
        self._small_sets  # noqa: B018 (counted once, shared with the other reading)
        return super().reading(parsed)

    @cached_property
    def _small_sets(self) -> tuple[str, tuple]:
        """`AND +rowid IN (…)` for each set the papers are narrowed by that holds at most
        SMALL_SET rows, and its parameters.

        Each match the index yields is joined to its paper row (~2 µs: the rows are wide)
        before the filters are checked; a word in 60% of the archive with a filter that
        keeps a few hundred of its matches reads all 340k rows to find them (~0.7 s).
        Checked first against a small set, held in memory, the other matches cost ~0.2 µs.
        The `+` keeps SQLite from handing the set to FTS5 as rowid lookups, which
        re-evaluate the whole query for each id. A large set is left to the join (its
        matches are dense, and the check per row is an index probe)."""
        clauses, params = [], []
        for rows in self.narrowed_by:
            if rows[: self.SMALL_SET + 1].count() <= self.SMALL_SET:
                sql, rows_params = rows.query.sql_with_params()
                clauses.append(f" AND +papers_paper_fts.rowid IN ({sql})")
                params.extend(rows_params)
        return "".join(clauses), tuple(params)

    def title_first_window(
        self, offset: int, limit: int, candidates: int
    ) -> tuple[list[int], int | None]:
        """Like ranked_window(), for a result set too large to score: over its first
        `candidates` matches, those whose title matches every word first, then by id.

        bm25() reads every match of every word before its first row, to weigh the words
        (a phrase in a third of the abstracts: ~120 ms), whatever the window. Here the
        window is read once, in index order, and the title matches are looked up within
        the window's id range only, so the cost is bounded by the window."""
        sql, params = self._window(candidates, score=False)
        rows = self._fetch(
            f"WITH w AS MATERIALIZED (SELECT id FROM ({sql}) AS matches) "
            "SELECT id, (SELECT COUNT(*) FROM w) FROM w ORDER BY id IN ("
            "SELECT rowid FROM papers_paper_fts WHERE papers_paper_fts MATCH %s "
            "AND rowid <= (SELECT MAX(id) FROM w)) DESC, id "
            f"LIMIT {int(limit)} OFFSET {int(offset)}",
            (*params, self.match(title=True)),
        )
        return [row[0] for row in rows], (rows[0][1] if rows else None)

    def highlights(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        """Titles and snippets marked by FTS5 itself, as it matched them (stemming,
        prefixes, phrases), from a probe table holding only the page's papers.

        Asking the archive's index for `rowid IN (…) AND MATCH` re-evaluates the whole
        query for each id, and a prefix term ("learning" while typing) expands to every
        indexed word that starts with its stem each time: ~15 ms a row for a word in 60%
        of abstracts. In the probe the same expression runs over 20 rows.

        The probe holds the rows of the pages being highlighted on this connection, each
        page reading and then removing its own: a connection shared between threads (an
        in-memory database under a threaded test server) may highlight two pages at once,
        and a page may share papers with the other (written again, with the same text)."""
        if not ids:
            return {}
        placeholders = ", ".join(["%s"] * len(ids))
        with self.connection.cursor() as cursor:
            cursor.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {self.PROBE} USING fts5("
                "title, abstract, author_names, "
                "tokenize='porter unicode61 remove_diacritics 2')"
            )
            cursor.execute(
                f"SELECT id, title, substr(abstract, 1, {self.SNIPPET_CHARS}), author_names "
                f"FROM papers_paper WHERE id IN ({placeholders})",
                ids,
            )
            rows = [
                (pk, title, self._first_words(abstract), names)
                for pk, title, abstract, names in cursor.fetchall()
            ]
            cursor.executemany(
                f"INSERT OR REPLACE INTO {self.PROBE} (rowid, title, abstract, author_names) "
                "VALUES (%s, %s, %s, %s)",
                rows,
            )
            cursor.execute(
                "SELECT rowid, "
                f"highlight(papers_highlight, 0, '{MARK_START}', '{MARK_END}'), "
                f"snippet(papers_highlight, 1, '{MARK_START}', '{MARK_END}', '…', 40) "
                f"FROM {self.PROBE} WHERE papers_highlight MATCH %s "
                f"AND rowid IN ({placeholders})",
                (self.match(), *ids),
            )
            found = {row[0]: (row[1], row[2]) for row in cursor.fetchall()}
            cursor.execute(f"DELETE FROM {self.PROBE} WHERE rowid IN ({placeholders})", ids)
            return found

    @classmethod
    def _first_words(cls, text: str | None) -> str | None:
        """The text up to its SNIPPET_WORDS-th word (runs of letters and digits, as FTS5's
        tokenizer splits them), in one pass."""
        last = next(islice(_WORD.finditer(text or ""), cls.SNIPPET_WORDS - 1, None), None)
        return text[: last.end()] if last else text


# The search vector as papers_paper_search_gist indexes it (migration 0012): the same
# vector, under an expression only that index answers, so that the planner never takes
# the GiST index for a search the GIN index answers (a rare word's), nor the reverse.
WALKED_VECTOR = """COALESCE("papers_paper"."search_vector", ''::tsvector)"""
# "id <-> 0", btree_gist's distance from 0: the id order, which the GiST index yields.
BY_ID = RawSQL('"papers_paper"."id" <-> 0', (), output_field=BigIntegerField()).asc()


class PostgresBackend(Backend):
    WEIGHTS = "'{0.1, 0.2, 0.4, 1.0}'"  # D, C (authors), B (abstract), A (title)
    RELEVANCE = "score DESC, id"

    def tsquery(self) -> tuple[str, list]:
        """A tsquery expression built from plainto/phraseto_tsquery pieces: user text is
        only ever a bound parameter, never tsquery syntax."""
        params: list = []

        def term(t: Term) -> str:
            text = " ".join(t.words)
            if t.prefix:
                # The stem as a prefix, as SQLite's FTS5 reads a prefix term ("learning"
                # also finds "learners"); unstemmed as well, for a stop word being typed.
                params.extend([f"{text}:*", f"{text}:*"])
                return "(to_tsquery('cwp_english', %s) || to_tsquery('cwp_simple', %s))"
            params.append(text)
            return f"{'phraseto_tsquery' if t.is_phrase else 'plainto_tsquery'}('cwp_english', %s)"

        positive = " && ".join(
            "(" + " || ".join(term(t) for t in group) + ")" for group in self.parsed.groups
        )
        negative = "".join(f" && !!{term(t)}" for t in self.parsed.excluded)
        return f"({positive}{negative})", params

    def _window(self, limit: int, *, score: bool = True) -> tuple[str, tuple]:
        """The first `limit` matches by id, found one of two ways, whichever suits the
        query: PostgreSQL's estimate of its matches decides, at run time, which of the
        two parts of the UNION runs (papers_search_in_id_order(), migration 0012).

        A query with many matches walks papers_paper_search_gist in id order: the
        index holds each paper's hashed lexemes, so only the rows that hold every word
        are read (three common words: ~11,300 rows, where the primary key's walk read
        ~52,600). Limited to papers with code (has-code or framework filter), it walks
        papers_paper_code_search_gist, the same index over those papers alone, and
        reads no paper without code (migration 0014).

        One with few matches (or a prefix, which the GiST index cannot check) has the
        GIN index find them all, and sorts them: walked, its window would read the
        whole GiST index. Left to choose between the two indexes, the planner takes the
        walk for a word in 2,300 papers (465 ms against ~7 ms): it cannot know that a
        lossy index checks every entry.

        Without an order the window would be whichever matches a scan met first, and a
        sequential scan of a large table starts where the last one left off
        (synchronize_seqscans), so the same search would rank a different window from
        one request to the next."""
        vector = '"papers_paper"."search_vector"'
        if self.parsed.has_prefix:
            plain = self._matches(limit, score, "id", vector, sets=True)
            return plain.query.sql_with_params()
        # The estimate is of the filtered matches (a filter a few papers pass is best
        # led by its own index), planned from this SQL with its values in it. As a
        # subquery the function runs once, before either part (EXPLAIN makes it
        # volatile, which a condition would otherwise run row by row).
        counted = self._matching(vector).order_by().values("id")
        estimated = self.connection.ops.compose_sql(*counted.query.sql_with_params())
        walk = ("(SELECT papers_search_in_id_order(%s, %s))", (estimated, int(limit)))
        walked = self._matches(limit, score, BY_ID, WALKED_VECTOR, walk)
        plain = self._matches(limit, score, "id", vector, (f"NOT {walk[0]}", walk[1]), sets=True)
        walked_sql, walked_params = walked.query.sql_with_params()
        plain_sql, plain_params = plain.query.sql_with_params()
        return f"({walked_sql}) UNION ALL ({plain_sql})", (*walked_params, *plain_params)

    def _matching(self, vector: str) -> QuerySet:
        """The papers of `base` whose `vector` (an expression of the search vector)
        matches."""
        query, params = self.tsquery()
        return self.base.filter(RawSQL(f"{vector} @@ {query}", params, BooleanField()))

    def _matches(
        self,
        limit: int,
        score: bool,
        order,
        vector: str,
        when: tuple[str, tuple] = ("", ()),
        *,
        sets: bool = False,
    ) -> QuerySet:
        """The first `limit` papers of `base` in `order` whose `vector` (an expression
        of the search vector) matches, with the columns id, score and COLUMNS; none
        unless `when` (a condition on constants alone, and its params) holds. `sets`:
        name the sets the papers are narrowed by as well."""
        # The vector is stored inline (migration 0003): matching and scoring read it
        # from the heap row the scan is on, not from TOAST.
        query, params = self.tsquery()
        matching = self._matching(vector)
        if when[0]:
            matching = matching.filter(RawSQL(*when, BooleanField()))
        if sets:
            # The sets the papers are narrowed by, once more as sets: a small one (a
            # rare framework's papers) can then lead the plan, its papers' rows read
            # rather than every match's (576k papers: `learning` with a status that 650
            # of its matches hold, ~20 ms against ~500 ms).
            for rows in self.narrowed_by:
                matching = matching.filter(id__in=rows)
        if score:  # PostgreSQL computes a subquery's every column, used or not
            scored = RawSQL(
                f'ts_rank({self.WEIGHTS}, "papers_paper"."search_vector", {query})',
                params,
                FloatField(),
            )
        else:
            scored = Value(None, FloatField())
        return (
            matching.order_by(order)
            .annotate(score=scored)
            .values("id", "score", *self.COLUMNS[1:])[:limit]
        )

    def highlights(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        if not ids:
            return {}
        query, qparams = self.tsquery()
        options = (
            f"StartSel={MARK_START}, StopSel={MARK_END}, MaxWords=40, MinWords=20, "
            "MaxFragments=2, FragmentDelimiter=…"
        )
        title_options = f"StartSel={MARK_START}, StopSel={MARK_END}, HighlightAll=true"
        sql = (
            f"SELECT p.id, ts_headline('cwp_english', p.title, {query}, %s), "
            f"ts_headline('cwp_english', p.abstract, {query}, %s) "
            "FROM papers_paper p WHERE p.id = ANY(%s)"
        )
        rows = self._fetch(sql, [*qparams, title_options, *qparams, options, list(ids)])
        return {row[0]: (row[1], row[2]) for row in rows}


def backend_for(
    parsed: ParsedQuery, base: QuerySet, narrowed_by: Sequence[QuerySet] = ()
) -> Backend:
    vendor = connections[base.db].vendor
    if vendor == "postgresql":
        return PostgresBackend(parsed, base, narrowed_by)
    if vendor == "sqlite":
        return SQLiteBackend(parsed, base, narrowed_by)
    raise NotImplementedError(f"no full-text search for {vendor}")
