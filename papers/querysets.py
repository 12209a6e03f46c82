"""Domain filters shared by the search page, the API and the browse pages."""

from __future__ import annotations

import datetime as dt

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

    A framework or a sample status is checked against the paper's own copy
    (Paper.frameworks, Paper.sample_statuses; refresh_counts() keeps it true), which a
    search reads with the paper anyway: ~0.3 µs a match. Where a rare value should
    lead the plan instead, the search may also check the related rows' (paper, value)
    index (paper_id_sets())."""
    if filters.get("has_code"):
        papers = papers.filter(code_link_count__gt=0)
    if filters.get("official"):
        papers = papers.filter(has_official_code=True)
    for key, rows in _rows(filters):
        if key in HELD:
            papers = papers.filter(**{f"{HELD[key][2]}__holds": filters[key]})
        else:
            papers = papers.filter(Exists(rows.filter(paper=OuterRef("pk"))))
    if year := filters.get("year_from"):
        papers = papers.filter(published__gte=dt.date(year, 1, 1))
    if year := filters.get("year_to"):
        papers = papers.filter(published__lte=dt.date(year, 12, 31))
    return papers


def paper_id_sets(filters: dict) -> list[QuerySet]:
    """The related-row filters as sets of paper ids (one `paper_id` column each), each
    read through its (value, paper) index: a search may check a match against a small
    one before it reads the paper's row (SQLite), or let a small one lead the plan
    (PostgreSQL)."""
    return [rows.order_by().values("paper_id") for _, rows in _rows(filters)]
