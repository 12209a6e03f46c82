"""Venues from the archive's `proceeding` values: "NeurIPS 2020 12" is NeurIPS, 2020.

The papers dump names a paper's proceedings as the venue, its year and Papers with
Code's number for the issue (a month, a track): "NeurIPS 2020 12", "ICLR 2018 1",
"3DV 2020 11". Others read "ICLR 2018 workshop", "NeurIPS 2020", "NeurIPS-2020",
"ICLR2018" or "CoRL" without a year. `parse()` reads any of them as the venue's name
and year: the year is the first four-digit number from 1900 to 2099 (alone, or glued
to the name by a hyphen or nothing), numbers after it are issue numbers and dropped,
words after it belong to the name ("ICLR workshop"), and digits inside the name stay
("3DV", "W-NUT"). Pure: no database, so the importer's refresh, the pages and the
byline read values the same way.

A venue's pages follow Papers with Code's URL shapes: /conference/<name>-<year> for one
year's proceedings ("neurips-2020"), /conference/<name> for the venue over its years.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from django.utils.text import slugify

NAME_MAX = 200  # characters of a venue's name (a proceeding is at most 255)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
# A year glued to the name: "NeurIPS-2020", "ICLR2018" (the name holds a letter).
_GLUED = re.compile(r"^(?P<name>.*[^\W\d_].*?)[-_]?(?P<year>(?:19|20)\d\d)$")
_ISSUE = re.compile(r"^\d+$")


@dataclass(frozen=True)
class Venue:
    name: str  # "NeurIPS", "ICLR workshop", "3DV"
    year: int | None

    @property
    def series(self) -> str:
        """The venue's slug over all its years: "neurips"."""
        return slugify(self.name) or slugify(self.name, allow_unicode=True)

    @property
    def slug(self) -> str:
        """One year's proceedings: "neurips-2020"; the venue's slug without a year."""
        return f"{self.series}-{self.year}" if self.year else self.series

    @property
    def label(self) -> str:
        """As a reader reads it: "NeurIPS 2020"."""
        return f"{self.name} {self.year}" if self.year else self.name


@functools.lru_cache(maxsize=4096)
def parse(proceeding: str | None) -> Venue | None:
    """The venue and year a `proceeding` value names, or None when it names no venue
    (empty, only numbers, no letter to slug)."""
    words = (proceeding or "").split()
    name: list[str] = []
    year = None
    for word in words:
        if year is None:
            if _YEAR.match(word):
                year = int(word)
                continue
            glued = _GLUED.match(word)
            if glued and not _ISSUE.match(glued["name"]):
                name.append(glued["name"].rstrip("-_"))
                year = int(glued["year"])
                continue
            name.append(word)
        elif not _ISSUE.match(word):
            name.append(word)  # "ICLR 2018 workshop": part of the venue's name
    while name and _ISSUE.match(name[-1]):
        name.pop()  # a number after the name without a year: an issue, not the name
    venue = Venue(" ".join(name)[:NAME_MAX].strip(), year)
    if not venue.name or not venue.series:
        return None
    return venue
