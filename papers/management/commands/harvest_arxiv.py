import datetime as dt
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from papers.archive.importer import CHANGES, OUTCOMES_LABELS
from papers.arxiv import harvest
from papers.arxiv.oai import PREFIXES


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"not a date (YYYY-MM-DD): {value!r}") from None


class Command(BaseCommand):
    help = (
        "Harvest new and updated arXiv papers: OAI-PMH ListRecords per set (default: the "
        "ARXIV_SETS setting) since the last successful harvest, or the query API with "
        "--source api --query. Resumes an unfinished harvest; idempotent. Exit status: 0 "
        "done, 1 some records rejected, 2 a harvest failed (the next run resumes it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--source", choices=("oai", "api"), default="oai")
        parser.add_argument(
            "--set", dest="sets", action="append", metavar="SET",
            help="An OAI-PMH set (cs, stat, physics:hep-th…); repeat for several.",
        )  # fmt: skip
        parser.add_argument("--metadata-prefix", choices=PREFIXES, default="arXivRaw")
        parser.add_argument("--query", default="", help="The query API's search_query.")
        parser.add_argument("--max-records", type=int, default=1000, help="The API: at most.")
        parser.add_argument("--from", dest="from_date", metavar="YYYY-MM-DD")
        parser.add_argument("--until", dest="until_date", metavar="YYYY-MM-DD")
        parser.add_argument("--base-url", help="Instead of ARXIV_OAI_URL / ARXIV_API_URL.")
        parser.add_argument(
            "--restart", action="store_true", help="Start afresh instead of resuming."
        )
        parser.add_argument("--retries", type=int, default=5)
        parser.add_argument("--dry-run", action="store_true", help="Fetch and map; write nothing.")

    def handle(self, *args, **o):
        if o["source"] == "api" and not o["query"]:
            raise CommandError("--source api needs --query (e.g. 'cat:cs.LG AND ti:diffusion')")
        if o["source"] == "oai" and o["query"]:
            raise CommandError("--query is for --source api")
        if o["max_records"] < 1:
            raise CommandError("--max-records must be at least 1")
        if settings.DEBUG:  # DEBUG keeps every query in memory
            settings.DEBUG = False
        from_date = _date(o["from_date"]) if o["from_date"] else None
        until_date = _date(o["until_date"]) if o["until_date"] else None
        if from_date and until_date and from_date > until_date:
            raise CommandError("--from is after --until")
        base = o["base_url"] or (
            settings.ARXIV_OAI_URL if o["source"] == "oai" else settings.ARXIV_API_URL
        )
        sets = (o["sets"] or settings.ARXIV_SETS) if o["source"] == "oai" else [""]
        status = 0
        for set_spec in sets:
            progress = Progress(self.stderr, o["verbosity"], set_spec or o["query"])
            result = harvest.run(
                harvest.HarvestOptions(
                    source=o["source"],
                    base_url=base,
                    metadata_prefix=o["metadata_prefix"],
                    set_spec=set_spec,
                    query=o["query"],
                    from_date=from_date,
                    until_date=until_date,
                    max_records=o["max_records"] if o["source"] == "api" else None,
                    dry_run=o["dry_run"],
                    restart=o["restart"],
                    delay=settings.ARXIV_POLITE_DELAY_MS / 1000,
                    retries=o["retries"],
                    report=lambda line: self.stderr.write(line),
                    progress=progress.tick if o["verbosity"] >= 1 else None,
                )
            )
            progress.close()
            if o["verbosity"] >= 1:
                self.print_summary(result, o["dry_run"])
            status = max(status, result.exit_status)
        if status:
            sys.exit(status)

    def print_summary(self, result, dry_run: bool) -> None:
        """In import_archive's shape: the count and rate, then a row per model."""
        out = self.stdout
        rate = result.records / result.elapsed if result.elapsed else 0.0
        out.write(
            f"{'Dry run: ' if dry_run else ''}{result.records:,} records from "
            f"{result.pages} page(s) of {result.window} in {result.elapsed:.1f} s "
            f"({rate:,.0f} records/s; {result.fetch_seconds:.1f} s waiting for arXiv)"
            + (" (resumed)" if result.resumed else "")
        )
        header = f"{'model':<20}" + "".join(f"{label:>12}" for label in OUTCOMES_LABELS.values())
        out.write(header)
        for model in sorted(result.stats.counts):
            counts = result.stats.counts[model]
            out.write(f"{model:<20}" + "".join(f"{counts[k]:>12,}" for k in OUTCOMES_LABELS))
        if result.deleted:
            out.write(f"{result.deleted:,} records arXiv marks deleted were skipped.")
        if result.error:
            out.write(f"NOT FINISHED: {result.error} (the next run resumes it)")
        elif not any(result.stats.total(outcome) for outcome in CHANGES):
            out.write("Nothing changed: every record was already up to date.")
        if dry_run:
            out.write("Dry run: nothing was written.")


class Progress:
    """A tqdm bar (records, of the list's size when arXiv says it) on a terminal; a plain
    line every 10 s otherwise."""

    def __init__(self, stream, verbosity: int, label: str):
        self.stream = stream
        self.label = label
        self.bar = None
        self.last = time.monotonic()
        self.tty = verbosity >= 1 and stream.isatty()

    def tick(self, records: int, total: int | None) -> None:
        if self.tty:
            if self.bar is None:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="rec", desc=self.label, file=self.stream._out)
            if total is not None:
                self.bar.total = total
            self.bar.update(records - self.bar.n)
            return
        now = time.monotonic()
        if now - self.last >= 10:
            self.last = now
            of = f" of {total:,}" if total else ""
            self.stream.write(f"{self.label}: {records:,}{of} records")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
