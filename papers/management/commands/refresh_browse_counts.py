import time

from django.core.management.base import BaseCommand

from codewithpapers.cache import bump_content_version
from papers.kept import refresh_all


class Command(BaseCommand):
    help = (
        "Recompute what the browse pages keep: every task's, method's and dataset's counts "
        "and every leaderboard's rankings, charts and execution facts (what an import does at "
        "its end). Run it after an upgrade, or after writing to the database other than "
        "through import_archive or the admin; until then boards rank their rows per request."
    )

    def handle(self, *args, **opts):
        started = time.perf_counter()
        changed = refresh_all()
        bump_content_version()
        self.stdout.write(
            f"Browse counts refreshed ({changed:,} records changed) and every leaderboard "
            f"ranked in {time.perf_counter() - started:.1f} s."
        )
