import os
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from papers.archive.fidelity import Verdict, reports
from papers.archive.read.readers import KINDS


class Command(BaseCommand):
    help = (
        "Compare archive files with the database: records given, rejected and kept, records "
        "lost, distinct records merged into one, records hidden, leaderboards one name splits "
        "in two, values that cannot be ranked, metric directions to review, and keys whose "
        "values are dropped or not stored. Run it on the database the files were imported "
        "into, or with --scratch to import them into a fresh SQLite database first. Exit "
        "status 1 when anything was lost, merged, split, dropped or not stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument(
            "--kind", choices=KINDS, help="Which archive file (default: detected)."
        )
        parser.add_argument(
            "--scratch",
            action="store_true",
            help="Import the files into a new SQLite database in a temporary folder, report "
            "on it, and remove it (the configured database is not touched).",
        )

    def handle(self, *args, files, kind, scratch, **options):
        if scratch:
            sys.exit(self.in_scratch(files, kind, options["verbosity"]))
        clean = True
        found = reports(files, kind)
        for report in found:
            for line in report.lines():
                self.stdout.write(line)
            clean &= report.ok
        self.stdout.write(Verdict.of(found).line())
        self.stdout.write("Nothing lost, merged or dropped." if clean else "See above.")
        if not clean:
            sys.exit(1)

    def in_scratch(self, files: list[str], kind: str | None, verbosity: int) -> int:
        manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
        kind_args = ["--kind", kind] if kind else []
        with tempfile.TemporaryDirectory(prefix="cwp-fidelity-") as folder:
            env = os.environ | {"DATABASE_URL": f"sqlite:///{folder}/fidelity.sqlite3"}
            steps = [
                [*manage, "migrate", "--no-input", "-v", "0"],
                [*manage, "import_archive", *files, *kind_args, "-v", str(min(verbosity, 1))],
            ]
            for step in steps:
                done = subprocess.run(step, env=env, stdout=self.stdout._out, check=False)
                # 1: records were rejected, 2: a file could not be read (the report says)
                if done.returncode not in (0, 1, 2):
                    raise CommandError(f"{' '.join(step[1:3])} failed ({done.returncode})")
            report = [*manage, "fidelity_report", *files, *kind_args]
            return subprocess.run(report, env=env, stdout=self.stdout._out, check=False).returncode
