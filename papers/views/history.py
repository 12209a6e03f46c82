"""/paper/<slug>/history, and the same for boards, tasks, datasets and methods: every
revision of the record (and of what is listed with it: a board's metrics and results, a
paper's code links), newest first, paged, each with who made it, through what, and its
field-level diff. Three queries: the record, the count, the page."""

from __future__ import annotations

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from papers.contributions.revisions import history
from papers.leaderboards.board import find_board
from papers.models import Dataset, Method, Paper, Task
from papers.paging import page_of
from papers.views.common import valid

PER_PAGE = 50
KINDS = {"paper": Paper, "task": Task, "dataset": Dataset, "method": Method}


class HistoryForm(forms.Form):
    page = forms.IntegerField(required=False, min_value=1, max_value=100_000)


def record_history(request: HttpRequest, kind: str, slug: str) -> HttpResponse:
    if kind == "sota":
        record, _ = find_board(slug)
        if record is None:
            raise Http404
    elif kind in KINDS:
        record = KINDS[kind].objects.filter(slug=slug).only("id", "slug").first()
        if record is None or (kind == "paper" and Paper.objects.filter(
            pk=record.pk, hidden=True).exists()):  # fmt: skip
            raise Http404
    else:
        raise Http404
    data, error = valid(HistoryForm, request)
    if error:
        return error
    page = page_of(history(record).order_by("-id"), data["page"] or 1, PER_PAGE)
    with_diff_rows(page.items)
    return render(
        request,
        "papers/history.html",
        {"record": record, "kind": kind, "page": page, "record_url": _url(record, kind)},
    )


def with_diff_rows(revisions) -> None:
    """Sets each revision's `rows`, its diff as templates/papers/_revision.html shows it:
    (field, before, after), by field name."""
    for revision in revisions:
        changes = revision.changes if isinstance(revision.changes, dict) else {}
        revision.rows = sorted(
            (name, *pair)
            for name, pair in changes.items()
            if isinstance(pair, list | tuple) and len(pair) == 2
        )


def _url(record, kind: str) -> str:
    if kind == "sota":
        return record.get_absolute_url()
    return KINDS[kind](slug=record.slug).get_absolute_url()
