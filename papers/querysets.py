"""Domain filters shared by the search page, the API and the browse pages."""

from __future__ import annotations

import datetime as dt

from django.db.models import Exists, OuterRef, QuerySet

from papers.models import CodeLink, Paper, PaperDataset, PaperMethod, PaperTask, Sample


def filter_papers(papers: QuerySet[Paper], filters: dict) -> QuerySet[Paper]:
    """Apply the search filters (SearchForm.cleaned_data keys) to a Paper queryset."""
    if filters.get("has_code"):
        papers = papers.filter(code_link_count__gt=0)
    if filters.get("official"):
        papers = papers.filter(has_official_code=True)
    if framework := filters.get("framework"):
        papers = papers.filter(
            Exists(CodeLink.objects.filter(paper=OuterRef("pk"), framework=framework))
        )
    if status := filters.get("status"):
        papers = papers.filter(Exists(Sample.objects.filter(paper=OuterRef("pk"), status=status)))
    for key, model, field in (
        ("task", PaperTask, "task__slug"),
        ("method", PaperMethod, "method__slug"),
        ("dataset", PaperDataset, "dataset__slug"),
    ):
        if value := filters.get(key):
            papers = papers.filter(
                Exists(model.objects.filter(paper=OuterRef("pk"), **{field: value}))
            )
    if year := filters.get("year_from"):
        papers = papers.filter(published__gte=dt.date(year, 1, 1))
    if year := filters.get("year_to"):
        papers = papers.filter(published__lte=dt.date(year, 12, 31))
    return papers
