"""Domain filters shared by the search page, the API and the browse pages."""

from __future__ import annotations

import datetime as dt

from django.db import connections
from django.db.models import Exists, OuterRef, QuerySet

from papers.models import CodeLink, Paper, PaperDataset, PaperMethod, PaperTask, Sample

# Filters on a paper's code links and samples that the paper's row answers too
# (Paper.frameworks, Paper.sample_statuses): key → (model, field, the paper's column).
HELD = {
    "framework": (CodeLink, "framework", "frameworks"),
    "status": (Sample, "status", "sample_statuses"),
}
LISTED = {"task": PaperTask, "method": PaperMethod, "dataset": PaperDataset}


def _rows(filters: dict) -> list[tuple[str, QuerySet]]:
    """The filters about a paper's related rows, as (key, queryset of those rows)
    pairs; each row has a paper_id."""
    rows = []
    for key, (model, field, _) in HELD.items():
        if value := filters.get(key):
            rows.append((key, model.objects.filter(**{field: value})))
    for key, model in LISTED.items():
        if value := filters.get(key):
            rows.append((key, model.objects.filter(**{f"{key}__slug": value})))
    return rows


def filter_papers(papers: QuerySet[Paper], filters: dict) -> QuerySet[Paper]:
    """Apply the search filters (SearchForm.cleaned_data keys) to a Paper queryset.

    A framework or a sample status is checked where each engine checks it fastest,
    with the same answer (refresh_counts() keeps the paper's copy true). SQLite reads
    the paper's copy from the entry its search walks anyway (paper_search_idx, see
    papers.search.backends): ~0.3 µs a match. PostgreSQL checks the related rows'
    (paper, value) index, so that a rare value can lead the plan: at 576k papers,
    `learning` with a status that 650 of its matches hold took 10 ms that way and
    ~500 ms reading each match's row for its copy; a common value costs an index-only
    probe a match."""
    if filters.get("has_code"):
        papers = papers.filter(code_link_count__gt=0)
    if filters.get("official"):
        papers = papers.filter(has_official_code=True)
    own_copy = connections[papers.db].vendor == "sqlite"
    for key, rows in _rows(filters):
        if own_copy and key in HELD:
            papers = papers.filter(**{f"{HELD[key][2]}__holds": filters[key]})
        else:
            papers = papers.filter(Exists(rows.filter(paper=OuterRef("pk"))))
    if year := filters.get("year_from"):
        papers = papers.filter(published__gte=dt.date(year, 1, 1))
    if year := filters.get("year_to"):
        papers = papers.filter(published__lte=dt.date(year, 12, 31))
    return papers


def paper_id_sets(filters: dict) -> list[QuerySet]:
    """The related-row filters as sets of paper ids (one `paper_id` column each): a
    search may check a match against a small one before it reads the paper's row."""
    return [rows.order_by().values("paper_id") for _, rows in _rows(filters)]
