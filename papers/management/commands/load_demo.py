import json
import tempfile
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from papers import synthetic
from papers.archive.importer import import_files
from papers.kept import refresh_all


class Command(BaseCommand):
    help = (
        "Load the demo data: the seed record plus a small synthetic archive (a few hundred "
        "papers with code links, samples of every status, tasks, methods, datasets and "
        "leaderboards), generated deterministically and imported with import_archive. "
        "Running it again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--papers", type=int, default=400)
        parser.add_argument("--seed", type=int, default=7)

    def handle(self, *args, papers, seed, **opts):
        if papers < 50:
            raise CommandError("--papers must be at least 50")
        sizes = synthetic.archive_sizes(papers)
        parts = {
            "papers": synthetic.paper_rows(seed, papers),
            "links": synthetic.link_rows(seed, papers),
            "methods": synthetic.method_rows(seed, sizes.methods, papers=papers),
            "datasets": synthetic.dataset_rows(seed, sizes.datasets, papers=papers),
            "evaluation-tables": synthetic.evaluation_rows(seed, papers, sizes.rows),
            "records": synthetic.record_rows(seed, papers, share=0.15),
        }
        with tempfile.TemporaryDirectory(prefix="cwp-demo-") as folder:
            files = []
            for kind, rows in parts.items():
                path = Path(folder) / f"{kind}.jsonl"
                with path.open("w", encoding="utf-8") as out:
                    for row in rows:
                        out.write(json.dumps(row, ensure_ascii=False) + "\n")
                files.append(path)
            result = import_files(files, report=lambda line: self.stderr.write(line))
        call_command("loaddata", "seed", verbosity=0)
        # The browse pages' counts, over the records the import and the fixture wrote.
        refresh_all()
        created = result.stats.total("created")
        updated = result.stats.total("updated")
        if opts["verbosity"]:
            self.stdout.write(
                f"Demo data: {result.records:,} archive records read, {created:,} rows created, "
                f"{updated:,} updated ({result.elapsed:.1f} s); the seed record loaded."
            )
        if result.rejections:
            raise CommandError(f"{result.rejections} demo records were rejected")
