"""What the page views share: the request type htmx annotates, the 400 page, whether
an htmx request wants a fragment, form validation of a page's parameters, links to
the search, and the paged list of papers the record pages show."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django_htmx.middleware import HtmxDetails

from papers import querysets
from papers.forms import PaperPageForm, describe_errors


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "400.html", {"exception": message}, status=400)


def wants_fragment(request: HtmxHttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.history_restore_request


def search_url(**params) -> str:
    return f"{reverse('papers:search')}?{urlencode(params)}"


def valid(form_class, request: HttpRequest):
    form = form_class(request.GET)
    if not form.is_valid():
        return None, bad_request(request, f"Invalid parameter — {describe_errors(form)}")
    return form.cleaned_data, None


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
        "search_within": f"{reverse('papers:search')}?{urlencode(search)}" if search else "",
    }, None
