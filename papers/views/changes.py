"""/changes: every change to the archive since its snapshot, newest first: revisions
(who, when, through what, the field-level diff) and the proposals that wait or were
refused, filtered by kind of record, by user and by status, a page at a time (the
list and its keyset paging: papers.changes). The filters swap the list in place with
htmx and work as a plain form without JavaScript."""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from codewithpapers.middleware import reads
from papers import changes
from papers.forms import describe_errors
from papers.views.common import HtmxHttpRequest, wants_fragment
from papers.views.history import with_diff_rows

# Ids are BigAutoField: anything past it names no row.
MAX_ID = 2**63 - 1


class ChangesForm(forms.Form):
    kind = forms.ChoiceField(
        required=False,
        choices=[("", "every kind"), *((k, v.label) for k, v in changes.KINDS.items())],
    )
    user = forms.CharField(required=False, max_length=150, strip=True)
    status = forms.ChoiceField(
        required=False, choices=[("", "every status"), *changes.STATUSES.items()]
    )
    revisions_before = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    proposals_before = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID)


def _notices(form: ChangesForm) -> list[str]:
    """What a reader is told about the parameters the list cannot take."""
    notices = []
    for name in ("kind", "status"):
        if name in form.errors:
            value = form.data.get(name, "")
            allowed = ", ".join(key for key, _ in form.fields[name].choices if key)
            notices.append(f"There is no {name} “{value[:60]}”: choose one of {allowed}.")
    rest = [name for name in form.errors if name not in ("kind", "status")]
    if rest:
        notices.append(f"Invalid parameter — {describe_errors(form)}")
    return notices


@reads(ChangesForm)
@require_safe
@vary_on_headers("HX-Request")
def changes_list(request: HtmxHttpRequest) -> HttpResponse:
    form = ChangesForm(request.GET)
    if form.is_valid():
        data, status = form.cleaned_data, 200
        page = changes.changes_page(
            kind=data["kind"],
            user_name=data["user"],
            status=data["status"],
            revisions_before=data["revisions_before"],
            proposals_before=data["proposals_before"],
        )
        _describe(page)
    else:
        data, status = {}, 400
        page = changes.ChangesPage([], False, notices=_notices(form))
    filters = {k: v for k, v in data.items() if v and not k.endswith("_before")}
    url = reverse("papers:changes")
    context = {
        "form": form,
        "page": page,
        "chosen": _chosen(filters),
        "newest": (
            url + (f"?{urlencode(filters)}" if filters else "")
            if data.get("revisions_before") or data.get("proposals_before")
            else ""
        ),
        "older": f"{url}?{_older(filters, page)}" if page.has_next else "",
    }
    template = "papers/changes.html#changes" if wants_fragment(request) else "papers/changes.html"
    return render(request, template, context, status=status)


def _describe(page: changes.ChangesPage) -> None:
    """What the template shows of each entry: a revision's diff rows; a proposal's call
    in words and the values it proposes."""
    from papers.api.writes.views import ANSWERS

    with_diff_rows(c.revision for c in page.changes if c.revision)
    for change in page.changes:
        if change.proposal is not None:
            operation = change.proposal.operation
            change.summary = ANSWERS.get(operation, (operation.replace("_", " "),))[0]
            body = change.proposal.body if isinstance(change.proposal.body, dict) else {}
            change.proposal.rows = sorted(body.items())


def _chosen(filters: dict) -> str:
    """The filters in words: "results by alice, pending proposals"."""
    if not filters:
        return ""
    words = changes.KINDS[filters["kind"]].label.lower() if filters.get("kind") else "changes"
    if filters.get("user"):
        words += f" by {filters['user']}"
    if filters.get("status"):
        words += f", {changes.STATUSES[filters['status']].lower()}"
    return words


def _older(filters: dict, page: changes.ChangesPage) -> str:
    """The query of the next page: the same filters, the cursors moved on."""
    query = dict(filters)
    if page.revisions_before is not None:
        query["revisions_before"] = page.revisions_before
    if page.proposals_before is not None:
        query["proposals_before"] = page.proposals_before
    return urlencode(query)
