"""Pages. Thin views: querying lives in querysets and papers.search, formatting in templates."""

import datetime as dt
import hashlib
from functools import partial
from urllib.parse import urlencode

from django.db import connections
from django.db.models import Prefetch, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from codewithpapers.cache import by_version, conditional_on_version
from codewithpapers.middleware import reads
from papers import paging, querysets, sample_filters
from papers import search as fulltext
from papers.api.http import conditional_json
from papers.archive.export.records import export_record, record_last_modified, record_paper
from papers.forms import (
    MAX_PAGE,
    NAME_MAX,
    PaperPageForm,
    RepositorySampleForm,
    SampleFilterForm,
    SampleFilters,
    SampleListForm,
    SearchForm,
    describe_errors,
)
from papers.leaderboards import ranks
from papers.models import (
    Author,
    CodeLink,
    LeaderboardRow,
    Paper,
    PaperAuthor,
    PaperTask,
    RelatedPaper,
    Repository,
    Sample,
)
from papers.querysets import NAMED, filter_papers, frameworks, names_like, paper_id_sets
from papers.search import index as search_index
from papers.vocabularies import (
    REPO_KIND_EXPLANATIONS,
    STATUS_CLAIM,
    STATUS_EXPLANATIONS,
    RepoKind,
    SampleStatus,
)

PAGE_LIST = 50  # the latest papers on the home page
PER_PAGE = 20
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
    "sort",
)
# The filters that name a task, a method or a dataset, with their labels.
NAMED_FILTERS = [("task", "Task"), ("method", "Method"), ("dataset", "Dataset")]


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "400.html", {"exception": message}, status=400)


def _wants_fragment(request: HtmxHttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.history_restore_request


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
    fragment = "papers/search.html#results-update" if _wants_fragment(request) else None
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
    page_number = data["page"] or 1
    window = paging.Window(page_number, PER_PAGE)
    context.update(
        q=q,
        sort=sort,
        page_number=page_number,
        result_start=window.offset + 1,
        too_deep=False,
        direct_hit=hit,
        unknown=form.unknown,
    )
    if page_number > MAX_PAGE:
        context["too_deep"] = True
        context["max_page"] = MAX_PAGE
        result = None
    elif form.unknown:  # a filter names nothing: no paper can match
        result = fulltext.SearchPage(ids=[], total=0, capped=False)
        context.update(result=result, rows=[])
    else:
        base = filter_papers(Paper.objects.visible(), data)
        result = fulltext.search(
            q,
            base,
            sort=sort,
            offset=window.offset,
            limit=window.size,
            facets=True,
            narrowed_by=paper_id_sets(data),
        )
        rows = fulltext.result_rows(result)
        pages = paging.page_count(result.total, PER_PAGE)
        context.update(
            result=result,
            rows=rows,
            has_previous=page_number > 1,
            has_next=page_number < min(pages, MAX_PAGE),
            last_page=min(pages, MAX_PAGE),
            facets=result.facets,
            empty_hint=(q.strip() and not result.total),
        )
    return render(request, fragment or "papers/search.html", context)


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
        if _wants_fragment(request)
        else "papers/search_names.html"
    )
    return render(request, template, context)


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


def _paper_row(slug: str) -> tuple[int, dt.datetime] | None:
    return Paper.objects.visible().filter(slug=slug).values_list("id", "updated_at").first()


@reads(SampleFilters)
@require_safe
@conditional_on_version(_paper_row)
def paper_detail(request: HttpRequest, slug: str) -> HttpResponse:
    if moved := Paper.objects.renamed_from(slug):
        return redirect(moved, permanent=True)
    paper = get_object_or_404(
        Paper.objects.visible()
        .with_authors()
        .prefetch_related(
            Prefetch(
                "code_links",
                CodeLink.objects.select_related("repository").order_by(
                    "-is_official", "position", "id"
                ),
            ),
            Prefetch("task_links", PaperTask.objects.select_related("task").order_by("position")),
            "methods",
            "datasets",
            "datasets_introduced",
            "methods_introduced",
            Prefetch(
                "results",
                LeaderboardRow.objects.select_related("leaderboard__task", "leaderboard__dataset"),
            ),
        ),
        slug=slug,
    )
    context = _samples_context(paper, request.GET)
    if context is None:
        return bad_request(request, "Invalid sample filter")
    related = list(RelatedPaper.objects.section(paper))
    return render(
        request,
        "papers/paper.html",
        {
            "paper": paper,
            "related": related,
            "results": ranks.paper_results(list(paper.results.all())),
            **context,
        },
    )


def _samples_context(paper: Paper, params) -> dict | None:
    """The paper's samples that the chosen filters keep, grouped by repository, with
    chips counting every value under the other filters; no query beyond the samples."""
    form = SampleFilterForm(params)
    if not form.is_valid():
        return None
    chosen = form.filters()
    samples = list(paper.samples.select_related("repository").order_by("position"))
    found = sample_filters.combinations_of(samples)
    shown = sample_filters.matching(samples, chosen)
    return {
        "sample_groups": sample_filters.by_repository(shown),
        "shown_count": len(shown),
        "sample_total": len(samples),
        "chips": sample_filters.chips(found, chosen),
        "chosen": chosen,
        "status_counts": sample_filters.status_counts(found),
        "samples_url": paper.get_absolute_url(),
        "samples_fragment_url": reverse("paper-samples", kwargs={"slug": paper.slug}),
    }


@reads(SampleFilters)
@require_safe
@vary_on_headers("HX-Request")
def paper_samples(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The paper's sample table, filtered: the fragment the paper page's chips swap in
    (they push the paper's own URL), and a page of its own without htmx."""
    paper = get_object_or_404(Paper.objects.visible(), slug=slug)
    context = _samples_context(paper, request.GET)
    if context is None:
        return bad_request(request, "Invalid sample filter")
    template = (
        "papers/paper_samples.html#sample-table"
        if _wants_fragment(request)
        else "papers/paper_samples.html"
    )
    return render(request, template, {"paper": paper, **context})


@reads()
@require_safe
def paper_json(request: HttpRequest, slug: str) -> HttpResponse:
    """The paper as a full paper record, the archive's own shape, with validators: a
    conditional GET of an unchanged record answers 304."""
    try:
        paper = record_paper(Paper.objects.visible(), slug)
    except Paper.DoesNotExist:
        # No paper `<slug>`: the address may be the page of a paper whose slug ends in
        # ".json" (its page is `/paper/<slug>.json/`).
        named = Paper.objects.visible().filter(slug=f"{slug}.json").first()
        if named is not None:
            return redirect(named, permanent=True)
        raise Http404("No such paper") from None
    return conditional_json(request, export_record(paper), record_last_modified(paper))


def paper_list(request: HttpRequest, papers, search: dict, total: int | None = None):
    """The context of a paged list of papers (`page`, `per_page`: 20 or 50) with its
    "search within these" link; or, for a bad parameter, (None, a 400 response)."""
    form = PaperPageForm(request.GET)
    if not form.is_valid():
        return None, bad_request(request, f"Invalid parameter — {describe_errors(form)}")
    data = form.cleaned_data
    page = querysets.paper_page(papers, data["page"] or 1, data["per_page"] or 20, total)
    return {
        "papers_page": page,
        "papers": page.items,
        "search_within": f"{reverse('search')}?{urlencode(search)}" if search else "",
    }, None


@reads(PaperPageForm)
@require_safe
def author_detail(request: HttpRequest, slug: str) -> HttpResponse:
    author = get_object_or_404(Author, slug=slug)
    papers = querysets.linked_papers(PaperAuthor.objects.filter(author=author), 0)
    context, error = paper_list(request, papers, {"author": author.slug})
    if error:
        return error
    return render(request, "papers/author.html", {"author": author, **context})


SAMPLES_PER_PAGE = 50


def _refuse_sample_list(request: HttpRequest, form: SampleFilterForm) -> HttpResponse | None:
    """The 400 for a sample list's bad filter or a page past the last, else None."""
    if not form.is_valid():
        return bad_request(request, f"Invalid sample filter — {describe_errors(form)}")
    if (form.cleaned_data[form.PAGE] or 1) > MAX_PAGE:
        return bad_request(request, f"{form.PAGE}: samples stop at page {MAX_PAGE}; add a filter")
    return None


def _sample_page(samples: QuerySet[Sample], page_number: int, param: str = "page") -> dict:
    """One page of a sample list, newest first, with its papers: one query. `param`:
    the query parameter its pager sets."""
    rows, more = paging.peek(
        samples.select_related("paper", "repository").order_by("-id"),
        paging.Window(page_number, SAMPLES_PER_PAGE),
    )
    return {
        "samples": rows,
        "page_number": page_number,
        "has_next": more and page_number < MAX_PAGE,
        "has_previous": page_number > 1,
        "page_param": param,
    }


@reads(RepositorySampleForm, PaperPageForm)
@require_safe
@vary_on_headers("HX-Request")
def repository_detail(request: HtmxHttpRequest, host: str, owner: str, name: str) -> HttpResponse:
    """The repository, its papers and its samples, filtered like /samples (the chips
    swap the list in place with htmx)."""
    repository = (
        Repository.objects.filter(host=host, owner=owner, name=name).order_by("id").first()
    )
    if repository is None:
        raise Http404("No such repository")
    form = RepositorySampleForm(request.GET)
    if (refusal := _refuse_sample_list(request, form)) is not None:
        return refusal
    chosen, page_number = form.filters(), form.cleaned_data[form.PAGE] or 1
    found = sample_filters.combinations(repository.samples.all())
    url = repository.get_absolute_url()
    context = {
        "repository": repository,
        "chips": sample_filters.chips(found, chosen),
        "chosen": chosen,
        "status_counts": sample_filters.status_counts(found),
        "status_claim": STATUS_CLAIM,
        "samples_url": url,
        "samples_fragment_url": url,
        **_sample_page(repository.samples.filter(**chosen), page_number, form.PAGE),
    }
    if _wants_fragment(request):
        return render(request, "papers/repository.html#samples", context)
    papers = querysets.linked_papers(CodeLink.objects.filter(repository=repository), 0)
    listed, error = paper_list(request, papers, {"repository": repository.url})
    if error:
        return error
    return render(request, "papers/repository.html", {**context, **listed})


def _digest(filters: dict[str, str]) -> str:
    return hashlib.md5(repr(sorted(filters.items())).encode(), usedforsecurity=False).hexdigest()


@reads(SampleListForm)
@require_safe
@vary_on_headers("HX-Request")
def samples(request: HtmxHttpRequest) -> HttpResponse:
    """Every sample in the archive (or one repository's), filtered, with counts for each
    filter value. The counts come from one scan of the list's combinations, kept per
    content version (the same for every filter chosen)."""
    form = SampleListForm(request.GET)
    if (refusal := _refuse_sample_list(request, form)) is not None:
        return refusal
    chosen, page_number = form.filters(), form.cleaned_data["page"] or 1
    base = Sample.objects.all()
    keep = {}
    if parts := form.repository_parts():
        base = base.filter(repository__in=Repository.objects.filter(**parts).values("id"))
        keep["repository"] = form.cleaned_data["repository"]
    found = by_version(
        f"sample-combinations.{_digest(keep)}", partial(sample_filters.combinations, base)
    )
    chips = sample_filters.chips(found, chosen, keep)
    context = {
        "chips": chips,
        # The status bar: the samples the other filters keep, by status.
        "status_counts": next(
            ({o["value"]: o["n"] for o in f["options"]} for f in chips if f["key"] == "status"),
            {},
        ),
        "chosen": chosen,
        "repository": keep.get("repository", ""),
        "without_repository": urlencode(chosen),
        "samples_url": reverse("samples"),
        "samples_fragment_url": reverse("samples"),
        **_sample_page(base.filter(**chosen), page_number),
    }
    template = "papers/samples.html#samples" if _wants_fragment(request) else "papers/samples.html"
    return render(request, template, context)
