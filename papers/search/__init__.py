"""Full-text search over papers: the one entry point the views call.

`search()` parses the text (papers.search.query), picks the engine's backend by
`connection.vendor` (papers.search.backends) and answers one page of paper ids with
an exact total up to COUNT_CAP ("10,000+" beyond it) and highlighted snippets.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from django.db.models import QuerySet
from django.utils.safestring import SafeString, mark_safe

from papers.search.backends import CANDIDATES, MARK_END, MARK_START, backend_for
from papers.search.query import ParsedQuery, parse

COUNT_CAP = 10_000
SORTS = ("relevance", "newest", "implementations")
SORT_ORDER = {
    "newest": ("-published", "-id"),
    "implementations": ("-code_link_count", "-published", "-id"),
}


@dataclass
class SearchPage:
    ids: list[int]
    total: int  # exact when not capped
    capped: bool  # more than COUNT_CAP matches
    parsed: ParsedQuery | None = None
    highlights: dict[int, tuple[SafeString, SafeString]] = field(default_factory=dict)
    candidate_ids: list[int] | None = None  # the ranked window (sorting by other keys)

    @property
    def total_display(self) -> str:
        return f"{COUNT_CAP:,}+" if self.capped else f"{self.total:,}"


def marked(text: str) -> SafeString:
    """Escape engine output, then turn the match markers into <mark>."""
    escaped = html.escape(text or "", quote=False)
    return mark_safe(escaped.replace(MARK_START, "<mark>").replace(MARK_END, "</mark>"))


def search(
    text: str,
    base: QuerySet,
    *,
    sort: str = "relevance",
    offset: int = 0,
    limit: int = 20,
) -> SearchPage:
    """One page of `base` (a filtered Paper queryset) matching `text`."""
    parsed = parse(text)
    if parsed.empty:
        ordered = base.order_by(*SORT_ORDER.get(sort, SORT_ORDER["newest"]))
        total = ordered.order_by()[: COUNT_CAP + 1].count()
        ids = list(ordered.values_list("id", flat=True)[offset : offset + limit])
        return SearchPage(ids=ids, total=min(total, COUNT_CAP), capped=total > COUNT_CAP)
    engine = backend_for(parsed, base)
    total = engine.count(COUNT_CAP)
    if sort == "relevance":
        ids = engine.ranked(offset, limit)
    else:
        window = engine.ids(CANDIDATES)
        ids = list(
            base.model.objects.filter(id__in=window)
            .order_by(*SORT_ORDER[sort])
            .values_list("id", flat=True)[offset : offset + limit]
        )
    highlights = {
        pk: (marked(title), marked(snippet))
        for pk, (title, snippet) in engine.highlights(ids).items()
    }
    return SearchPage(
        ids=ids,
        total=min(total, COUNT_CAP),
        capped=total > COUNT_CAP,
        parsed=parsed,
        highlights=highlights,
    )


def ranked_page(
    text: str, base: QuerySet, *, offset: int, limit: int, candidates: int = CANDIDATES
) -> tuple[list[int], int]:
    """For clients that page through results (the API): one page of `base` matching `text`
    in relevance order, and how many matches the ranking covers (at most `candidates`,
    past which pages are empty), from one query (two for a page past the end). The text
    is read as finished words: the last is not matched as a prefix. Empty text is an
    error: the caller lists papers in its own order instead."""
    parsed = parse(text, typing=False)
    if parsed.empty:
        raise ValueError("no words to search for")
    engine = backend_for(parsed, base)
    ids, ranked = engine.ranked_window(offset, limit, candidates)
    if ranked is None:
        ranked = min(engine.count(candidates), candidates)
    return ids, ranked


def matching_ids(text: str, base: QuerySet) -> list[int]:
    """Every id in `base` matching `text`, up to COUNT_CAP (for exact facet counts)."""
    parsed = parse(text)
    if parsed.empty:
        return list(base.values_list("id", flat=True)[:COUNT_CAP])
    return backend_for(parsed, base).ids(COUNT_CAP)
