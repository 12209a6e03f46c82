"""The archive's counts the home page gives on every request, kept.

How many papers are shown (not hidden), kept as one number: the unfiltered lists of
papers (the API's, the MCP server's) and the home page give it on every request, and
counting 578k rows takes 65 ms on SQLite and over half a second on PostgreSQL.

Exact, never stale:
- `refresh_paper_count()` counts at the end of every import (papers.kept.refresh_all());
- an ORM save or delete of a paper moves the number in the write's transaction
  (papers.kept.signals: a paper added or deleted, `hidden` flipped);
- the harvest, which writes papers in bulk (no signals), counts at its end;
- where there is no number yet, the next write's after_write() counts, and until then
  `paper_count()` counts (once per content version where a cache holds it).

How many repositories there are and how many samples have each status (`archive_counts()`),
kept as one fact: whole-table counts, ~40 ms on PostgreSQL at full scale. An import
counts them at its end (refresh_all()), and so does every write whose papers' own counts
of code links or samples moved (after_write()).
"""

from __future__ import annotations

from django.db.models import F

from codewithpapers.cache import by_version
from papers.models import KeptFact, Paper, Repository, Sample

NAME = "visible-papers"
VERSION = 1
ARCHIVE = "archive-counts"
ARCHIVE_VERSION = 1


def _kept():
    return KeptFact.objects.filter(name=NAME, version=VERSION, number__isnull=False)


def refresh_paper_count() -> int:
    """Count the shown papers and keep the number; the number."""
    number = Paper.objects.visible().count()
    KeptFact.objects.update_or_create(
        name=NAME, defaults={"data": {}, "number": number, "version": VERSION}
    )
    return number


def paper_count() -> int:
    """How many papers are shown: the kept number (one primary-key read), else counted."""
    for number in _kept().values_list("number", flat=True):
        return number
    return by_version("visible-papers", Paper.objects.visible().count)


def paper_count_moved(by: int) -> None:
    """A write added (+) or removed (-) shown papers: move the kept number with it, in
    the same statement so that concurrent writes cannot lose each other's moves."""
    _kept().update(number=F("number") + by)


def ensure_paper_count() -> None:
    """Count when there is no number (one indexed read when there is)."""
    if not _kept().exists():
        refresh_paper_count()


def _count_archive() -> dict:
    return {"repositories": Repository.objects.count(), "statuses": Sample.objects.status_counts()}


def refresh_archive_counts() -> None:
    KeptFact.objects.update_or_create(
        name=ARCHIVE, defaults={"data": _count_archive(), "version": ARCHIVE_VERSION}
    )


def archive_counts() -> dict:
    """{"repositories": n, "statuses": {status: n}, most frequent first}: as kept (one
    primary-key read), else counted."""
    kept = KeptFact.objects.filter(name=ARCHIVE, version=ARCHIVE_VERSION)
    data = next(iter(kept.values_list("data", flat=True)), None)
    if not isinstance(data, dict):
        return _count_archive()
    # PostgreSQL's jsonb keeps no key order.
    statuses = sorted(data.get("statuses", {}).items(), key=lambda item: (-item[1], item[0]))
    return {"repositories": data.get("repositories", 0), "statuses": dict(statuses)}
