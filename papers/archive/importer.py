"""Drive an import: read files, parse records, reject the bad ones precisely, load batches.

`import_files()` is what `manage.py import_archive` runs; tests and the demo loader
call it directly. The reading is papers.archive.read's, the writing papers.archive.
write's, and what differs between SQLite and PostgreSQL (session settings, when indexes
are built, helpers beside the writer) the bulk session's (papers.archive.engines),
chosen once per import.
"""

from __future__ import annotations

import functools
import gzip
import json
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import closing, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from django.db import connection, transaction

from codewithpapers.cache import bump_content_version
from papers.archive.edits import EditedRecords
from papers.archive.engines import BulkSession, session_for
from papers.archive.read.pipeline import BAD, KIND, Parser, Position
from papers.archive.read.readers import KINDS, ArchiveFileError
from papers.archive.write.core import Stats
from papers.archive.write.loader import Loader
from papers.archive.write.papers import KnownSlugs
from papers.models import Paper

LOADERS = {
    "records": "records",
    "papers": "papers",
    "links": "links",
    "methods": "methods",
    "datasets": "datasets",
    "evaluation-tables": "evaluations",
    "arxiv": "records",  # a paper and the code links found in it
}

# The model a rejected record of each kind is counted under in the summary.
KIND_MODEL = {
    "records": "Paper",
    "papers": "Paper",
    "links": "CodeLink",
    "methods": "Method",
    "datasets": "Dataset",
    "evaluation-tables": "Task",
    "arxiv": "Paper",
}
# Evaluation-table records are whole task trees; batch fewer of them.
BATCH_DIVISOR = {"evaluation-tables": 50, "records": 4}
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
    empty: bool = False  # nothing but whitespace: a valid archive file of no records


# The archive's file names (and the export's), which tell the kind of a file whose
# content cannot: one of no records. The longest first ("papers-with-abstracts" before
# "papers").
NAMED_KINDS = {
    "arxiv-metadata-oai-snapshot": "arxiv",
    "links-between-papers-and-code": "links",
    "papers-with-abstracts": "papers",
    "evaluation-tables": "evaluation-tables",
    "records": "records",
    "methods": "methods",
    "datasets": "datasets",
    "papers": "papers",
    "links": "links",
}
_CONTAINERS = (".gz", ".jsonl", ".json", ".parquet")


def kind_from_name(path: Path) -> str | None:
    """The kind a file's name gives ("datasets.jsonl.gz", "papers-with-abstracts-2025.json"),
    or None."""
    stem = path.name.lower()
    while stem.endswith(_CONTAINERS):
        stem = stem[: stem.rindex(".")]
    for name, kind in NAMED_KINDS.items():
        if stem == name or stem.startswith((f"{name}-", f"{name}_", f"{name}.")):
            return kind
    return None


def is_empty(path: Path) -> bool:
    """Whether a file (gzipped or not) holds nothing but whitespace: what an export of no
    rows writes as JSON Lines."""
    try:
        with open(path, "rb") as raw:
            gzipped = raw.read(2) == b"\x1f\x8b"
        with gzip.open(path, "rb") if gzipped else open(path, "rb") as stream:
            while chunk := stream.read(1 << 16):
                if chunk.strip():
                    return False
    except (OSError, EOFError, zlib.error):  # unreadable: not an empty file
        return False
    return True


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


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


@dataclass(frozen=True)
class ImportOptions:
    """How an import runs: the command's options."""

    kind: str | None = None  # every file's kind, instead of detecting each one's
    batch_size: int = 2000  # records per transaction (fewer for the heavier kinds)
    overwrite_edits: bool = False  # overwrite what staff edited in the admin
    strict: bool = False  # a bad record rolls its whole file back
    dry_run: bool = False  # everything in one transaction, rolled back
    errors_out: IO[str] | None = None  # where rejected records are written, raw
    report: Callable[[str], None] = _to_stderr  # a line for the operator
    progress: Callable[[str, int], Progress] | None = None  # a ticker per file
    # 1: read and parse the files in a second process while this one writes
    # (papers.archive.read.pipeline); 0: both here.
    workers: int = 1
    # A few records pushed through the API: refresh only what they feed, and record the
    # run's revision under this user (papers.api.writes.records).
    local_refresh: bool = False
    actor: object = None


def import_files(paths: list[str | Path], **options) -> ImportResult:
    """Import archive files; `options` are ImportOptions' fields."""
    return ArchiveImport(paths, ImportOptions(**options)).run()


def record_import(result: ImportResult, actor=None) -> None:
    """One revision for the whole run: its files and what it did, by outcome (never a
    row per record)."""
    from papers.contributions.revisions import Actor
    from papers.models import Revision
    from papers.models.contributions import Action, Via

    actor = actor or Actor(via=Via.IMPORT)
    counts = {
        model: {outcome: n for outcome, n in outcomes.items() if n}
        for model, outcomes in result.stats.counts.items()
    }
    Revision.objects.create(
        user=actor.user,
        token=actor.token,
        via=Via.IMPORT,
        action=Action.IMPORT,
        comment=actor.comment,
        summary={
            "files": [Path(f.path).name for f in result.files],
            "records": result.records,
            "rejected": result.rejections,
            "counts": {model: c for model, c in counts.items() if c},
        },
    )


class ArchiveImport:
    """One import of a list of files, run once."""

    def __init__(self, paths: list[str | Path], options: ImportOptions):
        if options.kind is not None and options.kind not in KINDS:
            raise ValueError(f"unknown kind {options.kind!r}; one of {', '.join(KINDS)}")
        self.paths = [Path(p) for p in paths]
        self.options = options
        self.result = ImportResult()
        self.loader = Loader(
            overwrite_edits=options.overwrite_edits, local_refresh=options.local_refresh
        )
        self.session: BulkSession = session_for(
            connection, self.loader, dry_run=options.dry_run, report=options.report
        )
        self.invalidator = CacheInvalidator()
        self.edits = EditedRecords()

    def run(self) -> ImportResult:
        options, session = self.options, self.session
        session.enter()
        try:
            # Forked now, while this process is small (see papers.archive.read.pipeline).
            parser = Parser(self.paths, options.kind, options.workers)
            papers_at_start = Paper.objects.count()
            self.loader.known_slugs = KnownSlugs.for_import(papers_at_start)
            session.begin(self.paths, options.kind, options.workers, papers_at_start)
            started = time.monotonic()
            # One transaction per batch; --dry-run wraps everything in one, rolled back.
            with transaction.atomic() if options.dry_run else nullcontext(), parser:
                self._files(parser)
                self._finish()
                if options.dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        finally:
            session.close()
            self.invalidator.flush()
            session.exit()
        self.result.stats = self.loader.stats
        self.result.search_index = session.outcome
        self.result.elapsed = time.monotonic() - started
        if not options.dry_run:
            record_import(self.result, self.options.actor)
        return self.result

    def _files(self, parser: Parser) -> None:
        for number, path in enumerate(self.paths):
            self.session.file = number
            events = functools.partial(parser.parsed, number)
            self.result.files.append(FileImport(self, path, events).run())

    def _finish(self) -> None:
        self.session.before_finish()
        with transaction.atomic():
            self.loader.finish()
            self.edits.apply()
        self.session.finish()
        self.committed()

    def committed(self) -> None:
        """A batch (or a --strict file) has committed."""
        if not self.options.dry_run:
            self.invalidator.committed()
            self.session.committed()


class FileImport:
    """One file of an import: its records read in order, the bad ones rejected, the
    good ones written in batches."""

    def __init__(
        self, importer: ArchiveImport, path: Path, parsed: Callable[[Position], Iterator]
    ):
        self.importer = importer
        self.options = importer.options
        self.loader = importer.loader
        self.session = importer.session
        self.path = path
        self.parsed = parsed
        self.outcome = FileResult(str(path), self.options.kind)
        self.position = Position()
        self.batch: list = []
        self.edits = EditedRecords()  # what its written batches say staff edited
        progress = self.options.progress
        self.tick = None
        if progress and path.exists():
            self.tick = progress(str(path), path.stat().st_size)

    def run(self) -> FileResult:
        self.loader.begin_file()
        try:
            # --strict rolls the file back
            with transaction.atomic() if self.options.strict else nullcontext():
                self._read()
                self._end(complete=True)
            self.importer.committed()
            self.importer.edits.merge(self.edits)
            if not self.outcome.records and self.outcome.kind is None:
                self.outcome.kind = kind_from_name(self.path)
        except ArchiveFileError as exc:
            self.batch.clear()
            if not self.options.strict:  # the batches written before are kept
                self.importer.edits.merge(self.edits)
            if not self.outcome.records and is_empty(self.path):
                self._empty()
                self._end(complete=True)
                return self.outcome
            self.outcome.error = exc.reason
            self.outcome.unreadable = True
            self.options.report(
                f"{exc.path}: {exc.reason} (nothing from this file's unfinished batch was kept)"
            )
            # A file read only in part replaces none of the boards it began to give.
            self._end(complete=False)
            self.importer.committed()
        except StrictStop:
            self.loader.begin_file()
            self.loader.forget()
            self.session.rolled_back()
            self.outcome.error = (
                "stopped at the first bad record (--strict); this file's changes were rolled back"
            )
            self.options.report(f"{self.path}: {self.outcome.error}")
        return self.outcome

    def _end(self, *, complete: bool) -> None:
        if self.loader.file_boards:
            with transaction.atomic():
                self.loader.end_file(complete=complete)

    def _empty(self) -> None:
        """An empty file is a valid archive file with no records (an export of an empty
        table writes one): nothing to import, whatever its kind. The kind is told by
        --kind or the file's name, where either does."""
        outcome = self.outcome
        outcome.empty = True
        outcome.kind = outcome.kind or kind_from_name(self.path)
        told = f"no {outcome.kind} records" if outcome.kind else "no records of a kind it names"
        self.options.report(f"{self.path}: the file is empty ({told}): nothing to import")

    def _read(self) -> None:
        outcome, batch, tick, position = self.outcome, self.batch, self.tick, self.position
        batch_size = self.options.batch_size
        size = batch_size
        stream = self.session.stream(self.parsed(position))
        # Closed here, not when collected: the stream may run a thread (and the parser)
        # ahead of the writer, which must stop before the next file starts.
        with closing(stream):
            for event in stream:
                tag = event[0]
                if tag == KIND:
                    outcome.kind = event[1]
                    size = max(1, batch_size // BATCH_DIVISOR.get(outcome.kind, 1))
                    continue
                outcome.records += 1
                if tag == BAD:
                    self.reject(*event[1:])
                    continue
                batch.append(event[1])
                if len(batch) >= size:
                    self.flush()
                if tick:
                    tick(position, outcome.records)
        self.flush()
        if tick:
            tick(position, outcome.records)

    def reject(self, number: int, line: int | None, field_name: str, reason: str, raw) -> None:
        rejection = Rejection(str(self.path), number, line, field_name, reason, raw)
        self.outcome.rejected += 1
        self.importer.result.rejections += 1
        model = KIND_MODEL.get(self.outcome.kind or "", "(unknown kind)")
        self.loader.stats.add(model, "rejected")
        self.options.report(str(rejection))
        errors_out = self.options.errors_out
        if errors_out is not None and raw is not None:  # a record too large is never held
            text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
            errors_out.write(text.rstrip("\n") + "\n")
        if self.options.strict:
            raise StrictStop(str(rejection))

    def flush(self) -> None:
        if self.batch:
            self.session.before_batch()
            self.loader.write_batch(LOADERS[self.outcome.kind], self.batch)
            self.edits.note(self.outcome.kind, self.batch)
            self.batch.clear()
            self.session.after_batch()
            if not self.options.strict:  # under --strict nothing commits before the file ends
                self.importer.committed()
