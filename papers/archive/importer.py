"""Drive an import: read files, parse records, reject the bad ones precisely, load batches.

`import_files()` is what `manage.py import_archive` runs; tests and the demo loader
call it directly.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable
from contextlib import closing, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from django.conf import settings
from django.db import connection, transaction

from codewithpapers.cache import bump_content_version
from papers.archive.engines.postgresql import vectors
from papers.archive.engines.postgresql.gin_side import GinBeside
from papers.archive.engines.postgresql.link_counts import LinkCounts
from papers.archive.engines.postgresql.statistics import Statistics
from papers.archive.engines.sqlite.fts_side import SideIndex
from papers.archive.read.pipeline import BAD, KIND, Parser, Position
from papers.archive.read.readers import KINDS, ArchiveFileError
from papers.archive.write import indexes as bulk_indexes
from papers.archive.write.loader import PAPER_DEFAULTS, KnownSlugs, Loader, Stats
from papers.models import Paper
from papers.search import index as search_index

LOADERS = {
    "records": "records",
    "papers": "papers",
    "links": "links",
    "methods": "methods",
    "datasets": "datasets",
    "evaluation-tables": "evaluations",
}
IMPORT_CACHE_KIB = 128 * 1024
IMPORT_CHECKPOINT_PAGES = (
    100_000  # SQLite: checkpoint the WAL every ~400 MB (1,000 pages by default)
)

# The model a rejected record of each kind is counted under in the summary.
KIND_MODEL = {
    "records": "Paper",
    "papers": "Paper",
    "links": "CodeLink",
    "methods": "Method",
    "datasets": "Dataset",
    "evaluation-tables": "Task",
}
# Evaluation-table records are whole task trees; batch fewer of them.
BATCH_DIVISOR = {"evaluation-tables": 50, "records": 4}
# The kinds of file that write papers in bulk (the others add at most a few stubs).
PAPER_KINDS = {"papers", "records"}
# While an import runs, cached pages are retired at most this often (and once at the end).
CACHE_BUMP_EVERY_S = 30.0


class CacheInvalidator:
    """Bumps the page cache's content version after committed batches: after the first,
    then at most every CACHE_BUMP_EVERY_S seconds, and at the end of the import. So a
    long import shows its progress, an import killed halfway leaves at most
    CACHE_BUMP_EVERY_S seconds of its writes behind cached pages (until CACHE_TTL), and
    the site's cache is not emptied after every batch."""

    def __init__(self) -> None:
        self.last: float | None = None
        self.pending = False

    def committed(self) -> None:
        self.pending = True
        now = time.monotonic()
        if self.last is None or now - self.last >= CACHE_BUMP_EVERY_S:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            bump_content_version()
            self.pending = False
            self.last = time.monotonic()


class IndexPlan:
    """When the full-text index (and the secondary indexes of papers.archive.write.indexes)
    are kept per batch and when they are built once at the end.

    An import that has created at least as many papers as the database held when it
    started is mostly adding: from its next batch on the index is deferred (see
    papers.search.index) and built when the import ends. So an import into an empty
    database defers from its first batch, and a re-import or an update of a few papers
    keeps the index per batch. An import that finds the index deferred (one before it
    was killed) keeps it deferred and builds it at its end.

    On SQLite a deferred full-text index is built meanwhile by a helper process
    (papers.archive.engines.sqlite.fts_side) that learns each commit's papers from
    `committed()`. On PostgreSQL it is built on a second connection once the files still
    to come write no papers in bulk (papers.archive.engines.postgresql.gin_side), and the
    other indexes beside it."""

    def __init__(self, loader: Loader, dry_run: bool, report: Callable[[str], None]):
        self.loader = loader
        self.dry_run = dry_run
        self.report = report
        self.side: SideIndex | None = None
        self.gin: GinBeside | None = None
        self.gin_decided = False  # whether the build beside the import was started or refused
        self.file = 0  # the number of the file being imported (import_files sets it)
        self.outcome = ""
        loader.index_deferred = self.deferred()
        self.existing = 0 if loader.index_deferred else Paper.objects.count()
        if loader.index_deferred and not dry_run:
            self._start_side()

    @staticmethod
    def deferred() -> bool:
        return search_index.deferred() or bool(bulk_indexes.missing())

    def before_batch(self) -> None:
        if self.dry_run:
            return
        if self.loader.index_deferred:
            self._start_gin()
            return
        if self.loader.stats.counts["Paper"]["created"] >= self.existing:
            search_index.defer()
            bulk_indexes.drop()
            self.loader.index_deferred = True
            self._start_side()

    def _start_gin(self) -> None:
        """PostgreSQL: once no file still to come writes papers in bulk, build the GIN
        index on a second connection while the writer goes on
        (papers.archive.engines.postgresql.gin_side)."""
        # Not inside a transaction (--strict's, or a caller's): the build would wait for
        # it to end, for the lock its writes to papers hold, and it ends after the build.
        if self.gin_decided or connection.vendor != "postgresql":
            return
        if connection.in_atomic_block:
            return
        counts = self.loader.link_counts
        kinds = counts.kinds() if counts is not None else None
        if not settings.IMPORT_SIDE_INDEX or kinds is None:
            return
        if any(kind in PAPER_KINDS for kind in kinds[self.file :]):
            return
        self.gin_decided = True  # the index stays as it is now until the end: ask once
        if search_index.deferred():
            self.gin = GinBeside()

    def vectors_ahead(self) -> bool:
        """PostgreSQL: whether papers' search vectors are computed on a second connection
        while the writer works (papers.archive.engines.postgresql.vectors);
        `wants_vectors()` says, chunk by chunk, whether they are still worth computing."""
        postgresql = connection.vendor == "postgresql"
        return postgresql and settings.IMPORT_SIDE_INDEX and not self.dry_run

    def wants_vectors(self) -> bool:
        # An import that mostly adds papers inserts most of them; one into a full
        # database (a re-import) would compute vectors for papers it never inserts.
        return self.existing == 0 or self.loader.index_deferred

    def _start_side(self) -> None:
        if settings.IMPORT_SIDE_INDEX and search_index.deferred():
            self.side = SideIndex.start(connection)

    def committed(self) -> None:
        """A batch (or a --strict file) has committed: the side index learns its papers."""
        added, changed = self.loader.take_text_writes()
        if self.side is not None:
            self.side.send(added, changed)

    def rolled_back(self) -> None:
        """--strict rolled a file back, and with it a deferral it may have begun."""
        self.loader.index_deferred = self.deferred()

    def finish(self) -> None:
        if self.loader.index_deferred and not self.dry_run:
            gin = self.gin
            if gin is not None:
                # The foreign keys' locks conflict with the build's: it ends first.
                gin.wait()
            bulk_indexes.build()
            if gin is not None and gin.failed:
                self.report(
                    f"the full-text index built beside the import failed ({gin.failed}); "
                    "rebuilding it"
                )
            self.outcome = "built at the end"
            deferred = search_index.deferred()
            if gin is not None and not deferred:
                self.outcome = f"built beside the import's last files ({gin.seconds:.0f} s)"
            elif deferred:
                side = self.side
                if side is not None and side.finish(connection, search_index.end_deferral):
                    self.outcome = (
                        f"built beside the import ({side.corrected:,} papers re-indexed "
                        "at the end)"
                    )
                else:
                    if side is not None:
                        self.report(
                            f"the full-text index built beside the import failed "
                            f"({side.failed}); rebuilding it"
                        )
                    search_index.build()
            self.loader.index_deferred = False
        elif not self.dry_run:
            self.outcome = "kept up to date batch by batch"

    def before_finish(self) -> None:
        """While the GIN index is built beside the import, build the other indexes too,
        before the loader's last steps (whose writes to papers wait for that build)."""
        if self.gin is not None:
            bulk_indexes.build(keys=False)

    def close(self) -> None:
        if self.side is not None:
            self.side.close()
        if self.gin is not None:
            self.gin.cancel()


class StrictStop(Exception):
    """--strict met a bad record: roll back the file."""


class _DryRun(Exception):
    pass


@dataclass
class Rejection:
    path: str
    number: int
    line: int | None
    field: str
    reason: str
    raw: object

    def __str__(self) -> str:
        where = f"record {self.number}" + (f" (line {self.line})" if self.line else "")
        return f"{self.path}: {where}: field {self.field}: {self.reason}"


@dataclass
class FileResult:
    path: str
    kind: str | None = None
    records: int = 0
    rejected: int = 0
    error: str | None = None
    unreadable: bool = False


@dataclass
class ImportResult:
    stats: Stats = field(default_factory=Stats)
    files: list[FileResult] = field(default_factory=list)
    rejections: int = 0
    elapsed: float = 0.0
    search_index: str = ""  # how the import kept the search index (the summary says)

    @property
    def records(self) -> int:
        return sum(f.records for f in self.files)

    @property
    def exit_status(self) -> int:
        if any(f.unreadable for f in self.files):
            return 2
        return 1 if self.rejections else 0


OUTCOMES_LABELS = {
    "created": "created",
    "updated": "updated",
    "unchanged": "unchanged",
    "left_alone": "left alone",
    "deleted": "deleted",  # leaderboard rows a later file's board no longer has
    "hidden": "hidden",  # junk flagged hidden (the admin's "hidden" filter lists them)
    "rejected": "rejected",
}
CHANGES = ("created", "updated", "deleted", "hidden")

Progress = Callable[[Position, int], None]


def import_files(
    paths: list[str | Path],
    *,
    kind: str | None = None,
    batch_size: int = 2000,
    overwrite_edits: bool = False,
    strict: bool = False,
    dry_run: bool = False,
    errors_out: IO[str] | None = None,
    report: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
    progress: Callable[[str, int], Progress] | None = None,
    workers: int = 1,
) -> ImportResult:
    """Import archive files. `workers=1` reads and parses the files in a second process
    while this one writes (papers.archive.read.pipeline); 0 does both here."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    result = ImportResult()
    loader = Loader(overwrite_edits=overwrite_edits)
    if connection.vendor == "sqlite":
        # A bigger page cache for this connection: an archive import walks B-trees (slug,
        # author and FTS indexes) far larger than SQLite's 2 MB default. And fewer WAL
        # checkpoints: each copies every page the batches since the last one changed
        # into the database (the default, every 4 MB of WAL, was after every batch), so
        # a page that each batch changes was written twice a batch.
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
            cursor.execute(f"PRAGMA wal_autocheckpoint = {IMPORT_CHECKPOINT_PAGES}")
    elif connection.vendor == "postgresql":
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
            # gives those computed on a second connection
            # (papers.archive.engines.postgresql.vectors).
            cursor.execute("SET cwp.search_vectors_given = on")
    # Forked now, while this process is small (see papers.archive.read.pipeline.Parser).
    parser = Parser([Path(p) for p in paths], kind, workers)
    # PostgreSQL: the counts ahead spare the end a rewrite of every linked paper's row,
    # which would also wait for the GIN index built beside (and then maintain it). On
    # SQLite that rewrite costs less than the counting (bench/README.md).
    postgresql = connection.vendor == "postgresql"
    papers_at_start = Paper.objects.count()
    loader.known_slugs = KnownSlugs.for_import(papers_at_start)
    if postgresql and workers and not dry_run and not papers_at_start:
        loader.link_counts = LinkCounts([Path(p) for p in paths], kind)
    started = time.monotonic()
    invalidator = CacheInvalidator()
    index = IndexPlan(loader, dry_run, report)

    def committed() -> None:
        if not dry_run:
            invalidator.committed()
            index.committed()

    statistics = Statistics(enabled=not dry_run)
    # One transaction per batch; --dry-run wraps everything in one and rolls it back.
    try:
        with transaction.atomic() if dry_run else nullcontext(), parser:
            for number, path in enumerate(paths):
                index.file = number
                result.files.append(
                    _import_file(
                        Path(path),
                        functools.partial(parser.parsed, number),
                        kind,
                        batch_size,
                        loader,
                        strict,
                        errors_out,
                        report,
                        progress,
                        result,
                        committed,
                        index,
                        statistics,
                    )
                )
            index.before_finish()
            with transaction.atomic():
                loader.finish()
            index.finish()
            statistics.finish()
            committed()
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    finally:
        if loader.link_counts is not None:
            loader.link_counts.close()
        index.close()
        invalidator.flush()
        if connection.vendor == "sqlite":
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA wal_autocheckpoint = 1000")  # SQLite's default
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("RESET synchronous_commit")
                cursor.execute("RESET default_toast_compression")
                cursor.execute("RESET cwp.search_vectors_given")
    result.stats = loader.stats
    result.search_index = index.outcome
    result.elapsed = time.monotonic() - started
    return result


def _import_file(
    path,
    parsed,
    kind,
    batch_size,
    loader,
    strict,
    errors_out,
    report,
    progress,
    result,
    committed,
    index,
    statistics,
):
    outcome = FileResult(str(path), kind)
    position = Position()
    batch: list = []
    tick = progress(str(path), path.stat().st_size) if progress and path.exists() else None

    def reject(number, line, field_name: str, reason: str, raw) -> None:
        rejection = Rejection(str(path), number, line, field_name, reason, raw)
        outcome.rejected += 1
        result.rejections += 1
        loader.stats.add(KIND_MODEL.get(outcome.kind or "", "(unknown kind)"), "rejected")
        report(str(rejection))
        if errors_out is not None and raw is not None:  # a record too large is never held
            errors_out.write(
                (raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)).rstrip("\n")
                + "\n"
            )
        if strict:
            raise StrictStop(str(rejection))

    def flush() -> None:
        if batch:
            index.before_batch()
            loader.write_batch(LOADERS[outcome.kind], batch)
            batch.clear()
            statistics.after_batch()
            if not strict:  # under --strict nothing commits before the file ends
                committed()

    try:
        with transaction.atomic() if strict else nullcontext():  # --strict rolls the file back
            size = batch_size
            stream = parsed(position)
            if index.vectors_ahead():
                stream = vectors.ahead(stream, PAPER_DEFAULTS, index.wants_vectors)
            # Closed here, not when collected: the stream may run a thread (and the
            # parser) ahead of the writer, which must stop before the next file starts.
            with closing(stream):
                for event in stream:
                    tag = event[0]
                    if tag == KIND:
                        outcome.kind = event[1]
                        size = max(1, batch_size // BATCH_DIVISOR.get(outcome.kind, 1))
                        continue
                    outcome.records += 1
                    if tag == BAD:
                        reject(*event[1:])
                        continue
                    batch.append(event[1])
                    if len(batch) >= size:
                        flush()
                    if tick:
                        tick(position, outcome.records)
            flush()
            if tick:
                tick(position, outcome.records)
        committed()
    except ArchiveFileError as exc:
        batch.clear()
        outcome.error = exc.reason
        outcome.unreadable = True
        report(f"{exc.path}: {exc.reason} (nothing from this file's unfinished batch was kept)")
    except StrictStop:
        loader.forget()
        index.rolled_back()
        outcome.error = (
            "stopped at the first bad record (--strict); this file's changes were rolled back"
        )
        report(f"{path}: {outcome.error}")
    return outcome
