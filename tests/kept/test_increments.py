"""A result added, changed or deleted through the write API keeps its board's rankings,
charts and execution facts without ranking the board again (papers.kept.increments):
after every write of a random sequence, what is kept is exactly what a refresh from every
row keeps, and the rows' readings are those of reading the board whole. Ties, rows
without a value or a date, records, papers with reports and claims, values that move the
chart's frame, and values whose reading their column decides ("12,345") all come up."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from papers import kept as kept_package
from papers.charts import LINK_EVERY_POINT
from papers.contributions.tokens import issue
from papers.kept.papers import refresh_counts
from papers.kept.rankings import refresh_boards
from papers.metrics import read_rows
from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardExecution,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
    Paper,
    Repository,
    Sample,
    Task,
)

pytestmark = pytest.mark.django_db

URL = "/api/v1/evaluations/task-1--dataset-1/results/"
METRICS = ("Accuracy", "Error", "Params")  # higher, lower and lower is better
CLAIMS = ("Two of three samples ran.", "Every sample ran.")


def _value(rng: random.Random):
    """A metric value as a writer may give it: often one the board holds already (a tie),
    sometimes none, text, or one whose reading its column decides."""
    roll = rng.random()
    if roll < 0.5:
        return rng.choice([rng.randint(0, 30), f"{rng.randint(0, 30)}", f"{rng.randint(0, 30)}%"])
    if roll < 0.8:
        return f"{rng.uniform(0, 30):.2f}"
    if roll < 0.9:
        return rng.choice(["", "n/a", None, "-"])
    if roll < 0.95:
        return rng.choice([f"{rng.uniform(-50, 80):.1f}", 1e6])  # beyond the frame
    return rng.choice(["1,234", "37,7", "2,500"])


def _day(rng: random.Random) -> str | None:
    if rng.random() < 0.15:
        return None
    if rng.random() < 0.05:
        return rng.choice(["2009-03-01", "2026-01-01"])  # beyond the frame
    return (dt.date(2016, 1, 1) + dt.timedelta(days=rng.randint(0, 2500))).isoformat()


def _metrics(rng: random.Random) -> dict:
    return {name: _value(rng) for name in METRICS if rng.random() < 0.85}


def _board(rng: random.Random, rows: int) -> tuple[Leaderboard, list[str]]:
    task = Task.objects.create(slug="task-1", name="Task 1")
    dataset = Dataset.objects.create(slug="dataset-1", name="Dataset 1")
    board = Leaderboard.objects.create(task=task, dataset=dataset)
    for position, name in enumerate(METRICS):
        LeaderboardMetric.objects.create(leaderboard=board, name=name, position=position)
    papers = [
        Paper.objects.create(
            slug=f"paper-{i}",
            title=f"Paper {i}",
            published=dt.date(2015, 1, 1) + dt.timedelta(days=rng.randint(0, 3000)),
            has_report=i % 3 != 0,
            hidden=i == 4,
            sample_statuses={"ran_honours": i % 2, "failed": 1},
            report_claim=CLAIMS[i % 2] if i % 4 else "",
        )
        for i in range(8)
    ]
    for paper in papers[1:]:  # the first one's statuses are not its samples' (stale)
        repository = Repository.objects.create(url=f"https://github.com/lab/{paper.slug}")
        for position, (status, n) in enumerate(paper.sample_statuses.items()):
            for j in range(n):
                Sample.objects.create(
                    paper=paper, repository=repository, repo=f"lab/{paper.slug}",
                    position=position * 10 + j, path="model.py", entry=f"f{j}",
                    language="python", repo_kind="official", status=status,
                )  # fmt: skip
    refresh_counts([paper.pk for paper in papers[1:]])
    metrics = [_metrics(rng) for _ in range(rows)]
    readings = read_rows(metrics)
    LeaderboardRow.objects.bulk_create(
        LeaderboardRow(
            leaderboard=board,
            row_key=f"r{i}",
            position=i,
            model_name=f"Model {i}",
            metrics=metrics[i],
            metric_values=readings[i],
            paper_date=_day(rng) or "",
            paper=rng.choice([None, *papers]),
        )
        for i in range(rows)
    )
    refresh_boards([board.pk])
    return board, [paper.slug for paper in papers]


def _kept(board: Leaderboard) -> tuple:
    rankings = MetricRanking.objects.filter(leaderboard=board).order_by("metric_id")
    execution = LeaderboardExecution.objects.filter(leaderboard=board)
    return (
        list(rankings.values_list("metric_id", "ranks", "chart", "metric_name", "version")),
        list(execution.values_list("reported", "ran", "claims")),
    )


def _write(client: Client, rng: random.Random, board: Leaderboard, papers: list[str]) -> int:
    keys = list(board.rows.values_list("row_key", flat=True))
    roll = rng.random()
    if roll < 0.5 or len(keys) < 5:
        body = {"metrics": _metrics(rng), "methodology": "added"}
        if day := _day(rng):
            body["evaluated_on"] = day
        if rng.random() < 0.4:
            body["paper"] = rng.choice(papers)
        return client.post(URL, body, content_type="application/json").status_code
    key = rng.choice(keys)
    if roll < 0.8:
        body = rng.choice(
            [
                {"metrics": _metrics(rng)},
                {"evaluated_on": _day(rng) or "2020-01-01"},
                {"paper": rng.choice(papers)},
                {"methodology": "renamed"},
                {"metrics": _metrics(rng), "evaluated_on": _day(rng) or "2021-05-05"},
            ]
        )
        return client.patch(f"{URL}{key}/", body, content_type="application/json").status_code
    return client.delete(f"{URL}{key}/").status_code


@pytest.mark.parametrize(
    "seed, rows",
    [(1, 12), (2, 40), (3, 40), (4, LINK_EVERY_POINT + 30), (5, LINK_EVERY_POINT - 3)],
)
def test_each_result_written_keeps_the_board_as_a_refresh_from_every_row_does(
    monkeypatch, seed, rows
):
    rng = random.Random(seed)
    board, papers = _board(rng, rows)
    user = get_user_model().objects.create_user("writer", is_staff=True)
    _, key = issue(user, "staff")
    client = Client(headers={"Authorization": f"Token {key}"})
    refreshed: list = []
    whole = kept_package.refresh_boards
    monkeypatch.setattr(
        kept_package, "refresh_boards", lambda ids: refreshed.append(ids) or whole(ids)
    )
    writes = 40
    for step in range(writes):
        status = _write(client, rng, board, papers)
        assert status in (200, 201, 204), status
        kept = _kept(board)
        assert len(kept[0]) == len(METRICS), step
        refresh_boards([board.pk])
        assert _kept(board) == kept, f"write {step} of seed {seed}"
        rows_now = list(board.rows.order_by("id").values_list("metrics", "metric_values"))
        assert [values for _, values in rows_now] == read_rows([m for m, _ in rows_now]), step
    # Most writes were kept without a refresh from every row (on a board of a dozen rows
    # most new values move the chart's frame).
    if rows >= 40:
        assert len(refreshed) < writes / 2, len(refreshed)
