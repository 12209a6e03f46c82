"""Venues: each year's proceedings, derived from the papers' `proceeding` values.

A paper keeps its `proceeding` as the archive gives it ("NeurIPS 2020 12"): that stays
the one truth, which an import or an edit changes. `refresh_venues()` reads the values
the visible papers hold, parses each (papers.venues.parse) and keeps one Venue row per
venue and year with its spellings and its number of papers, for /conferences and
/conference/<slug>: what an import refreshes at its end with the browse counts
(refresh_browse_counts()), and the admin after an edit. A venue's papers are read by
their `proceeding` values (paper_proceeding_idx), so a paper needs no column of its own
and an edit of its proceeding is shown at once in its byline, which parses the value.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from django.db import models, transaction
from django.urls import reverse

from papers.models.papers import Paper
from papers.venues import parse


class Venue(models.Model):
    """One year's proceedings of a venue ("NeurIPS 2020"), or a venue the archive gives
    no year for ("CoRL"). Worked out from the papers: never edited, never exported."""

    slug = models.CharField(max_length=255, help_text="/conference/<slug>: neurips-2020.")
    series = models.CharField(
        max_length=255, help_text="The venue over its years, /conference/<series>: neurips."
    )
    name = models.CharField(max_length=255, help_text="The most common spelling: NeurIPS.")
    year = models.PositiveSmallIntegerField(null=True, blank=True)
    proceedings = models.JSONField(
        default=list, help_text="The papers' `proceeding` values that name it."
    )
    paper_count = models.IntegerField(default=0, help_text="Its visible papers.")

    class Meta:
        ordering = ["series", "-year"]
        constraints = [models.UniqueConstraint(fields=["slug"], name="venue_slug_unique")]
        indexes = [
            # A venue's page over its years: the rows of its series.
            models.Index(fields=["series", "year"], name="venue_series_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.year}" if self.year else self.name

    def get_absolute_url(self) -> str:
        return reverse("conference", kwargs={"slug": self.slug})


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
