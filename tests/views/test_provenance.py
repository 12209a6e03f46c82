"""Readers see where each fact comes from: the archive, a contributor, or staff; a board
keeps only the archive's rows on request; every record's history lists its changes."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.contributions.revisions import Actor
from papers.models import CodeLink, LeaderboardRow
from papers.models.contributions import Via

pytestmark = pytest.mark.django_db

BOARD = "/sota/task-1-on-dataset-1"


@pytest.fixture
def contributed(make_paper):
    from papers.api.writes.views import apply

    paper = make_paper()
    user = get_user_model().objects.create_user("alice")
    actor = Actor(user=user, via=Via.TOKEN)
    apply(
        "evaluation_result_add",
        {"evaluation_id": "task-1--dataset-1"},
        {"metrics": {"Top-1 Accuracy": "95%"}, "methodology": "Alice net"},
        actor,
    )
    apply(
        "code_link_add",
        {"paper_id": paper.slug},
        {"url": "https://github.com/alice/net", "framework": "jax", "is_official": False},
        actor,
    )
    apply("task_update", {"task_id": "task-1"}, {"description": "Alice's words."}, actor)
    return paper


def test_rows_and_links_say_where_they_come_from(client, contributed):
    board = client.get(BOARD).content.decode()
    assert "contributed by alice" in board and "archive (snapshot 2025-07-28)" in board
    page = client.get(f"/paper/{contributed.slug}").content.decode()
    assert "contributed by alice" in page  # the code link
    assert "archive (snapshot 2025-07-28)" in page  # the paper itself


def test_a_board_keeps_only_archive_rows_on_request(client, contributed):
    body = client.get(BOARD, {"rows": "archive"}).content.decode()
    assert "Model 1" in body and "Alice net" not in body
    assert "Alice net" in client.get(BOARD).content.decode()


def test_history_pages_list_revisions_with_their_diffs(client, contributed):
    task = client.get("/task/task-1/history").content.decode()
    assert "Alice&#x27;s words." in task and "alice" in task
    board = client.get(f"{BOARD}/history").content.decode()
    assert "Alice net" in board
    paper = client.get(f"/paper/{contributed.slug}/history").content.decode()
    assert "github.com/alice/net" in paper
    assert client.get("/dataset/dataset-1/history").status_code == 200
    assert client.get("/method/method-1/history").status_code == 200
    assert client.get("/task/no-such-task/history").status_code == 404
    assert client.get("/task/task-1/history", {"page": "x"}).status_code == 400


@pytest.mark.parametrize(
    "url", [BOARD, f"{BOARD}?rows=archive", "/paper/paper-1", "/task/task-1/history"]
)
def test_pages_run_the_same_queries_however_many_contributions(client, contributed, url):
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    before = count()
    from papers.api.writes.views import apply

    actor = Actor(user=get_user_model().objects.create_user("bob"), via=Via.TOKEN)
    for i in range(5):
        apply(
            "evaluation_result_add",
            {"evaluation_id": "task-1--dataset-1"},
            {"metrics": {"Top-1 Accuracy": f"{80 + i}%"}, "methodology": f"Bob {i}"},
            actor,
        )
        apply(
            "code_link_add",
            {"paper_id": "paper-1"},
            {"url": f"https://github.com/bob/net{i}"},
            actor,
        )
        apply("task_update", {"task_id": "task-1"}, {"description": f"Bob {i}"}, actor)
    assert LeaderboardRow.objects.filter(contributed_by__username="bob").count() == 5
    assert CodeLink.objects.filter(contributed_by__username="bob").count() == 5
    assert count() == before
