"""Write parsed archive records to the database in batches, idempotently.

`Loader` is what the importer (papers.archive.importer) writes through: one writer per
record kind (papers.py, links.py, records.py, taxonomy.py for methods and datasets,
evaluations.py), each over one shared core of upserts and counts (core.py). A batch is
one transaction. What an engine's bulk session (papers.archive.engines) does beside the
writer reaches it through this class alone: whether the full-text index is deferred,
the papers written while it is (`take_text_writes()`), and code links counted ahead
(`forecast_links()`).
"""

from __future__ import annotations

from copy import deepcopy

from django.db import IntegrityError, connection, transaction

from papers.archive.write.core import Core, Stats
from papers.archive.write.evaluations import EvaluationWriter, GivenBoard
from papers.archive.write.finish import hide_junk, resolve_references
from papers.archive.write.identity import DatasetNames
from papers.archive.write.links import LinkWriter
from papers.archive.write.papers import KnownSlugs, LinkForecast, PaperWriter
from papers.archive.write.records import RecordWriter
from papers.archive.write.taxonomy import TaxonomyWriter
from papers.kept import after_write, refresh_all
from papers.kept.counts import refresh_paper_count
from papers.kept.datasets import forget_dataset_index
from papers.kept.papers import refresh_counts
from papers.models import Dataset, Method


class Loader:
    def __init__(self, *, overwrite_edits: bool = False, local_refresh: bool = False):
        self.core = Core(overwrite_edits=overwrite_edits)
        # A few records pushed through the API: refresh what their papers feed, not the
        # whole archive.
        self.local_refresh = local_refresh
        self.stats: Stats = self.core.stats
        datasets = DatasetNames(self.core)
        self.papers = PaperWriter(self.core)
        links = LinkWriter(self.core, self.papers)
        taxonomy = TaxonomyWriter(self.core, datasets)
        self.evaluations = EvaluationWriter(self.core, self.papers, datasets)
        # Each kind's writer, by the importer's name for it (importer.LOADERS).
        self.writers = {
            "papers": self.papers.write,
            "links": links.write,
            "records": RecordWriter(self.core, self.papers, links, datasets).write,
            "methods": taxonomy.methods,
            "datasets": taxonomy.datasets,
            "evaluations": self.evaluations.write,
        }

    # --- what the importer and the engine's session see -------------------------------

    @property
    def index_deferred(self) -> bool:
        """Whether the full-text index is built at the end of the import (set by the
        engine's session, see papers.search.index.defer())."""
        return self.papers.index_deferred

    @index_deferred.setter
    def index_deferred(self, deferred: bool) -> None:
        self.papers.index_deferred = deferred

    @property
    def known_slugs(self) -> KnownSlugs | None:
        """The slugs the papers table may hold, or None: look every slug up."""
        return self.papers.known_slugs

    @known_slugs.setter
    def known_slugs(self, known: KnownSlugs | None) -> None:
        self.papers.known_slugs = known

    @property
    def file_boards(self) -> dict[tuple[int, int], GivenBoard]:
        """The boards the file being imported has given so far."""
        return self.evaluations.file_boards

    def forecast_links(self, forecast: LinkForecast | None) -> None:
        """New papers go in with their code links counted ahead by `forecast` once it has
        them (refresh_counts() checks them at the end)."""
        self.papers.forecast = forecast

    def take_text_writes(self) -> tuple[list[int], list[int]]:
        """The papers inserted and changed while the index was deferred, since the last
        call (the importer calls it after each commit)."""
        return self.papers.take_text_writes()

    # --- batches and files -----------------------------------------------------------

    def write_batch(self, kind: str, batch: list) -> None:
        """Write one batch of records of a kind (importer.LOADERS) in one transaction. A
        batch that inserts a paper someone else added since the import began (a slug
        KnownSlugs never saw, so not looked up) fails on the unique slug: it is rolled
        back, and written again with every slug looked up from then on."""
        write = self.writers[kind]
        counts = None if self.known_slugs is None else deepcopy(self.stats.counts)
        boards = None if counts is None else deepcopy(self.evaluations.file_boards)
        try:
            with transaction.atomic():
                write(batch)
        except (IntegrityError, connection.Database.IntegrityError):
            if counts is None:
                raise
            self.stats.counts = counts
            self.evaluations.file_boards = boards
            self.forget()
            self.known_slugs = None
            with transaction.atomic():
                write(batch)

    def forget(self) -> None:
        """Writes were rolled back (--strict, a batch written again): ids remembered from
        them are void."""
        self.core.filled.clear()
        self.take_text_writes()

    def begin_file(self) -> None:
        self.evaluations.begin_file()

    def end_file(self, *, complete: bool) -> None:
        """The boards this file gave are now as it gives them (EvaluationWriter.end_file)."""
        self.evaluations.end_file(complete=complete)

    # --- end of an import ----------------------------------------------------------------

    def finish(self) -> None:
        """Resolve references that files imported in another order left open, hide
        junk, and refresh the denormalised counts (the papers' first: the browse counts
        read them)."""
        resolve_references()
        for model in (Method, Dataset):
            hidden = hide_junk(model)
            self.stats.add(model.__name__, "hidden", hidden)
            if model is Dataset and hidden:  # in bulk, without the signal that forgets it
                forget_dataset_index()
        if self.local_refresh:
            if self.papers.touched:  # written in bulk, without the signals that move it
                refresh_paper_count()
            after_write(papers=self.papers.touched)
            return
        refresh_counts(self.papers.touched)
        if any(
            self.stats.total(outcome) for outcome in ("created", "updated", "deleted", "hidden")
        ):
            refresh_all()
