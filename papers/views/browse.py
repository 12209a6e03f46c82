"""The browse pages: /sota and its areas, the task, dataset and method indexes and pages,
and venues at /conferences and /conference/<slug>. Thin views: queries in
papers.taxonomy, papers.conferences and papers.leaderboards.ranks, rendering of
descriptions in papers.markup, charts in papers.charts and the templates."""

from __future__ import annotations

from urllib.parse import urlencode

from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from codewithpapers.middleware import reads
from papers import (
    changes,
    charts,
    conferences,
    dataset_filters,
    markup,
    outlinks,
    querysets,
    taxonomy,
)
from papers.forms import CatalogueForm, DatasetIndexForm, PaperPageForm, VenueIndexForm
from papers.leaderboards.ranks import benchmarks
from papers.models import Collection, Dataset, Method, PaperDataset, PaperMethod, PaperTask, Task
from papers.paging import Page, clamped
from papers.templatetags.papers_tags import status_items
from papers.views.common import HtmxHttpRequest, paper_list, search_url, valid, wants_fragment


def execution_line(record, key: str) -> dict:
    """The execution facts above a task's, dataset's or method's papers, each figure with
    the search that lists the papers it counts: its papers with code, those of them whose
    code has a report, and per status the samples across those reports with the papers
    holding one (the search's status filter reads the same per-paper counts). From the
    record's own denormalised counts: no query."""
    code = {key: record.slug, "has_code": 1}
    reported = {**code, "has_report": 1}
    by_paper = record.status_paper_counts or {}
    return {
        "papers": record.paper_count,
        "code": record.code_paper_count,
        "code_url": search_url(**code),
        "reported": record.report_paper_count,
        "reported_url": search_url(**reported),
        "statuses": [
            (status, n, by_paper.get(status, 0), search_url(**reported, status=status))
            for status, n in status_items(record.sample_statuses)
        ],
        "sample_statuses": record.sample_statuses,
        "claims": record.report_claims,
    }


@reads(CatalogueForm)
@require_safe
@vary_on_headers("HX-Request")
def sota(request: HtmxHttpRequest) -> HttpResponse:
    data, error = valid(CatalogueForm, request)
    if error:
        return error
    q = data["q"]
    found = taxonomy.areas(q, keep=None if q else taxonomy.AREA_PREVIEW)
    context = {"areas": found, "q": q, "preview": not q, "claims": taxonomy.task_claims(found)}
    if wants_fragment(request):
        return render(request, "papers/sota.html#areas", context)
    context["new_results"] = changes.new_results()
    return render(request, "papers/sota.html", context)


AREA_PAGE = 60  # task cards an area's page shows at a time


@reads(PaperPageForm)
@require_safe
def area_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """An area's tasks, most benchmarked first, a page of cards at a time (computer
    vision has a thousand)."""
    data, error = valid(PaperPageForm, request)
    if error:
        return error
    area = taxonomy.area(slug)
    if area is None:
        raise Http404("No such area")
    window = clamped(data["page"] or 1, len(area.tasks), AREA_PAGE)
    page = Page(window.slice(area.tasks), len(area.tasks), window.number, AREA_PAGE)
    context = {"area": area, "page": page, "claims": taxonomy.task_claims([area])}
    return render(request, "papers/area.html", context)


def _index(request: HttpRequest, model, *where, collection=None, **extra) -> HttpResponse:
    """A catalogue of tasks, datasets or methods (those matching `where`, or in
    `collection`), filtered by name, sorted and paged."""
    data, error = valid(CatalogueForm, request)
    if error:
        return error
    filters = {}
    if model is Method and data["collection"] and collection is None:
        collection = Collection.objects.filter(slug=data["collection"]).first()
        if collection is None:
            raise Http404("No such collection")
    if collection is not None:
        filters["collections"] = collection
    sort = data["sort"] or "name"
    if model is Method and sort == "benchmarks":
        sort = "name"
    page = taxonomy.catalogue_page(
        model, data["q"], sort, data["page"] or 1, data["per_page"] or 50, *where, **filters
    )
    context = {
        "page": page,
        "q": data["q"],
        "sort": sort,
        "collection": collection,
        "sorts": [("name", "Name"), ("papers", "Papers here")]
        + ([("benchmarks", "Benchmarks")] if model is not Method else []),
        **extra,
    }
    return render(request, "papers/catalogue_index.html", context)


@reads(CatalogueForm)
@require_safe
def task_index(request: HttpRequest) -> HttpResponse:
    return _index(
        request,
        Task,
        heading="Tasks",
        blurb="Every task in the archive, with its papers and benchmarks (leaderboards).",
        has_benchmarks=True,
    )


@reads(DatasetIndexForm)
@require_safe
def dataset_index(request: HttpRequest) -> HttpResponse:
    data, error = valid(DatasetIndexForm, request)
    if error:
        return error
    kept, facets = dataset_filters.apply({key: data[key] for key in dataset_filters.FILTERS})
    where = [] if kept is None else [Q(id__in=sorted(kept))]
    return _index(
        request,
        Dataset,
        *where,
        facets=dataset_filters.with_links(facets, request.GET),
        filtered=kept is not None,
        heading="Datasets",
        blurb="Every dataset in the archive, with the papers using it and its benchmarks.",
        has_benchmarks=True,
        dump_counts=True,
    )


@reads(CatalogueForm)
@require_safe
def method_index(request: HttpRequest) -> HttpResponse:
    return _index(
        request,
        Method,
        heading="Methods",
        blurb=METHODS_BLURB,
        has_benchmarks=False,
        dump_counts=True,
        groups=taxonomy.collection_groups(),
    )


METHODS_BLURB = (
    "Every method in the archive (architectures, layers, losses, optimisers…), with the "
    "papers using it; by area and collection below."
)


@reads(CatalogueForm)
@require_safe
def method_area(request: HttpRequest, slug: str) -> HttpResponse:
    """/methods/area/<area>: the area's collections, then every method in any of them."""
    group = taxonomy.method_area(slug)
    if group is None:
        raise Http404("No such area of methods")
    return _index(
        request,
        Method,
        taxonomy.area_methods(group),
        heading=f"Methods: {group.area}",
        blurb=f"The methods of {group.area}, by collection, with the papers using them.",
        has_benchmarks=False,
        dump_counts=True,
        method_area=group,
    )


@reads(CatalogueForm)
@require_safe
def method_category(request: HttpRequest, slug: str) -> HttpResponse:
    """/methods/category/<collection>: the methods of one collection."""
    collection = get_object_or_404(Collection, slug=slug)
    area = taxonomy.CollectionGroup(collection.area or taxonomy.OTHER_AREA, [])
    return _index(
        request,
        Method,
        collection=collection,
        heading="Methods",
        blurb=collection.description
        or f"The methods of the {collection.name} collection, with the papers using them.",
        has_benchmarks=False,
        dump_counts=True,
        collection_area=area,
    )


# A task's lists of papers, at Papers with Code's addresses: (URL suffix, heading, the
# words after "N papers" in the list's count).
TASK_VIEWS = {
    "code": ("", "Papers with code", "with code"),
    "codeless": ("codeless", "Papers without code", "without code"),
    "latest": ("latest", "Newest papers", "in all, newest first"),
}


@reads(PaperPageForm)
@require_safe
def task_detail(request: HttpRequest, slug: str, view: str = "code") -> HttpResponse:
    """A task: its subtasks, benchmarks and one of its lists of papers (with code, the
    default; without code, /codeless; every paper, newest first, /latest)."""
    task = get_object_or_404(Task.objects.prefetch_related("parents"), slug=slug)
    links = PaperTask.objects.filter(task=task)
    papers = querysets.linked_papers(links, task.paper_count)
    if view == "code":
        papers, total = papers.with_code(), task.code_paper_count
    elif view == "codeless":
        papers = papers.without_code()
        total = max(0, task.paper_count - task.code_paper_count)
    else:
        total = task.paper_count
    # The search can keep a task's papers with code, or all of them; not those without.
    search = {"code": {"task": task.slug, "has_code": 1}, "codeless": {}}.get(
        view, {"task": task.slug}
    )
    context, error = paper_list(request, papers, search, total)
    if error:
        return error
    tabs = [
        (key, heading, reverse(f"papers:task-{key}" if key != "code" else "papers:task",
                               kwargs={"slug": task.slug}), count)
        for (key, (_, heading, _)), count in zip(
            TASK_VIEWS.items(),
            (task.code_paper_count, max(0, task.paper_count - task.code_paper_count),
             task.paper_count),
            strict=True,
        )
    ]  # fmt: skip
    return render(
        request,
        "papers/task.html",
        {
            "task": task,
            "view": view,
            "views": tabs,
            "view_heading": TASK_VIEWS[view][1],
            "papers_kind": TASK_VIEWS[view][2],
            "execution": execution_line(task, "task"),
            "tree": taxonomy.subtask_tree(task),
            "benchmarks": benchmarks(task.leaderboards.all()),
            **outlinks.without_dead_links(
                markup.render_all(
                    description=task.description, contributed=task.source == "contributed"
                )
            ),
            **context,
        },
    )


@reads(PaperPageForm)
@require_safe
def dataset_detail(request: HttpRequest, slug: str) -> HttpResponse:
    dataset = get_object_or_404(
        Dataset.objects.select_related("introduced_by").prefetch_related("tasks"), slug=slug
    )
    links = PaperDataset.objects.filter(dataset=dataset)
    papers = querysets.linked_papers(links, dataset.paper_count)
    context, error = paper_list(request, papers, {"dataset": dataset.slug}, dataset.paper_count)
    if error:
        return error
    return render(
        request,
        "papers/dataset.html",
        {
            "dataset": dataset,
            "execution": execution_line(dataset, "dataset"),
            "benchmarks": benchmarks(dataset.leaderboards.all()),
            **outlinks.without_dead_links(
                markup.render_all(
                    description=dataset.description, contributed=dataset.source == "contributed"
                )
            ),
            **context,
        },
    )


@reads(PaperPageForm)
@require_safe
def method_detail(request: HttpRequest, slug: str) -> HttpResponse:
    method = get_object_or_404(
        Method.objects.select_related("introduced_by").prefetch_related("collections"),
        slug=slug,
    )
    links = PaperMethod.objects.filter(method=method)
    papers = querysets.linked_papers(links, method.paper_count)
    context, error = paper_list(request, papers, {"method": method.slug}, method.paper_count)
    if error:
        return error

    def year_search(year: int) -> str:
        query = urlencode({"method": method.slug, "year_from": year, "year_to": year})
        return f"{reverse('papers:search')}?{query}"

    return render(
        request,
        "papers/method.html",
        {
            "method": method,
            "execution": execution_line(method, "method"),
            "usage": charts.usage_chart(method.papers_by_year, year_search),
            **outlinks.without_dead_links(
                markup.render_all(
                    description=method.description, contributed=method.source == "contributed"
                )
            ),
            **context,
        },
    )


@reads(VenueIndexForm)
@require_safe
def conference_index(request: HttpRequest) -> HttpResponse:
    data, error = valid(VenueIndexForm, request)
    if error:
        return error
    sort = data["sort"] or "name"
    page = conferences.venue_index(data["q"], sort, data["page"] or 1, data["per_page"] or 50)
    sorts = [("name", "Name"), ("papers", "Papers")]
    return render(
        request,
        "papers/conferences.html",
        {"page": page, "q": data["q"], "sort": sort, "sorts": sorts},
    )


@reads(PaperPageForm)
@require_safe
def conference_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A venue over its years, or one year's proceedings, with its papers newest first.
    Papers with Code's address of a year's proceedings (…/neurips-2020-12) redirects."""
    found, canonical = conferences.find_venue(slug)
    if found is None:
        if canonical is None:
            raise Http404("No such venue")
        target = reverse("papers:conference", kwargs={"slug": canonical})
        if request.GET:
            target += "?" + request.GET.urlencode()
        return redirect(target, permanent=True)
    papers = conferences.venue_papers(found)
    context, error = paper_list(request, papers, {}, found.paper_count)
    if error:
        return error
    return render(request, "papers/conference.html", {"found": found, **context})
