"""A board's results through the API and the MCP tools are ranked as its page ranks them,
whether the board's ranking is kept or worked out, and paging never re-ranks a window."""

from __future__ import annotations

import pytest

from papers.kept.rankings import forget_boards, refresh_boards
from papers.leaderboards.board import board_view
from papers.mcp import tools
from papers.models import Leaderboard, LeaderboardMetric, LeaderboardRow, Paper

pytestmark = pytest.mark.django_db

BOARD_ID = "task-1--dataset-1"
BOARD = f"/api/v1/evaluations/{BOARD_ID}"
# Ties, rows without a value, and values given as text of several shapes.
VALUES = ["12.5", "9.1", None, "12.5", "3", "n/a", "7.75", "9.1", "0.5", "15", None, "6"]


@pytest.fixture
def board(make_paper) -> Leaderboard:
    """A lower-is-better board of the values above (the fixture's own row has none), one
    row's paper having an execution report."""
    paper = make_paper()
    board = Leaderboard.objects.get(task__slug="task-1", dataset__slug="dataset-1")
    board.metrics.all().delete()
    LeaderboardMetric.objects.create(leaderboard=board, name="Error", lower_is_better=True)
    LeaderboardMetric.objects.create(leaderboard=board, name="Params", position=1)
    Paper.objects.filter(pk=paper.pk).update(has_report=True)  # as an imported record leaves it
    for position, value in enumerate(VALUES, 1):
        LeaderboardRow.objects.create(
            leaderboard=board,
            row_key=f"r{position}",
            position=position,
            model_name=f"model {position}",
            paper=paper if position == 5 else None,
            metrics={"Error": value, "Params": "10M"} if value else {"Params": "10M"},
        )
    return board


def _site_ranking(board: Leaderboard) -> list[tuple[str, int | None]]:
    view = board_view(board, number=1)
    assert view.page.total <= 100
    return [(row.row_key, row.rank) for row in view.rows]


def _api_ranking(client, query: str = "", size: int = 5) -> list[tuple[str, int | None]]:
    ranked, number = [], 1
    while True:
        response = client.get(f"{BOARD}/results/?items_per_page={size}&page={number}{query}")
        assert response.status_code == 200, response.content
        body = response.json()
        ranked += [(result["id"], result["best_rank"]) for result in body["results"]]
        if body["next"] is None:
            assert body["count"] == len(ranked)
            return ranked
        number += 1


@pytest.fixture(params=[True, False], ids=["kept", "worked-out"])
def either_board(request, board) -> Leaderboard:
    """The board with its ranking kept, or forgotten (each page then works it out)."""
    (refresh_boards if request.param else forget_boards)([board.pk])
    return board


def test_api_pages_of_a_board_rank_as_its_page_does(client, either_board):
    board = either_board
    site = _site_ranking(board)
    assert [rank for _, rank in site][:4] == [1, 2, 3, 4]  # 0.5, 3, 6, 7.75: lower is better
    assert site[-1][1] is None
    assert _api_ranking(client) == site
    assert _api_ranking(client, size=3) == site


def test_one_result_carries_its_rank_on_the_whole_board(client, board):
    refresh_boards([board.pk])
    ranks = dict(_site_ranking(board))
    for key in ("r1", "r4", "r9", "r3"):  # tied, tied, the best, no value
        body = client.get(f"{BOARD}/results/{key}/").json()
        assert body["best_rank"] == ranks[key], key
    assert client.get(f"{BOARD}/results/no-such-row/").status_code == 404


def test_results_with_a_report_keep_their_ranks_on_the_whole_board(client, board):
    refresh_boards([board.pk])
    ranks = dict(_site_ranking(board))
    kept = _api_ranking(client, "&has_report=true")
    reported = set(
        board.rows.filter(paper__has_report=True, paper__hidden=False).values_list(
            "row_key", flat=True
        )
    )
    assert {key for key, _ in kept} == reported == {"r5", "row-1"}  # the fixture's own row too
    assert all(rank == ranks[key] for key, rank in kept)


def test_the_mcp_leaderboard_is_the_boards_top_rows_and_counts_them_all(board):
    refresh_boards([board.pk])
    site = _site_ranking(board)
    answer = tools.get_leaderboard("Task 1", "Dataset 1", limit=4)
    assert answer["count"] == len(site)
    assert [(row["id"], row["best_rank"]) for row in answer["rows"]] == site[:4]
    assert answer["ranked_by"] == "Error"
    assert answer["metrics"][0]["direction"] == "lower is better"


def test_find_sota_names_the_row_the_board_ranks_first(
    either_board, django_assert_max_num_queries
):
    board = either_board
    (first_key, first_rank), *_ = _site_ranking(board)
    with django_assert_max_num_queries(7):
        answer = tools.find_sota("Task 1", "Dataset 1")
    (found,) = [b for b in answer["boards"] if b["evaluation"]["id"] == BOARD_ID]
    assert (
        (found["best"]["id"], found["best"]["best_rank"]) == (first_key, first_rank) == ("r9", 1)
    )
    assert found["best"]["value"] == "0.5" and found["metric"]["name"] == "Error"


def test_find_sota_leaves_out_a_board_with_no_ranked_row(board):
    LeaderboardRow.objects.filter(leaderboard=board).update(
        metrics={"Params": "10M"}, metric_values={}
    )
    refresh_boards([board.pk])
    answer = tools.find_sota("Task 1", "Dataset 1")
    (found,) = [b for b in answer["boards"] if b["evaluation"]["id"] == BOARD_ID]
    assert found["best"] is None
