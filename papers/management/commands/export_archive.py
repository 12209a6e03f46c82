import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from papers.archive.export import FORMATS, WRITERS, export_kind


class Command(BaseCommand):
    help = (
        "Write one kind of archive file from the database, in the archive's own shape: "
        "papers (papers-with-abstracts), links (links-between-papers-and-code), "
        "evaluation-tables, methods, datasets, or records (full paper records, as "
        "/paper/<slug>.json serves them). "
        "The format follows OUT's name: .json (an array), .jsonl (JSON Lines), either "
        "gzipped with .gz. Streams in chunks: memory stays bounded at archive scale. "
        "import_archive reads every kind back to the same database."
    )

    def add_arguments(self, parser):
        parser.add_argument("--kind", required=True, choices=list(WRITERS))
        parser.add_argument(
            "-o", "--output", required=True, metavar="OUT", help=f"ends with {', '.join(FORMATS)}"
        )

    def handle(self, *args, kind, output, **opts):
        path = Path(output)
        if not path.name.lower().endswith(FORMATS):
            raise CommandError(f"{output}: OUT must end with one of {', '.join(FORMATS)}")
        if not path.parent.is_dir():
            raise CommandError(f"{output}: no such directory {path.parent}")
        if settings.DEBUG:
            # DEBUG keeps every query in memory; an archive export would grow without bound.
            settings.DEBUG = False
        verbosity = opts["verbosity"]
        started = time.monotonic()
        last = [started]

        def progress(count: int) -> None:
            now = time.monotonic()
            if verbosity >= 1 and now - last[0] >= 10:
                last[0] = now
                self.stderr.write(f"{kind}: {count:,} written ({now - started:.0f} s)")

        count = export_kind(kind, path, progress=progress)
        if verbosity >= 1:
            self.stdout.write(
                f"Wrote {count:,} {kind} rows to {path} in {time.monotonic() - started:.1f} s."
            )
