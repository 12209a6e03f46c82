"""Readers at each level a site write can come from, signed in on a test client."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from papers.models import Level, Member
from tests.accounts.test_accounts import PASSWORD, verified_user

# Who writes, and whether their write goes live (else it is a proposal).
LEVELS = {
    "contributor": False,
    "new account": False,
    "unverified": False,
    "trusted": True,
    "staff": True,
}


def make_user(level: str, name: str = ""):
    """A user whose site writes have `level`'s outcome (LEVELS), named `name` (else after
    the level)."""
    name = name or level.replace(" ", "-")
    if level == "unverified":
        user = get_user_model().objects.create_user(
            username=name, email=f"{name}@example.org", password=PASSWORD
        )
        user.date_joined = timezone.now() - dt.timedelta(days=30)
        user.save(update_fields=["date_joined"])
        Member.objects.create(user=user, level=Level.TRUSTED)
        return user
    if level == "new account":
        user = verified_user(f"{name}@example.org", days_old=0)
        Member.objects.create(user=user, level=Level.TRUSTED)
        return user
    user = verified_user(f"{name}@example.org", is_staff=level == "staff")
    if level == "trusted":
        Member.objects.create(user=user, level=Level.TRUSTED)
    return user


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def trusted(db):
    return make_user("trusted")


@pytest.fixture
def contributor(db):
    return make_user("contributor")


@pytest.fixture(params=list(LEVELS))
def writer(request, db):
    """(user, whether their write goes live), for each level."""
    return make_user(request.param), LEVELS[request.param]
