"""What is new: /latest (the newest papers, by arXiv category and with code), /greatest
(the papers with the most code links over a period), and /paper/<arXiv id>, the address
researchers paste, which leads to the paper.

No "trending": the site has no activity data (views, stars over time) to rank by; a
period's papers ranked by their code links is what it knows.
"""

from __future__ import annotations

import datetime as dt

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from codewithpapers.middleware import reads
from papers.forms import CategoryField, PaperPageForm
from papers.models import NEWEST_FIRST, Paper
from papers.paging import page_of
from papers.views.common import bad_request, describe_errors

PERIODS = {"week": 7, "month": 31, "year": 366, "all": None}


class NewPapersForm(PaperPageForm):
    category = CategoryField()
    has_code = forms.TypedChoiceField(
        required=False, coerce=lambda v: v == "1", choices=[("1", "1"), ("0", "0")],
        empty_value=False,
    )  # fmt: skip


class GreatestForm(PaperPageForm):
    category = CategoryField()
    period = forms.ChoiceField(required=False, choices=[(p, p) for p in PERIODS])


def _form(request: HttpRequest, form_class):
    form = form_class(request.GET)
    if not form.is_valid():
        return None, bad_request(request, f"Invalid parameter — {describe_errors(form)}")
    return form.cleaned_data, None


@reads(NewPapersForm)
@require_safe
def latest(request: HttpRequest) -> HttpResponse:
    data, error = _form(request, NewPapersForm)
    if error:
        return error
    papers = Paper.objects.latest()
    if data["category"]:
        papers = papers.in_category(data["category"])
    if data["has_code"]:
        papers = papers.with_code(walked=True)
    page = page_of(papers.with_authors(), data["page"] or 1, data["per_page"] or 20)
    return render(
        request,
        "papers/latest.html",
        {
            "papers_page": page,
            "papers": page.items,
            "category": data["category"],
            "has_code": data["has_code"],
        },
    )


@reads(GreatestForm)
@require_safe
def greatest(request: HttpRequest) -> HttpResponse:
    data, error = _form(request, GreatestForm)
    if error:
        return error
    period = data["period"] or "month"
    papers = Paper.objects.latest().with_code()
    days = PERIODS[period]
    if days is not None:
        papers = papers.filter(published__gte=dt.date.today() - dt.timedelta(days=days))
    if data["category"]:
        papers = papers.in_category(data["category"])
    papers = papers.order_by("-code_link_count", *NEWEST_FIRST).with_authors()
    page = page_of(papers, data["page"] or 1, data["per_page"] or 20)
    return render(
        request,
        "papers/greatest.html",
        {
            "papers_page": page,
            "papers": page.items,
            "category": data["category"],
            "period": period,
            "periods": list(PERIODS),
        },
    )


@require_safe
def paper_by_arxiv(request: HttpRequest, arxiv: str, version: str = "") -> HttpResponse:
    """/paper/hep-th/9504118v2 (an old-style id, which holds a slash): the paper."""
    paper = Paper.objects.named_by(arxiv)
    if paper is None:
        raise Http404("No paper has this arXiv id")
    return redirect(paper, permanent=False)
