"""Domain filters shared by the search page, the API and the browse pages, and the paged
lists of papers the record pages show (a task's, an author's, a venue's…)."""

from __future__ import annotations

import datetime as dt
import difflib
import re

from django.db import connection
from django.db.models import Case, Exists, IntegerField, OuterRef, Q, QuerySet, Value, When
from django.utils.text import slugify

from papers.models import (
    NEWEST_FIRST,
    CodeLink,
    Dataset,
    Method,
    Paper,
    PaperAuthor,
    PaperDataset,
    PaperMethod,
    PaperTask,
    Sample,
    Task,
)
from papers.paging import Page, page_of

# The search filters that name a task, a method or a dataset, and the model each names.
NAMED = {"task": Task, "method": Method, "dataset": Dataset}
SUGGESTIONS = 10  # names offered while a filter is typed
NEAREST = 3  # names offered for a name nothing has
_CANDIDATES = 500  # names compared to one nothing has (difflib is quadratic in length)

# Filters on a paper's code links and samples that the paper's row answers too
# (Paper.frameworks, Paper.sample_statuses): key → (model, field, the paper's column).
# "frameworks" is the list of stored spellings a typed framework matches (SearchForm).
HELD = {
    "frameworks": (CodeLink, "framework", "frameworks"),
    "status": (Sample, "status", "sample_statuses"),
}
LISTED = {"task": PaperTask, "method": PaperMethod, "dataset": PaperDataset}


def _values(value) -> list:
    """A filter's values: a list (the framework spellings a typed one matches), or one."""
    if isinstance(value, list | tuple):
        return [v for v in value if v]
    return [value] if value else []


def _rows(filters: dict) -> list[tuple[str, QuerySet]]:
    """The filters about a paper's related rows, as (key, queryset of those rows)
    pairs; each row has a paper_id."""
    rows = []
    for key, (model, field, _) in HELD.items():
        if values := _values(filters.get(key)):
            rows.append((key, model.objects.filter(**{f"{field}__in": values})))
    for key, model in LISTED.items():
        if ids := filters.get(f"{key}_ids"):
            rows.append((key, model.objects.filter(**{f"{key}_id__in": ids})))
    for key, model, field in (
        ("author", PaperAuthor, "author__slug"),
        ("repository", CodeLink, "repository__url"),
    ):
        if value := filters.get(key):
            rows.append((key, model.objects.filter(**{field: value})))
    return rows


# A related-row filter (an author, a repository, a rare status or task…) that holds this
# many rows or fewer is read first, and the papers are filtered by its papers' ids.
FEW_ROWS = 5_000


def filter_papers(papers: QuerySet[Paper], filters: dict) -> QuerySet[Paper]:
    """Apply the search filters (SearchForm.cleaned_data keys) to a Paper queryset
    (narrowed_papers() without the sets)."""
    return narrowed_papers(papers, filters)[0]


def _few_paper_ids(rows: QuerySet) -> list[int] | None:
    """The paper ids of `rows` when they number FEW_ROWS or fewer (one query through the
    rows' (value, paper) index), else None."""
    found = list(rows.order_by().values_list("paper_id", flat=True)[: FEW_ROWS + 1])
    return None if len(found) > FEW_ROWS else sorted(set(found))


def narrowed_papers(
    papers: QuerySet[Paper], filters: dict
) -> tuple[QuerySet[Paper], list[QuerySet]]:
    """Apply the search filters (SearchForm.cleaned_data keys) to a Paper queryset, and
    the sets of paper ids a search may check a match against early (see
    papers.search.search's `narrowed_by`).

    A related-row filter with few rows (an author's papers, a repository's, a status or
    task few samples or papers have) is read first, one query each, and leads as a list
    of paper ids: checked per paper instead, it made a list without a query, or a
    search on SQLite, test every paper of the archive (~2.5 s at 576k papers), and a
    value no row has answers at once with nothing.

    Otherwise a framework or a sample status is checked against the paper's own copy
    (Paper.frameworks, Paper.sample_statuses; papers.kept.papers keeps it true), which a
    search reads with the paper anyway: ~0.3 µs a match, and a task, method, dataset
    against its link rows; the search may also check those rows' (value, paper) index
    (the sets returned)."""
    # A framework is a code link's: saying so lets a search walk only the papers with
    # code (PostgreSQL's papers_paper_code_search_gist); it drops no paper.
    if filters.get("has_code") or _values(filters.get("frameworks")):
        papers = papers.filter(code_link_count__gt=0)
    if filters.get("official"):
        papers = papers.filter(has_official_code=True)
    if filters.get("has_report"):
        papers = papers.filter(has_report=True)
    sets = []
    for key, rows in _rows(filters):
        ids = _few_paper_ids(rows)
        if ids is not None:
            papers = papers.filter(id__in=ids) if ids else papers.none()
            continue
        sets.append(rows.order_by().values("paper_id"))
        if key in HELD:
            column = HELD[key][2]
            held = Q()
            for value in _values(filters[key]):
                held |= Q(**{f"{column}__holds": value})
            papers = papers.filter(held)
        else:
            papers = papers.filter(Exists(rows.filter(paper=OuterRef("pk"))))
    if category := filters.get("category"):
        papers = papers.in_category(category)
    if year := filters.get("year_from"):
        papers = papers.filter(published__gte=dt.date(year, 1, 1))
    if year := filters.get("year_to"):
        papers = papers.filter(published__lte=dt.date(year, 12, 31))
    return papers, sets


def paper_id_sets(filters: dict) -> list[QuerySet]:
    """The related-row filters as sets of paper ids (one `paper_id` column each), each
    read through its (value, paper) index: a search may check a match against a small
    one before it reads the paper's row (SQLite), or let a small one lead the plan
    (PostgreSQL)."""
    return [rows.order_by().values("paper_id") for _, rows in _rows(filters)]


def named_ids(model, text: str) -> list[int]:
    """The ids of the tasks (methods, datasets) `text` names: by slug, or by name in any
    case ("question answering", "Question-Answering"). A name that case-only duplicates
    share names them all. One query."""
    slugs = {text, text.lower(), slugify(text)}
    return list(
        model.objects.filter(Q(slug__in=slugs) | Q(name__iexact=text)).values_list("id", flat=True)
    )


def names_like(model, text: str, limit: int = SUGGESTIONS) -> list[str]:
    """Names containing `text` in any case, those starting with it first: what a filter
    box offers while it is typed. One query; none for under two characters."""
    text = text.strip()
    if len(text) < 2:
        return []
    starts = Case(
        When(name__istartswith=text, then=Value(0)), default=Value(1), output_field=IntegerField()
    )
    rows = (
        model.objects.filter(hidden=False, name__icontains=text)
        .annotate(starts=starts)
        .order_by("starts", "name")
        .values_list("name", flat=True)
        .distinct()
    )
    return list(rows[:limit])


def nearest_names(model, text: str, limit: int = NEAREST) -> list[str]:
    """The names closest to `text` when nothing has it (a typo): compared with difflib
    among a bounded set of candidates that share the first letters of its words, those
    sharing the most first. One query."""
    folded = text.casefold().strip()
    stems = sorted({word[:4] for word in re.findall(r"\w+", folded) if len(word) >= 3})[:6]
    if not stems:
        return []
    near = Q()
    shared = Value(0)
    for stem in stems:
        near |= Q(name__icontains=stem)
        shared += Case(
            When(name__icontains=stem, then=Value(1)),
            default=Value(0),
            output_field=IntegerField(),
        )
    candidates = list(
        model.objects.filter(near, hidden=False)
        .annotate(shared=shared)
        .order_by("-shared", "name")
        .values_list("name", flat=True)[:_CANDIDATES]
    )
    by_folded = {name.casefold(): name for name in candidates}
    close = difflib.get_close_matches(folded, list(by_folded), n=limit, cutoff=0.6)
    return [by_folded[name] for name in close]


def frameworks() -> list[str]:
    """Every framework code links name (a handful: pytorch, tf, jax, none…), to read a
    typed one in any case and to offer them. A DISTINCT would read every link's index
    entry (300k at full scale); this walks the framework index from one name to the next
    greater one, a lookup per name (a loose index scan, on both engines)."""
    table = connection.ops.quote_name(CodeLink._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH RECURSIVE names(name) AS ("
            f" SELECT MIN(framework) FROM {table} WHERE framework > %s"
            f" UNION ALL SELECT (SELECT MIN(framework) FROM {table} WHERE framework > names.name)"
            f" FROM names WHERE names.name IS NOT NULL"
            f") SELECT name FROM names WHERE name IS NOT NULL",
            [""],
        )
        return [name for (name,) in cursor.fetchall()]


# --- paged paper lists -------------------------------------------------------------------------

# A list of more papers than this is read newest first from the papers' date index,
# probing the links for each paper, which stops after a page; a smaller one is read from
# the links' index and sorted (probing would walk most of the archive to fill a page).
DENSE = 2_000


def linked_papers(links: QuerySet, total: int) -> QuerySet[Paper]:
    """The papers that have one of these link rows (a task's PaperTask rows…), written for
    the plan that reads a page of `total` of them fastest."""
    if total > DENSE:
        return Paper.objects.filter(Exists(links.filter(paper=OuterRef("pk"))))
    return Paper.objects.filter(id__read_first=links.values("paper_id"))


def paper_page(
    papers: QuerySet[Paper], number: int, per_page: int, total: int | None = None
) -> Page:
    """A page of visible papers, newest first (undated last), with their authors: three
    queries (count unless given, rows, authors)."""
    return page_of(
        papers.visible().order_by(*NEWEST_FIRST).with_authors(), number, per_page, total
    )
