"""The venues' rows: each year's proceedings, worked out from the papers' `proceeding`
values (papers.models.Venue says why they are kept).

`refresh_venues()` reads the values the visible papers hold, parses each
(papers.venues.parse) and keeps one Venue row per venue and year with its spellings and
its number of papers: every venue at the end of an import (papers.kept.refresh_all()),
those whose values a write touched after it (papers.kept.after_write()).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from django.db import models, transaction

from papers.models import Paper, Venue
from papers.venues import parse


def _venue_rows(counts: dict[str, int]) -> dict[str, dict]:
    """{slug: the row's values} from {proceeding value: visible papers}: the values
    that name one venue and year together, the name as most of its papers spell it."""
    grouped: dict[str, dict] = {}
    spellings: dict[str, Counter] = defaultdict(Counter)
    for text, n in counts.items():
        venue = parse(text)
        if venue is None:
            continue
        row = grouped.setdefault(
            venue.slug,
            {"series": venue.series, "year": venue.year, "proceedings": [], "paper_count": 0},
        )
        row["proceedings"].append(text)
        row["paper_count"] += n
        spellings[venue.slug][venue.name] += n
    for slug, row in grouped.items():
        row["proceedings"].sort()
        # The most common spelling, ties by the first in order: the same on every run.
        row["name"] = min(spellings[slug].items(), key=lambda item: (-item[1], item[0]))[0]
    return grouped


FIELDS = ("series", "name", "year", "proceedings", "paper_count")


def refresh_venues(proceedings: Iterable[str] | None = None) -> int:
    """Recompute the venues from the visible papers: all of them, or (`proceedings`)
    only those that these `proceeding` values name (after an edit of a few papers: the
    values they held before and hold now). Writes only the rows that changed, deletes
    the venues no visible paper names any more; returns how many rows changed. Two
    queries and the writes (one more for some venues: their other spellings)."""
    papers = Paper.objects.visible().exclude(proceeding="").order_by()
    if proceedings is None:
        wanted = None
        stored = {venue.slug: venue for venue in Venue.objects.all()}
    else:
        named = {p: venue for p in set(proceedings) if p and (venue := parse(p)) is not None}
        wanted = {venue.slug for venue in named.values()}
        if not wanted:
            return 0
        stored = {venue.slug: venue for venue in Venue.objects.filter(slug__in=wanted)}
        # Every value that names these venues: those they keep, and those given.
        texts = {t for venue in stored.values() for t in venue.proceedings} | set(named)
        papers = papers.filter(proceeding__in=sorted(texts))
    counts = dict(papers.values_list("proceeding").annotate(n=models.Count("id")))
    fresh = _venue_rows(counts)
    if wanted is not None:
        fresh = {slug: row for slug, row in fresh.items() if slug in wanted}
    changed = 0
    with transaction.atomic():
        gone = [slug for slug in stored if slug not in fresh]
        if gone:
            changed += Venue.objects.filter(slug__in=gone).delete()[0]
        new, updated = [], []
        for slug, row in fresh.items():
            venue = stored.get(slug)
            if venue is None:
                new.append(Venue(slug=slug, **row))
            elif any(getattr(venue, f) != row[f] for f in FIELDS):
                for f in FIELDS:
                    setattr(venue, f, row[f])
                updated.append(venue)
        Venue.objects.bulk_create(new, batch_size=500)
        Venue.objects.bulk_update(updated, FIELDS, batch_size=500)
        changed += len(new) + len(updated)
    return changed
