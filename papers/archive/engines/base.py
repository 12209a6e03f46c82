"""The course of a bulk import that every engine shares: `BulkSession`, which each
engine's session (sqlite/session.py, postgresql/session.py) extends with its own
settings, index plan and helpers (see papers.archive.engines).

The index plan. An import that has created at least as many papers as the database held
when it started is mostly adding: from its next batch on the full-text index is deferred
(see papers.search.index) with the secondary indexes of the session's IndexPlan
(papers.archive.engines.indexes), and they are built when the import ends. So an import
into an empty database defers from its first batch, and a re-import or an update of a
few papers keeps the indexes per batch. An import that finds them deferred (one before
it was killed) keeps them deferred and builds them at its end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from papers.archive.engines.indexes import IndexPlan
from papers.models import Paper
from papers.search import index as search_index

if TYPE_CHECKING:
    from papers.archive.write.loader import Loader


class BulkSession:
    """One import's dealings with its engine. The base does what both engines share (and
    is the whole session of an engine with nothing of its own)."""

    indexes = IndexPlan()  # the secondary indexes the engine's imports defer

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

    def deferred(self) -> bool:
        return search_index.deferred() or bool(self.indexes.missing())

    def before_batch(self) -> None:
        if self.dry_run:
            return
        if self.loader.index_deferred:
            self.while_deferred()
            return
        if self.loader.stats.counts["Paper"]["created"] >= self.existing:
            search_index.defer()
            self.indexes.drop()
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
        self.indexes.build()
        self.outcome = "built at the end"
        if search_index.deferred():
            search_index.build()

    def close(self) -> None:
        """Stop the helpers (they may still run if the import failed)."""
