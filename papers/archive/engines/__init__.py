"""What a bulk import does differently on each database engine, behind one seam.

The importer (papers.archive.importer) reads files and hands batches to the writer
(papers.archive.write) the same way on every engine. What differs lives in a
`BulkSession` (base.py), one per engine, chosen here, the only place the importer asks
which engine it runs on:

- the session settings the import writes under, set by `enter()` and undone by `exit()`;
- the index plan: when the full-text index and the secondary indexes of the session's
  IndexPlan (indexes.py; each engine's in its indexes.py) are kept per batch and when
  they are built once at the end (the same rule on both engines, see base.py), and how
  the end builds them;
- the helpers that work beside the writer: on SQLite the full-text index built by a
  helper process (sqlite/fts_side); on PostgreSQL the GIN index built on a second
  connection (gin_side), the search vectors computed ahead (vectors), the code links
  counted ahead (link_counts, handed to the writer through its hook) and the planner's
  statistics kept in step (statistics).

The writer never imports an engine: a session hands it what it needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from papers.archive.engines.base import BulkSession
from papers.archive.engines.indexes import IndexPlan
from papers.archive.engines.postgresql.session import PostgresBulkSession
from papers.archive.engines.sqlite.session import SQLiteBulkSession

if TYPE_CHECKING:
    from papers.archive.write.loader import Loader

SESSIONS: dict[str, type[BulkSession]] = {
    "sqlite": SQLiteBulkSession,
    "postgresql": PostgresBulkSession,
}


def session_class(connection) -> type[BulkSession]:
    """The bulk session of the connection's engine (the base for an engine with nothing
    of its own)."""
    return SESSIONS.get(connection.vendor, BulkSession)


def session_for(
    connection, loader: Loader, *, dry_run: bool, report: Callable[[str], None]
) -> BulkSession:
    """A bulk session of the connection's engine, for one import."""
    return session_class(connection)(loader, dry_run=dry_run, report=report)


def index_plan(connection) -> IndexPlan:
    """The secondary indexes the connection's engine defers during a bulk import."""
    return session_class(connection).indexes
