"""SQLite's full-text search: an FTS5 external-content table over the papers' title,
abstract and author names (migration 0002), kept by triggers, ranked by bm25().

`SQLiteBackend` answers searches; `SQLiteIndex` keeps the index in step with bulk
writes: the row triggers are slow for an archive import, so `bulk_writes()` pauses them
for one batch transaction (the pause row is never visible to another connection) and
indexes the batch's new and changed papers in a few statements instead; `defer()`
commits a pause row that stands the triggers aside for every connection until `build()`
rebuilds the FTS5 table from papers_paper.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from itertools import islice

from django.db import transaction
from django.db.models import QuerySet

from papers.db import chunks
from papers.highlights import MARK_END, MARK_START
from papers.search.backends.base import Backend, FullTextIndex, IndexBatch, window_count
from papers.search.query import ParsedQuery, Term

_WORD = re.compile(r"[^\W_]+")  # a token of FTS5's unicode61 tokenizer, near enough
# FTS5 keeps its index in segments, and a query looks each of its words up in every
# segment and merges what each holds; a rebuild leaves ~16 at 576k papers. Merged into
# one, searches there take 15-30% less time; the merge takes ~17 s and 17 MB.
OPTIMIZE = "INSERT INTO papers_paper_fts(papers_paper_fts) VALUES ('optimize')"


class SQLiteIndex(FullTextIndex):
    # FTS5's external-content 'delete' needs the text the row was indexed with.
    needs_old_text = True

    def deferred(self) -> bool:
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM papers_fts_pause WHERE reason = 'deferred'")
            return cursor.fetchone() is not None

    def defer(self) -> None:
        """Commit a pause row that stands the triggers aside for every connection."""
        with transaction.atomic(using=self.connection.alias), self.connection.cursor() as cursor:
            if not self.deferred():
                cursor.execute("INSERT INTO papers_fts_pause (reason) VALUES ('deferred')")

    def build(self) -> None:
        with transaction.atomic(using=self.connection.alias), self.connection.cursor() as cursor:
            cursor.execute("INSERT INTO papers_paper_fts(papers_paper_fts) VALUES ('rebuild')")
            cursor.execute(OPTIMIZE)
            self.end_deferral()

    def end_deferral(self) -> None:
        """The triggers keep the index again."""
        with self.connection.cursor() as cursor:
            cursor.execute("DELETE FROM papers_fts_pause WHERE reason = 'deferred'")

    @contextmanager
    def bulk_writes(self, *, deferred: bool = False) -> Iterator[IndexBatch]:
        batch = IndexBatch()
        if deferred:
            yield batch
            return
        atomic = transaction.atomic(using=self.connection.alias)
        with atomic, self.connection.cursor() as cursor:
            cursor.execute("INSERT INTO papers_fts_pause (reason) VALUES ('import')")
            yield batch
            if batch.changed:
                cursor.executemany(
                    "INSERT INTO papers_paper_fts(papers_paper_fts, rowid, title, abstract, "
                    "author_names) VALUES ('delete', %s, %s, %s, %s)",
                    batch.changed,
                )
            ids = batch.added + [row[0] for row in batch.changed]
            for part in chunks(ids):
                cursor.execute(
                    "INSERT INTO papers_paper_fts(rowid, title, abstract, author_names) "
                    "SELECT id, title, abstract, author_names FROM papers_paper "
                    f"WHERE id IN ({', '.join(['%s'] * len(part))})",
                    part,
                )
            cursor.execute("DELETE FROM papers_fts_pause WHERE reason = 'import'")


class SQLiteBackend(Backend):
    TIERED = True
    JSON_KEYS = "SELECT k.key, n FROM ({shapes}) AS shapes, json_each(shapes.shape) AS k"
    index_class = SQLiteIndex
    # A covering index of COLUMNS and the filters' columns (migrations 0011, 0017): each match
    # FTS5 yields is checked in its entry (~0.3 µs) rather than in the paper's row, which
    # holds the abstract (~2 µs). Without statistics SQLite looks a rowid up in the table,
    # so the window names the index.
    INDEX = "paper_search_idx"
    SMALL_SET = 100_000  # rows; see _small_sets
    # The share of paper ids that expected_matches() counts a query's matches in, and
    # the fewest (every id of a smaller archive).
    SAMPLE = 0.01
    SAMPLE_MIN = 10_000
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
        positive = " OR ".join(
            "(" + " AND ".join(self._group(group) for group in part) + ")"
            for part in self.parsed.all_but()
        )
        negative = "".join(f" NOT {self._term(t)}" for t in self.parsed.excluded)
        if title:
            positive = f"{{title}} : ({positive})"
        return f"({positive}){negative}"

    @classmethod
    def _group(cls, group: list[Term]) -> str:
        """One group's FTS5 expression: any of its terms."""
        return "(" + " OR ".join(cls._term(t) for t in group) + ")"

    @staticmethod
    def _term(term: Term) -> str:
        # Only \w characters reach here (see query.py), so quoting is always safe.
        # A prefix term also matches the word itself (FTS5 stems it first: "learning"*
        # is learn*), as on PostgreSQL; an added OR of the exact word would only make
        # bm25() read that word's postings once more.
        quoted = '"' + " ".join(term.words) + '"'
        matched = f"{quoted}*" if term.prefix else quoted
        return f"{{{term.field}}} : {matched}" if term.field else matched

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
        re-evaluate the whole query for each id. Reading the set costs ~0.15 µs a row
        even when few matches reach it (a rare word within the biggest task, 27,610
        papers: 15 ms against 4), and saves ~1 µs for each match it rejects (`learning`
        within that task: 78 ms against 163); a set above SMALL_SET is left to the join
        (its matches are dense, and the check per row is an index probe)."""
        clauses, params = [], []
        for rows, size in self._set_sizes:
            if size <= self.SMALL_SET:
                sql, rows_params = rows.query.sql_with_params()
                clauses.append(f" AND +papers_paper_fts.rowid IN ({sql})")
                params.extend(rows_params)
        return "".join(clauses), tuple(params)

    @cached_property
    def _set_sizes(self) -> list[tuple[QuerySet, int]]:
        """Each set the papers are narrowed by, with its size counted up to SMALL_SET + 1."""
        return [(rows, rows[: self.SMALL_SET + 1].count()) for rows in self.narrowed_by]

    def expected_matches(self, cap: int) -> float:
        """At most the smallest set the papers are narrowed by holds (counted for the
        window already) when that is `cap` or fewer; else the matches of the query among
        the newest SAMPLE of paper ids, scaled to the whole: FTS5 counts a word's matches
        only by reading them (a phrase of common words in 1% of 576k papers: ~70 ms),
        but reads a range of rowids from where it starts ("neural network": ~2 ms,
        5,500 estimated for 5,861).

        The range is the last: FTS5 finds the first match of the whole query before it
        seeks the range's start, and the next match after the range's last before it
        stops, so a query that matches nowhere reads as far as it would unranged, from
        any range; from the last, only once."""
        bound = min((size for _, size in self._set_sizes), default=None)
        if bound is not None and bound <= cap:
            return bound
        start, scale = self._sample
        estimate = (
            self._fetch(
                "SELECT COUNT(*) FROM papers_paper_fts WHERE papers_paper_fts MATCH %s "
                "AND papers_paper_fts.rowid >= %s",
                (self.match(), start),
            )[0][0]
            * scale
        )
        return estimate if bound is None else min(estimate, bound)

    @cached_property
    def _sample(self) -> tuple[int, float]:
        """The first paper id expected_matches() counts from (the newest SAMPLE of the
        ids, at least SAMPLE_MIN), and the scale from their matches to the archive's."""
        # Apart, each is one step down the primary key; together they scan the table.
        low, high = self._fetch(
            "SELECT (SELECT MIN(id) FROM papers_paper), (SELECT MAX(id) FROM papers_paper)", ()
        )[0]
        if low is None:
            return 0, 1.0
        span = high - low + 1
        width = max(int(span * self.SAMPLE), min(span, self.SAMPLE_MIN))
        return high - width + 1, span / width

    def absent_groups(self) -> list[int]:
        """bm25() reads each word's matches once for every conjunction of a relaxed query
        that holds it (a title of ten words: ninety reads). Probed here in one query, one
        index lookup a group: a word no paper holds is found absent at once, a common one
        present at its first match."""
        probes = [self._group(group) for group in self.parsed.groups]
        probe = (
            "(SELECT COUNT(*) FROM (SELECT 1 FROM papers_paper_fts "
            "WHERE papers_paper_fts MATCH %s LIMIT 1))"
        )
        row = self._fetch("SELECT " + ", ".join([probe] * len(probes)), probes)[0]
        return [i for i, found in enumerate(row) if not found]

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
        return [row[0] for row in rows], window_count(rows, first=offset == 0 and limit > 0)

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
