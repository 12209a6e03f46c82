"""What the site knows of its signed-in people beyond Django's user: the level their
writes on the site's forms carry, the papers they claim as authors, and what approved
authors say of their papers' results.

- `Member`: a user's level on the site (a new account is a contributor: its writes are
  proposals; staff raise it to trusted in the admin).
- `AuthorClaim`: "I wrote this paper", with the evidence given (an institutional email,
  a homepage); staff approve or reject it in the admin.
- `ResultVerification`: an approved author's word on one result row of their paper:
  verified (a badge on boards and in the API) or disputed (flagged to moderators).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from papers.models.contributions import Level, Status


class Member(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="member"
    )
    level = models.CharField(
        max_length=12,
        choices=[c for c in Level.choices if c[0] != Level.STAFF],
        default=Level.CONTRIBUTOR,
        help_text="What the user's writes on the site's forms do (staff users write as staff).",
    )

    class Meta:
        verbose_name = "member level"

    def __str__(self) -> str:
        return f"{self.user} ({self.level})"


class AuthorClaim(models.Model):
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="author_claims"
    )
    paper = models.ForeignKey("Paper", on_delete=models.CASCADE, related_name="author_claims")
    evidence_email = models.EmailField(
        blank=True, help_text="An address at the authors' institution, as given."
    )
    evidence_url = models.URLField(
        max_length=500, blank=True, help_text="A homepage or profile naming the paper."
    )
    note = models.TextField(blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    reason = models.TextField(blank=True, help_text="Why it was rejected (the claimant sees it).")
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )  # fmt: skip
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "paper"], name="authorclaim_unique")
        ]
        indexes = [models.Index(fields=["status", "id"], name="authorclaim_status_idx")]

    def __str__(self) -> str:
        return f"{self.user} claims {self.paper}"


class Verdict(models.TextChoices):
    VERIFIED = "verified", "verified by an author"
    DISPUTED = "disputed", "disputed by an author"


class ResultVerification(models.Model):
    row = models.OneToOneField(
        "LeaderboardRow", on_delete=models.CASCADE, related_name="verification"
    )
    verdict = models.CharField(max_length=8, choices=Verdict.choices)
    note = models.TextField(blank=True, help_text="What the author says about the row.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["verdict", "at"], name="verification_verdict_idx")]

    def __str__(self) -> str:
        return f"{self.row}: {self.verdict}"
