"""The home page, /about and /trends."""

from __future__ import annotations

from django.db import connections
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from codewithpapers.cache import by_version
from codewithpapers.middleware import reads
from papers import charts
from papers.kept import trends as kept_trends
from papers.models import Paper, Repository, Sample
from papers.search import index as search_index
from papers.vocabularies import (
    REPO_KIND_EXPLANATIONS,
    STATUS_CLAIM,
    STATUS_EXPLANATIONS,
    RepoKind,
    SampleStatus,
)

PAGE_LIST = 50  # the latest papers on the home page


def _paper_list(queryset):
    """Papers for a list, with their first authors, in a constant number of queries."""
    return queryset.visible().with_authors()[:PAGE_LIST]


def _archive_counts() -> dict:
    """The home page's counts (whole-archive scans), and whether the search index is
    being rebuilt by an import: kept per content version, which imports bump."""
    return {
        "paper_count": Paper.objects.visible().count(),
        "repository_count": Repository.objects.count(),
        "sample_count": Sample.objects.count(),
        "status_counts": Sample.objects.status_counts(),
        "search_rebuilding": search_index.deferred(connections[Paper.objects.db]),
    }


@reads()
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "papers/home.html",
        {
            **by_version("home-counts", _archive_counts),
            "status_claim": STATUS_CLAIM,
            "latest": _paper_list(Paper.objects.latest()),
        },
    )


@reads()
@require_safe
def about(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "papers/about.html",
        {
            "statuses": [(s, s.label, STATUS_EXPLANATIONS[s]) for s in SampleStatus],
            "repo_kinds": [(k, k.label, REPO_KIND_EXPLANATIONS[k]) for k in RepoKind],
        },
    )


@reads()
@require_safe
def trends(request: HttpRequest) -> HttpResponse:
    """Each framework's share of the new code links a quarter (papers.kept.trends keeps
    them: one query)."""
    data = kept_trends.kept()
    chart = charts.share_chart(data["quarters"], data["links"]) if data else None
    return render(
        request,
        "papers/trends.html",
        {"chart": chart, "kept": data is not None, "min_links": kept_trends.MIN_LINKS},
    )
