"""Who may write, what they wrote, and what waits for review.

- `ApiToken`: a user's key to the write API (`Authorization: Token <key>`), stored as
  its SHA-256 only, with the trust it carries: a contributor's writes become proposals,
  a trusted contributor's go live (but cannot delete archive records), staff's do
  anything.
- `Revision`: one change to one record (who, when, through what, the field-level diff),
  or one import run (its files and counts: never a row per record).
- `Proposal`: a contributor's write, kept as the API call it was, until a moderator
  approves it (it is then applied, and its revisions name both) or rejects it with a
  reason.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone


class Level(models.TextChoices):
    CONTRIBUTOR = "contributor", "contributor (writes are proposals)"
    TRUSTED = "trusted", "trusted contributor (writes go live)"
    STAFF = "staff", "staff (everything)"


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, blank=True, help_text="What it is for.")
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(
        max_length=8, editable=False, help_text="The key's first characters, to tell it apart."
    )
    level = models.CharField(max_length=12, choices=Level.choices, default=Level.CONTRIBUTOR)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(
        null=True, blank=True, help_text="Set to revoke the token: it no longer signs anyone in."
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user}, {self.level})"

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class Via(models.TextChoices):
    TOKEN = "token", "API token"
    ADMIN = "admin", "admin"
    IMPORT = "import", "import"
    SITE = "site", "site form"


class Action(models.TextChoices):
    ADD = "add", "added"
    CHANGE = "change", "changed"
    DELETE = "delete", "deleted"
    IMPORT = "import", "imported"
    REVERT = "revert", "reverted"


class Revision(models.Model):
    """One change to one record, or one import run.

    `changes` is {field: [old, new]} in JSON terms; a deletion also keeps the deleted
    rows (`deleted`, Django's serialized form, the record and what cascaded with it) so
    that a revert puts them back as they were. `parent_*` names the page the revision is
    listed on besides its own object's (a result's board, a code link's paper)."""

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )  # fmt: skip
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+", help_text="Who approved the proposal this revision applied.",
    )  # fmt: skip
    via = models.CharField(max_length=8, choices=Via.choices)
    action = models.CharField(max_length=8, choices=Action.choices)
    comment = models.TextField(blank=True)
    content_type = models.ForeignKey(
        ContentType, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    object_id = models.BigIntegerField(null=True, blank=True)
    object_repr = models.CharField(max_length=300, blank=True)
    parent_type = models.ForeignKey(
        ContentType, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    parent_id = models.BigIntegerField(null=True, blank=True)
    changes = models.JSONField(default=dict, blank=True)
    deleted = models.JSONField(null=True, blank=True)
    summary = models.JSONField(null=True, blank=True, help_text="An import's files and counts.")
    reverts = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reverted_by"
    )
    token = models.ForeignKey(
        ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    proposal = models.ForeignKey(
        "Proposal", null=True, blank=True, on_delete=models.SET_NULL, related_name="revisions"
    )

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["content_type", "object_id", "-id"], name="revision_object_idx"),
            models.Index(fields=["parent_type", "parent_id", "-id"], name="revision_parent_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} {self.object_repr or self.comment}".strip()

    @property
    def who(self) -> str:
        """ "import of <files>", "admin (<user>)", "<user>" or "<contributor>, approved by
        <moderator>"."""
        if self.via == Via.IMPORT:
            files = (self.summary or {}).get("files") or []
            return "import of " + ", ".join(files) if files else "import"
        name = self.user.get_username() if self.user else "a deleted user"
        if self.via == Via.ADMIN:
            return f"admin ({name})"
        if self.moderator is not None:
            return f"{name}, approved by {self.moderator.get_username()}"
        return name


class Status(models.TextChoices):
    PENDING = "pending", "pending"
    APPROVED = "approved", "approved"
    REJECTED = "rejected", "rejected"


class Proposal(models.Model):
    """A contributor's write, waiting: the API call (`operation`, its URL's `target` and
    its validated `body`) that approval applies."""

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="proposals"
    )
    token = models.ForeignKey(
        ApiToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    operation = models.CharField(max_length=40)
    target = models.JSONField(default=dict, blank=True)
    body = models.JSONField(default=dict, blank=True)
    comment = models.TextField(blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    reason = models.TextField(
        blank=True, help_text="Why it was rejected (the contributor sees it)."
    )
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )  # fmt: skip
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["status", "id"], name="proposal_status_idx")]

    def __str__(self) -> str:
        where = " ".join(str(v) for v in self.target.values())
        return f"{self.operation} {where}".strip()
