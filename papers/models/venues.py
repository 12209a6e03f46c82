"""Venues: each year's proceedings, derived from the papers' `proceeding` values.

A paper keeps its `proceeding` as the archive gives it ("NeurIPS 2020 12"): that stays
the one truth, which an import or an edit changes. papers.kept.venues reads the values
the visible papers hold, parses each (papers.venues.parse) and keeps one Venue row per
venue and year with its spellings and its number of papers, for /conferences and
/conference/<slug>: every venue at the end of an import, those a write touched after
it. A venue's papers are read by their `proceeding` values (paper_proceeding_idx), so a
paper needs no column of its own and an edit of its proceeding is shown at once in its
byline, which parses the value.
"""

from __future__ import annotations

from django.db import models
from django.urls import reverse


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
        return reverse("papers:conference", kwargs={"slug": self.slug})
