"""Domain filters shared by the search page, the API and the browse pages."""

from __future__ import annotations

import datetime as dt

from django.db.models import Exists, OuterRef, QuerySet

from papers.models import (
    CodeLink,
    Paper,
    PaperAuthor,
    PaperDataset,
    PaperMethod,
    PaperTask,
    Sample,
)


def _relations(filters: dict) -> list[QuerySet]:
    """The filters that are about a paper's related rows, as querysets of those rows
    (each has a paper_id)."""
    rows: list[QuerySet] = []
    if framework := filters.get("framework"):
        rows.append(CodeLink.objects.filter(framework=framework))
    if status := filters.get("status"):
        rows.append(Sample.objects.filter(status=status))
    for key, model, field in (
        ("task", PaperTask, "task__slug"),
        ("method", PaperMethod, "method__slug"),
        ("dataset", PaperDataset, "dataset__slug"),
        ("author", PaperAuthor, "author__slug"),
        ("repository", CodeLink, "repository__url"),
    ):
        if value := filters.get(key):
            rows.append(model.objects.filter(**{field: value}))
    return rows


def filter_papers(papers: QuerySet[Paper], filters: dict) -> QuerySet[Paper]:
    """Apply the search filters (SearchForm.cleaned_data keys) to a Paper queryset."""
    if filters.get("has_code"):
        papers = papers.filter(code_link_count__gt=0)
    if filters.get("official"):
        papers = papers.filter(has_official_code=True)
    for rows in _relations(filters):
        papers = papers.filter(Exists(rows.filter(paper=OuterRef("pk"))))
    if year := filters.get("year_from"):
        papers = papers.filter(published__gte=dt.date(year, 1, 1))
    if year := filters.get("year_to"):
        papers = papers.filter(published__lte=dt.date(year, 12, 31))
    return papers


def paper_id_sets(filters: dict) -> list[QuerySet]:
    """The related-row filters as sets of paper ids (one `paper_id` column each): a
    search may check a match against a small one before it reads the paper's row."""
    return [rows.order_by().values("paper_id") for rows in _relations(filters)]
