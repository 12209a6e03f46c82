"""Who may write what, and what a write leaves behind: the permission matrix over every
call, proposals and their moderation, revisions and exact reverts, re-imports that leave
contributions alone, limits on rate and size, and errors naming the field."""

from __future__ import annotations

import json
import logging

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from papers.contributions import proposals
from papers.contributions.revisions import Actor, revert, snapshot
from papers.contributions.tokens import issue
from papers.models import (
    ApiToken,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
    Paper,
    Proposal,
    Revision,
    Task,
)
from papers.models.contributions import Via

pytestmark = pytest.mark.django_db

BOARD = "/api/v1/evaluations/task-1--dataset-1"


def _client(level: str | None) -> Client:
    if level is None:
        return Client()
    user = get_user_model().objects.create_user(f"user-{level}", is_staff=level == "staff")
    _, key = issue(user, level)
    return Client(headers={"Authorization": f"Token {key}"})


@pytest.fixture
def archive(make_paper):
    paper = make_paper()
    Dataset.objects.create(slug="dataset-new", name="New dataset")
    return paper


def _row_key() -> str:
    return LeaderboardRow.objects.filter(leaderboard__task__slug="task-1").first().row_key


# Each call: (method, url, body). Archive records are the targets of changes and deletes.
CALLS = {
    "task_add": ("post", "/api/v1/tasks/", {"name": "Fresh task"}),
    "task_update": ("patch", "/api/v1/tasks/task-1/", {"description": "New words."}),
    "task_delete": ("delete", "/api/v1/tasks/subtask-1/", None),
    "dataset_add": ("post", "/api/v1/datasets/", {"name": "Fresh set"}),
    "dataset_update": ("patch", "/api/v1/datasets/dataset-1/", {"name": "Renamed"}),
    "dataset_delete": ("delete", "/api/v1/datasets/dataset-new/", None),
    "evaluation_create": (
        "post", "/api/v1/evaluations/", {"task": "task-1", "dataset": "dataset-new"},
    ),
    "evaluation_update": ("patch", f"{BOARD}/", {"description": "Better words."}),
    "evaluation_delete": ("delete", f"{BOARD}/", None),
    "evaluation_metric_add": (
        "post", f"{BOARD}/metrics/", {"name": "F1", "description": "", "is_loss": False},
    ),
    "evaluation_metric_update": ("patch", f"{BOARD}/metrics/top-1-accuracy/", {"is_loss": True}),
    "evaluation_metric_delete": ("delete", f"{BOARD}/metrics/top-1-accuracy/", None),
    "evaluation_result_add": (
        "post", f"{BOARD}/results/", {"metrics": {"Top 1 Accuracy": "99.9"}, "methodology": "X"},
    ),
    "evaluation_result_update": ("patch", f"{BOARD}/results/ROW/", {"methodology": "Renamed"}),
    "evaluation_result_delete": ("delete", f"{BOARD}/results/ROW/", None),
    "evaluation_synchronize": (
        "post", "/api/v1/rpc/evaluation-synchronize/",
        {"task": "task-1", "dataset": "dataset-new", "metrics": [{"name": "F1"}],
         "results": [{"metrics": {"F1": 1}, "methodology": "Y", "evaluated_on": "2024-01-01"}]},
    ),
    "paper_add": ("post", "/api/v1/papers/", {"arxiv_id": "2401.00001", "title": "New"}),
    "paper_update": ("patch", "/api/v1/papers/paper-1/", {"title": "A corrected title"}),
    "method_update": ("patch", "/api/v1/methods/method-1/", {"description": "Better words."}),
    "code_link_add": (
        "post", "/api/v1/papers/paper-1/repositories/",
        {"url": "https://GitHub.com/new/repo.git/", "framework": "JAX", "is_official": True},
    ),
}  # fmt: skip

# What each level gets: anonymous 401; a contributor's write is a proposal; trusted
# contributors write live but delete no archive record; staff do everything.
LIVE = {"post": {201, 200}, "patch": {200}, "delete": {204}}


def _expected(level: str | None, operation: str, method: str) -> set[int]:
    if level is None:
        return {401}
    if level == "contributor":
        return {202}
    if level == "trusted" and method == "delete":
        return {403}
    if operation == "evaluation_synchronize":
        return {200}
    return LIVE[method]


@pytest.mark.parametrize("level", [None, "contributor", "trusted", "staff"])
@pytest.mark.parametrize("operation", list(CALLS))
def test_the_permission_matrix(archive, level, operation):
    method, url, body = CALLS[operation]
    url = url.replace("ROW", _row_key())
    client = _client(level)
    before = (Task.objects.count(), LeaderboardRow.objects.count(), Paper.objects.count())
    response = getattr(client, method)(
        url, data=json.dumps(body) if body is not None else "", content_type="application/json"
    )
    assert response.status_code in _expected(level, operation, method), response.content
    if response.status_code == 202:
        answer = response.json()
        assert answer["status"] == "pending"
        assert Proposal.objects.get(pk=answer["id"]).operation == operation
    if response.status_code in (202, 401, 403):
        after = (Task.objects.count(), LeaderboardRow.objects.count(), Paper.objects.count())
        assert after == before
        assert not Revision.objects.filter(via=Via.TOKEN).exists()
    else:
        assert Revision.objects.filter(via=Via.TOKEN).exists()


def test_a_trusted_contributor_deletes_what_they_contributed(archive):
    client = _client("trusted")
    added = client.post(
        f"{BOARD}/results/",
        {"metrics": {}, "methodology": "Mine"},
        content_type="application/json",
    ).json()
    assert client.delete(f"{BOARD}/results/{added['id']}/").status_code == 204


def test_an_approved_proposal_is_a_revision_by_contributor_and_moderator(archive):
    client = _client("contributor")
    answer = client.post(
        f"{BOARD}/results/",
        {"metrics": {"Top-1 Accuracy": "99.5%"}, "methodology": "Proposed"},
        content_type="application/json",
    ).json()
    proposal = Proposal.objects.get(pk=answer["id"])
    moderator = get_user_model().objects.create_user("moderator", is_staff=True)
    proposals.approve(proposal, moderator)
    assert proposal.status == "approved"
    row = LeaderboardRow.objects.get(model_name="Proposed")
    assert row.source == "contributed" and row.contributed_by.username == "user-contributor"
    revision = Revision.objects.get(proposal=proposal)
    assert (revision.user.username, revision.moderator) == ("user-contributor", moderator)
    assert "approved by moderator" in revision.who
    ranking = MetricRanking.objects.get(metric__leaderboard=row.leaderboard, metric__position=0)
    assert ranking.ranks[0][0] == row.pk  # the best value ranks first after approval
    with pytest.raises(proposals.NotPending):
        proposals.approve(proposal, moderator)


def test_a_rejected_proposal_keeps_its_reason_and_changes_nothing(archive):
    client = _client("contributor")
    answer = client.patch(
        "/api/v1/tasks/task-1/", {"name": "Vandalised"}, content_type="application/json"
    ).json()
    proposal = Proposal.objects.get(pk=answer["id"])
    proposals.reject(proposal, get_user_model().objects.create_user("mod"), "not a real task")
    assert (proposal.status, proposal.reason) == ("rejected", "not a real task")
    assert Task.objects.get(slug="task-1").name == "Task 1"


def test_reverting_a_change_restores_the_record_exactly(archive):
    task = Task.objects.get(slug="task-1")
    exact = snapshot(task)
    client = _client("staff")
    client.patch(
        "/api/v1/tasks/task-1/",
        {"name": "Other", "description": "Other words.", "area": "Robots"},
        content_type="application/json",
    )
    revision = Revision.objects.filter(object_id=task.pk, action="change").latest("id")
    assert revision.changes["name"] == ["Task 1", "Other"]
    undo, _restored = revert(revision, Actor(user=revision.user, via=Via.ADMIN))
    assert snapshot(Task.objects.get(pk=task.pk)) == exact
    assert undo.action == "revert" and undo.reverts == revision


def test_reverting_a_delete_restores_the_board_with_its_rows(archive):
    board = Leaderboard.objects.get(task__slug="task-1", dataset__slug="dataset-1")
    rows_before = sorted(
        (snapshot(r), r.pk) for r in LeaderboardRow.objects.filter(leaderboard=board)
    )
    metrics_before = sorted(
        (snapshot(m), m.pk) for m in LeaderboardMetric.objects.filter(leaderboard=board)
    )
    client = _client("staff")
    assert client.delete(f"{BOARD}/").status_code == 204
    assert not Leaderboard.objects.filter(pk=board.pk).exists()
    revision = Revision.objects.get(action="delete", object_id=board.pk)
    revert(revision, Actor(via=Via.ADMIN))
    restored = Leaderboard.objects.get(pk=board.pk)
    assert snapshot(restored) == snapshot(board)
    assert rows_before == sorted(
        (snapshot(r), r.pk) for r in LeaderboardRow.objects.filter(leaderboard=board)
    )
    assert metrics_before == sorted(
        (snapshot(m), m.pk) for m in LeaderboardMetric.objects.filter(leaderboard=board)
    )


def test_reverting_an_add_deletes_it(archive):
    client = _client("trusted")
    added = client.post("/api/v1/tasks/", {"name": "Gone soon"}, content_type="application/json")
    assert added.status_code == 201
    revision = Revision.objects.get(action="add", object_repr="Gone soon")
    revert(revision, Actor(via=Via.ADMIN))
    assert not Task.objects.filter(slug="gone-soon").exists()


def test_an_admin_edit_is_a_revision(admin_client, archive):
    task = Task.objects.get(slug="task-1")
    response = admin_client.post(
        f"/admin/papers/task/{task.pk}/change/",
        {"slug": "task-1", "name": "Task one", "description": "", "categories": "[]",
         "parents": [], "edited_in_admin": "on"},
    )  # fmt: skip
    assert response.status_code in (200, 302)
    revision = Revision.objects.filter(via=Via.ADMIN, object_id=task.pk).first()
    if response.status_code == 302:
        assert revision.changes["name"] == ["Task 1", "Task one"]
        assert revision.who.startswith("admin (")


def test_validation_errors_name_the_field(archive):
    client = _client("staff")
    response = client.post(
        f"{BOARD}/results/", {"metrics": "not an object", "methodology": "X"},
        content_type="application/json",
    )  # fmt: skip
    assert response.status_code == 400
    assert response.json()["field"] == "metrics"
    response = client.post(
        "/api/v1/tasks/", {"name": "X", "colour": "blue"}, content_type="application/json"
    )
    assert response.status_code == 400 and "colour" in response.json()["errors"]
    response = client.post("/api/v1/tasks/", "{not json", content_type="application/json")
    assert response.status_code == 400 and "not JSON" in response.json()["error"]
    response = client.post(
        f"{BOARD}/results/", {"metrics": {}, "methodology": "X", "paper": "no-such-paper"},
        content_type="application/json",
    )  # fmt: skip
    assert response.status_code == 400 and response.json()["field"] == "paper"


def test_an_oversized_body_is_413(archive, settings):
    settings.API_WRITE_MAX_BYTES = 2048
    response = _client("staff").post(
        "/api/v1/tasks/", {"name": "x", "description": "y" * 5000},
        content_type="application/json",
    )  # fmt: skip
    assert response.status_code == 413 and response.json()["limit"] == 2048


def test_writes_over_the_rate_are_429_with_retry_after(archive, settings):
    from django.core.cache import cache

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()
    settings.API_WRITES_PER_MINUTE = 2
    client = _client("trusted")
    codes = [
        client.post("/api/v1/tasks/", {"name": f"T {i}"}, content_type="application/json")
        for i in range(3)
    ]
    assert [r.status_code for r in codes] == [201, 201, 429]
    assert int(codes[2]["Retry-After"]) >= 1 and codes[2].json()["retry_after"] >= 1


def test_a_refused_token_is_logged_without_the_key(archive, caplog):
    user = get_user_model().objects.create_user("leaver")
    token, key = issue(user, "trusted")
    ApiToken.objects.filter(pk=token.pk).update(revoked_at="2026-01-01T00:00:00Z")
    with caplog.at_level(logging.WARNING, logger="papers.api.auth"):
        response = Client(headers={"Authorization": f"Token {key}"}).post(
            "/api/v1/tasks/", {"name": "Late"}, content_type="application/json"
        )
        Client(headers={"Authorization": "Token made-up-key"}).post("/api/v1/tasks/")
    assert response.status_code == 401
    assert "revoked" in caplog.text and key not in caplog.text and key[:8] not in caplog.text


def test_a_random_token_costs_no_query(archive, django_assert_num_queries):
    from django.test import RequestFactory

    from codewithpapers.sessions import token_user

    request = RequestFactory().get("/", headers={"Authorization": "Token " + "a" * 48})
    with django_assert_num_queries(0):
        assert token_user(request) is None


def test_a_reimport_leaves_contributed_values_alone(tmp_path):
    from papers.archive.importer import import_files
    from tests.archive.test_import_archive import EVALUATIONS
    from tests.archive_helpers import write

    path = write(tmp_path / "evaluation-tables.json", EVALUATIONS)
    import_files([path])
    row = LeaderboardRow.objects.select_related("leaderboard__task", "leaderboard__dataset")
    row = row.order_by("id").first()
    board = f"/api/v1/evaluations/{row.leaderboard.task.slug}--{row.leaderboard.dataset.slug}"
    client = _client("trusted")
    row_key = row.row_key
    patched = client.patch(
        f"{board}/results/{row_key}/", {"methodology": "Contributed name"},
        content_type="application/json",
    )  # fmt: skip
    assert patched.status_code == 200
    added = client.post(
        f"{board}/results/", {"metrics": {}, "methodology": "New row"},
        content_type="application/json",
    ).json()  # fmt: skip
    result = import_files([path])
    assert LeaderboardRow.objects.get(row_key=row_key).model_name == "Contributed name"
    assert LeaderboardRow.objects.filter(row_key=added["id"]).exists()
    assert result.stats.counts["LeaderboardRow"]["left_alone"] >= 1
    run = Revision.objects.filter(action="import").latest("id")
    assert run.summary["files"] == ["evaluation-tables.json"]


def test_execution_records_pushed_twice_change_nothing_the_second_time(db, seed_record_path):
    record = json.loads(seed_record_path.read_text())
    client = _client("trusted")
    first = client.post("/api/v1/records/", record, content_type="application/json")
    assert first.status_code == 200, first.content
    assert first.json()["rejected"] == 0
    paper = Paper.objects.get(arxiv_id=record["arxiv_id"])
    samples = paper.samples.count()
    assert samples == len(record["syntology"]["samples"])
    second = client.post("/api/v1/records/", [record], content_type="application/json").json()
    assert paper.samples.count() == samples
    assert "created" not in json.dumps(second["counts"].get("Sample", {}))
    assert Revision.objects.filter(action="import", user__username="user-trusted").count() == 2


def test_a_bad_record_is_named_and_a_contributor_cannot_push_records(db):
    response = _client("trusted").post(
        "/api/v1/records/", {"title": "no identity"}, content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["errors"]
    refused = _client("contributor").post("/api/v1/records/", {}, content_type="application/json")
    assert refused.status_code == 403


@pytest.mark.parametrize(
    ("level", "status"), [(None, 401), ("contributor", 403), ("trusted", 200), ("staff", 200)]
)
def test_who_may_push_execution_records(db, seed_record_path, level, status):
    """Records are execution facts from the pipeline: trusted tokens and staff push them
    (each push a revision in the pusher's name); a contributor's are refused, not
    proposed; anonymous writes need a token."""
    record = json.loads(seed_record_path.read_text())
    response = _client(level).post("/api/v1/records/", record, content_type="application/json")
    assert response.status_code == status, response.content
    pushed = Paper.objects.filter(arxiv_id=record["arxiv_id"]).exists()
    assert pushed == (status == 200)
    revisions = Revision.objects.filter(action="import", user__username=f"user-{level}")
    assert revisions.count() == (1 if status == 200 else 0)


@pytest.mark.django_db(transaction=True)
def test_two_clients_adding_results_to_one_board_both_land_ranked(make_paper):
    import threading

    from django.db import connection

    make_paper()
    user = get_user_model().objects.create_user("racer")
    _, key = issue(user, "trusted")
    values = ["95.0%", "97.0%"]
    answers: list = []
    start = threading.Barrier(2)

    def add(value: str) -> None:
        try:
            start.wait()
            client = Client(headers={"Authorization": f"Token {key}"})
            answers.append(
                client.post(
                    f"{BOARD}/results/",
                    {"metrics": {"Top-1 Accuracy": value}, "methodology": value},
                    content_type="application/json",
                ).status_code
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=add, args=(v,)) for v in values]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [201, 201]
    board = Leaderboard.objects.get(task__slug="task-1", dataset__slug="dataset-1")
    rows = {r.pk: r.model_name for r in board.rows.all()}
    ranking = MetricRanking.objects.get(metric__leaderboard=board, metric__position=0).ranks
    assert [rows[pk] for pk, _ in ranking] == ["97.0%", "95.0%", "Model 1"]
