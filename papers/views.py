"""Pages. Thin views: querying lives in querysets and papers.search, formatting in templates."""

import datetime as dt
import hashlib
import re
from functools import partial
from urllib.parse import urlencode

from django.db import connections
from django.db.models import Count, Prefetch, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import condition, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from codewithpapers.cache import by_version, content_version, version_time
from codewithpapers.middleware import reads
from papers import catalogue, sample_filters
from papers import search as fulltext
from papers.api.http import conditional_json
from papers.archive.normalise import RecordError, arxiv_id, arxiv_of_slug
from papers.archive.records import export_record, record_last_modified, record_paper
from papers.forms import (
    MAX_PAGE,
    NAME_MAX,
    PaperPageForm,
    RepositorySampleForm,
    SampleFilterForm,
    SampleListForm,
    SearchForm,
    describe_errors,
)
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
SORT_CHOICES = [
    ("relevance", "Relevance"),
    ("newest", "Newest"),
    ("implementations", "Most implementations"),
]
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
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{2,254}$")


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "400.html", {"exception": message}, status=400)


def _wants_fragment(request: HtmxHttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.history_restore_request


def _direct_hit(q: str) -> Paper | None:
    """The paper an arXiv id (2006.12467, arXiv:2006.12467v3) or a slug names."""
    text = q.strip()
    try:
        arxiv = arxiv_id(text) if text and " " not in text else ""
    except RecordError:
        arxiv = ""
    if arxiv:
        return Paper.objects.visible().filter(arxiv_id=arxiv).order_by("id").first()
    if _SLUG.match(text) and "-" in text:
        return Paper.objects.visible().filter(slug=text).first()
    return None


def _with_list_details(papers):
    return papers.prefetch_related(
        Prefetch("authorships", PaperAuthor.objects.select_related("author").order_by("position"))
    )


def _without_empty(params) -> str | None:
    """The query string without its empty parameters, or None when none is empty. A form
    submitted without JavaScript sends every field (`?q=graph&task=&method=&…`)."""
    kept = [(key, value) for key, values in params.lists() for value in values if value != ""]
    if len(kept) == sum(len(values) for _, values in params.lists()):
        return None
    return urlencode(kept)


@reads(*SearchForm.base_fields, headers=("HX-Trigger",))
@require_safe
@vary_on_headers("HX-Request")
def search(request: HtmxHttpRequest) -> HttpResponse:
    if not request.htmx and (cleaned := _without_empty(request.GET)) is not None:
        return redirect(f"{request.path}?{cleaned}" if cleaned else request.path)
    form = SearchForm(request.GET, frameworks=by_version("frameworks", frameworks))
    fragment = "papers/search.html#results-update" if _wants_fragment(request) else None
    context = {
        "form": form,
        "sort_choices": SORT_CHOICES,
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
    hit = _direct_hit(q) if q else None
    if hit is not None and submitted:
        if request.htmx:
            return HttpResponseClientRedirect(hit.get_absolute_url())
        return redirect(hit)
    sort = data["sort"] or ("relevance" if q.strip() else "newest")
    page_number = data["page"] or 1
    context.update(
        q=q,
        sort=sort,
        page_number=page_number,
        result_start=(page_number - 1) * PER_PAGE + 1,
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
            offset=(page_number - 1) * PER_PAGE,
            limit=PER_PAGE,
            facets=True,
            narrowed_by=paper_id_sets(data),
        )
        papers = {p.id: p for p in _with_list_details(Paper.objects.filter(id__in=result.ids))}
        sample_counts = _status_counts_by_paper(result.ids)
        rows = []
        for pk in result.ids:
            paper = papers[pk]
            title, snippet = result.highlights.get(pk, (None, None))
            rows.append(
                {
                    "paper": paper,
                    "title": title,
                    "snippet": snippet,
                    "statuses": sample_counts.get(pk, {}),
                }
            )
        pages = -(-result.total // PER_PAGE)
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


def _status_counts_by_paper(ids: list[int]) -> dict[int, dict[str, int]]:
    counts: dict[int, dict[str, int]] = {}
    rows = (
        Sample.objects.filter(paper_id__in=ids)
        .values_list("paper_id", "status")
        .annotate(n=Count("id"))
        .order_by("paper_id", "-n", "status")
    )
    for paper_id, status, n in rows:
        counts.setdefault(paper_id, {})[status] = n
    return counts


def _paper_list(queryset):
    """Papers for a list, with their first authors, in a constant number of queries."""
    return queryset.visible().prefetch_related(
        Prefetch("authorships", PaperAuthor.objects.select_related("author").order_by("position"))
    )[:PAGE_LIST]


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


def _paper_validators(request: HttpRequest, slug: str) -> tuple[str, dt.datetime] | None:
    """(ETag, Last-Modified) for a paper page, from one indexed lookup, before rendering.

    The page shows rows of other tables too (code links, repositories, tasks…), so its
    own updated_at is not enough: the content version, bumped by every import and admin
    edit, is part of the ETag and bounds Last-Modified from below. The query string
    (sample filters), the host (canonical URL) and staff status (the admin link) change
    the page, so they are in the ETag as well. None when the cache cannot give a version:
    then no conditional answer is risked."""
    if not hasattr(request, "_paper_validators"):
        request._paper_validators = None
        version = content_version()
        row = Paper.objects.visible().filter(slug=slug).values_list("id", "updated_at").first()
        if version is not None and row is not None:
            pk, updated_at = row
            staff = bool(getattr(request, "user", None) and request.user.is_staff)
            key = f"{pk}|{updated_at.isoformat()}|{version}|{request.get_full_path()}|"
            key += f"{request.get_host()}|{staff}"
            etag = 'W/"' + hashlib.sha256(key.encode()).hexdigest()[:32] + '"'
            request._paper_validators = (etag, max(updated_at, version_time(version)))
    return request._paper_validators


def _paper_etag(request: HttpRequest, slug: str) -> str | None:
    validators = _paper_validators(request, slug)
    return validators[0] if validators else None


def _paper_last_modified(request: HttpRequest, slug: str) -> dt.datetime | None:
    validators = _paper_validators(request, slug)
    return validators[1] if validators else None


def _keyed_by_arxiv(slug: str) -> Paper | None:
    """A paper first known by its arXiv id only ("arxiv-2006.12467") takes its Papers
    with Code slug once a record gives one: the old address leads to it."""
    arxiv = arxiv_of_slug(slug)
    if not arxiv or Paper.objects.filter(slug=slug).exists():
        return None
    return Paper.objects.visible().filter(arxiv_id=arxiv).order_by("id").first()


@reads(*SampleFilterForm.FILTERS)
@require_safe
@condition(etag_func=_paper_etag, last_modified_func=_paper_last_modified)
def paper_detail(request: HttpRequest, slug: str) -> HttpResponse:
    if moved := _keyed_by_arxiv(slug):
        return redirect(moved, permanent=True)
    paper = get_object_or_404(
        Paper.objects.visible().prefetch_related(
            Prefetch(
                "authorships", PaperAuthor.objects.select_related("author").order_by("position")
            ),
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
            "results": catalogue.paper_results(list(paper.results.all())),
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


@reads(*SampleFilterForm.FILTERS)
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
    """The paper as a record in the archive's own shape (seed 000), with validators: a
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
    page = catalogue.paper_page(papers, data["page"] or 1, data["per_page"] or 20, total)
    return {
        "papers_page": page,
        "papers": page.items,
        "search_within": f"{reverse('search')}?{urlencode(search)}" if search else "",
    }, None


@reads(*PaperPageForm.base_fields)
@require_safe
def author_detail(request: HttpRequest, slug: str) -> HttpResponse:
    author = get_object_or_404(Author, slug=slug)
    papers = catalogue.linked_papers(PaperAuthor.objects.filter(author=author), 0)
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
    offset = (page_number - 1) * SAMPLES_PER_PAGE
    rows = list(
        samples.select_related("paper", "repository").order_by("-id")[
            offset : offset + SAMPLES_PER_PAGE + 1
        ]
    )
    return {
        "samples": rows[:SAMPLES_PER_PAGE],
        "page_number": page_number,
        "has_next": len(rows) > SAMPLES_PER_PAGE and page_number < MAX_PAGE,
        "has_previous": page_number > 1,
        "page_param": param,
    }


@reads(*RepositorySampleForm.base_fields, *PaperPageForm.base_fields)
@require_safe
@vary_on_headers("HX-Request")
def repository_detail(request: HtmxHttpRequest, host: str, owner: str, name: str) -> HttpResponse:
    """The repository, its papers and its samples, filtered like /samples (the chips
    swap the list in place with htmx)."""
    repository = (
        Repository.objects.filter(host=host, owner=owner, name=name).order_by("id").first()
    )
    if repository is None:
        return render(request, "404.html", status=404)
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
    papers = catalogue.linked_papers(CodeLink.objects.filter(repository=repository), 0)
    listed, error = paper_list(request, papers, {"repository": repository.url})
    if error:
        return error
    return render(request, "papers/repository.html", {**context, **listed})


def _digest(filters: dict[str, str]) -> str:
    return hashlib.md5(repr(sorted(filters.items())).encode(), usedforsecurity=False).hexdigest()


@reads(*SampleListForm.base_fields)
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
