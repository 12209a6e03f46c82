"""/search and the filters' name suggestions (/search/names/<field>)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from codewithpapers.cache import by_version
from codewithpapers.middleware import reads
from papers import paging
from papers import search as fulltext
from papers.forms import MAX_PAGE, NAME_MAX, SearchForm, describe_errors
from papers.models import Paper
from papers.querysets import NAMED, frameworks, names_like, narrowed_papers
from papers.views.common import HtmxHttpRequest, wants_fragment
from papers.vocabularies import SampleStatus

PER_PAGE = 20  # results a page
# The search parameters that narrow the results (the Filters box counts those in use).
FILTERS = (
    "has_code",
    "official",
    "has_report",
    "framework",
    "status",
    "task",
    "method",
    "dataset",
    "year_from",
    "year_to",
    "category",
    "sort",
)
# The filters that name a task, a method or a dataset, with their labels.
NAMED_FILTERS = [("task", "Task"), ("method", "Method"), ("dataset", "Dataset")]


def _without_empty(params) -> str | None:
    """The query string without its empty parameters, or None when none is empty. A form
    submitted without JavaScript sends every field (`?q=graph&task=&method=&…`)."""
    kept = [(key, value) for key, values in params.lists() for value in values if value != ""]
    if len(kept) == sum(len(values) for _, values in params.lists()):
        return None
    return urlencode(kept)


@reads(SearchForm, headers=("HX-Trigger",))
@require_safe
@vary_on_headers("HX-Request")
def search(request: HtmxHttpRequest) -> HttpResponse:
    if not request.htmx and (cleaned := _without_empty(request.GET)) is not None:
        return redirect(f"{request.path}?{cleaned}" if cleaned else request.path)
    form = SearchForm(request.GET, frameworks=by_version("frameworks", frameworks))
    fragment = "papers/search.html#results-update" if wants_fragment(request) else None
    context = {
        "form": form,
        "statuses": list(SampleStatus),
        "frameworks": form.frameworks,
        "named_filters": NAMED_FILTERS,
        "filters_in_use": sum(1 for key in FILTERS if request.GET.get(key)),
    }
    if not form.is_valid():
        context.update(q=form["q"].value() or "", error=describe_errors(form))
        return render(request, fragment or "papers/search.html", context, status=400)
    data = form.cleaned_data
    q = data["q"]
    # Typing sends the box's value as it changes (HX-Trigger names the box); a paper an
    # arXiv id or a slug names is opened only for a submitted query.
    submitted = not request.htmx or request.htmx.trigger == "search-form"
    hit = Paper.objects.named_by(q) if q else None
    if hit is not None and submitted:
        if request.htmx:
            return HttpResponseClientRedirect(hit.get_absolute_url())
        return redirect(hit)
    sort = data["sort"] or ("relevance" if q.strip() else "newest")
    window = paging.Window(data["page"] or 1, PER_PAGE)
    context.update(
        q=q,
        sort=sort,
        page_number=window.number,
        result_start=window.offset + 1,
        too_deep=False,
        direct_hit=hit,
        unknown=form.unknown,
    )
    context.update(_results(form, sort, window))
    return render(request, fragment or "papers/search.html", context)


def _results(form: SearchForm, sort: str, window: paging.Window) -> dict:
    """The page's results: a page of matches ranked, with the facets; none past the last
    page shown (MAX_PAGE), nor when a filter names nothing (no paper can match)."""
    if window.number > MAX_PAGE:
        return {"too_deep": True, "max_page": MAX_PAGE}
    if form.unknown:
        return {"result": fulltext.SearchPage(ids=[], total=0, capped=False), "rows": []}
    data = form.cleaned_data
    q = data["q"]
    base, narrowed_by = narrowed_papers(Paper.objects.visible(), data)
    result = fulltext.search(
        q,
        base,
        sort=sort,
        offset=window.offset,
        limit=window.size,
        facets=True,
        narrowed_by=narrowed_by,
    )
    last_page = min(paging.page_count(result.total, PER_PAGE), MAX_PAGE)
    return {
        "result": result,
        "rows": fulltext.result_rows(result),
        "has_previous": window.number > 1,
        "has_next": window.number < last_page,
        "last_page": last_page,
        "facets": result.facets,
        "empty_hint": (q.strip() and not result.total),
    }


@reads(*NAMED)
@require_safe
@vary_on_headers("HX-Request")
def search_names(request: HtmxHttpRequest, field: str) -> HttpResponse:
    """Names of tasks, methods or datasets containing what is typed in that search
    filter: a <datalist> for htmx, a page of links to the filtered search without it."""
    if field not in NAMED:
        raise Http404("No such filter")
    text = request.GET.get(field, "")[:NAME_MAX].replace("\x00", "")
    context = {
        "field": field,
        "label": f"{dict(NAMED_FILTERS)[field]}s",
        "text": text,
        "names": names_like(NAMED[field], text),
    }
    template = (
        "papers/search_names.html#options"
        if wants_fragment(request)
        else "papers/search_names.html"
    )
    return render(request, template, context)
