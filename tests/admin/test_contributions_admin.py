"""Staff issue and revoke tokens, read revisions and revert them, and moderate
proposals, in the admin and from the command line."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from papers.contributions.tokens import authenticate, issue
from papers.models import ApiToken, Proposal, Revision, Task

pytestmark = pytest.mark.django_db


def test_issue_token_prints_the_key_once_and_keeps_only_its_hash(db):
    get_user_model().objects.create_user("alice")
    out = io.StringIO()
    call_command("issue_token", "alice", "--level", "trusted", "--name", "ci", stdout=out)
    key = out.getvalue().strip()
    token = ApiToken.objects.get()
    assert (token.level, token.name) == ("trusted", "ci")
    assert key not in token.key_hash and authenticate(f"Token {key}") == token
    with pytest.raises(CommandError):
        call_command("issue_token", "nobody")
    with pytest.raises(CommandError, match="not staff"):
        call_command("issue_token", "alice", "--level", "staff")


def test_staff_issue_and_revoke_tokens_in_the_admin(admin_client, admin_user):
    response = admin_client.post(
        "/admin/papers/apitoken/add/",
        {"user": admin_user.pk, "level": "staff", "name": "mine"},
        follow=True,
    )
    token = ApiToken.objects.get()
    shown = [str(m) for m in response.context["messages"]]
    assert any("shown this once" in m for m in shown)
    key = shown[0].rsplit(" ", 1)[-1]
    assert authenticate(f"Token {key}") == token
    admin_client.post(
        "/admin/papers/apitoken/",
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    assert authenticate(f"Token {key}") is None


def test_moderators_approve_and_reject_in_bulk(admin_client, make_paper):
    make_paper()
    user = get_user_model().objects.create_user("bob")
    _, key = issue(user, "contributor")
    bob = Client(headers={"Authorization": f"Token {key}"})
    for name in ("First", "Second", "Third"):
        assert (
            bob.post("/api/v1/tasks/", {"name": name}, content_type="application/json").status_code
            == 202
        )
    first, second, third = Proposal.objects.order_by("id")
    assert admin_client.get("/admin/papers/proposal/").status_code == 200
    assert admin_client.get(f"/admin/papers/proposal/{first.pk}/change/").status_code == 200
    admin_client.post(
        "/admin/papers/proposal/",
        {"action": "approve", "_selected_action": [first.pk, second.pk]},
    )
    admin_client.post(
        "/admin/papers/proposal/",
        {"action": "reject", "_selected_action": [third.pk], "reason": "a duplicate"},
    )
    assert set(
        Task.objects.filter(slug__in=["first", "second", "third"]).values_list("slug", flat=True)
    ) == {"first", "second"}
    third.refresh_from_db()
    assert (third.status, third.reason) == ("rejected", "a duplicate")
    assert Revision.objects.filter(proposal=first, moderator__isnull=False).exists()


def test_staff_revert_a_revision_in_the_admin(admin_client, make_paper):
    make_paper()
    task = Task.objects.get(slug="task-1")
    user = get_user_model().objects.create_user("carol")
    _, key = issue(user, "trusted")
    Client(headers={"Authorization": f"Token {key}"}).patch(
        "/api/v1/tasks/task-1/", {"name": "Wrong"}, content_type="application/json"
    )
    revision = Revision.objects.get(object_id=task.pk, action="change")
    assert admin_client.get("/admin/papers/revision/").status_code == 200
    assert admin_client.get(f"/admin/papers/revision/{revision.pk}/change/").status_code == 200
    admin_client.post(
        "/admin/papers/revision/",
        {"action": "revert_selected", "_selected_action": [revision.pk]},
    )
    assert Task.objects.get(pk=task.pk).name == "Task 1"
    assert Revision.objects.filter(reverts=revision, action="revert").exists()
