"""Full-text search over papers: the one entry point the views call.

`search()` parses the text (papers.search.query), picks the engine's backend by the
queryset's database (papers.search.backends) and answers one page of paper ids with an
exact total up to COUNT_CAP ("10,000+" beyond it), highlighted snippets, and facet
counts over the whole result set when it is within the cap (papers.search.facets).

Relevance is decided over the same first COUNT_CAP + 1 matches that are counted, in
one query. A result set within the cap is scored exactly; above it, PostgreSQL scores
that window with ts_rank, and SQLite (whose bm25() reads every match of every word
first) orders it title matches first (SQLiteBackend.title_first_window). SQLite scores
at once the matches it expects to be within the cap (SQLiteBackend.expected_matches),
and reads a query's matches in id order first, to count them, only when it expects
more. A typed last word is searched as typed first, and as a prefix only when that finds
no more matches than are counted, or at once as a prefix when the engine expects no more
(see _typed()).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Count, F, QuerySet
from django.utils.safestring import SafeString

from papers.models import NEWEST_FIRST, Paper, Sample
from papers.search.backends import backend_for, facet_counts
from papers.search.backends.base import CANDIDATES, Backend
from papers.search.facets import facets_from, matches_of
from papers.search.query import ParsedQuery, parse
from papers.titles import marked_text

COUNT_CAP = 10_000
SORTS = ("relevance", "newest", "implementations")
# The facet rows of no matches (the counts of code are always given).
NO_FACETS = [("code", "has_code", 0), ("code", "official", 0)]
# The same orders as backends.base.ORDERS, for lists without a query. Undated papers last.
SORT_ORDER = {
    "newest": NEWEST_FIRST,
    "implementations": (F("code_link_count").desc(), *NEWEST_FIRST),
}


@dataclass
class SearchPage:
    ids: list[int]
    total: int  # exact when not capped
    capped: bool  # more than COUNT_CAP matches
    parsed: ParsedQuery | None = None
    highlights: dict[int, tuple[SafeString, SafeString]] = field(default_factory=dict)
    # Papers with code, official code, each framework and each sample status among all
    # the matches; None past the cap.
    facets: dict[str, dict[str, int]] | None = None
    # No paper matched every word, so these match all but one (search()): None when
    # every word matched; the words no paper holds when those were left out, else [].
    left_out: list[str] | None = None

    @property
    def total_display(self) -> str:
        return f"{COUNT_CAP:,}+" if self.capped else f"{self.total:,}"


@dataclass
class ResultRow:
    """One result as the page lists it: the paper with its authors, its title and
    snippet with the matches marked (None without a query), its samples by status."""

    paper: Paper
    title: SafeString | None
    snippet: SafeString | None
    statuses: dict[str, int]


def result_rows(page: SearchPage) -> list[ResultRow]:
    """The page's results in order: two queries for the papers and their authors, one for
    their samples' statuses (most samples first)."""
    papers = {p.id: p for p in Paper.objects.filter(id__in=page.ids).with_authors()}
    statuses: dict[int, dict[str, int]] = {}
    counts = (
        Sample.objects.filter(paper_id__in=page.ids)
        .values_list("paper_id", "status")
        .annotate(n=Count("id"))
        .order_by("paper_id", "-n", "status")
    )
    for paper_id, status, n in counts:
        statuses.setdefault(paper_id, {})[status] = n
    return [
        ResultRow(papers[pk], *page.highlights.get(pk, (None, None)), statuses.get(pk, {}))
        for pk in page.ids
    ]


def marked(text: str) -> SafeString:
    """Engine output as HTML: escaped, the match markers as <mark>, its $…$ math
    rendered as the page renders titles and abstracts (papers.titles)."""
    return marked_text(text)


def search(
    text: str,
    base: QuerySet,
    *,
    sort: str = "relevance",
    offset: int = 0,
    limit: int = 20,
    facets: bool = False,
    narrowed_by: Sequence[QuerySet] = (),
) -> SearchPage:
    """One page of `base` (a filtered Paper queryset) matching `text`, with facet counts
    when asked for and the matches number COUNT_CAP or fewer. `narrowed_by`: sets of
    paper ids `base` is already restricted to (papers.querysets.paper_id_sets), which
    the engine may check a match against early."""
    parsed = parse(text)
    page = _search(parsed, base, sort, offset, limit, facets, narrowed_by)
    relaxed = parsed.relaxed()
    if page.total or relaxed is None or base.query.is_empty():
        return page
    # A long query no paper matches whole (a pasted title with a word wrong): the papers
    # that match every word but one, ranked (each alone is as selective as the query
    # nearly is, so the matches stay few). When a word is in no paper at all (the wrong
    # word, mostly), those are the papers that match every other word: searched as such,
    # the engine reads no conjunction that holds the missing word (for an engine that
    # looks for such words: Backend.absent_groups). When two are in none, no paper
    # matches all but one.
    absent = backend_for(parsed, base, narrowed_by).absent_groups()
    if len(absent) > relaxed.spare:
        return page
    if absent:
        relaxed = parsed.without(absent)
    page = _search(relaxed, base, sort, offset, limit, facets, narrowed_by)
    page.left_out = [" ".join(t.words) for i in absent for t in parsed.groups[i]]
    return page


def _search(
    parsed: ParsedQuery,
    base: QuerySet,
    sort: str,
    offset: int,
    limit: int,
    facets: bool,
    narrowed_by: Sequence[QuerySet],
) -> SearchPage:
    """search() for one reading of the text."""
    if base.query.is_empty():  # a filter no paper passes (querysets.narrowed_papers)
        return SearchPage(
            ids=[], total=0, capped=False, parsed=None if parsed.empty else parsed,
            facets=facets_from(NO_FACETS) if facets else None,
        )  # fmt: skip
    if parsed.empty:
        ordered = base.order_by(*SORT_ORDER.get(sort, SORT_ORDER["newest"]))
        total = ordered.order_by()[: COUNT_CAP + 1].count()
        ids = list(ordered.values_list("id", flat=True)[offset : offset + limit])
        page = SearchPage(ids=ids, total=min(total, COUNT_CAP), capped=total > COUNT_CAP)
        if facets and not page.capped:
            page.facets = facet_counts(*matches_of(base), using=base.db)
        return page
    engine = backend_for(parsed, base, narrowed_by)
    if parsed.has_prefix:
        engine, parsed, ids, counted, found = _typed(engine, sort, offset, limit, facets)
    else:
        # Expected within the cap, a TIERED engine scores the matches at once, rather
        # than reading them in id order first to count them (only a relevance order
        # scores, or reads them title first).
        few = (
            engine.TIERED
            and sort == "relevance"
            and _within_cap(engine.expected_matches(COUNT_CAP))
        )
        ids, counted, found = _one_page(engine, sort, offset, limit, few=few, facets=facets)
    page = SearchPage(
        ids=ids,
        total=min(counted, COUNT_CAP),
        capped=counted > COUNT_CAP,
        parsed=parsed,
        highlights={
            pk: (marked(title), marked(snippet))
            for pk, (title, snippet) in engine.highlights(ids).items()
        },
    )
    if facets and not page.capped:
        # Counted with the page, except past the end of a title-first window or where
        # nothing matches.
        if found is None and counted:
            found = facet_counts(*engine.matches(COUNT_CAP), using=base.db)
        page.facets = found or facets_from(NO_FACETS)
    return page


def _typed(
    engine: Backend, sort: str, offset: int, limit: int, facets: bool
) -> tuple[Backend, ParsedQuery, list[int], int, dict[str, dict[str, int]] | None]:
    """_one_page() for a query whose last word is being typed: the engine and query
    that answered (the word as typed, or as a prefix) with the page, count and facets.

    A prefix makes the engine merge every indexed word it starts ("learn" is also
    learner, learnable …) before the first match. When the word as typed already has
    more matches than are counted, the words it may become add none that the page would
    show: the word is searched for as typed. When the engine expects no more matches
    than are counted (an estimate it gives at once), that first search is not made: it
    would be a second pass over the same matches (~60 ms on PostgreSQL, ~70 on SQLite at
    576k papers)."""
    finished = engine.reading(engine.parsed.finished())
    expected = finished.expected_matches(COUNT_CAP)
    if _within_cap(expected):
        # Expected to match nothing as typed, the word is being typed (see below).
        few = expected > 0
        return (
            engine,
            engine.parsed,
            *_one_page(engine, sort, offset, limit, few=few, facets=facets),
        )
    ids, counted, _ = _one_page(finished, sort, offset, limit, probe=True)  # no facets
    if counted > COUNT_CAP:
        return finished, finished.parsed, ids, counted, None
    # A word that matches as typed is most likely finished: its prefix adds a few
    # matches, and the result is scored whole. One that matches nothing is being typed
    # ("transfo"): its prefix may match a great many.
    return (
        engine,
        engine.parsed,
        *_one_page(engine, sort, offset, limit, few=counted > 0, facets=facets),
    )


def _within_cap(expected: float | None) -> bool:
    return expected is not None and expected <= COUNT_CAP


def _one_page(
    engine: Backend,
    sort: str,
    offset: int,
    limit: int,
    *,
    probe: bool = False,
    few: bool = False,
    facets: bool = False,
) -> tuple[list[int], int, dict[str, dict[str, int]] | None]:
    """A page of ids, how many match (counted up to COUNT_CAP + 1) and, when `facets`
    and they number COUNT_CAP or fewer, their facet counts from the same query (else
    None). `probe`: the page is only wanted when there are more matches than that.
    `few`: COUNT_CAP or fewer matches are expected (a TIERED engine scores them first,
    and orders them by title only if there are more)."""

    def scored(order: str) -> tuple[list[int], int, dict[str, dict[str, int]] | None]:
        # One query pages through the window and counts it; past its end, a count alone.
        if facets and not probe:
            return engine.ranked_window_with_facets(offset, limit, COUNT_CAP + 1, order, COUNT_CAP)
        ids, in_window = engine.ranked_window(offset, limit, COUNT_CAP + 1, order=order)
        return ids, engine.count(COUNT_CAP) if in_window is None else in_window, None

    if engine.TIERED and sort == "relevance" and few:
        ids, counted, found = scored("relevance")
        if counted <= COUNT_CAP:
            return ids, counted, found
    if engine.TIERED and sort == "relevance":
        # Too many matches to score them all: the title matches first, within the window
        # that is counted. A window that holds every match is scored instead.
        ids, in_window = engine.title_first_window(offset, limit, COUNT_CAP + 1)
        if in_window is None:  # past the end
            return ids, engine.count(COUNT_CAP), None
        if in_window > COUNT_CAP or probe or not in_window:
            return ids, in_window, None
    return scored(sort)


def ranked_page(
    text: str | ParsedQuery,
    base: QuerySet,
    *,
    offset: int,
    limit: int,
    candidates: int = CANDIDATES,
) -> tuple[list[int], int]:
    """For clients that page through results (the API): one page of `base` matching `text`
    in relevance order, and how many matches the ranking covers (at most `candidates`,
    past which pages are empty), from one query (two for a page past the end). The text
    is read as finished words: the last is not matched as a prefix; or it is already
    parsed (field filters joined to it: query.ParsedQuery.joined). Empty text is an
    error: the caller lists papers in its own order instead."""
    parsed = text if isinstance(text, ParsedQuery) else parse(text, typing=False)
    if parsed.empty:
        raise ValueError("no words to search for")
    if base.query.is_empty():
        return [], 0
    engine = backend_for(parsed, base)
    ids, ranked = engine.ranked_window(offset, limit, candidates)
    if ranked is None:
        ranked = min(engine.count(candidates), candidates)
    return ids, ranked
