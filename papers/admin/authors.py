"""Authors in the admin: claims to moderate, authors' verdicts on results, members' levels.

- Author claims: pending first, with the evidence given (an institutional address, a
  homepage); "approve" lets the claimant verify or dispute the paper's results,
  "reject" needs a reason, typed beside the action (the claimant sees it), as the
  proposals' moderation does (papers.admin.contributions).
- Result verifications: disputed first (a dispute says the archive may be wrong: a
  moderator looks at the row), filterable by verdict; read-only (the author's word).
- Member levels: staff raise a contributor to trusted (their writes go live).
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Case, IntegerField, Value, When
from django.urls import reverse
from django.utils.html import format_html

from papers.admin.contributions import ModerationForm, ReadOnly
from papers.contributions.authors import decide
from papers.models import AuthorClaim, Member, ResultVerification
from papers.models.accounts import Verdict
from papers.models.contributions import Status
from papers.templatetags.page_meta import is_http_url


def _first(field: str, value: str) -> Case:
    """An ordering that puts the rows whose `field` is `value` first."""
    first = When(**{field: value}, then=Value(0))
    return Case(first, default=Value(1), output_field=IntegerField())


@admin.register(AuthorClaim)
class AuthorClaimAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["id", "created_at", "user", "paper_link", "email", "homepage", "status",
                    "moderator"]  # fmt: skip
    list_filter = ["status"]
    list_select_related = ["user", "paper", "moderator"]
    search_fields = ["user__username", "user__email", "paper__slug", "evidence_email"]
    action_form = ModerationForm
    actions = ["approve", "reject"]
    fields = ["created_at", "user", "paper_link", "email", "homepage", "note", "status",
              "reason", "moderator", "decided_at"]  # fmt: skip
    readonly_fields = fields

    def get_ordering(self, request):
        return [_first("status", Status.PENDING).asc(), "-id"]

    @admin.display(description="paper", ordering="paper__slug")
    def paper_link(self, obj: AuthorClaim) -> str:
        return format_html(
            '<a href="{}">{}</a>', obj.paper.get_absolute_url(), obj.paper.title or obj.paper.slug
        )

    @admin.display(description="institutional email", ordering="evidence_email")
    def email(self, obj: AuthorClaim) -> str:
        account = obj.user.email
        if not obj.evidence_email:
            return "—"
        same = account and account.lower() == obj.evidence_email.lower()
        return f"{obj.evidence_email} (the account's)" if same else obj.evidence_email

    @admin.display(description="homepage")
    def homepage(self, obj: AuthorClaim) -> str:
        url = obj.evidence_url
        if not is_http_url(url):
            return url or "—"
        return format_html('<a href="{}" rel="nofollow noopener noreferrer">{}</a>', url, url)

    @admin.action(description="Approve the selected claims")
    def approve(self, request, queryset):
        done = decide(queryset, request.user, Status.APPROVED)
        self.message_user(request, f"{done} claims approved.")

    @admin.action(description="Reject the selected claims (give a reason)")
    def reject(self, request, queryset):
        reason = (request.POST.get("reason") or "").strip()
        if not reason:
            self.message_user(request, "A rejection needs a reason.", messages.ERROR)
            return
        done = decide(queryset, request.user, Status.REJECTED, reason)
        self.message_user(request, f"{done} claims rejected.")


@admin.register(ResultVerification)
class ResultVerificationAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["row_link", "verdict", "note", "user", "at"]
    list_filter = ["verdict"]
    list_select_related = ["row__leaderboard__task", "row__leaderboard__dataset", "user"]
    search_fields = ["note", "user__username", "row__model_name"]
    fields = ["row_link", "verdict", "note", "user", "at"]
    readonly_fields = fields

    def get_ordering(self, request):
        return [_first("verdict", Verdict.DISPUTED).asc(), "-at", "-id"]

    @admin.display(description="result")
    def row_link(self, obj: ResultVerification) -> str:
        row = obj.row
        return format_html(
            '<a href="{}">{}</a> · <a href="{}">on the board</a>',
            reverse("admin:papers_leaderboardrow_change", args=[row.pk]),
            str(row),
            row.leaderboard.get_absolute_url(),
        )


@admin.register(Member)
class MemberAdmin(admin.ModelAdmin):
    list_display = ["user", "email", "level"]
    list_filter = ["level"]
    list_select_related = ["user"]
    search_fields = ["user__username", "user__email"]
    raw_id_fields = ["user"]

    @admin.display(description="email", ordering="user__email")
    def email(self, obj: Member) -> str:
        return obj.user.email
