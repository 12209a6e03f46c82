"""Pages. Thin views: querying lives in querysets and papers.search, formatting in templates."""

import datetime as dt
import hashlib
import re
from collections import Counter
from functools import partial
from urllib.parse import urlencode

from django.db import connections
from django.db.models import Count, Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import condition, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from codewithpapers.cache import by_version, content_version, version_time
from codewithpapers.middleware import reads
from papers import search as fulltext
from papers.api.http import conditional_json
from papers.archive.normalise import RecordError, arxiv_id
from papers.archive.records import export_record, record_last_modified, record_paper
from papers.forms import MAX_PAGE, SampleFilterForm, SearchForm, describe_errors
from papers.models import (
    Author,
    CodeLink,
    Dataset,
    LeaderboardRow,
    Method,
    Paper,
    PaperAuthor,
    PaperTask,
    RelatedPaper,
    Repository,
    Sample,
    Task,
    ranked_rows,
)
from papers.querysets import filter_papers, paper_id_sets
from papers.search import index as search_index
from papers.vocabularies import STATUS_EXPLANATIONS, RepoKind, SampleStatus

PAGE_LIST = 50  # papers listed on an author/task/method/dataset/repository page
PER_PAGE = 20
SORT_CHOICES = [
    ("relevance", "Relevance"),
    ("newest", "Newest"),
    ("implementations", "Most implementations"),
]
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


@reads(*SearchForm.base_fields, headers=("HX-Trigger",))
@require_safe
@vary_on_headers("HX-Request")
def search(request: HtmxHttpRequest) -> HttpResponse:
    form = SearchForm(request.GET)
    if not form.is_valid():
        return bad_request(request, f"Invalid search parameter — {describe_errors(form)}")
    data = form.cleaned_data
    q = data["q"]
    submitted = not request.htmx or request.htmx.trigger == "search-form"
    if q and submitted and (hit := _direct_hit(q)) is not None:
        if request.htmx:
            return HttpResponseClientRedirect(hit.get_absolute_url())
        return redirect(hit)
    sort = data["sort"] or ("relevance" if q.strip() else "newest")
    page_number = data["page"] or 1
    context = {
        "form": form,
        "q": q,
        "sort": sort,
        "sort_choices": SORT_CHOICES,
        "page_number": page_number,
        "result_start": (page_number - 1) * PER_PAGE + 1,
        "too_deep": False,
    }
    if page_number > MAX_PAGE:
        context["too_deep"] = True
        context["max_page"] = MAX_PAGE
        result = None
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
    template = "papers/search.html#results" if _wants_fragment(request) else "papers/search.html"
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
            "repo_kinds": list(RepoKind),
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


@reads(*SampleFilterForm.FILTERS)
@require_safe
@condition(etag_func=_paper_etag, last_modified_func=_paper_last_modified)
def paper_detail(request: HttpRequest, slug: str) -> HttpResponse:
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
    return render(request, "papers/paper.html", {"paper": paper, "related": related, **context})


SAMPLE_FACETS = [
    ("status", "Status"),
    ("contract_check", "Contract check"),
    ("language", "Language"),
    ("repo_kind", "Repository kind"),
]


def _chip_options(key: str, counts, chosen: dict[str, str]) -> list[dict]:
    """Filter chips for one field: each value with its count, whether it is chosen, and
    the query string that toggles it (keeping the other filters)."""
    options = []
    for value, n in counts:
        query = {**chosen, key: value}
        if chosen.get(key) == value:
            query.pop(key)
        options.append(
            {"value": value, "n": n, "active": chosen.get(key) == value, "query": urlencode(query)}
        )
    return options


def _samples_context(paper: Paper, params) -> dict | None:
    """The paper's samples, the chosen filters, and chips counting every value."""
    form = SampleFilterForm(params)
    if not form.is_valid():
        return None
    chosen = form.filters()
    samples = list(paper.samples.select_related("repository").order_by("position"))
    shown = [s for s in samples if all((getattr(s, k) or "") == v for k, v in chosen.items())]
    chips = []
    for key, label in SAMPLE_FACETS:
        counts = Counter(getattr(s, key) or "" for s in samples)
        counts.pop("", None)
        if counts:
            options = _chip_options(key, counts.most_common(), chosen)
            chips.append({"key": key, "label": label, "options": options})
    return {
        "samples": shown,
        "sample_total": len(samples),
        "chips": chips,
        "chosen": chosen,
        "status_counts": dict(Counter(s.status for s in samples).most_common()),
    }


@reads(*SampleFilterForm.FILTERS)
@require_safe
@vary_on_headers("HX-Request")
def paper_samples(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The paper's sample table, filtered: a fragment for htmx, a page without it."""
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


@reads()
@require_safe
def author_detail(request: HttpRequest, slug: str) -> HttpResponse:
    author = get_object_or_404(Author, slug=slug)
    papers = _paper_list(
        Paper.objects.filter(authorships__author=author).order_by("-published", "id")
    )
    return render(request, "papers/author.html", {"author": author, "papers": papers})


@reads()
@require_safe
def repository_detail(request: HttpRequest, host: str, owner: str, name: str) -> HttpResponse:
    repository = (
        Repository.objects.filter(host=host, owner=owner, name=name).order_by("id").first()
    )
    if repository is None:
        return render(request, "404.html", status=404)
    papers = _paper_list(
        Paper.objects.filter(code_links__repository=repository).order_by("-published", "id")
    )
    return render(
        request,
        "papers/repository.html",
        {
            "repository": repository,
            "papers": papers,
            "status_counts": repository.samples.status_counts(),
        },
    )


def _boards(leaderboards) -> list[dict]:
    """Leaderboards with their metric columns and ranked rows, in three queries."""
    boards = leaderboards.select_related("task", "dataset").prefetch_related(
        "metrics", Prefetch("rows", LeaderboardRow.objects.select_related("paper"))
    )
    out = []
    for board in boards:
        metrics = list(board.metrics.all())
        rows = ranked_rows(metrics, list(board.rows.all()))
        out.append({"board": board, "metrics": metrics, "rows": rows})
    return out


@reads()
@require_safe
def task_detail(request: HttpRequest, slug: str) -> HttpResponse:
    task = get_object_or_404(Task.objects.prefetch_related("parents", "subtasks"), slug=slug)
    papers = _paper_list(Paper.objects.filter(task_links__task=task).order_by("-published", "id"))
    return render(
        request,
        "papers/task.html",
        {"task": task, "papers": papers, "boards": _boards(task.leaderboards.all())},
    )


@reads()
@require_safe
def method_detail(request: HttpRequest, slug: str) -> HttpResponse:
    method = get_object_or_404(
        Method.objects.select_related("introduced_by").prefetch_related("collections"), slug=slug
    )
    papers = _paper_list(
        Paper.objects.filter(method_links__method=method).order_by("-published", "id")
    )
    return render(request, "papers/method.html", {"method": method, "papers": papers})


@reads()
@require_safe
def dataset_detail(request: HttpRequest, slug: str) -> HttpResponse:
    dataset = get_object_or_404(
        Dataset.objects.select_related("introduced_by").prefetch_related("tasks"), slug=slug
    )
    papers = _paper_list(
        Paper.objects.filter(dataset_links__dataset=dataset).order_by("-published", "id")
    )
    return render(
        request,
        "papers/dataset.html",
        {"dataset": dataset, "papers": papers, "boards": _boards(dataset.leaderboards.all())},
    )


SAMPLES_PER_PAGE = 50


def _digest(filters: dict[str, str]) -> str:
    return hashlib.md5(repr(sorted(filters.items())).encode(), usedforsecurity=False).hexdigest()


def _sample_facet(key: str, others: dict[str, str]) -> list[tuple[str, int]]:
    """(value, number of samples) of one sample field under the other filters; a scan
    of every sample when no other filter is chosen, so kept per content version."""
    return list(
        Sample.objects.filter(**others)
        .exclude(**{f"{key}__isnull": True})
        .exclude(**{key: ""})
        .values_list(key)
        .annotate(n=Count("id"))
        .order_by("-n", key)
    )


@reads(*SampleFilterForm.base_fields)
@require_safe
@vary_on_headers("HX-Request")
def samples(request: HtmxHttpRequest) -> HttpResponse:
    """Every sample in the archive, filtered, with counts for each filter value."""
    form = SampleFilterForm(request.GET)
    if not form.is_valid():
        return bad_request(request, f"Invalid sample filter — {describe_errors(form)}")
    data = form.cleaned_data
    chosen = form.filters()
    page_number = data["page"] or 1
    if page_number > MAX_PAGE:
        return bad_request(request, f"page: results stop at page {MAX_PAGE}; add a filter")
    selected = Sample.objects.filter(**chosen)
    facets = []
    for key, label in SAMPLE_FACETS:
        others = {k: v for k, v in chosen.items() if k != key}
        counts = by_version(
            f"sample-facet.{key}.{_digest(others)}", partial(_sample_facet, key, others)
        )
        options = _chip_options(key, counts, chosen)
        facets.append({"key": key, "label": label, "options": options})
    offset = (page_number - 1) * SAMPLES_PER_PAGE
    rows = list(
        selected.select_related("paper").order_by("-id")[offset : offset + SAMPLES_PER_PAGE + 1]
    )
    context = {
        "samples": rows[:SAMPLES_PER_PAGE],
        "facets": facets,
        "chosen": chosen,
        "page_number": page_number,
        "has_next": len(rows) > SAMPLES_PER_PAGE and page_number < MAX_PAGE,
        "has_previous": page_number > 1,
    }
    template = (
        "papers/samples.html#sample-list" if _wants_fragment(request) else "papers/samples.html"
    )
    return render(request, template, context)
