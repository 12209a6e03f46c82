"""Contributing from the page you are on: the forms of a paper's page (add code, add a
result, suggest a correction), a leaderboard's (add a result) and a task's, dataset's or
method's (suggest an edit to the description, with a live preview).

Each form is a page of its own (/paper/<slug>/contribute/code, …) that the record's page
opens in place with htmx: a GET with HX-Request answers the form alone, a POST with it
answers the form with its errors or what became of the write. Without JavaScript the
same URL is a page, and a write redirects back to the record's page with a message.

A write is the write API's call made as the signed-in user (papers.contributions.site):
it goes live or becomes a proposal by the user's level, and the answer says which.
Visitors who are not signed in are sent to sign in first (the record's pages, cached
for them, only link here through the sign-in page).
"""

from __future__ import annotations

from functools import wraps

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ObjectDoesNotExist
from django.db import IntegrityError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from codewithpapers.middleware import client_address
from papers import markup
from papers.api.writes.operations import Conflict, Invalid
from papers.contributions.forms import (
    BoardResultForm,
    CodeForm,
    ContributionForm,
    CorrectionForm,
    DescriptionForm,
    PaperResultForm,
)
from papers.contributions.site import FieldErrors, Submitted, prepare, submit, wait_for
from papers.leaderboards.board import find_board
from papers.models import Dataset, Method, Paper, Task
from papers.views.common import HtmxHttpRequest, wants_fragment

PAPER_FORMS = {
    "code": (CodeForm, "Add code", "Add a code repository of"),
    "result": (PaperResultForm, "Add a result", "Add a result of"),
    "correction": (CorrectionForm, "Suggest a correction", "Suggest a correction to"),
}
DESCRIBED = {"task": Task, "dataset": Dataset, "method": Method}
TEMPLATE = "contribute/form.html"


def _said(done: Submitted, noun: str, held: bool) -> str:
    if done.live:
        return f"Your {noun} is live."
    why = " Text that is only links is held for a moderator." if held else ""
    return f"Recorded as proposal #{done.proposal.pk}; a moderator will review it.{why}"


def _write(
    request: HttpRequest, form: ContributionForm
) -> tuple[Submitted, str] | HttpResponse | None:
    """Make the form's call: what it did and what to tell the reader, a 429 answer, or
    None with the call's refusals added to the form's errors."""
    try:
        call = form.call()
    except forms.ValidationError as exc:
        form.add_error(None, exc)
        return None
    if refused := over_allowance(request):
        return refused
    try:
        data = prepare(call.operation, call.body)
        done = submit(
            request.user, call.operation, call.target, data, call.comment, held=call.held
        )
    except FieldErrors as exc:
        for name, errors in exc.errors.items():
            shown = form.form_field(name)
            for error in errors:
                form.add_error(shown, error if shown else f"{name}: {error}")
        return None
    except Invalid as exc:
        shown = form.form_field(exc.field)
        form.add_error(shown, exc.message if shown else f"{exc.field}: {exc.message}")
        return None
    except Conflict as exc:
        form.add_error(None, f"This is already recorded: {exc}.")
        return None
    except (Http404, ObjectDoesNotExist):
        form.add_error(None, "What this changes no longer exists.")
        return None
    except IntegrityError:
        form.add_error(None, "This clashes with a record that exists.")
        return None
    return done, _said(done, call.noun, call.held)


def over_allowance(request: HttpRequest) -> HttpResponse | None:
    """Count one site write of the signed-in reader and their address: None when it may
    go ahead, else the 429 (a page, or the fragment htmx asked for) with Retry-After."""
    wait = wait_for(request.user, client_address("site-writes", request))
    if not wait:
        return None
    template = "contribute/too_many.html"
    if wants_fragment(request):
        template += "#notice"
    response = render(request, template, {"retry_after": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response


def _handle(request: HtmxHttpRequest, form: ContributionForm, context: dict) -> HttpResponse:
    """The form's page or fragment, its errors, or what became of its write."""
    back = context["back_url"]
    if request.method == "POST" and "preview" not in request.POST and form.is_valid():
        written = _write(request, form)
        if isinstance(written, HttpResponse):
            return written
        if written is not None:
            done, said = written
            if not wants_fragment(request):
                tag = "contribution live" if done.live else "contribution proposal"
                messages.success(request, said, extra_tags=tag)
                return redirect(back)
            return render(request, "contribute/done.html", {**context, "done": done, "said": said})
    if isinstance(form, DescriptionForm) and form.is_bound:
        text = form.data.get("description", "")
        context["preview"] = markup.render_description(text[:20_000], contributed=True).html
    status = 400 if request.method == "POST" and form.errors else 200
    template = f"{TEMPLATE}#form" if wants_fragment(request) else TEMPLATE
    return render(request, template, {**context, "form": form}, status=status)


def _signed_in_only(view):
    """Visitors who are not signed in are sent to sign in, and back here after."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return view(request, *args, **kwargs)

    return wrapped


@never_cache
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "HEAD", "POST"])
@_signed_in_only
def paper_form(request: HtmxHttpRequest, slug: str, kind: str) -> HttpResponse:
    """Add code, add a result or suggest a correction to a paper."""
    if kind not in PAPER_FORMS:
        raise Http404("No such form")
    form_class, title, heading = PAPER_FORMS[kind]
    paper = get_object_or_404(
        Paper.objects.visible().prefetch_related("task_links__task", "methods", "datasets"),
        slug=slug,
    )
    data = request.POST if request.method == "POST" else None
    initial = CorrectionForm.initial_for(paper) if kind == "correction" else None
    if kind == "result" and (task_link := next(iter(paper.task_links.all()), None)):
        initial = {"task": task_link.task.name}
    form = form_class(data, record=paper, initial=initial)
    context = {
        "title": title,
        "heading": heading,
        "record_name": paper.title or paper.slug,
        "back_url": paper.get_absolute_url(),
        "action": reverse("papers:contribute-paper", kwargs={"slug": slug, "kind": kind}),
        "region": f"contribute-{kind}",
    }
    if kind == "result":
        context["suggest"] = _result_suggestions(paper)
    return _handle(request, form, context)


def _result_suggestions(paper: Paper) -> dict:
    """The datalists of the result form: the paper's tasks, and the datasets of their
    boards."""
    tasks = [link.task for link in paper.task_links.all()]
    datasets = (
        Dataset.objects.filter(leaderboards__task__in=tasks).distinct().order_by("name")[:200]
    )
    return {"tasks": [t.name for t in tasks], "datasets": [d.name for d in datasets]}


@never_cache
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "HEAD", "POST"])
@_signed_in_only
def board_form(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Add a result to a leaderboard."""
    board, canonical = find_board(slug)
    if board is None or not canonical:
        raise Http404("No such leaderboard")
    data = request.POST if request.method == "POST" else None
    form = BoardResultForm(data, record=board)
    context = {
        "title": "Add a result",
        "heading": "Add a result to",
        "record_name": f"{board.task.name} on {board.dataset.name}",
        "back_url": board.get_absolute_url(),
        "action": reverse("papers:contribute-board", kwargs={"slug": slug}),
        "region": "contribute-result",
    }
    return _handle(request, form, context)


@never_cache
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "HEAD", "POST"])
@_signed_in_only
def description_form(request: HtmxHttpRequest, kind: str, slug: str) -> HttpResponse:
    """Suggest an edit to a task's, dataset's or method's description."""
    model = DESCRIBED.get(kind)
    if model is None:
        raise Http404("No such form")
    record = get_object_or_404(model.objects.filter(hidden=False), slug=slug)
    data = request.POST if request.method == "POST" else None
    form = DescriptionForm(
        data, record=record, kind=kind, initial={"description": record.description}
    )
    form.fields["description"].widget.attrs.update(
        {
            "hx-post": reverse("papers:contribute-preview"),
            "hx-trigger": "input changed delay:500ms",
            "hx-target": "#contribute-description-preview",
            "hx-swap": "innerHTML",
            "hx-sync": "this:replace",
        }
    )
    context = {
        "title": "Suggest an edit",
        "heading": f"Suggest an edit to the description of the {kind}",
        "record_name": record.name,
        "back_url": record.get_absolute_url(),
        "action": reverse("papers:contribute-description", kwargs={"kind": kind, "slug": slug}),
        "region": "contribute-description",
        "preview_url": reverse("papers:contribute-preview"),
    }
    return _handle(request, form, context)


@never_cache
@require_POST
@_signed_in_only
def preview(request: HttpRequest) -> HttpResponse:
    """A description as its page would show it: the same renderer and sanitiser."""
    text = request.POST.get("description", "")[:20_000]
    html = markup.render_description(text, contributed=True).html
    return render(request, "contribute/preview.html", {"preview": html})
