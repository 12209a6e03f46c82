"""PostgreSQL: keep the planner's statistics in step with a bulk import.

An import into an empty database fills tables from nothing, and nothing analyzes them
on the way (autovacuum may be off, and when on it runs a minute behind and only after
commits). Without statistics the planner takes `paper_id IN (…900 ids…)` as matching
most of the table, so the reads that compare a batch with what is stored (author, task
and method lists, code links) become a sequential scan of the table per batch: at
archive scale a re-import of unchanged files would be slower than the first import,
scanning papers_paperauthor's millions of rows for every 900 papers.

`Statistics` analyzes a table while an import grows it, each time it has doubled since
its statistics were taken (from MIN_PAGES on: a seq scan of a small table is cheap).
Those analyses read only the columns a btree index covers, the ones the import's reads
filter and join on: the papers table's text-search vector and abstracts cost ~1 s of a
sample each, for no plan the import makes. At the end it analyzes, whole, every table
the import grew by more than a tenth, so that the next import and the site's queries
are planned on what is there. SQLite plans from its indexes alone: nothing to do there.
"""

from __future__ import annotations

from django.apps import apps
from django.db import connection, transaction

MIN_PAGES = 1280  # 10 MB: below this a table waits for the end of the import
GROWTH = 2.0  # during an import: analyze once a table is this many times its analyzed size
# During an import a sample of 300 x this many rows (3,000): enough for its plans, and
# on the papers table (~2 rows a page) a tenth of the pages the default would read.
RUNNING_TARGET = 10
FINAL_GROWTH = 1.1  # at the end: analyze the tables grown by more than this


class Statistics:
    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.tables = sorted(
            {m._meta.db_table for m in apps.get_app_config("papers").get_models(True)}
        )
        # table → its size in pages when its statistics were taken (0: it has none)
        self.analyzed: dict[str, int] = {}
        self.keys: dict[str, list[str]] = {}  # table → the columns its btree indexes cover
        self.ran: list[tuple[str, bool]] = []  # (table, whole) analyzed, in order
        if not self.enabled:
            return
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT c.relname, GREATEST(c.relpages, 0), "
                "EXISTS (SELECT 1 FROM pg_statistic s WHERE s.starelid = c.oid) "
                "FROM pg_class c WHERE c.oid = ANY(%s::regclass[])",
                [self.tables],
            )
            for table, pages, has_statistics in cursor.fetchall():
                self.analyzed[table] = pages if has_statistics else 0
            cursor.execute(
                "SELECT DISTINCT c.relname, a.attname FROM pg_index i "
                "JOIN pg_class c ON c.oid = i.indrelid "
                "JOIN pg_class ic ON ic.oid = i.indexrelid "
                "JOIN pg_am am ON am.oid = ic.relam AND am.amname = 'btree' "
                "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
                "WHERE i.indrelid = ANY(%s::regclass[]) ORDER BY 1, 2",
                [self.tables],
            )
            for table, column in cursor.fetchall():
                self.keys.setdefault(table, []).append(column)

    def _grown(self, factor: float, floor: int) -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute(
                # The size now: pg_relation_size() counts rows not yet committed too.
                "SELECT c.relname, pg_relation_size(c.oid) / current_setting('block_size')::int "
                "FROM pg_class c WHERE c.oid = ANY(%s::regclass[])",
                [self.tables],
            )
            sizes = cursor.fetchall()
        grown = []
        for table, pages in sizes:
            if pages > max(floor, factor * self.analyzed.get(table, 0)):
                grown.append(table)
                self.analyzed[table] = pages
        return sorted(grown)

    def _analyze(self, tables: list[str], whole: bool) -> None:
        quote = connection.ops.quote_name
        if not tables:
            return
        with transaction.atomic(), connection.cursor() as cursor:
            if not whole:
                cursor.execute(f"SET LOCAL default_statistics_target = {RUNNING_TARGET}")
            for table in tables:
                columns = "" if whole else f" ({', '.join(map(quote, self.keys[table]))})"
                # While the import runs, a table another connection holds is passed over
                # (papers_paper while its GIN index is built beside the import, see
                # gin_side): waiting would stall the writer until the build ends.
                options = "" if whole else "(SKIP_LOCKED) "
                cursor.execute(f"ANALYZE {options}{quote(table)}{columns}")
                self.ran.append((table, whole))

    def after_batch(self) -> None:
        """Analyze the key columns of the tables that doubled since their last statistics."""
        if self.enabled:
            self._analyze([t for t in self._grown(GROWTH, MIN_PAGES) if t in self.keys], False)

    def finish(self) -> None:
        """Analyze every table the import grew by more than FINAL_GROWTH."""
        if self.enabled:
            self._analyze(self._grown(FINAL_GROWTH, 0), True)
