"""Paging, one way for every list the site and the API page through.

A list is paged by number (from 1) and size. A `Window` says where one page starts and
stops; a `Page` is that page's items with the total, read by the pager
(papers/_pager.html) and by the API's envelope (papers.api.http.page_of). A page past
the last is the last page (`page_of()`, `page_of_list()`), except where a list is not
counted (`peek()`: the samples, which may be millions): there a page reads one row past
its own to know whether another follows.

The sitemaps page by id range instead (papers.sitemaps): Django's sitemap framework
asks its paginator for a page by number, and a range of ids is one index scan however
deep the page, where an offset walks every row before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import QuerySet


@dataclass(frozen=True)
class Window:
    """Page `number` (from 1) of `size` items: where it starts and stops in the list."""

    number: int
    size: int

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    @property
    def stop(self) -> int:
        return self.offset + self.size

    def slice(self, items: Sequence) -> Sequence:
        return items[self.offset : self.stop]


def page_count(total: int, size: int) -> int:
    """How many pages `total` items fill (one, when there are none)."""
    return max(1, -(-total // size))


def clamped(number: int, total: int, size: int) -> Window:
    """The window of page `number` of `total` items; one past the last is the last."""
    return Window(min(max(1, number), page_count(total, size)), size)


@dataclass
class Page:
    """One page of a longer list: its items, the total and where the page is."""

    items: list
    total: int
    number: int
    per_page: int

    @property
    def pages(self) -> int:
        return page_count(self.total, self.per_page)

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.pages

    @property
    def start(self) -> int:
        return (self.number - 1) * self.per_page + 1 if self.total else 0

    @property
    def end(self) -> int:
        return min(self.total, self.number * self.per_page)

    @property
    def nearby(self) -> list[int | None]:
        """Page numbers to link: the first, the last and two either side of this one,
        None where numbers are skipped."""
        wanted = {1, self.pages, *range(self.number - 2, self.number + 3)}
        shown: list[int | None] = []
        for n in sorted(p for p in wanted if 1 <= p <= self.pages):
            if shown and shown[-1] is not None and n > shown[-1] + 1:
                shown.append(None)
            shown.append(n)
        return shown


def page_of(queryset: QuerySet, number: int, per_page: int, total: int | None = None) -> Page:
    """A page of the queryset (two queries: its count unless given, and its rows)."""
    total = queryset.count() if total is None else total
    window = clamped(number, total, per_page)
    items = list(window.slice(queryset)) if total else []
    return Page(items, total, window.number, per_page)


def page_of_list(items: Sequence, number: int, per_page: int) -> Page:
    """A page of a list already in memory."""
    window = clamped(number, len(items), per_page)
    return Page(list(window.slice(items)), len(items), window.number, per_page)


def peek(queryset: QuerySet, window: Window) -> tuple[list, bool]:
    """The rows of an uncounted list's page, and whether more follow: one query, reading
    one row past the page."""
    rows = list(queryset[window.offset : window.stop + 1])
    return rows[: window.size], len(rows) > window.size
