"""The home page, /about and /trends."""

from __future__ import annotations

from django.db import connections
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from codewithpapers.cache import by_version
from codewithpapers.middleware import reads
from papers import share_chart, taxonomy
from papers.kept import trends as kept_trends
from papers.kept.counts import archive_counts, paper_count
from papers.models import Paper, Unindexed
from papers.search import index as search_index
from papers.vocabularies import (
    REPO_KIND_EXPLANATIONS,
    STATUS_CLAIM,
    STATUS_EXPLANATIONS,
    RepoKind,
    SampleStatus,
)

HOME_LIST = 8  # papers in each of the home page's discovery lists


def _archive_counts() -> dict:
    """The home page's counts (kept: papers.kept.counts), and whether the search index
    is being rebuilt by an import."""
    counts = archive_counts()
    return {
        "paper_count": paper_count(),
        "repository_count": counts["repositories"],
        "sample_count": sum(counts["statuses"].values()),
        "status_counts": counts["statuses"],
        "search_rebuilding": search_index.deferred(connections[Paper.objects.db]),
    }


NEW_WITH_CODE = 10


def new_with_code() -> list[Paper]:
    """The home page's newest papers with code (templates/papers/_new_with_code.html)."""
    return list(Paper.objects.newest_with_code().with_authors()[:NEW_WITH_CODE])


def _discovery(year: int | None) -> dict:
    """What the home page leads with, kept per content version: the most implemented
    papers of `year` (the newest paper with code's), as ids (the papers are read per
    request), and the areas of the state of the art with their task counts."""
    implemented = (
        list(
            # Down paper_codecount_idx, most links first, until eight of the year: the
            # year's range would have SQLite sort every paper of the year.
            Paper.objects.visible()
            .with_code()
            .alias(year_published=Unindexed("published"))
            .filter(year_published__year=year, date_uncertain=False)
            .order_by("-code_link_count", "-id")
            .values_list("id", flat=True)[:HOME_LIST]
        )
        if year
        else []
    )
    areas = [
        {"name": a.name, "slug": a.slug, "tasks": a.task_count, "benchmarks": a.benchmark_count}
        for a in taxonomy.areas(keep=0)
    ]
    return {"implemented_year": year, "implemented_ids": implemented, "areas": areas}


@reads()
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """Discovery first (search, the newest papers with code, the most implemented papers
    of the year, the areas of the state of the art), then the execution summary."""
    newest = new_with_code()
    # The year is the newest paper's: it moves only with the content, as the list kept
    # for it does.
    year = newest[0].published.year if newest else None
    discovery = by_version("home-discovery", lambda: _discovery(year))
    ids = discovery["implemented_ids"]
    implemented = sorted(
        Paper.objects.filter(id__in=ids).visible().with_authors(),
        key=lambda paper: ids.index(paper.id),
    )
    return render(
        request,
        "papers/home.html",
        {
            **by_version("home-counts", _archive_counts),
            **discovery,
            "status_claim": STATUS_CLAIM,
            "new_with_code": newest,
            "implemented": implemented,
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
    # In the kept order (PostgreSQL's jsonb keeps no key order).
    series = {name: data["links"][name] for name in data["frameworks"]} if data else {}
    chart = share_chart.share_chart(data["quarters"], series) if data else None
    return render(
        request,
        "papers/trends.html",
        {"chart": chart, "kept": data is not None, "min_links": kept_trends.MIN_LINKS},
    )
