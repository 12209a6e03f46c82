"""The engines behind papers.search: SQLite FTS5 and PostgreSQL tsvector/GIN.

Both answer the same three questions about a parsed query within a filtered set of
papers (a Paper queryset): how many match (exactly, up to a cap), which ids come on
a page in relevance order, and the highlighted title and snippet of given ids.

Ranking every match of a common word is too slow at archive scale, so relevance is
computed over a bounded candidate set: the first CANDIDATES matches in index order
are scored (bm25 / ts_rank, title weighing more than abstract, abstract more than
authors) and ordered by score, ties by id. A query with fewer matches than that is
ranked exactly.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import BooleanField, FloatField, QuerySet
from django.db.models.expressions import RawSQL

from papers.search.query import ParsedQuery, Term

CANDIDATES = 5000
MARK_START, MARK_END = "\x02", "\x03"  # replaced by <mark> after HTML-escaping


class Backend:
    def __init__(self, parsed: ParsedQuery, base: QuerySet):
        self.parsed = parsed
        self.base = base  # the filtered papers the query searches within

    def _fetch(self, sql: str, params) -> list[tuple]:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def _ranked(
        self, offset: int, limit: int, columns: str, candidates: int = CANDIDATES
    ) -> list[tuple]:
        """`columns` of one page of the candidates (`id`, `score`) in relevance order."""
        raise NotImplementedError

    def ranked(self, offset: int, limit: int) -> list[int]:
        return [row[0] for row in self._ranked(offset, limit, "id")]

    def ranked_window(
        self, offset: int, limit: int, candidates: int = CANDIDATES
    ) -> tuple[list[int], int | None]:
        """A page of ranked ids, and how many candidates were ranked (at most
        `candidates`) from the same query; None when the page is past the end."""
        rows = self._ranked(offset, limit, "id, COUNT(*) OVER ()", candidates)
        return [row[0] for row in rows], (rows[0][1] if rows else None)


class SQLiteBackend(Backend):
    WEIGHTS = "10.0, 3.0, 1.0"  # title, abstract, author_names

    def match(self) -> str:
        positive = " AND ".join(
            "(" + " OR ".join(self._term(t) for t in group) + ")" for group in self.parsed.groups
        )
        negative = "".join(f" NOT {self._term(t)}" for t in self.parsed.excluded)
        return f"({positive}){negative}"

    @staticmethod
    def _term(term: Term) -> str:
        # Only \w characters reach here (see query.py), so quoting is always safe.
        quoted = '"' + " ".join(term.words) + '"'
        return f"({quoted} OR {quoted}*)" if term.prefix else quoted

    def _joined(self, select: str, limit: int) -> tuple[str, tuple]:
        # SQLite flattens the filtered subquery into a join driven by the FTS index.
        base_sql, base_params = self.base.order_by().values("id").query.sql_with_params()
        sql = (
            f"SELECT {select} FROM papers_paper_fts "
            f"JOIN ({base_sql}) AS base ON base.id = papers_paper_fts.rowid "
            f"WHERE papers_paper_fts MATCH %s LIMIT {int(limit)}"
        )
        return sql, (*base_params, self.match())

    def count(self, cap: int) -> int:
        sql, params = self._joined("1", cap + 1)
        return self._fetch(f"SELECT COUNT(*) FROM ({sql})", params)[0][0]

    def ids(self, cap: int) -> list[int]:
        sql, params = self._joined("papers_paper_fts.rowid", cap)
        return [row[0] for row in self._fetch(sql, params)]

    def _ranked(
        self, offset: int, limit: int, columns: str, candidates: int = CANDIDATES
    ) -> list[tuple]:
        sql, params = self._joined(
            f"papers_paper_fts.rowid AS id, bm25(papers_paper_fts, {self.WEIGHTS}) AS score",
            candidates,
        )
        return self._fetch(
            f"SELECT {columns} FROM ({sql}) ORDER BY score, id "
            f"LIMIT {int(limit)} OFFSET {int(offset)}",
            params,
        )

    def highlights(self, ids: list[int]) -> dict[int, tuple[str, str]]:
        if not ids:
            return {}
        placeholders = ", ".join(["%s"] * len(ids))
        sql = (
            "SELECT rowid, "
            f"highlight(papers_paper_fts, 0, '{MARK_START}', '{MARK_END}'), "
            f"snippet(papers_paper_fts, 1, '{MARK_START}', '{MARK_END}', '…', 40) "
            f"FROM papers_paper_fts WHERE papers_paper_fts MATCH %s AND rowid IN ({placeholders})"
        )
        return {row[0]: (row[1], row[2]) for row in self._fetch(sql, (self.match(), *ids))}


class PostgresBackend(Backend):
    WEIGHTS = "'{0.1, 0.2, 0.4, 1.0}'"  # D, C (authors), B (abstract), A (title)

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

    def _matches(self) -> QuerySet:
        query, params = self.tsquery()
        condition = RawSQL(f'"papers_paper"."search_vector" @@ {query}', params, BooleanField())
        return self.base.order_by().filter(condition)

    def count(self, cap: int) -> int:
        sql, params = self._matches().values("id")[: cap + 1].query.sql_with_params()
        return self._fetch(f"SELECT COUNT(*) FROM ({sql}) AS counted", params)[0][0]

    def ids(self, cap: int) -> list[int]:
        return list(self._matches().values_list("id", flat=True)[:cap])

    def _ranked(
        self, offset: int, limit: int, columns: str, candidates: int = CANDIDATES
    ) -> list[tuple]:
        query, params = self.tsquery()
        score = RawSQL(
            f'ts_rank({self.WEIGHTS}, "papers_paper"."search_vector", {query})',
            params,
            FloatField(),
        )
        window = self._matches().annotate(score=score).values("id", "score")[:candidates]
        sql, sql_params = window.query.sql_with_params()
        return self._fetch(
            f"SELECT {columns} FROM ({sql}) AS c ORDER BY score DESC, id "
            f"LIMIT {int(limit)} OFFSET {int(offset)}",
            sql_params,
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


def backend_for(parsed: ParsedQuery, base: QuerySet) -> Backend:
    if connection.vendor == "postgresql":
        return PostgresBackend(parsed, base)
    if connection.vendor == "sqlite":
        return SQLiteBackend(parsed, base)
    raise NotImplementedError(f"no full-text search for {connection.vendor}")
