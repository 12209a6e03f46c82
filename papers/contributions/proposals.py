"""Moderation: a proposal approved is the API call it was, applied now under the
contributor's name and the moderator's (its revisions name both); a proposal rejected
keeps the moderator's reason."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from papers.models import Proposal
from papers.models.contributions import Status, Via


class NotPending(Exception):
    pass


def approve(proposal: Proposal, moderator) -> None:
    """Apply the proposal (one transaction with its revisions and the refresh); raises
    what the write raises (papers.api.writes.operations: Invalid, Conflict, Http404)
    when the archive has changed under it, and leaves it pending."""
    from papers.api.writes.views import apply
    from papers.contributions.revisions import Actor

    with transaction.atomic():
        locked = Proposal.objects.select_for_update().get(pk=proposal.pk)
        if locked.status != Status.PENDING:
            raise NotPending(f"proposal {proposal.pk} is {locked.status}")
        actor = Actor(
            user=locked.user,
            via=Via.TOKEN if locked.token_id else Via.SITE,
            token=locked.token,
            moderator=moderator,
            proposal=locked,
            comment=locked.comment,
        )
        apply(locked.operation, locked.target, locked.body, actor)
        locked.status, locked.moderator, locked.decided_at = (
            Status.APPROVED, moderator, timezone.now()
        )  # fmt: skip
        locked.save(update_fields=["status", "moderator", "decided_at"])
    proposal.refresh_from_db()


def reject(proposal: Proposal, moderator, reason: str) -> None:
    updated = Proposal.objects.filter(pk=proposal.pk, status=Status.PENDING).update(
        status=Status.REJECTED, moderator=moderator, reason=reason, decided_at=timezone.now()
    )
    if not updated:
        raise NotPending(f"proposal {proposal.pk} is not pending")
    proposal.refresh_from_db()
