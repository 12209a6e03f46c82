"""Harvest arXiv: request pages, follow them to the end, write each page's papers.

`run()` is what `manage.py harvest_arxiv` runs. A harvest asks one source for one
window: OAI-PMH ListRecords (one set, `from`/`until` datestamps, resumption tokens) or
the query API (one query, paged by `start`). Each page's records are mapped by
papers.arxiv.records and written by the archive importer's own writer
(papers.archive.write.loader.Loader, the "records" writer: papers by arXiv id, their
authors and the code links found in them) in one transaction with the harvest's journal
(papers.models.Harvest: the next page's token and the records written so far), so a
harvest killed at any point resumes from the page after the last one written, and a page
written twice changes nothing.

Requests: one at a time, `delay` apart (arXiv asks for 3 s); a 503 (arXiv's flow
control) waits its Retry-After and asks again; a dropped connection, a 5xx or a page
that is not well-formed XML is retried with exponential backoff, `retries` times.
A refused resumption token (badResumptionToken: tokens expire) starts the list again
from its first page: the records already written are matched, not duplicated.
"""

from __future__ import annotations

import datetime as dt
import http.client
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.db import transaction
from django.utils import timezone

from papers.archive.importer import CacheInvalidator
from papers.archive.read.normalise import RecordError
from papers.archive.write.core import Stats
from papers.archive.write.loader import Loader
from papers.arxiv import journal
from papers.arxiv.atom import parse_feed
from papers.arxiv.oai import PageError, parse_page
from papers.arxiv.records import to_record
from papers.models import Harvest

USER_AGENT = "CodeWithPapers-harvester/1 (+https://github.com/; polite, one request at a time)"
TIMEOUT_S = 120
MAX_THROTTLED = 30  # 503s in a row before the harvest gives up
MAX_RESTARTS = 2  # lists restarted after a refused token
API_PAGE = 100


class HarvestError(Exception):
    """The harvest cannot go on (the journal keeps where it was: the next run resumes)."""


def sleep(seconds: float) -> None:
    """Every wait of the harvester (tests replace it)."""
    time.sleep(seconds)


@dataclass
class HarvestOptions:
    source: str = "oai"  # "oai" or "api"
    base_url: str = ""
    metadata_prefix: str = "arXiv"
    set_spec: str = ""
    query: str = ""
    from_date: dt.date | None = None
    until_date: dt.date | None = None
    max_records: int | None = None  # the API: stop after this many
    dry_run: bool = False
    restart: bool = False  # ignore an unfinished harvest instead of resuming it
    delay: float = 3.0
    retries: int = 5
    backoff: float = 2.0
    report: Callable[[str], None] = print
    progress: Callable[[int, int | None], None] | None = None


@dataclass
class HarvestResult:
    stats: Stats = field(default_factory=Stats)
    records: int = 0
    pages: int = 0
    rejected: int = 0
    deleted: int = 0
    elapsed: float = 0.0
    resumed: bool = False
    outcome: str = ""
    error: str = ""
    window: str = ""
    fetch_seconds: float = 0.0  # waiting for arXiv (and the polite delay)

    @property
    def exit_status(self) -> int:
        if self.outcome == Harvest.Outcome.FAILED:
            return 2
        return 1 if self.rejected else 0


class Fetcher:
    """GETs with the polite delay, Retry-After, and backoff on transient failures."""

    def __init__(self, options: HarvestOptions):
        self.options = options
        self.last: float | None = None
        self.seconds = 0.0

    def get(self, url: str, parse: Callable[[bytes, int], object]) -> object:
        """`parse(body, status)` of the answer to `url`; a PageError from it (the page is
        not well-formed) is retried like a dropped connection."""
        options = self.options
        failures = throttled = 0
        while True:
            started = time.monotonic()
            if self.last is not None:
                wait = options.delay - (started - self.last)
                if wait > 0:
                    sleep(wait)
            try:
                try:
                    status, body = self._request(url)
                finally:
                    self.last = time.monotonic()
                    self.seconds += self.last - started
                return parse(body, status)
            except urllib.error.HTTPError as exc:
                if exc.code in (503, 429):
                    throttled += 1
                    if throttled > MAX_THROTTLED:
                        raise HarvestError(
                            f"{url}: still {exc.code} after {throttled} tries"
                        ) from None
                    wait = _retry_after(exc.headers.get("Retry-After"), options.backoff)
                    options.report(f"arXiv answered {exc.code}: asking again in {wait:g} s")
                    sleep(wait)
                    continue
                problem = f"HTTP {exc.code}"
                if exc.code < 500:
                    raise HarvestError(f"{url}: {problem}") from None
            except PageError as exc:
                problem = str(exc)
            except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
            failures += 1
            if failures > options.retries:
                raise HarvestError(f"{url}: {problem} (gave up after {options.retries} retries)")
            wait = options.backoff * 2 ** (failures - 1)
            options.report(f"{problem}: retry {failures} of {options.retries} in {wait:g} s")
            sleep(wait)

    def _request(self, url: str) -> tuple[int, bytes]:
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            if exc.code == 400 and self.options.source == "api":
                return exc.code, exc.read()  # the API's error is an Atom feed
            raise


def _retry_after(value: str | None, default: float) -> float:
    if value and value.strip().isdigit():
        return float(value.strip())
    return default


def run(options: HarvestOptions) -> HarvestResult:
    return HarvestRun(options).run()


class HarvestRun:
    def __init__(self, options: HarvestOptions):
        self.options = options
        self.result = HarvestResult()
        self.loader = Loader()
        self.loader.known_slugs = None  # every slug looked up: the table is not ours
        self.fetcher = Fetcher(options)
        self.invalidator = CacheInvalidator()
        self.journal: Harvest | None = None

    # --- the journal -------------------------------------------------------------------

    def _key(self) -> dict:
        o = self.options
        return {"source": o.source, "set_spec": o.set_spec, "query": o.query,
                "metadata_prefix": o.metadata_prefix if o.source == "oai" else ""}  # fmt: skip

    def _open_journal(self) -> Harvest:
        o = self.options
        key = self._key()
        last = Harvest.objects.filter(**key).order_by("-id").first()
        explicit = o.from_date is not None or o.until_date is not None
        if (
            last is not None
            and last.outcome != Harvest.Outcome.OK
            and not o.restart
            and not explicit
            and (last.token or last.position)
        ):
            self.result.resumed = True
            last.outcome = Harvest.Outcome.RUNNING
            last.error = ""
            last.finished_at = None
            last.save(update_fields=["outcome", "error", "finished_at"])
            return last
        until = o.until_date or timezone.now().date()
        since = o.from_date
        if since is None and o.source == "oai":
            done = (
                Harvest.objects.filter(**key, outcome=Harvest.Outcome.OK)
                .exclude(until_date=None)
                .order_by("-id")
                .first()
            )
            # From the last successful harvest's last day (again: a day's records may
            # have arrived after it ran), else yesterday.
            since = done.until_date if done else until - dt.timedelta(days=1)
        return Harvest.objects.create(
            **key, endpoint=o.base_url, from_date=since, until_date=until
        )

    # --- a run -------------------------------------------------------------------------

    def run(self) -> HarvestResult:
        o, result = self.options, self.result
        started = time.monotonic()
        try:
            with transaction.atomic() if o.dry_run else nullcontext():
                self.journal = self._open_journal()
                h = self.journal
                result.window = (
                    f"{h.set_spec or h.query} {h.from_date or ''}..{h.until_date or ''}".strip()
                )
                if result.resumed:
                    o.report(
                        f"Resuming the unfinished harvest #{h.id} ({result.window}) after "
                        f"{h.position:,} records"
                    )
                (self._oai if o.source == "oai" else self._api)()
                with transaction.atomic():
                    self.loader.finish()
                self._close(Harvest.Outcome.OK, "")
                if o.dry_run:
                    transaction.set_rollback(True)
        except HarvestError as exc:
            result.error = str(exc)
            o.report(f"Harvest failed: {exc}")
            if not o.dry_run and self.journal is not None:
                self._close(Harvest.Outcome.FAILED, str(exc))
                journal.alert_if_failing(o.source)
            result.outcome = Harvest.Outcome.FAILED
        finally:
            self.invalidator.flush()
        result.stats = self.loader.stats
        result.elapsed = time.monotonic() - started
        result.fetch_seconds = self.fetcher.seconds
        return result

    def _close(self, outcome: str, error: str) -> None:
        h = self.journal
        h.outcome, h.error, h.finished_at = outcome, error, timezone.now()
        h.save(update_fields=["outcome", "error", "finished_at"])
        self.result.outcome = outcome

    def _write_page(self, entries: list, token: str, consumed: int) -> None:
        """One page: its records and the journal's step, in one transaction."""
        o, result, h = self.options, self.result, self.journal
        records = []
        for number, entry in enumerate(entries, start=h.position + 1):
            try:
                if isinstance(entry, RecordError):
                    raise entry
                records.append(to_record(entry))
            except RecordError as exc:
                result.rejected += 1
                self.loader.stats.add("Paper", "rejected")
                o.report(f"{self.result.window}: record {number}: field {exc.field}: {exc.reason}")
        with transaction.atomic():
            if records:
                self.loader.write_batch("records", records)
            h.token, h.position, h.pages = token, h.position + consumed, h.pages + 1
            h.save(update_fields=["token", "position", "pages"])
        result.records += len(entries)
        result.pages += 1
        if not o.dry_run:
            self.invalidator.committed()

    def _oai(self) -> None:
        o, h = self.options, self.journal
        first = {"verb": "ListRecords", "metadataPrefix": o.metadata_prefix}
        if h.set_spec:
            first["set"] = h.set_spec
        if h.from_date:
            first["from"] = h.from_date.isoformat()
        if h.until_date:
            first["until"] = h.until_date.isoformat()
        restarts = 0
        total = None
        while True:
            query = {"verb": "ListRecords", "resumptionToken": h.token} if h.token else first
            page = self.fetcher.get(f"{o.base_url}?{urlencode(query)}", _oai_page)
            if page.error_code == "noRecordsMatch":
                break
            if page.error_code == "badResumptionToken":
                restarts += 1
                if restarts > MAX_RESTARTS:
                    raise HarvestError(f"resumption token refused {restarts} times")
                o.report(
                    f"arXiv refused the resumption token ({page.error_text}): the list starts "
                    "again from its first page (records written already are matched, not "
                    "duplicated)"
                )
                with transaction.atomic():
                    h.token, h.position = "", 0
                    h.save(update_fields=["token", "position"])
                continue
            if page.error_code:
                raise HarvestError(f"OAI-PMH error {page.error_code}: {page.error_text}")
            if page.complete_size is not None:
                total = page.complete_size
            self.result.deleted += page.deleted
            self._write_page(page.entries, page.token, len(page.entries) + page.deleted)
            if o.progress:
                o.progress(self.result.records, total)
            if not page.token:
                break

    def _api(self) -> None:
        o, h = self.options, self.journal
        limit = o.max_records
        while True:
            size = API_PAGE if limit is None else min(API_PAGE, limit - h.position)
            if size <= 0:
                break
            query = {"search_query": o.query, "start": h.position, "max_results": size,
                     "sortBy": "submittedDate", "sortOrder": "descending"}  # fmt: skip
            feed = self.fetcher.get(f"{o.base_url}?{urlencode(query)}", _api_page)
            if feed.error:
                raise HarvestError(f"the query API refused the query: {feed.error}")
            if not feed.entries:
                break  # past the end (or an empty last page)
            self._write_page(feed.entries, "", len(feed.entries))
            if o.progress:
                o.progress(self.result.records, min(feed.total, limit or feed.total))
            if h.position >= feed.total:
                break


def _oai_page(body: bytes, status: int):
    return parse_page(body)


def _api_page(body: bytes, status: int):
    return parse_feed(body)
