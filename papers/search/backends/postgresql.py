"""PostgreSQL's full-text search: a weighted search vector kept by a trigger (migrations
0002, 0007), a GIN index that finds the matches of a query, GiST indexes that walk them
in id order (0012, 0014; with the publication date, 0025), a GIN index of the pairs of
common words a phrase's candidates come from (0026), ranked by ts_rank().

`PostgresBackend` answers searches; `PostgresIndex` keeps the index: the vector is a
column the trigger keeps, so a batch has nothing to do; an import that mostly adds
papers drops the GIN index (`defer()`) and creates it again at its end (`build()`, with
a larger maintenance_work_mem).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import BigIntegerField, BooleanField, FloatField, QuerySet, Value
from django.db.models.expressions import RawSQL

from papers.highlights import MARK_END, MARK_START
from papers.search.backends.base import Backend, FullTextIndex
from papers.search.query import Term

GIN_INDEX = "papers_paper_search_gin"  # as migration 0002 creates it
GIN_SQL = f"CREATE INDEX IF NOT EXISTS {GIN_INDEX} ON papers_paper USING gin (search_vector)"
BUILD_MEMORY = "1GB"  # maintenance_work_mem for the GIN build (the default is 64 MB)


def create_gin(cursor) -> None:
    """Create the GIN index on the cursor's connection, inside its transaction, with the
    memory the build is given for that transaction."""
    cursor.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
    cursor.execute(GIN_SQL)


class PostgresIndex(FullTextIndex):
    def deferred(self) -> bool:
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass(%s) IS NULL", [GIN_INDEX])
            return cursor.fetchone()[0]

    def defer(self) -> None:
        with transaction.atomic(using=self.connection.alias), self.connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {GIN_INDEX}")

    def build(self) -> None:
        with transaction.atomic(using=self.connection.alias), self.connection.cursor() as cursor:
            # CREATE INDEX refuses a table with deferred foreign-key checks still pending
            # (an import run inside a caller's transaction): run them now.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            create_gin(cursor)


# The search vector as papers_paper_search_gist indexes it (migration 0012): the same
# vector, under an expression only that index answers, so that the planner never takes
# the GiST index for a search the GIN index answers (a rare word's), nor the reverse.
WALKED_VECTOR = """COALESCE("papers_paper"."search_vector", ''::tsvector)"""
# The vector's pairs of adjacent common words (migration 0026), as papers_paper_pairs_gin
# indexes them.
PAIRS = 'papers_word_pairs("papers_paper"."search_vector")'
# The search vector under an expression no index holds, for a condition no index may
# answer (see _matching). The constant is never read: a paper without a vector has no
# pairs either.
UNINDEXED_VECTOR = """COALESCE("papers_paper"."search_vector", 'unindexed'::tsvector)"""
# "id <-> 0", btree_gist's distance from 0: the id order, which the GiST index yields.
BY_ID = RawSQL('"papers_paper"."id" <-> 0', (), output_field=BigIntegerField()).asc()


class PostgresBackend(Backend):
    JSON_KEYS = "SELECT jsonb_object_keys(shape) AS key, n FROM ({shapes}) AS shapes"
    index_class = PostgresIndex
    WEIGHTS = "'{0.1, 0.2, 0.4, 1.0}'"  # D, C (authors), B (abstract), A (title)
    RELEVANCE = "score DESC, id"
    # The weight each field's words carry in the vector (migration 0002's trigger).
    FIELD_WEIGHTS = {"title": "A", "abstract": "B"}

    def tsquery(self) -> tuple[str, list]:
        """A tsquery expression built from plainto/phraseto_tsquery pieces: user text is
        only ever a bound parameter, never tsquery syntax."""
        params: list = []

        def term(t: Term) -> str:
            text = " ".join(t.words)
            if t.field:
                # Kept to the field's weight (FIELD_WEIGHTS). The words are letters and
                # digits only (query.py), so they are safe as tsquery syntax.
                weight = self.FIELD_WEIGHTS[t.field]
                marked = [f"{w}:{weight}" for w in t.words]
                if t.prefix:
                    marked[-1] = f"{t.words[-1]}:*{weight}"
                params.append(" <-> ".join(marked))
                return "to_tsquery('cwp_english', %s)"
            if t.prefix:
                # The stem as a prefix, as SQLite's FTS5 reads a prefix term ("learning"
                # also finds "learners"); unstemmed as well, for a stop word being typed.
                params.extend([f"{text}:*", f"{text}:*"])
                return "(to_tsquery('cwp_english', %s) || to_tsquery('cwp_simple', %s))"
            params.append(text)
            return f"{'phraseto_tsquery' if t.is_phrase else 'plainto_tsquery'}('cwp_english', %s)"

        positive = " || ".join(
            "("
            + " && ".join("(" + " || ".join(term(t) for t in group) + ")" for group in part)
            + ")"
            for part in self.parsed.all_but()
        )
        negative = "".join(f" && !!{term(t)}" for t in self.parsed.excluded)
        return f"({positive}{negative})", params

    def _window(self, limit: int, *, score: bool = True) -> tuple[str, tuple]:
        """The first `limit` matches by id, found one of two ways, whichever suits the
        query: PostgreSQL's estimate of its matches decides, at run time, which of the
        two parts of the UNION runs (papers_search_in_id_order(), migrations 0012 and
        0027).

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
            plain = self._matches(limit, score, "id", vector, sets=True, pairs=True)
            return plain.query.sql_with_params()
        # The function runs once, before either part: a materialized CTE both parts read
        # as a subquery (it is volatile, which a condition would run row by row, and a
        # subquery of each part would run, estimate and sample included, once a part).
        decided = (
            "WITH papers_walk AS MATERIALIZED "
            "(SELECT papers_search_in_id_order(%s, %s, %s) AS walks) "
        )
        walk = "(SELECT walks FROM papers_walk)"
        walked = self._matches(limit, score, BY_ID, WALKED_VECTOR, (walk, ()))
        plain = self._matches(
            limit, score, "id", vector, (f"NOT {walk}", ()), sets=True, pairs=True
        )
        walked_sql, walked_params = walked.query.sql_with_params()
        plain_sql, plain_params = plain.query.sql_with_params()
        return (
            f"{decided}({walked_sql}) UNION ALL ({plain_sql})",
            (*self._estimated(), int(limit), *walked_params, *plain_params),
        )

    def _estimated(self) -> tuple[str, str | None]:
        """The arguments of papers_search_estimate() (migration 0027) for this search:
        the SQL of its filtered matches, with its values in it (a filter a few papers
        pass is best led by its own index), and for more than one group, its condition
        on the search vector alone, which is counted on a sample of papers as well:
        PostgreSQL estimates a conjunction of words as if they came independently of
        each other, and words that come together (state of the art) do not."""
        vector = '"papers_paper"."search_vector"'
        compose = self.connection.ops.compose_sql
        counted = self._matching(vector, pairs=True).order_by().values("id")
        words = None
        if len(self.parsed.groups) > 1:
            query, params = self.tsquery()
            words = compose(f"{vector} @@ {query}", params)
        return compose(*counted.query.sql_with_params()), words

    def expected_matches(self, cap: int) -> float:
        return self._fetch("SELECT papers_search_estimate(%s, %s)", self._estimated())[0][0]

    def _matching(self, vector: str, *, pairs: bool = False) -> QuerySet:
        """The papers of `base` whose `vector` (an expression of the search vector)
        matches. `pairs`: a phrase of common words takes its candidates from the index
        of word pairs (migration 0026), when the query requires one.

        The GIN index offers as a phrase's candidates every paper holding all its
        words, each read to check their positions: for two words in half the archive
        each, ~300,000 rows (~1 s) for ~6,000 matches. The pair index offers those
        holding the phrase's pairs, exactly, and the phrase is checked on those alone
        (~20 ms). Which phrases hold a pair of common words, the server decides while
        planning (papers_pair_query() is immutable, its argument a constant): where
        none does the condition is true and the vector is the GIN index's; where one
        does the phrase is checked on a vector no index holds, so that the planner can
        neither join another index's result to the pairs' (each candidate's pairs would
        then be computed again) nor take the lossy GiST index's (which reads most of
        itself for a phrase). The walk in id order takes no such condition (_window):
        computed there, each row's pairs would cost more than the walk."""
        query, params = self.tsquery()
        phrases = self._required_phrases() if pairs else []
        if not phrases:
            return self.base.filter(RawSQL(f"{vector} @@ {query}", params, BooleanField()))
        pair_query = "papers_pair_query(%s::text[])"
        candidates = f"({pair_query} IS NULL OR {PAIRS} @@ {pair_query})"
        checked = f"(CASE WHEN {pair_query} IS NULL THEN {vector} ELSE {UNINDEXED_VECTOR} END)"
        return self.base.filter(
            RawSQL(candidates, (phrases, phrases), BooleanField()),
            RawSQL(f"{checked} @@ {query}", (phrases, *params), BooleanField()),
        )

    def _required_phrases(self) -> list[str]:
        """The phrases every match holds: each alone in a group of a query whose every
        group is required."""
        if self.parsed.spare:
            return []
        return [
            " ".join(term.words)
            for group in self.parsed.groups
            if len(group) == 1
            for term in group
            if term.is_phrase and not term.prefix
        ]

    def _matches(
        self,
        limit: int,
        score: bool,
        order,
        vector: str,
        when: tuple[str, tuple] = ("", ()),
        *,
        sets: bool = False,
        pairs: bool = False,
    ) -> QuerySet:
        """The first `limit` papers of `base` in `order` whose `vector` (an expression
        of the search vector) matches, with the columns id, score and COLUMNS; none
        unless `when` (a condition on constants alone, and its params) holds. `sets`:
        name the sets the papers are narrowed by as well. `pairs`: see _matching()."""
        # The vector is stored inline (migration 0003): matching and scoring read it
        # from the heap row the scan is on, not from TOAST.
        query, params = self.tsquery()
        matching = self._matching(vector, pairs=pairs)
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
