"""Writes from the site's own forms: the same calls the write API makes
(papers.api.writes), made by a signed-in user instead of a token.

What a user's write does follows their level on the site (`site_level`): staff's and a
trusted contributor's go live, a contributor's becomes a proposal for a moderator. An
account younger than NEW_ACCOUNT_DAYS writes proposals whatever its level, and so does
one whose email address is not verified. Each user and each client address has
SITE_WRITES_PER_HOUR writes (and SITE_WRITES_PER_HOUR_PER_ADDRESS), counted in the cache.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from papers.contributions.revisions import Actor
from papers.models import Level, Member, Proposal
from papers.models.contributions import Via

WINDOW = 3600


def display_name(user) -> str:
    """How pages name a user: their user name (never their email address)."""
    return user.get_username() if user is not None else "a deleted user"


def email_verified(user) -> bool:
    from allauth.account.models import EmailAddress

    return EmailAddress.objects.filter(user=user, verified=True).exists()


def site_level(user) -> str:
    """The level the user's writes on the site carry (see the module's docstring)."""
    if user.is_staff:
        return Level.STAFF
    young = timezone.now() - user.date_joined < dt.timedelta(days=settings.NEW_ACCOUNT_DAYS)
    if young or not email_verified(user):
        return Level.CONTRIBUTOR
    member = Member.objects.filter(user=user).first()
    return member.level if member is not None else Level.CONTRIBUTOR


def wait_for(user, address: str) -> int:
    """Count one write for the user and for the address: 0 when it may go ahead, else
    the seconds until it may (a failing cache lets writes through)."""
    now = time.time()
    window = int(now // WINDOW)
    over = False
    for key, allowed in (
        (f"site-writes.user.{user.pk}.{window}", settings.SITE_WRITES_PER_HOUR),
        (f"site-writes.addr.{address}.{window}", settings.SITE_WRITES_PER_HOUR_PER_ADDRESS),
    ):
        if allowed <= 0:
            continue
        try:
            cache.add(key, 0, WINDOW + 5)
            over = cache.incr(key) > allowed or over
        except Exception:
            return 0
    return max(1, int((window + 1) * WINDOW - now) + 1) if over else 0


class FieldErrors(Exception):
    """The form's values the call cannot take: {field: [message, ...]}."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))


def prepare(operation: str, body: dict) -> dict:
    """The call's body validated as the API validates it (JSON-safe), or FieldErrors."""
    from papers.api.writes.fields import checked
    from papers.api.writes.views import _json_safe

    cleaned, errors = checked(operation, body)
    if errors:
        raise FieldErrors({k: list(v) for k, v in errors.items()})
    return _json_safe(cleaned)


@dataclass
class Submitted:
    """What a form's write did: went live (`outcome`, the write's Outcome) or became a
    proposal (`proposal`)."""

    outcome: Any = None
    proposal: Proposal | None = None

    @property
    def live(self) -> bool:
        return self.proposal is None


def submit(
    user, operation: str, target: dict, data: dict, comment: str = "", *, held: bool = False
) -> Submitted:
    """Make the write call `operation` with `data` (already validated and JSON-safe) as
    `user`; raises what the call raises (papers.api.writes.operations: Invalid,
    Conflict, Http404). Deletes are not offered on the site. `held`: a proposal whatever
    the user's level (a write a moderator must see first)."""
    from papers.api.writes.operations import target_of
    from papers.api.writes.views import apply

    if operation.endswith("_delete"):
        raise ValueError("the site's forms do not delete")
    if held or site_level(user) == Level.CONTRIBUTOR:
        target_of(operation, target)  # a proposal for a record that exists
        proposal = Proposal.objects.create(
            user=user, operation=operation, target=target, body=data, comment=comment
        )
        return Submitted(proposal=proposal)
    actor = Actor(user=user, via=Via.SITE, comment=comment)
    return Submitted(outcome=apply(operation, target, data, actor))
