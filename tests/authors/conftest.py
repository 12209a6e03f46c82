"""An approved author, and the people who are not one, around a paper with a board."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.test import Client

from papers.models import AuthorClaim, Leaderboard, LeaderboardRow, Paper
from papers.models.contributions import Status

PASSWORD = "a long enough passphrase 42"


@dataclass
class Scene:
    paper: Paper
    other: Paper
    board: Leaderboard
    row: LeaderboardRow

    @property
    def board_path(self) -> str:
        return self.board.get_absolute_url()

    @property
    def verdict_url(self) -> str:
        return f"/paper/{self.paper.slug}/results/{self.row.pk}/verdict"


@pytest.fixture
def page_cache():
    """A cache that holds pages and the content version (tests run on the dummy one)."""
    from django.core.cache import cache
    from django.test import override_settings

    locmem = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(CACHES=locmem):
        cache.clear()
        yield
        cache.clear()


@pytest.fixture
def scene(make_paper) -> Scene:
    paper, other = make_paper(), make_paper()
    board = Leaderboard.objects.get(task__slug="task-1", dataset__slug="dataset-1")
    return Scene(paper, other, board, paper.results.get())


def user_client(django_user_model, name: str, *, staff: bool = False) -> Client:
    user = django_user_model.objects.create_user(
        name, email=f"{name}@example.org", password=PASSWORD, is_staff=staff
    )
    client = Client()
    client.force_login(user)
    client.user = user
    return client


def claimant(django_user_model, name: str, paper: Paper, status: str) -> Client:
    client = user_client(django_user_model, name)
    AuthorClaim.objects.create(
        user=client.user, paper=paper, evidence_email=f"{name}@uni.example", status=status
    )
    return client


@pytest.fixture
def author(django_user_model, scene) -> Client:
    """Signed in as an approved author of the scene's paper."""
    return claimant(django_user_model, "ada", scene.paper, Status.APPROVED)


@pytest.fixture
def people(django_user_model, scene, author) -> dict[str, Client]:
    """Everyone the verdict form must tell apart, signed in (or not) as themselves."""
    return {
        "approved author": author,
        "staff": user_client(django_user_model, "moderator", staff=True),
        "author of another paper": claimant(
            django_user_model, "bob", scene.other, Status.APPROVED
        ),
        "pending claimant": claimant(django_user_model, "cy", scene.paper, Status.PENDING),
        "rejected claimant": claimant(django_user_model, "dee", scene.paper, Status.REJECTED),
        "plain user": user_client(django_user_model, "eve"),
        "anonymous": Client(),
    }
