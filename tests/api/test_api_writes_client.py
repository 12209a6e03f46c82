"""Benchmark maintainers push their leaderboards with the real paperswithcode-client
0.3.1: all sixteen of its write calls against a live server, each answering in the
client's shapes, each recorded as a revision, each refreshing the board's ranking."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from paperswithcode import PapersWithCodeClient
from paperswithcode.models import (
    DatasetCreateRequest,
    DatasetUpdateRequest,
    EvaluationTableCreateRequest,
    EvaluationTableSyncRequest,
    EvaluationTableUpdateRequest,
    MetricCreateRequest,
    MetricSyncRequest,
    MetricUpdateRequest,
    ResultCreateRequest,
    ResultSyncRequest,
    ResultUpdateRequest,
    TaskCreateRequest,
    TaskUpdateRequest,
)
from tea_client.errors import HttpClientError

from papers.contributions.tokens import issue
from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
    Revision,
    Task,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def trusted(live_server, make_paper) -> PapersWithCodeClient:
    make_paper()
    user = get_user_model().objects.create_user("maintainer")
    _, key = issue(user, "trusted", "benchmark pushes")
    return PapersWithCodeClient(token=key, url=live_server.url)


def test_a_maintainer_creates_a_task_dataset_and_board_and_fills_it(trusted):
    task = trusted.task_add(TaskCreateRequest(name="Graph Matching", description="Match."))
    assert (task.id, task.name, task.description) == ("graph-matching", "Graph Matching", "Match.")
    task = trusted.task_update("graph-matching", TaskUpdateRequest(description="Match graphs."))
    assert task.description == "Match graphs."
    dataset = trusted.dataset_add(
        DatasetCreateRequest(name="PascalVOC Keypoints", url="https://example.org/voc")
    )
    assert dataset.id == "pascalvoc-keypoints"
    dataset = trusted.dataset_update(dataset.id, DatasetUpdateRequest(name="PascalVOC KP"))
    assert (dataset.name, dataset.url) == ("PascalVOC KP", "https://example.org/voc")

    board = trusted.evaluation_create(
        EvaluationTableCreateRequest(task=task.id, dataset=dataset.id, description="Keypoints.")
    )
    assert board.id == "graph-matching--pascalvoc-keypoints"
    board = trusted.evaluation_update(board.id, EvaluationTableUpdateRequest(description="KP."))
    assert board.description == "KP."

    metric = trusted.evaluation_metric_add(
        board.id, MetricCreateRequest(name="Error", description="", is_loss=True)
    )
    assert (metric.id, metric.is_loss) == ("error", True)
    metric = trusted.evaluation_metric_update(
        board.id, metric.id, MetricUpdateRequest(name="Error rate")
    )
    assert (metric.name, metric.is_loss) == ("Error rate", True)

    worse = trusted.evaluation_result_add(
        board.id,
        ResultCreateRequest(
            metrics={"Error rate": "12.5"}, methodology="Baseline", paper="paper-1",
            evaluated_on="2021-03-01", external_source_url="https://example.org/board",
        ),
    )  # fmt: skip
    better = trusted.evaluation_result_add(
        board.id, ResultCreateRequest(metrics={"Error rate": 9.1}, methodology="Ours")
    )
    assert (better.best_rank, better.best_metric) == (1, "Error rate")
    assert worse.paper == "paper-1" and worse.external_source_url == "https://example.org/board"
    updated = trusted.evaluation_result_update(
        board.id, worse.id, ResultUpdateRequest(metrics={"Error rate": "5.0"})
    )
    assert updated.best_rank == 1 and updated.methodology == "Baseline"
    ranked = trusted.evaluation_result_list(board.id)
    assert [(r.id, r.best_rank) for r in ranked.results] == [(worse.id, 1), (better.id, 2)]

    trusted.evaluation_result_delete(board.id, better.id)
    assert [r.id for r in trusted.evaluation_result_list(board.id).results] == [worse.id]
    trusted.evaluation_metric_delete(board.id, metric.id)
    assert trusted.evaluation_metric_list(board.id).count == 0
    trusted.evaluation_delete(board.id)
    trusted.dataset_delete(dataset.id)
    trusted.task_delete(task.id)
    assert not Leaderboard.objects.filter(task__slug="graph-matching").exists()
    assert not Task.objects.filter(slug="graph-matching").exists()
    assert not Dataset.objects.filter(slug="pascalvoc-keypoints").exists()
    # Every one of the fifteen calls is a revision naming the maintainer and the token.
    revisions = Revision.objects.filter(user__username="maintainer", via="token")
    assert revisions.count() >= 15
    assert {r.action for r in revisions} == {"add", "change", "delete"}


def _sync_request(values: list[float]) -> EvaluationTableSyncRequest:
    return EvaluationTableSyncRequest(
        task="task-1",
        dataset="dataset-sync",
        description="Pushed whole.",
        metrics=[MetricSyncRequest(name="Accuracy", is_loss=False)],
        results=[
            ResultSyncRequest(
                metrics={"Accuracy": value},
                methodology=f"Model {i}",
                paper=None,
                evaluated_on="2022-01-0" + str(i % 9 + 1),
                external_id=f"run-{i}",
            )
            for i, value in enumerate(values)
        ],
    )


def test_evaluation_synchronize_writes_a_whole_board_once(trusted):
    Dataset.objects.create(slug="dataset-sync", name="Sync")
    answer = trusted.evaluation_synchronize(_sync_request([70.0, 90.0, 80.0]))
    assert answer.id == "task-1--dataset-sync"
    assert [m.name for m in answer.metrics] == ["Accuracy"]
    assert [r.external_id for r in answer.results] == ["run-0", "run-1", "run-2"]
    board = Leaderboard.objects.get(task__slug="task-1", dataset__slug="dataset-sync")
    rows = LeaderboardRow.objects.filter(leaderboard=board, row_key__startswith="sync-")
    assert rows.count() == 3
    revisions = Revision.objects.count()
    again = trusted.evaluation_synchronize(_sync_request([70.0, 90.0, 80.0]))
    assert [r.id for r in again.results] == [r.id for r in answer.results]
    assert rows.count() == 3 and Revision.objects.count() == revisions  # nothing changed
    ranked = trusted.evaluation_result_list(answer.id, items_per_page=50).results
    assert [(r.methodology, r.best_rank) for r in ranked] == [
        ("Model 1", 1), ("Model 2", 2), ("Model 0", 3)
    ]  # fmt: skip
    kept = MetricRanking.objects.get(metric=LeaderboardMetric.objects.get(
        leaderboard=board, name="Accuracy"))  # fmt: skip
    assert len(kept.ranks) == board.rows.count()


def test_the_client_reads_the_provenance_keys_without_complaint(trusted, live_server):
    import httpx

    board = trusted.evaluation_result_list("task-1--dataset-1").results
    assert board  # parsed into the client's model despite source/contributed_* keys
    raw = httpx.get(f"{live_server.url}/api/v1/evaluations/task-1--dataset-1/results/").json()
    assert {"source", "contributed_by", "contributed_at"} <= set(raw["results"][0])
    assert raw["results"][0]["source"] == "archive"
    added = trusted.evaluation_result_add(
        "task-1--dataset-1", ResultCreateRequest(metrics={}, methodology="Mine")
    )
    raw = httpx.get(
        f"{live_server.url}/api/v1/evaluations/task-1--dataset-1/results/{added.id}/"
    ).json()
    assert (raw["source"], raw["contributed_by"]) == ("contributed", "maintainer")


def test_a_write_without_a_token_is_refused_and_changes_nothing(live_server, make_paper):
    make_paper()
    anonymous = PapersWithCodeClient(url=live_server.url)
    with pytest.raises(HttpClientError) as caught:
        anonymous.task_add(TaskCreateRequest(name="Sneaky"))
    assert caught.value.status_code == 401
    assert not Task.objects.filter(slug="sneaky").exists()
