"""A signed-in user's own page: their level, their API tokens (made, named and revoked
here; a key is shown once), what they contributed and what became of it, and the papers
they claim. django-allauth serves the rest of /accounts/ (sign-up, sign-in, email,
password)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from codewithpapers.middleware import client_address
from papers.contributions import tokens
from papers.contributions.site import email_verified, site_level, wait_for
from papers.models import ApiToken, AuthorClaim, Level, Proposal, Revision
from papers.models.contributions import Status

SHOWN = 50  # the newest contributions and revisions listed; the totals say how many more
MAX_TOKENS = 20  # live tokens one user may hold


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        required=True,
        help_text="What it is for (a script, a machine), so you can tell your tokens apart.",
    )


def _level_reason(user, level: str) -> str:
    if level == Level.STAFF:
        return "Staff: your writes go live."
    if level == Level.TRUSTED:
        return "Trusted contributor: your writes go live."
    if not email_verified(user):
        return "Your writes are proposals until your email address is verified."
    return "Contributor: a moderator reviews your writes before they go live."


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = TokenForm(request.POST or None)
    new_key = None
    if request.method == "POST":
        live = ApiToken.objects.filter(user=user, revoked_at__isnull=True).count()
        if wait := wait_for(user, client_address("site-writes", request)):
            form.add_error(None, f"Too many writes this hour: try again in {wait} s.")
        elif live >= MAX_TOKENS:
            form.add_error(None, f"You hold {MAX_TOKENS} live tokens: revoke one first.")
        elif form.is_valid():
            level = site_level(user)
            _token, new_key = tokens.issue(user, level=level, name=form.cleaned_data["name"])
            form = TokenForm()
    level = site_level(user)
    proposals = Proposal.objects.filter(user=user).order_by("-id")
    counts = proposals.aggregate(
        total=Count("id"),
        pending=Count("id", filter=Q(status=Status.PENDING)),
        approved=Count("id", filter=Q(status=Status.APPROVED)),
        rejected=Count("id", filter=Q(status=Status.REJECTED)),
    )
    revisions = Revision.objects.filter(user=user, proposal__isnull=True).order_by("-id")
    context = {
        "level": level,
        "level_reason": _level_reason(user, level),
        "tokens": list(ApiToken.objects.filter(user=user).order_by("-id")),
        "form": form,
        "new_key": new_key,
        "proposals": list(proposals[:SHOWN]),
        "proposal_counts": counts,
        "revisions": list(revisions.select_related("content_type")[:SHOWN]),
        "claims": list(
            AuthorClaim.objects.filter(user=user).select_related("paper").order_by("-id")
        ),
    }
    response = render(request, "accounts/profile.html", context, status=200)
    response["Cache-Control"] = "private, no-store"  # a new key is on it
    return response


@login_required
@require_POST
def revoke_token(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    if token.revoked_at is None:
        ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
        messages.success(request, f"Token “{token.name or token.prefix}” revoked.")
    return redirect("accounts-profile")
