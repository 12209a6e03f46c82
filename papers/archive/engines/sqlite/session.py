"""SQLite's bulk session: a bigger page cache, fewer WAL checkpoints, and a deferred
full-text index built meanwhile by a helper process (fts_side) that learns each
commit's papers."""

from __future__ import annotations

from django.conf import settings
from django.db import connection

from papers.archive import memory
from papers.archive.engines.base import BulkSession
from papers.archive.engines.sqlite.fts_side import SideIndex
from papers.archive.engines.sqlite.indexes import BUILD_CACHE_KIB, SQLiteIndexes
from papers.models import Paper
from papers.search import index as search_index

# An import that leaves the papers table this much larger than it found it refreshes the
# planner's statistics (ANALYZE) at its end.
GROWTH_TO_ANALYZE = 1.1
# 64 MB: with 128 MB an import of all six archive files peaked at 444 MB resident (the
# goal is 400) and ran no faster.
IMPORT_CACHE_KIB = 64 * 1024
IMPORT_CHECKPOINT_PAGES = 100_000  # checkpoint the WAL every ~400 MB (1,000 pages by default)
DEFAULT_CHECKPOINT_PAGES = 1000  # SQLite's own


class SQLiteBulkSession(BulkSession):
    indexes = SQLiteIndexes()
    side: SideIndex | None = None
    papers_at_start = 0
    cache_size = -2000  # SQLite's default; enter() reads the connection's own

    def enter(self) -> None:
        # A bigger page cache for this connection: an archive import walks B-trees (slug,
        # author and FTS indexes) far larger than SQLite's 2 MB default. And fewer WAL
        # checkpoints: each copies every page the batches since the last one changed
        # into the database, and the default (every 4 MB of WAL) would come after every
        # batch, writing a page that each batch changes twice a batch.
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA cache_size")
            self.cache_size = cursor.fetchone()[0]
            cursor.execute(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
            cursor.execute(f"PRAGMA wal_autocheckpoint = {IMPORT_CHECKPOINT_PAGES}")

    def exit(self) -> None:
        """The connection as the import found it (the write API imports in a serving
        process, whose connection lives on)."""
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA wal_autocheckpoint = {DEFAULT_CHECKPOINT_PAGES}")
            cursor.execute(f"PRAGMA cache_size = {int(self.cache_size)}")

    def begin(self, paths, kind, workers: int, papers: int) -> None:
        self.papers_at_start = papers
        super().begin(paths, kind, workers, papers)

    def before_finish(self) -> None:
        """The loader's last steps (counts, rankings) read whole tables once: the page
        cache the batches needed would only hold memory those steps want. Shrunk, and
        its pages handed back."""
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size = -{BUILD_CACHE_KIB}")
        memory.release()

    def finish(self) -> None:
        """Build what was deferred; then, after an import that grew the archive, refresh the
        planner's statistics. Without them SQLite picks search plans from its indexes'
        shapes alone, and at archive scale those read the matches about twice as slowly
        as the plans the statistics lead to; ANALYZE takes seconds at that scale."""
        super().finish()
        if not self.dry_run and Paper.objects.count() > self.papers_at_start * GROWTH_TO_ANALYZE:
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")

    def deferral_began(self) -> None:
        if settings.IMPORT_SIDE_INDEX and search_index.deferred():
            self.side = SideIndex.start(connection)

    def committed(self) -> None:
        """The helper learns the commit's papers."""
        added, changed = self.loader.take_text_writes()
        if self.side is not None:
            self.side.send(added, changed)

    def build_deferred(self) -> None:
        self.indexes.build()
        self.outcome = "built at the end"
        if not search_index.deferred():
            return
        side = self.side
        if side is not None and side.finish(connection, search_index.end_deferral):
            self.outcome = (
                f"built beside the import ({side.corrected:,} papers re-indexed at the end)"
            )
            return
        if side is not None:
            self.report(
                f"the full-text index built beside the import failed ({side.failed}); "
                "rebuilding it"
            )
        search_index.build()

    def close(self) -> None:
        if self.side is not None:
            self.side.close()
