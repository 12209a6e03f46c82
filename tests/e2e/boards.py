"""The board the contribution browser tests write to: three ranked results, and a newer
paper that is not on it yet (arXiv 2301.00042, /paper/new-net)."""

from __future__ import annotations

from papers.kept import refresh_all as refresh_browse_counts
from papers.kept.papers import refresh_counts
from papers.models import Dataset, Leaderboard, LeaderboardMetric, LeaderboardRow, Paper, Task

BOARD = "/sota/image-classification-on-imagenet"


def make_board() -> None:
    task = Task.objects.create(slug="image-classification", name="Image Classification")
    board = Leaderboard.objects.create(
        task=task, dataset=Dataset.objects.create(slug="imagenet", name="ImageNet")
    )
    LeaderboardMetric.objects.create(leaderboard=board, name="Top-1 Accuracy", position=0)
    LeaderboardMetric.objects.create(leaderboard=board, name="Params", position=1)
    for i in range(3):
        paper = Paper.objects.create(
            slug=f"net-{i}", title=f"Residual network {i}", published=f"{2016 + i}-03-01"
        )
        LeaderboardRow.objects.create(
            leaderboard=board,
            row_key=f"r{i}",
            position=i,
            model_name=f"ResNet-{i}",
            paper=paper,
            metrics={"Top-1 Accuracy": f"{80 + i}", "Params": "25M"},
        )
    Paper.objects.create(
        slug="new-net", title="A newer network", arxiv_id="2301.00042", published="2023-01-05"
    )
    refresh_counts(Paper.objects.values_list("id", flat=True))
    refresh_browse_counts()
