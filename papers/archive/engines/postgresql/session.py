"""PostgreSQL's bulk session: commits not waited for, LZ4 compression, and helpers
beside the writer: the code links counted ahead (link_counts), the search vectors
computed ahead (vectors), the GIN index built on a second connection once no file still
to come writes papers in bulk (gin_side), and the planner's statistics kept in step
(statistics)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db import connection

from papers.archive.engines.base import BulkSession
from papers.archive.engines.postgresql import vectors
from papers.archive.engines.postgresql.gin_side import GinBeside
from papers.archive.engines.postgresql.indexes import PostgresIndexes
from papers.archive.engines.postgresql.link_counts import LinkCounts
from papers.archive.engines.postgresql.statistics import Statistics
from papers.archive.write.papers import PAPER_DEFAULTS
from papers.search import index as search_index

# The kinds of file that write papers in bulk (the others add at most a few stubs).
PAPER_KINDS = {"papers", "records", "arxiv"}


class PostgresBulkSession(BulkSession):
    indexes = PostgresIndexes()
    gin: GinBeside | None = None
    link_counts: LinkCounts | None = None
    statistics: Statistics | None = None
    gin_decided = False  # whether the build beside the import was started or refused

    def enter(self) -> None:
        # A batch is durable once PostgreSQL has it, whatever becomes of this process;
        # not waiting for each commit's WAL flush lets the server get on with the next.
        # And compress what goes out of line or is squeezed into the row (abstracts,
        # the search vectors kept inline) with LZ4 where the server has it: about half
        # the CPU of the default pglz (50,000 papers' vectors and abstracts: 1.6 s
        # against 3.2 s) for a table 8% smaller. Each value records its own method, so
        # rows written later with pglz read the same.
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit = off")
            cursor.execute(
                "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' "
                "AND 'lz4' = ANY(enumvals)"
            )
            if cursor.fetchone():
                cursor.execute("SET default_toast_compression = 'lz4'")
            # The papers' trigger keeps a search vector given with a new row: the import
            # gives those computed on a second connection (vectors).
            cursor.execute("SET cwp.search_vectors_given = on")

    def exit(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("RESET synchronous_commit")
            cursor.execute("RESET default_toast_compression")
            cursor.execute("RESET cwp.search_vectors_given")

    def begin(self, paths: list[Path], kind: str | None, workers: int, papers: int) -> None:
        # The counts ahead spare the end a rewrite of every linked paper's row, which
        # would also wait for the GIN index built beside (and then maintain it). On
        # SQLite that rewrite costs less than the counting, so it is PostgreSQL's alone.
        if workers and not self.dry_run and not papers:
            self.link_counts = LinkCounts(paths, kind)
            self.loader.forecast_links(self.link_counts)
        super().begin(paths, kind, workers, papers)
        self.statistics = Statistics(enabled=not self.dry_run)

    def stream(self, events: Iterator[tuple]) -> Iterator[tuple]:
        """Papers' search vectors computed on a second connection while the writer works
        (vectors); `wants_vectors()` says, chunk by chunk, whether they are still worth
        computing."""
        if settings.IMPORT_SIDE_INDEX and not self.dry_run:
            return vectors.ahead(events, PAPER_DEFAULTS, self.wants_vectors)
        return events

    def wants_vectors(self) -> bool:
        # An import that mostly adds papers inserts most of them; one into a full
        # database (a re-import) would compute vectors for papers it never inserts.
        return self.existing == 0 or self.loader.index_deferred

    def while_deferred(self) -> None:
        """Once no file still to come writes papers in bulk, build the GIN index on a
        second connection while the writer goes on (gin_side)."""
        # Not inside a transaction (--strict's, or a caller's): the build would wait for
        # it to end, for the lock its writes to papers hold, and it ends after the build.
        if self.gin_decided or connection.in_atomic_block:
            return
        counts = self.link_counts
        kinds = counts.kinds() if counts is not None else None
        if not settings.IMPORT_SIDE_INDEX or kinds is None:
            return
        if any(kind in PAPER_KINDS for kind in kinds[self.file :]):
            return
        self.gin_decided = True  # the index stays as it is now until the end: ask once
        if search_index.deferred():
            self.gin = GinBeside()

    def after_batch(self) -> None:
        if self.statistics is not None:
            self.statistics.after_batch()

    def before_finish(self) -> None:
        """While the GIN index is built beside the import, build the other indexes too,
        before the loader's last steps (whose writes to papers wait for that build)."""
        if self.gin is not None:
            self.indexes.build(keys=False)

    def finish(self) -> None:
        super().finish()
        if self.statistics is not None:
            self.statistics.finish()

    def build_deferred(self) -> None:
        gin = self.gin
        if gin is not None:
            # The foreign keys' locks conflict with the build's: it ends first.
            gin.wait()
        self.indexes.build()
        if gin is not None and gin.failed:
            self.report(
                f"the full-text index built beside the import failed ({gin.failed}); rebuilding it"
            )
        self.outcome = "built at the end"
        deferred = search_index.deferred()
        if gin is not None and not deferred:
            self.outcome = f"built beside the import's last files ({gin.seconds:.0f} s)"
        elif deferred:
            search_index.build()

    def close(self) -> None:
        if self.link_counts is not None:
            self.link_counts.close()
        if self.gin is not None:
            self.gin.cancel()
