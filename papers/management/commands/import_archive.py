import sys
import time
from contextlib import ExitStack

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from papers.archive.fidelity import Verdict
from papers.archive.importer import CHANGES, OUTCOMES_LABELS, import_files
from papers.archive.read.readers import KINDS


class Command(BaseCommand):
    help = (
        "Import Papers with Code archive files (paper records, papers-with-abstracts, "
        "links-between-papers-and-code, evaluation-tables, methods, datasets) as .json, "
        ".json.gz, .jsonl(.gz) or .parquet. Idempotent; bad records are reported and skipped. "
        "Exit status: 0 all imported, 1 some records rejected, 2 a file could not be read."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument(
            "--kind", choices=KINDS, help="Which archive file (default: detected)."
        )
        parser.add_argument(
            "--batch-size", type=int, default=2000, help="Records per transaction."
        )
        parser.add_argument(
            "--overwrite-edits",
            action="store_true",
            help="Also update records staff edited in the admin (left alone by default).",
        )
        parser.add_argument("--errors", metavar="OUT.jsonl", help="Write rejected records here.")
        parser.add_argument(
            "--strict",
            action="store_true",
            help="Stop at the first bad record and roll back everything that file wrote.",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Validate and count; write nothing."
        )
        parser.add_argument(
            "--workers",
            type=int,
            choices=(0, 1),
            default=1,
            help="1 (default): read and parse each file in a second process while this one "
            "writes; 0: do both in this process.",
        )

    def handle(
        self,
        *args,
        files,
        kind,
        batch_size,
        overwrite_edits,
        errors,
        strict,
        dry_run,
        workers,
        **opts,
    ):
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        if settings.DEBUG:
            # DEBUG keeps every query in memory; an archive import would exhaust it.
            from django.db import reset_queries

            reset_queries()
            settings.DEBUG = False
        verbosity = opts["verbosity"]
        with ExitStack() as stack:
            errors_out = (
                # surrogateescape: a rejected line's bytes that are not UTF-8 go out as
                # they came in.
                stack.enter_context(open(errors, "w", encoding="utf-8", errors="surrogateescape"))
                if errors
                else None
            )
            progress = Progress(self.stderr, verbosity, stack)
            result = import_files(
                files,
                kind=kind,
                batch_size=batch_size,
                overwrite_edits=overwrite_edits,
                strict=strict,
                dry_run=dry_run,
                errors_out=errors_out,
                report=lambda line: self.stderr.write(line),
                progress=progress.start if verbosity >= 1 else None,
                workers=workers,
            )
            progress.close()
        if verbosity >= 1:
            self.print_summary(result, dry_run)
        if result.exit_status:
            sys.exit(result.exit_status)

    def print_summary(self, result, dry_run: bool) -> None:
        out = self.stdout
        rate = result.records / result.elapsed if result.elapsed else 0.0
        out.write(
            f"{'Dry run: ' if dry_run else ''}{result.records:,} records from "
            f"{len(result.files)} file(s) in {result.elapsed:.1f} s ({rate:,.0f} records/s)"
        )
        header = f"{'model':<20}" + "".join(f"{label:>12}" for label in OUTCOMES_LABELS.values())
        out.write(header)
        for model in sorted(result.stats.counts):
            counts = result.stats.counts[model]
            out.write(f"{model:<20}" + "".join(f"{counts[k]:>12,}" for k in OUTCOMES_LABELS))
        for f in result.files:
            line = f"{f.path}: {f.kind or 'unknown kind'}, {f.records:,} records"
            if f.empty:
                line += " (an empty file)"
            if f.rejected:
                line += f", {f.rejected:,} rejected"
            if f.error:
                line += f", NOT FULLY IMPORTED: {f.error}"
            out.write(line)
        if result.search_index:
            out.write(f"Search index: {result.search_index}.")
        if not any(result.stats.total(outcome) for outcome in CHANGES):
            out.write("Nothing changed: every record was already up to date.")
        verdict = Verdict(
            lost=result.stats.total("rejected"),
            hidden=result.stats.total("hidden"),
            unranked=result.stats.total("unranked"),
            given_again=result.stats.total("given_again"),
        )
        if verdict:
            files = " ".join(f.path for f in result.files)
            out.write(f"{verdict.line()} Details: manage.py fidelity_report {files}")
        if dry_run:
            out.write("Dry run: nothing was written.")


class Progress:
    """A tqdm bar (bytes read, rate, ETA) on a terminal; a plain line every 10 s otherwise."""

    def __init__(self, stream, verbosity: int, stack: ExitStack):
        self.stream = stream
        self.tty = stream.isatty()
        self.stack = stack
        self.bar = None
        self.last = 0.0

    def start(self, path: str, size: int):
        self.close()
        if self.tty:
            import tqdm as tqdm_module
            from tqdm import tqdm

            # No monitor thread: the parser process is forked, and a fork should not
            # copy a process with threads.
            tqdm_module.tqdm.monitor_interval = 0
            self.bar = tqdm(
                total=size, unit="B", unit_scale=True, desc=path[-40:], file=self.stream._out
            )
        started = time.monotonic()
        self.last = started

        def tick(reader, records: int) -> None:
            if self.bar is not None:
                self.bar.update(reader.offset - self.bar.n)
                self.bar.set_postfix(records=records, refresh=False)
                return
            now = time.monotonic()
            if now - self.last >= 10:
                self.last = now
                pct = 100 * reader.offset / size if size else 0
                rate = records / (now - started)
                self.stream.write(f"{path}: {records:,} records, {pct:.0f}% read, {rate:,.0f}/s")

        return tick

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
