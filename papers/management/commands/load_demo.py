import json
import tempfile
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

import synthetic
from papers.archive.importer import import_files
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers import PARSERS, EvaluationIn, LinkIn, PaperIn, RecordIn
from papers.db import chunks
from papers.kept import refresh_all
from papers.models import Paper

SEED_FIXTURE = "seed"
EXAMPLES = 3  # papers named when the command refuses
REFUSED = 3  # the exit status of a refusal (the Makefile's `run` then serves what is there)


class Command(BaseCommand):
    help = (
        "Load the demo data: the seed record plus a small synthetic archive (a few hundred "
        "papers with code links, samples of every status, tasks, methods, datasets and "
        "leaderboards), generated deterministically and imported with import_archive. "
        "Running it again changes nothing. A database holding papers the demo did not make "
        "(imported ones) is left alone unless --force."
    )

    def add_arguments(self, parser):
        parser.add_argument("--papers", type=int, default=400)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument(
            "--force",
            action="store_true",
            help="load the demo even into a database that holds papers it did not make",
        )

    def handle(self, *args, papers, seed, force, **opts):
        if papers < 50:
            raise CommandError("--papers must be at least 50")
        with tempfile.TemporaryDirectory(prefix="cwp-demo-") as folder:
            files, slugs = write_demo(Path(folder), papers, seed)
            if not force:
                refuse_foreign_papers(slugs | fixture_slugs(SEED_FIXTURE))
            result = import_files(files, report=lambda line: self.stderr.write(line))
        call_command("loaddata", SEED_FIXTURE, verbosity=0)
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


def write_demo(folder: Path, papers: int, seed: int) -> tuple[list[Path], set[str]]:
    """The demo archive's files (one per kind, JSON Lines) in `folder`, and the slugs of
    every paper they make."""
    sizes = synthetic.archive_sizes(papers)
    parts = {
        "papers": synthetic.paper_rows(seed, papers),
        "links": synthetic.link_rows(seed, papers),
        "methods": synthetic.method_rows(seed, sizes.methods, papers=papers),
        "datasets": synthetic.dataset_rows(seed, sizes.datasets, papers=papers),
        "evaluation-tables": synthetic.evaluation_rows(seed, papers, sizes.rows),
        "records": synthetic.record_rows(seed, papers, share=0.15),
    }
    files, slugs = [], set()
    for kind, rows in parts.items():
        path = folder / f"{kind}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                slugs.update(paper_slugs(kind, row))
        files.append(path)
    return files, slugs


def paper_slugs(kind: str, row: dict) -> Iterable[str]:
    """The papers a record makes when imported (read as the importer reads it)."""
    try:
        parsed = PARSERS[kind](row)
    except RecordError:
        return ()
    if isinstance(parsed, PaperIn):
        return (parsed.slug,)
    if isinstance(parsed, LinkIn | RecordIn):
        return (parsed.paper.slug,)
    if isinstance(parsed, EvaluationIn):
        return (stub.slug for stub in parsed.stubs)
    return ()


def fixture_slugs(name: str) -> set[str]:
    """The papers a fixture of FIXTURE_DIRS holds."""
    for folder in settings.FIXTURE_DIRS:
        path = Path(folder) / f"{name}.json"
        if path.exists():
            objects = json.loads(path.read_text(encoding="utf-8"))
            return {o["fields"]["slug"] for o in objects if o["model"] == "papers.paper"}
    return set()


def refuse_foreign_papers(ours: set[str]) -> None:
    """Stop unless every paper the database holds is one the demo makes: its synthetic
    papers are not to be mixed into an imported archive."""
    total = Paper.objects.count()
    known = sum(Paper.objects.filter(slug__in=part).count() for part in chunks(sorted(ours)))
    if total == known:
        return
    examples = []
    for slug in Paper.objects.order_by("id").values_list("slug", flat=True).iterator():
        if slug not in ours:
            examples.append(slug)
            if len(examples) == EXAMPLES:
                break
    foreign = total - known
    raise CommandError(
        f"The database holds {foreign:,} paper{'s' if foreign != 1 else ''} the demo did not "
        f"make (imported or added, such as {', '.join(examples)}): loading the demo would "
        "mix its synthetic papers in with them. Use --force to load it anyway.",
        returncode=REFUSED,
    )
