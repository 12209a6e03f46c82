import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from papers.related import state
from papers.related.compute import FIT_SAMPLE, compute_all, compute_new


class Command(BaseCommand):
    help = (
        "Compute every paper's related papers (up to 20, with a score) from its title, "
        "abstract, tasks and methods, and store them (RelatedPaper). Re-runnable: a second "
        "run over unchanged papers writes nothing. --only-new handles just the papers "
        "imported since the last run (and the lists they now belong in); see "
        "papers/related/ for the method."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--only-new",
            action="store_true",
            help="only papers not seen by the last run, and the lists they enter "
            "(every list when there is no earlier run on this database)",
        )
        parser.add_argument(
            "--fit-sample",
            type=int,
            default=FIT_SAMPLE,
            metavar="N",
            help=f"fit the text model on N papers chosen at random (default {FIT_SAMPLE:,})",
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=1000,
            metavar="N",
            help="papers whose lists are written per transaction (default 1000)",
        )

    def handle(self, *args, only_new, fit_sample, batch_size, **opts):
        if fit_sample < 1 or batch_size < 1:
            raise CommandError("--fit-sample and --batch-size must be at least 1")
        if settings.DEBUG:
            settings.DEBUG = False  # DEBUG keeps every query in memory
        verbosity = opts["verbosity"]

        def say(message: str) -> None:
            if verbosity >= 2 or (verbosity >= 1 and not message.startswith(" ")):
                self.stderr.write(f"compute_related: {message}")

        started = time.monotonic()
        run = compute_new if only_new else compute_all
        result = run(fit_sample=fit_sample, batch_size=batch_size, say=say)
        seconds = time.monotonic() - started
        if verbosity >= 1:
            w = result.written
            what = f"{result.listed:,} lists"
            if result.mode == "only-new":
                what = f"{result.new:,} new papers, {result.listed:,} lists touched"
            self.stdout.write(
                f"Related papers ({result.mode}): {result.papers:,} papers, {what}; "
                f"rows {w.created:,} created, {w.updated:,} updated, {w.deleted:,} deleted "
                f"in {seconds:.1f} s."
                + ("" if w.changed else " Nothing changed.")
                + (f" ({result.note})" if result.note else "")
            )
            if verbosity >= 2:
                for name, spent in result.seconds.items():
                    self.stdout.write(f"  {spent:8.1f} s  {name}")
                self.stdout.write(f"State: {state.path()}")
