"""What the /changes tests and their browser test share: a graph of records and their
revisions, made through the write API's own calls (papers.api.writes)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from papers.contributions.revisions import Actor
from papers.models.contributions import Via

BOARD = "task-1--dataset-1"
BOARD_URL = "/sota/task-1-on-dataset-1"


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice")


@pytest.fixture
def bob(db):
    return get_user_model().objects.create_user("bob")


@pytest.fixture
def written(make_paper, alice, bob):
    """Two papers' graphs; alice adds a result and a code link and edits a task through
    the API; bob edits the other task; bob has a proposal waiting and one refused."""
    from papers.api.writes.views import apply
    from papers.models import Proposal

    first, second = make_paper(), make_paper()
    actor = Actor(user=alice, via=Via.TOKEN)
    apply(
        "evaluation_result_add",
        {"evaluation_id": BOARD},
        {"metrics": {"Top-1 Accuracy": "95%"}, "methodology": "Alice net"},
        actor,
    )
    apply(
        "code_link_add",
        {"paper_id": first.slug},
        {"url": "https://github.com/alice/net", "framework": "jax", "is_official": False},
        actor,
    )
    apply("task_update", {"task_id": "task-1"}, {"description": "Alice's words."}, actor)
    apply(
        "task_update",
        {"task_id": "task-2"},
        {"description": "Bob's words."},
        Actor(user=bob, via=Via.TOKEN),
    )
    Proposal.objects.create(
        user=bob,
        operation="task_update",
        target={"task_id": "task-2"},
        body={"description": "Bob waits."},
    )
    Proposal.objects.create(
        user=bob,
        operation="evaluation_result_add",
        target={"evaluation_id": BOARD},
        body={"methodology": "Bob refused net"},
        status="rejected",
        reason="not in the paper",
    )
    return first, second
