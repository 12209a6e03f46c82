"""What a bulk import does differently on each database engine, behind one seam.

The importer (papers.archive.importer) reads files and hands batches to the loader the
same way on every engine. What differs lives in a `BulkSession`, one per engine, chosen
once by `session_for()`:

- the session settings the import writes under, set by `enter()` and undone by `exit()`;
- the index plan: when the full-text index and the secondary indexes of
  papers.archive.write.indexes are kept per batch and when they are built once at the
  end (the same rule on both engines, `before_batch()`), and how the end builds them;
- the helpers that work beside the writer: on SQLite the full-text index built by a
  helper process (engines/sqlite/fts_side); on PostgreSQL the GIN index built on a
  second connection (gin_side), the search vectors computed ahead (vectors), the code
  links counted ahead (link_counts) and the planner's statistics kept in step
  (statistics).

The index plan. An import that has created at least as many papers as the database held
when it started is mostly adding: from its next batch on the index is deferred (see
papers.search.index) and built when the import ends. So an import into an empty
database defers from its first batch, and a re-import or an update of a few papers keeps
the index per batch. An import that finds the index deferred (one before it was killed)
keeps it deferred and builds it at its end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from papers.archive.write import indexes as bulk_indexes
from papers.models import Paper
from papers.search import index as search_index

if TYPE_CHECKING:
    from papers.archive.write.loader import Loader


class BulkSession:
    """One import's dealings with its engine. The base does what both engines share (and
    is the whole session of an engine with nothing of its own)."""

    def __init__(self, loader: Loader, *, dry_run: bool, report: Callable[[str], None]):
        self.loader = loader
        self.dry_run = dry_run
        self.report = report
        self.file = 0  # the number of the file being imported (the importer sets it)
        self.outcome = ""  # how the search index was kept (the import's summary says)
        self.existing = 0  # papers at the start, unless the index was deferred then

    # --- settings ------------------------------------------------------------------------

    def enter(self) -> None:
        """Set the session up for a bulk import (before the parser is forked)."""

    def exit(self) -> None:
        """Undo enter() (last of all, whatever happened)."""

    # --- the import's course -------------------------------------------------------------

    def begin(self, paths: list[Path], kind: str | None, workers: int, papers: int) -> None:
        """Before the first batch (`papers`: how many the table held at the start): start
        the helpers and make the index plan."""
        self.loader.index_deferred = self.deferred()
        self.existing = 0 if self.loader.index_deferred else Paper.objects.count()
        if self.loader.index_deferred and not self.dry_run:
            self.deferral_began()

    def stream(self, events: Iterator[tuple]) -> Iterator[tuple]:
        """A file's stream of parsed events, as the writer is to read it."""
        return events

    @staticmethod
    def deferred() -> bool:
        return search_index.deferred() or bool(bulk_indexes.missing())

    def before_batch(self) -> None:
        if self.dry_run:
            return
        if self.loader.index_deferred:
            self.while_deferred()
            return
        if self.loader.stats.counts["Paper"]["created"] >= self.existing:
            search_index.defer()
            bulk_indexes.drop()
            self.loader.index_deferred = True
            self.deferral_began()

    def deferral_began(self) -> None:
        """The indexes are deferred from now until the end of the import."""

    def while_deferred(self) -> None:
        """Before each batch written while the indexes are deferred."""

    def after_batch(self) -> None:
        """A batch was written (not necessarily committed)."""

    def committed(self) -> None:
        """A batch (or a --strict file) has committed."""
        self.loader.take_text_writes()

    def rolled_back(self) -> None:
        """--strict rolled a file back, and with it a deferral it may have begun."""
        self.loader.index_deferred = self.deferred()

    def before_finish(self) -> None:
        """Before the loader's last steps (Loader.finish())."""

    def finish(self) -> None:
        """After the loader's last steps: build what was deferred."""
        if self.loader.index_deferred and not self.dry_run:
            self.build_deferred()
            self.loader.index_deferred = False
        elif not self.dry_run:
            self.outcome = "kept up to date batch by batch"

    def build_deferred(self) -> None:
        bulk_indexes.build()
        self.outcome = "built at the end"
        if search_index.deferred():
            search_index.build()

    def close(self) -> None:
        """Stop the helpers (they may still run if the import failed)."""


def session_for(
    connection, loader: Loader, *, dry_run: bool, report: Callable[[str], None]
) -> BulkSession:
    """The bulk session of the connection's engine."""
    if connection.vendor == "sqlite":
        from papers.archive.engines.sqlite.session import SQLiteBulkSession as session
    elif connection.vendor == "postgresql":
        from papers.archive.engines.postgresql.session import PostgresBulkSession as session
    else:
        session = BulkSession
    return session(loader, dry_run=dry_run, report=report)
