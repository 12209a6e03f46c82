"""Tokens, revisions and the moderation queue in the admin.

- API tokens: staff issue one (its key is shown once, on the page after saving) and
  revoke them (the "revoke" action, or the revoked date).
- Revisions: read-only, newest first, with their diffs; the "revert" action undoes
  the selected revisions (each revert a revision of its own).
- Proposals: pending first; "approve" applies the selected ones (each becomes the
  revisions of its write, naming the contributor and the moderator), "reject" needs a
  reason, typed beside the action.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from papers.contributions import proposals
from papers.contributions.revisions import Actor, CannotRevert, revert
from papers.contributions.tokens import issue
from papers.models import ApiToken, Proposal, Revision
from papers.models.contributions import Status, Via


class IssueTokenForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ["user", "level", "name"]

    def clean(self):
        cleaned = super().clean()
        user, level = cleaned.get("user"), cleaned.get("level")
        if user is not None and level == "staff" and not user.is_staff:
            raise forms.ValidationError("a staff token needs a staff user")
        return cleaned


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["prefix", "user", "level", "name", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["level", ("revoked_at", admin.EmptyFieldListFilter)]
    list_select_related = ["user"]
    search_fields = ["user__username", "name", "prefix"]
    readonly_fields = ["prefix", "created_at", "last_used_at"]
    raw_id_fields = ["user"]
    actions = ["revoke"]

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = IssueTokenForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["user", "level", "name"]
        return ["user", "level", "name", "prefix", "created_at", "last_used_at", "revoked_at"]

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        token, key = issue(obj.user, obj.level, obj.name)
        obj.pk = token.pk
        obj.__dict__.update(token.__dict__)
        messages.warning(
            request, f"The token's key, shown this once (only its hash is kept): {key}"
        )

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at=None).update(revoked_at=timezone.now())
        self.message_user(request, f"{count} tokens revoked.")


def diff_table(changes: dict) -> str:
    rows = format_html_join(
        "",
        "<tr><th>{}</th><td><del>{}</del></td><td><ins>{}</ins></td></tr>",
        ((name, _text(old), _text(new)) for name, (old, new) in sorted((changes or {}).items())),
    )
    return format_html(
        '<table class="revision-diff"><tr><th>field</th><th>before</th><th>after</th></tr>'
        "{}</table>",
        rows,
    )


def _text(value) -> str:
    if value is None:
        return "—"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 2000 else text[:2000] + "…"


class ReadOnly:
    """Records the site writes and staff only read (and act on through actions)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Revision)
class RevisionAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["id", "created_at", "who", "via", "action", "object_repr", "comment"]
    list_filter = ["via", "action", "content_type"]
    list_select_related = ["user", "moderator", "content_type"]
    search_fields = ["object_repr", "comment", "user__username"]
    show_full_result_count = False
    actions = ["revert_selected"]
    fields = [
        "created_at", "who", "via", "action", "content_type", "object_id", "object_repr",
        "comment", "diff", "summary", "reverts", "proposal", "token",
    ]  # fmt: skip
    readonly_fields = fields

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="changes")
    def diff(self, obj: Revision) -> str:
        return diff_table(obj.changes)

    @admin.action(description="Revert the selected revisions", permissions=["revert"])
    def revert_selected(self, request, queryset):
        done = 0
        for revision in queryset.order_by("-id"):
            try:
                revert(revision, Actor(user=request.user, via=Via.ADMIN))
                done += 1
            except CannotRevert as exc:
                self.message_user(request, f"Revision {revision.pk}: {exc}", messages.ERROR)
        if done:
            from codewithpapers.cache import bump_content_version

            bump_content_version()
            self.message_user(request, f"{done} revisions reverted.")

    def has_revert_permission(self, request):
        return request.user.is_staff and request.user.has_perm("papers.view_revision")


class ModerationForm(ActionForm):
    reason = forms.CharField(
        required=False, max_length=2000, label="Reason (to reject)",
        widget=forms.TextInput(attrs={"size": 60}),
    )  # fmt: skip


@admin.register(Proposal)
class ProposalAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["id", "created_at", "user", "operation", "target", "status", "moderator"]
    list_filter = ["status", "operation"]
    list_select_related = ["user", "moderator"]
    search_fields = ["user__username", "operation"]
    action_form = ModerationForm
    actions = ["approve", "reject"]
    fields = [
        "created_at", "user", "operation", "target", "proposed", "comment", "status",
        "reason", "moderator", "decided_at",
    ]  # fmt: skip
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).order_by("-status", "-id")

    @admin.display(description="proposed values")
    def proposed(self, obj: Proposal) -> str:
        from papers.api.writes.operations import target_of
        from papers.contributions.revisions import snapshot

        try:
            current = snapshot(target_of(obj.operation, obj.target))
        except Exception:
            current = {}
        names = {"methodology": "model_name", "url": "homepage"}
        changes = {
            name: [current.get(names.get(name, name)), value] for name, value in obj.body.items()
        }
        return diff_table(changes)

    @admin.action(description="Approve the selected proposals")
    def approve(self, request, queryset):
        done = 0
        for proposal in queryset.filter(status=Status.PENDING).order_by("id"):
            try:
                proposals.approve(proposal, request.user)
                done += 1
            except Exception as exc:  # the archive changed under it: say so, keep it pending
                self.message_user(request, f"Proposal {proposal.pk}: {exc}", messages.ERROR)
        self.message_user(request, f"{done} proposals approved.")

    @admin.action(description="Reject the selected proposals (give a reason)")
    def reject(self, request, queryset):
        reason = (request.POST.get("reason") or "").strip()
        if not reason:
            self.message_user(request, "A rejection needs a reason.", messages.ERROR)
            return
        done = 0
        for proposal in queryset.filter(status=Status.PENDING):
            proposals.reject(proposal, request.user, reason)
            done += 1
        self.message_user(request, f"{done} proposals rejected.")
