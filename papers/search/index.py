"""Keeping the full-text index in step with bulk writes, on whichever engine this is.

Each engine keeps its index its own way (papers.search.backends: SQLiteIndex,
PostgresIndex): PostgreSQL's vector is a column kept by a trigger, nothing to do per
batch; SQLite's FTS5 table is kept by row triggers, slow for an archive import, so
`bulk_writes()` pauses them for one batch transaction and indexes the batch's new and
changed papers in a few statements instead.

An import that mostly adds papers (into an empty database, say) does better still to
build the index once at its end: `defer()` drops PostgreSQL's GIN index, or on SQLite
commits a pause row that stands the triggers aside for every connection, and `build()`
creates the GIN index or rebuilds the FTS5 table. The deferral is committed before the
first unindexed batch and undone in the transaction that builds the index, so an import
killed in between leaves `deferred()` true and the next import builds it when it ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper

from papers.search.backends import index_for
from papers.search.backends.base import IndexBatch

__all__ = [
    "IndexBatch",
    "build",
    "bulk_writes",
    "defer",
    "deferred",
    "end_deferral",
    "needs_old_text",
]


def needs_old_text() -> bool:
    """Whether changed papers' previous text must be handed to the batch (FTS5's
    external-content 'delete' needs it)."""
    return index_for(connection).needs_old_text


def deferred(db: BaseDatabaseWrapper | None = None) -> bool:
    """Whether the index is waiting for an import to build it (on the connection `db`,
    by default the primary's)."""
    return index_for(db or connection).deferred()


def defer() -> None:
    """Stop keeping the index up to date until `build()` (committed at once)."""
    index_for(connection).defer()


def build() -> None:
    """Build the whole index from papers_paper and end the deferral, in one transaction."""
    index_for(connection).build()


def end_deferral() -> None:
    """The index is kept again, in the transaction that built it (an import's helper
    built it beside the writer: papers.archive.engines.sqlite.fts_side)."""
    index_for(connection).end_deferral()


@contextmanager
def bulk_writes(*, deferred: bool = False) -> Iterator[IndexBatch]:
    """One batch's writes to papers. `deferred`: the index is built later (`defer()`),
    so the batch's papers are not indexed now."""
    with index_for(connection).bulk_writes(deferred=deferred) as batch:
        yield batch
