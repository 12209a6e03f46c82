"""Queries of the venue pages, /conferences and /conference/<slug> (Papers with Code's
names for them): venues grouped by series with their years, and the venue or year a
slug names. The rows they read are the kept Venue rows (papers.kept.venues); what a
`proceeding` value names is papers.venues.parse()."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet
from django.urls import reverse

from papers.models import Paper, Venue
from papers.paging import Page, page_of_list

VENUE_SORTS = ("name", "papers")


@dataclass
class VenueSeries:
    """A venue over its years: its rows (papers.models.Venue), the newest year first and
    the papers without a year last, and their papers."""

    series: str
    name: str
    years: list = field(default_factory=list)
    paper_count: int = 0

    def get_absolute_url(self) -> str:
        return reverse("papers:conference", kwargs={"slug": self.series})

    @property
    def proceedings(self) -> list[str]:
        return sorted({text for venue in self.years for text in venue.proceedings})


def _series_of(rows) -> dict[str, VenueSeries]:
    """Venue rows grouped by series, in the order given; each named as its newest year."""
    found: dict[str, VenueSeries] = {}
    for venue in rows:
        group = found.get(venue.series)
        if group is None:
            group = found[venue.series] = VenueSeries(venue.series, venue.name)
        group.years.append(venue)
        group.paper_count += venue.paper_count
    return found


def _newest_year_first(venue) -> tuple:
    return (venue.series, venue.year is None, -(venue.year or 0))


def venue_index(q: str, sort: str, number: int, per_page: int) -> Page:
    """/conferences: every venue with its years and their papers, those whose name holds
    `q`; by name or by papers, a page of venues at a time. One query (a few thousand
    small rows at archive scale, grouped here)."""
    rows = Venue.objects.filter(paper_count__gt=0)
    if q:
        rows = rows.filter(name__icontains=q)
    fields = ("id", "slug", "series", "name", "year", "paper_count")
    grouped = list(_series_of(sorted(rows.only(*fields), key=_newest_year_first)).values())
    if sort == "papers":
        grouped.sort(key=lambda s: (-s.paper_count, s.name.casefold(), s.series))
    else:
        grouped.sort(key=lambda s: (s.name.casefold(), s.series))
    return page_of_list(grouped, number, per_page)


@dataclass
class VenuePage:
    """What /conference/<slug> shows: a venue over its years (`venue` None), or one
    year's proceedings (`venue`), with the venue's other years."""

    series: VenueSeries
    venue: Any = None  # papers.models.Venue

    @property
    def name(self) -> str:
        return str(self.venue) if self.venue is not None else self.series.name

    @property
    def proceedings(self) -> list[str]:
        return self.venue.proceedings if self.venue is not None else self.series.proceedings

    @property
    def paper_count(self) -> int:
        return self.venue.paper_count if self.venue is not None else self.series.paper_count


# Papers with Code's proceedings URLs end with the issue: /conference/neurips-2020-12.
_ISSUE_SUFFIX = re.compile(r"-\d{1,2}$")


def find_venue(slug: str) -> tuple[VenuePage | None, str | None]:
    """The venue or year /conference/<slug> names, or (None, the canonical slug to
    redirect to) for Papers with Code's form of it ("neurips-2020-12"), or (None, None).
    One query: the rows of every series the slug may name."""
    names = {slug}
    if (stripped := _ISSUE_SUFFIX.sub("", slug)) != slug:
        names.add(stripped)
    named = Venue.objects.filter(slug__in=names).values("series")
    rows = Venue.objects.filter(Q(series__in=names) | Q(series__in=named)).order_by()
    grouped = _series_of(sorted(rows, key=_newest_year_first))
    if slug in grouped:
        return VenuePage(grouped[slug]), None
    for series in grouped.values():
        for venue in series.years:
            if venue.slug == slug:
                return VenuePage(series, venue), None
    for series in grouped.values():
        if any(venue.slug == stripped for venue in series.years) or series.series == stripped:
            return None, stripped
    return None, None


def venue_papers(page: VenuePage) -> QuerySet[Paper]:
    """The papers of a venue or year, by the `proceeding` values that name it
    (paper_proceeding_idx)."""
    return Paper.objects.filter(proceeding__in=page.proceedings)
