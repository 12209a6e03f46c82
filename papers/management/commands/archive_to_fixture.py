import os
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from papers.models import CONTRIBUTIONS, JOURNALS, KEPT_FACTS


class Command(BaseCommand):
    help = (
        "Turn archive files into a Django fixture with natural keys: the files are imported "
        "with import_archive into a scratch SQLite database, which is then dumped. "
        "`loaddata OUT.json` gives the same end state as importing the files."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("-o", "--output", required=True, metavar="OUT.json")
        parser.add_argument("--kind", help="Passed on to import_archive.")

    def handle(self, *args, files, output, kind, **opts):
        manage = Path(settings.BASE_DIR) / "manage.py"
        with tempfile.TemporaryDirectory(prefix="archive-to-fixture-") as scratch:
            env = os.environ | {
                "DATABASE_URL": f"sqlite:///{Path(scratch) / 'scratch.sqlite3'}",
                "SECRET_KEY": settings.SECRET_KEY,
            }

            def run(*command: str) -> int:
                return subprocess.run([sys.executable, str(manage), *command], env=env).returncode

            if run("migrate", "--no-input", "-v", "0"):
                raise CommandError("could not create the scratch database")
            status = run(
                "import_archive",
                *[str(Path(f).resolve()) for f in files],
                *(["--kind", kind] if kind else []),
                "-v",
                str(opts["verbosity"]),
            )
            if status == 2:
                raise CommandError("a file could not be read; no fixture written", returncode=2)
            # Not what the pages keep worked out from the records: row ids, which loaddata
            # does not keep (the pages work them out again until the next refresh).
            # Nor who wrote what (the import's own revision among them), nor the harvests' journal.
            kept = [
                f"--exclude=papers.{model.__name__}"
                for model in (*KEPT_FACTS, *CONTRIBUTIONS, *JOURNALS)
            ]
            if run(
                "dumpdata", "papers", *kept, "--natural-foreign", "--natural-primary",
                "--indent", "1", "-o", str(Path(output).resolve()),
            ):  # fmt: skip
                raise CommandError("dumpdata failed")
        self.stdout.write(f"Wrote {output}")
        if status:
            sys.exit(status)
