"""Authors vouch for their results: a signed-in user claims a paper, staff approve the
claim with its evidence in the admin, and an approved author (or staff) marks each
result of that paper verified or disputed.

A verdict is one `ResultVerification` per row (the latest word stands), and each
change of it is a `Revision` listed with the row's board (its history page says who,
when and why). Verified rows carry a badge on the board, the paper page and in the API;
disputed ones are flagged to moderators (the admin lists them first) and marked on the
board, since a wrong number is worse than a missing one.
"""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, transaction
from django.utils import timezone

from codewithpapers.cache import bump_content_version
from papers.contributions import revisions
from papers.models import AuthorClaim, Leaderboard, LeaderboardRow, ResultVerification
from papers.models.contributions import Status, Via


class AlreadyClaimed(Exception):
    pass


def claim_of(user, paper_id: int) -> AuthorClaim | None:
    """The user's claim on the paper (one at most), or None for anyone signed out."""
    if not user.is_authenticated:
        return None
    return AuthorClaim.objects.filter(user=user, paper_id=paper_id).first()


def may_vouch(user, claim: AuthorClaim | None) -> bool:
    """Whether the user may verify or dispute the results of the paper `claim` is on
    (their own claim of it, or None): staff, or an author whose claim was approved."""
    if not user.is_authenticated:
        return False
    return user.is_staff or (claim is not None and claim.status == Status.APPROVED)


def make_claim(user, paper, evidence_email: str, evidence_url: str, note: str) -> AuthorClaim:
    """A pending claim of the paper by the user; AlreadyClaimed when they made one.
    Their paper page changes (it shows the claim): the content version moves on, so
    that their browser's copy is not answered "not modified" (claims are rare)."""
    try:
        with transaction.atomic():
            claim = AuthorClaim.objects.create(
                user=user,
                paper=paper,
                evidence_email=evidence_email,
                evidence_url=evidence_url,
                note=note,
            )
    except IntegrityError:
        raise AlreadyClaimed from None
    bump_content_version()
    return claim


def decide(claims, moderator, status: str, reason: str = "") -> int:
    """Approve or reject the pending claims among `claims` (a queryset); how many."""
    return claims.filter(status=Status.PENDING).update(
        status=status, moderator=moderator, reason=reason, decided_at=timezone.now()
    )


def verification_of(row: LeaderboardRow) -> ResultVerification | None:
    """The row's verdict, or None (no query when it was select_related)."""
    try:
        return row.verification
    except ResultVerification.DoesNotExist:
        return None


def set_verdict(row: LeaderboardRow, user, verdict: str, note: str) -> ResultVerification:
    """Record the user's verdict on the row, replacing any before it, and the change as a
    revision listed with the row's board; cached pages that show the row are retired."""
    with transaction.atomic():
        found = ResultVerification.objects.select_for_update().filter(row=row).first()
        before = revisions.snapshot(found)
        verification = found or ResultVerification(row=row)
        verification.verdict, verification.note = verdict, note
        verification.user, verification.at = user, timezone.now()
        verification.save()
        verification.row = row  # its board's names for the revision's description
        actor = revisions.Actor(user=user, via=Via.SITE, comment=note or verdict)
        revision = revisions.record(verification, before, actor, save=False)
        if revision is not None:
            # Listed with the board, whose history lists its results' changes.
            revision.parent_type = ContentType.objects.get_for_model(Leaderboard)
            revision.parent_id = row.leaderboard_id
            revision.save()
    bump_content_version()
    return verification
