"""The MCP tools' answers, called directly: a fixed number of queries whatever the
paper's code, results and samples number, and the same shapes as the JSON API."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.mcp import tools
from papers.models import CodeLink, LeaderboardRow, Repository, Sample

pytestmark = pytest.mark.django_db


def queries(function, *args, **kwargs) -> int:
    with CaptureQueriesContext(connection) as captured:
        function(*args, **kwargs)
    return len(captured)


def grow(paper, n: int) -> None:
    """n more code links, leaderboard rows and samples for the paper."""
    board = paper.results.first().leaderboard
    for i in range(n):
        repository = Repository.objects.create(url=f"https://github.com/more/r{paper.pk}-{i}")
        CodeLink.objects.create(paper=paper, repository=repository, position=i + 1)
        LeaderboardRow.objects.create(
            leaderboard=board,
            row_key=f"more-{paper.pk}-{i}",
            paper=paper,
            metrics={"Top-1 Accuracy": f"{50 + i}%"},
            metric_values={"Top-1 Accuracy": 50.0 + i},
        )
        Sample.objects.create(
            paper=paper, repository=repository, repo="more/r", position=10 + i, status="ran"
        )


TOOLS = [
    (tools.get_paper, {"paper_id": "paper-1"}),
    (tools.get_execution_report, {"paper_id": "paper-1"}),
    (tools.get_leaderboard, {"task": "task-1", "dataset": "dataset-1"}),
    (tools.find_sota, {"task": "task-1"}),
    (tools.list_tasks, {}),
    (tools.search_papers, {"q": "attention"}),
]


@pytest.mark.parametrize(("tool", "arguments"), TOOLS)
def test_a_tool_runs_the_same_queries_however_much_a_paper_has(make_paper, tool, arguments):
    paper = make_paper(title="Attention")
    before = queries(tool, **arguments)
    grow(paper, 7)
    assert queries(tool, **arguments) == before


@pytest.mark.parametrize(("tool", "arguments"), TOOLS)
def test_a_tool_runs_the_same_queries_however_many_records_were_contributed(
    make_paper, tool, arguments
):
    """Where each record comes from (its contributor) is read with the record, not a query
    per contributed row."""
    import datetime as dt

    from django.contrib.auth import get_user_model

    from papers.models import Leaderboard, Paper, Task

    make_paper(title="Attention")
    make_paper(title="Attention again")
    before = queries(tool, **arguments)
    user = get_user_model().objects.create_user("contributor")
    for model in (Paper, Task, Leaderboard, LeaderboardRow):
        model.objects.update(contributed_by=user, contributed_at=dt.datetime.now(dt.UTC))
    assert queries(tool, **arguments) == before


def test_the_paper_the_tool_gives_is_the_apis(make_paper, client):
    make_paper()
    from_api = client.get("/api/v1/papers/paper-1/").json()
    assert tools.get_paper("paper-1")["paper"] == from_api


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"paper_id": ""}, "paper_id: give"),
        ({"paper_id": "a\x00b"}, "paper_id: contains a NUL"),
        ({"paper_id": "x" * 300}, "paper_id: longer than 255"),
        ({"paper_id": "nothing-here"}, "paper_id: no paper"),
    ],
)
def test_a_bad_paper_id_names_the_argument(db, arguments, message):
    with pytest.raises(tools.ToolInputError, match=message):
        tools.get_paper(**arguments)
