"""Authors on the site: claiming a paper (/paper/<slug>/claim), an approved author's
verdict on a result of it (/paper/<slug>/results/<row>/verdict), and the badge a paper's
README shows (/sota/<board>/badge.svg?paper=<slug>).

The forms open in place with htmx (the fragment of the same URL) and are plain pages
without JavaScript. Writes are POSTs under CSRF, counted against the user's and the
address's hourly allowance (papers.contributions.site.wait_for).
"""

from __future__ import annotations

from django import forms
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import get_conditional_response, patch_cache_control, set_response_etag
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers

from codewithpapers.middleware import reads
from papers.contributions import authors
from papers.leaderboards.badge import badge_svg, find_badge, missing_svg
from papers.models import AuthorClaim, LeaderboardRow, Paper
from papers.models.accounts import Verdict
from papers.views.common import HtmxHttpRequest, wants_fragment
from papers.views.contribute import over_allowance

# --- claims -------------------------------------------------------------------------------


class ClaimForm(forms.ModelForm):
    note = forms.CharField(
        required=False,
        max_length=2000,
        label="Anything else a moderator should know",
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    class Meta:
        model = AuthorClaim
        fields = ["evidence_email", "evidence_url", "note"]
        labels = {
            "evidence_email": "Your address at the authors' institution",
            "evidence_url": "A homepage or profile that names the paper",
        }
        help_texts = {"evidence_email": "", "evidence_url": ""}

    def clean_evidence_url(self) -> str:
        url = self.cleaned_data.get("evidence_url") or ""
        if url and not url.lower().startswith(("http://", "https://")):
            raise forms.ValidationError("Give an http:// or https:// address.")
        return url

    def clean(self):
        cleaned = super().clean()
        if not self.errors and not (cleaned.get("evidence_email") or cleaned.get("evidence_url")):
            message = "Give an institutional address or a homepage: at least one is needed."
            self.add_error("evidence_email", message)
        return cleaned


def _paper(slug: str) -> Paper:
    return get_object_or_404(Paper.objects.visible().only("id", "slug", "title"), slug=slug)


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def claim(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """ "I am an author": the claim form, or the claim made and its status."""
    paper = _paper(slug)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    made = authors.claim_of(request.user, paper.pk)
    form = None
    status = 200
    if made is None:
        form = ClaimForm(request.POST if request.method == "POST" else None)
        if request.method == "POST":
            if form.is_valid():
                if refused := over_allowance(request):
                    return refused
                try:
                    made = authors.make_claim(request.user, paper, **form.cleaned_data)
                except authors.AlreadyClaimed:
                    made = authors.claim_of(request.user, paper.pk)
                if not wants_fragment(request):
                    return redirect(paper.get_absolute_url() + "#claim")
                form = None
            else:
                status = 400
    elif request.method == "POST":
        status = 409  # one claim per paper: it is shown as it stands
    template = "papers/claim.html#claim" if wants_fragment(request) else "papers/claim.html"
    context = {"paper": paper, "claim": made, "claim_form": form}
    return render(request, template, context, status=status)


# --- verdicts -----------------------------------------------------------------------------


class VerdictForm(forms.Form):
    verdict = forms.ChoiceField(choices=Verdict.choices)
    note = forms.CharField(
        required=False,
        max_length=2000,
        label="Note (a dispute needs one: what is wrong with the row)",
        widget=forms.Textarea(attrs={"rows": 2, "maxlength": 2000}),
    )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("verdict") == Verdict.DISPUTED and not cleaned.get("note", "").strip():
            self.add_error("note", "Say what is wrong with the row: a dispute needs a note.")
        return cleaned


def _refuse(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "403.html", {"exception": message}, status=403)


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def verdict(request: HtmxHttpRequest, slug: str, row: int) -> HttpResponse:
    """An approved author's (or staff's) verdict on one result of their paper."""
    paper = _paper(slug)
    found = get_object_or_404(
        LeaderboardRow.objects.select_related(
            "leaderboard__task", "leaderboard__dataset", "verification"
        ),
        pk=row,
        paper=paper,
    )
    if not request.user.is_authenticated:
        if request.method == "POST":
            return _refuse(request, "Sign in as an approved author of this paper first.")
        return redirect_to_login(request.get_full_path())
    if not authors.may_vouch(request.user, authors.claim_of(request.user, paper.pk)):
        return _refuse(request, "Only an approved author of this paper can verify its results.")
    form = VerdictForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            if refused := over_allowance(request):
                return refused
            data = form.cleaned_data
            authors.set_verdict(found, request.user, data["verdict"], data["note"].strip())
            if not wants_fragment(request):
                return redirect(f"{paper.get_absolute_url()}#result-{found.pk}")
            found = LeaderboardRow.objects.select_related("verification").get(pk=found.pk)
            form = VerdictForm()
        else:
            status = 400
    template = "papers/verdict.html#verdict" if wants_fragment(request) else "papers/verdict.html"
    context = {
        "paper": paper,
        "row": found,
        "verification": authors.verification_of(found),
        "verdict_form": form,
        "verdict_open": not wants_fragment(request),  # its own page: the form shown
        "may_vouch": True,
    }
    return render(request, template, context, status=status)


# --- badges -------------------------------------------------------------------------------

BADGE_MAX_AGE = 300  # seconds a README's image proxy may keep a badge without asking


@reads("paper")
@require_safe
def badge(request: HttpRequest, slug: str) -> HttpResponse:
    """The paper's place on the board as a small SVG; a 404 badge ("not on this board")
    for a paper without a ranked row there, an unknown board or an odd parameter."""
    found = find_badge(slug, request.GET.get("paper", ""))
    body, status = (badge_svg(found), 200) if found else (missing_svg(), 404)
    response = HttpResponse(body, content_type="image/svg+xml; charset=utf-8", status=status)
    if status != 200:
        return response
    # Anonymous GETs are kept by the page cache until the content version moves on (a
    # verdict, an import, an admin edit); clients revalidate with the body's ETag.
    patch_cache_control(response, public=True, max_age=BADGE_MAX_AGE)
    set_response_etag(response)
    return get_conditional_response(request, etag=response["ETag"], response=response)
