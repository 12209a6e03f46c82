"""A paper's pages (/paper/<slug>, its samples alone, its record as JSON), an author's,
a repository's, and every sample (/samples)."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from functools import partial
from urllib.parse import urlencode

from django.db.models import Prefetch, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from codewithpapers.cache import by_version, conditional_on_version
from codewithpapers.middleware import reads
from papers import paging, querysets, sample_filters
from papers.api.http import conditional_json
from papers.archive.export.records import export_record, record_last_modified, record_paper
from papers.contributions import authors
from papers.forms import (
    MAX_PAGE,
    PaperPageForm,
    RepositorySampleForm,
    SampleFilterForm,
    SampleFilters,
    SampleListForm,
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
from papers.views.common import HtmxHttpRequest, bad_request, paper_list, wants_fragment
from papers.vocabularies import STATUS_CLAIM

# A new-style arXiv id, versioned or not, as /paper/<id> takes it.
ARXIV_ADDRESS = re.compile(r"^\d{4}\.\d{4,5}(?:v\d+)?$")


def _paper_row(slug: str) -> tuple[int, dt.datetime] | None:
    return Paper.objects.visible().filter(slug=slug).values_list("id", "updated_at").first()


@reads(SampleFilters)
@require_safe
@conditional_on_version(_paper_row)
def paper_detail(request: HttpRequest, slug: str) -> HttpResponse:
    if moved := Paper.objects.renamed_from(slug):
        return redirect(moved, permanent=True)
    if ARXIV_ADDRESS.match(slug):  # /paper/2006.12467v2: never a slug (slugs hold no dot)
        if found := Paper.objects.named_by(slug):
            return redirect(found)
        raise Http404("No paper has this arXiv id")
    paper = get_object_or_404(
        Paper.objects.visible()
        .select_related("contributed_by")
        .with_authors()
        .prefetch_related(
            Prefetch(
                "code_links",
                CodeLink.objects.select_related("repository", "contributed_by").order_by(
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
                LeaderboardRow.objects.select_related(
                    "leaderboard__task", "leaderboard__dataset", "verification"
                ),
            ),
        ),
        slug=slug,
    )
    context = _samples_context(paper, request.GET)
    if context is None:
        return bad_request(request, "Invalid sample filter")
    related = list(RelatedPaper.objects.section(paper))
    claim = authors.claim_of(request.user, paper.pk)  # one query, signed in only
    return render(
        request,
        "papers/paper.html",
        {
            "paper": paper,
            "related": related,
            "results": ranks.paper_results(list(paper.results.all())),
            "claim": claim,
            "may_vouch": authors.may_vouch(request.user, claim),
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
        "samples_fragment_url": reverse("papers:paper-samples", kwargs={"slug": paper.slug}),
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
        if wants_fragment(request)
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
    if wants_fragment(request):
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
        "samples_url": reverse("papers:samples"),
        "samples_fragment_url": reverse("papers:samples"),
        **_sample_page(base.filter(**chosen), page_number),
    }
    template = "papers/samples.html#samples" if wants_fragment(request) else "papers/samples.html"
    return render(request, template, context)
