"""SQLite's index plan: only the list tables' and code links' indexes wait. Building one
of the papers table's means a scan of its 3 GB (an earlier attempt that deferred those
too made the full import slower)."""

from __future__ import annotations

from django.db import connection

from papers.archive.engines.indexes import IndexPlan
from papers.models import CodeLink, PaperAuthor, PaperMethod, PaperTask

BUILD_CACHE_KIB = 16 * 1024  # the page cache (and so sort memory) from the build on


class SQLiteIndexes(IndexPlan):
    MODELS = (PaperAuthor, PaperTask, PaperMethod, CodeLink)

    def present(self, names: list[str]) -> set[str]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'index' "
                f"AND name IN ({', '.join(['%s'] * len(names))})",
                names,
            )
            return {row[0] for row in cursor.fetchall()}

    def build_settings(self, cursor) -> None:
        # Each CREATE INDEX sorts in memory up to the page cache's size, beside the cache
        # itself: with the import's 128 MB cache the writer peaked 80 MB higher (445 MB).
        # The rest of the import reads little; shrink it.
        cursor.execute(f"PRAGMA cache_size = -{BUILD_CACHE_KIB}")
