"""Keeping the full-text index in step with bulk writes.

PostgreSQL's vector is a column kept by a trigger: nothing to do per batch. SQLite's
FTS5 table is kept by row triggers, which are slow for an archive import;
`bulk_writes()` pauses them for the duration of one batch transaction (the pause row
is never visible to another connection) and indexes the batch's new and changed papers
in a few statements instead.

An import that mostly adds papers (into an empty database, say) does better still to
build the index once at its end: `defer()` drops PostgreSQL's GIN index, or on SQLite
commits a pause row that stands the triggers aside for every connection, and `build()`
creates the GIN index (with a larger maintenance_work_mem) or rebuilds the FTS5 table
from papers_paper. The deferral is committed before the first unindexed batch and
undone in the transaction that builds the index, so an import killed in between leaves
`deferred()` true and the next import builds the index when it ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.db import connection, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

from papers.db import chunks

GIN_INDEX = "papers_paper_search_gin"  # as migration 0002 creates it
GIN_SQL = f"CREATE INDEX IF NOT EXISTS {GIN_INDEX} ON papers_paper USING gin (search_vector)"
BUILD_MEMORY = "1GB"  # maintenance_work_mem for the GIN build (the default is 64 MB)


class _Batch:
    def __init__(self):
        self.added: list[int] = []
        self.changed: list[tuple[int, str, str, str]] = []  # id and the OLD title/abstract/names

    def add(self, ids: Sequence[int]) -> None:
        self.added.extend(ids)

    def change(self, old_rows: Sequence[tuple[int, str, str, str]]) -> None:
        self.changed.extend(old_rows)


def needs_old_text() -> bool:
    """Whether changed papers' previous text must be handed to the batch (FTS5's
    external-content 'delete' needs it)."""
    return connection.vendor == "sqlite"


def deferred(db: BaseDatabaseWrapper | None = None) -> bool:
    """Whether the index is waiting for an import to build it (on the connection `db`,
    by default the primary's)."""
    db = db or connection
    with db.cursor() as cursor:
        if db.vendor == "sqlite":
            cursor.execute("SELECT 1 FROM papers_fts_pause WHERE reason = 'deferred'")
            return cursor.fetchone() is not None
        cursor.execute("SELECT to_regclass(%s) IS NULL", [GIN_INDEX])
        return cursor.fetchone()[0]


def defer() -> None:
    """Stop keeping the index up to date until `build()` (committed at once)."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            if not deferred():
                cursor.execute("INSERT INTO papers_fts_pause (reason) VALUES ('deferred')")
        else:
            cursor.execute(f"DROP INDEX IF EXISTS {GIN_INDEX}")


def build() -> None:
    """Build the whole index from papers_paper and end the deferral, in one transaction."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("INSERT INTO papers_paper_fts(papers_paper_fts) VALUES ('rebuild')")
            end_deferral()
        else:
            # CREATE INDEX refuses a table with deferred foreign-key checks still pending
            # (an import run inside a caller's transaction): run them now.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            create_gin(cursor)


def create_gin(cursor) -> None:
    """PostgreSQL: create the GIN index on the cursor's connection, inside its
    transaction, with the memory the build is given for that transaction."""
    cursor.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
    cursor.execute(GIN_SQL)


def end_deferral() -> None:
    """SQLite: the triggers keep the index again (in the transaction that built it)."""
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM papers_fts_pause WHERE reason = 'deferred'")


@contextmanager
def bulk_writes(*, deferred: bool = False) -> Iterator[_Batch]:
    """One batch's writes to papers. `deferred`: the index is built later (`defer()`),
    so the batch's papers are not indexed now."""
    batch = _Batch()
    if connection.vendor != "sqlite" or deferred:
        yield batch
        return
    with transaction.atomic(), connection.cursor() as cursor:
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
