"""The MCP server, through the SDK's own client: over streamable HTTP against a live
server (/mcp, inside the Django deployment) and over stdio (`manage.py mcp` as a
subprocess), every tool called, on whichever engine DATABASE_URL names. Hostile
arguments are error results or JSON-RPC errors, never a 500 or a dead server."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import urllib.error
import urllib.request

import pytest
from django.core.management import call_command
from django.db import connection
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from papers.api import shapes
from papers.vocabularies import STATUS_CLAIM
from tests.servers import ROOT, gunicorn, in_thread, manage, production_env

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = {
    "search_papers",
    "get_paper",
    "get_leaderboard",
    "find_sota",
    "list_tasks",
    "get_execution_report",
}


async def every_tool(client: Client) -> dict[str, object]:
    """Each tool called once over `client`, with arguments naming the fixture's graph."""
    listed = await client.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS
    assert all(tool.annotations.read_only_hint for tool in listed.tools)
    answers = {
        "search_papers": await client.call_tool(
            "search_papers", {"task": "Task 1", "has_code": True}
        ),
        "get_paper": await client.call_tool("get_paper", {"paper_id": "paper-1"}),
        "get_paper_by_arxiv": await client.call_tool("get_paper", {"paper_id": "2101.00001"}),
        "get_leaderboard": await client.call_tool(
            "get_leaderboard", {"task": "task-1", "dataset": "Dataset 1"}
        ),
        "find_sota": await client.call_tool("find_sota", {"task": "Task 1"}),
        "list_tasks": await client.call_tool("list_tasks", {"area": "vision"}),
        "list_tasks_all": await client.call_tool("list_tasks", {"limit": 2, "page": 2}),
        "get_execution_report": await client.call_tool(
            "get_execution_report", {"paper_id": "paper-1", "status": "ran_honours"}
        ),
    }
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["paper://{paper_id}"]
    resource = await client.read_resource("paper://paper-2")
    answers["resource"] = json.loads(resource.contents[0].text)
    return answers


def check(answers: dict) -> None:
    """What each tool answered: the API's shapes, ranks, directions, sources, licence."""
    for name, answer in answers.items():
        if name == "resource":
            continue
        assert not answer.is_error, (name, answer.content)
        data = answer.structured_content
        assert data["licence"] == shapes.licence(), name

    search = answers["search_papers"].structured_content
    assert search["total"] == 1, search
    assert search["results"][0]["id"] == "paper-1"
    assert search["results"][0]["url"].endswith("/paper/paper-1")

    paper = answers["get_paper"].structured_content
    assert paper["paper"]["id"] == "paper-1"
    assert paper["paper"]["authors"] == ["First Author1", "Second Author1"]
    assert paper["code"][0]["url"] == "https://github.com/lab1/model1"
    assert paper["code"][0]["is_official"] is True
    assert paper["results"][0]["best_rank"] == 1
    assert paper["results"][0]["evaluation"] == "task-1--dataset-1"
    assert paper["execution"]["summary"] == {"ran_honours": 1, "timed_out": 1}
    assert paper["execution"]["claim"] == STATUS_CLAIM
    assert answers["get_paper_by_arxiv"].structured_content["paper"]["id"] == "paper-1"

    board = answers["get_leaderboard"].structured_content
    assert board["evaluation"]["id"] == "task-1--dataset-1"
    assert board["metrics"][0]["name"] == "Top-1 Accuracy"
    assert board["metrics"][0]["direction"] == "higher is better"
    assert board["rows"][0]["best_rank"] == 1
    assert board["rows"][0]["source"]["paper"] == "paper-1"

    sota = answers["find_sota"].structured_content
    assert sota["count"] == 2  # the board, and its sub-board on the test split (no rows)
    best = {b["evaluation"]["id"]: b["best"] for b in sota["boards"]}
    assert best["task-1--dataset-1-test"] is None
    assert best["task-1--dataset-1"]["paper"] == "paper-1"
    assert best["task-1--dataset-1"]["value"] == "89.09%"
    assert sota["boards"][0]["metric"]["direction"] == "higher is better"

    tasks = answers["list_tasks"].structured_content
    assert {t["id"] for t in tasks["results"]} == {"task-1", "task-2"}
    assert tasks["results"][0]["leaderboards"] == 2  # its board and the sub-board

    every = answers["list_tasks_all"].structured_content
    assert every["count"] == 4  # two tasks and their subtasks, by name
    assert [t["id"] for t in every["results"]] == ["task-1", "task-2"]

    report = answers["get_execution_report"].structured_content
    assert report["count"] == 1
    assert report["samples"][0]["status"] == "ran_honours"
    assert report["summary"] == {"ran_honours": 1, "timed_out": 1}

    assert answers["resource"]["paper"]["id"] == "paper-2"
    assert answers["resource"]["licence"]["licence"] == "CC BY-SA 4.0"


# --- streamable HTTP, inside the site ---------------------------------------------------------


def test_every_tool_over_streamable_http(graph, live_server):
    async def go():
        async with Client(f"{live_server.url}/mcp", mode="legacy") as client:
            return await every_tool(client)

    check(in_thread(asyncio.run, go()))


def test_every_tool_over_streamable_http_with_the_current_protocol(graph, live_server):
    async def go():
        async with Client(f"{live_server.url}/mcp") as client:
            return await every_tool(client)

    check(in_thread(asyncio.run, go()))


HOSTILE = [
    ("get_paper", {}),
    ("get_paper", {"paper_id": "\x00"}),
    ("get_paper", {"paper_id": "x" * 100_000}),
    ("get_paper", {"paper_id": ["paper-1"]}),
    ("get_paper", {"paper_id": "no-such-paper"}),
    ("search_papers", {"q": "\x00attention", "page": 0}),
    ("search_papers", {"year_from": "soon"}),
    ("search_papers", {"year_from": 2022, "year_to": 2020}),
    ("search_papers", {"limit": 10**30}),
    ("search_papers", {"sort": "'; DROP TABLE papers_paper; --"}),
    ("search_papers", {"page": 100_000}),
    ("get_leaderboard", {"task": "Task 1", "dataset": "nothing"}),
    ("get_leaderboard", {"task": {"$gt": ""}, "dataset": "x"}),
    ("find_sota", {"task": ""}),
    ("list_tasks", {"limit": -1}),
    ("get_execution_report", {"paper_id": "paper-1", "status": "\x00"}),
    ("no_such_tool", {}),
]


def test_hostile_arguments_are_error_results_and_the_server_keeps_answering(graph, live_server):
    async def go():
        answers = []
        async with Client(f"{live_server.url}/mcp", mode="legacy") as client:
            for name, arguments in HOSTILE:
                try:
                    answers.append((name, await client.call_tool(name, arguments)))
                except MCPError as exc:  # a JSON-RPC error: also an answer
                    answers.append((name, exc))
            after = await client.call_tool("get_paper", {"paper_id": "paper-1"})
            with pytest.raises(MCPError):
                await client.read_resource("paper://no-such-paper")
        return answers, after

    answers, after = in_thread(asyncio.run, go())
    for name, answer in answers:
        assert isinstance(answer, MCPError) or answer.is_error, (name, answer)
        text = str(answer) if isinstance(answer, MCPError) else answer.content[0].text
        assert "Traceback" not in text
    assert not after.is_error


@pytest.mark.parametrize(
    "body",
    [b"", b"{", b"[]", b'{"jsonrpc": "2.0"}', b"\x00\xff" * 10, b'{"jsonrpc":"2.0","id":1}'],
)
def test_malformed_json_rpc_is_a_client_error_not_a_500(client, body):
    response = in_thread(
        lambda: client.post(
            "/mcp",
            body,
            content_type="application/json",
            headers={"Accept": "application/json, text/event-stream"},
        )
    )
    assert 400 <= response.status_code < 500, (body, response.status_code, response.content)


def test_a_get_of_the_mcp_endpoint_is_not_a_500(client):
    assert 400 <= in_thread(client.get, "/mcp").status_code < 500


def test_the_mcp_endpoint_is_rate_limited_like_the_api(settings):
    from codewithpapers.middleware import rate_for

    assert rate_for("/mcp") == ("/mcp", settings.RATELIMITS["/api/"])


# --- stdio, as an agent on the same machine starts it ------------------------------------------


@pytest.fixture
def database_url(graph, tmp_path, migrated_sqlite) -> str:
    """A database holding the fixture's graph that another process can open: the test
    database itself on PostgreSQL (this test commits), a copy of a migrated SQLite file
    with the graph loaded into it on SQLite (the test database is in memory)."""
    settings = connection.settings_dict
    if connection.vendor == "postgresql":
        host = settings["HOST"] or "127.0.0.1"
        return (
            f"postgres://{settings['USER']}@{host}:{settings['PORT'] or 5432}/{settings['NAME']}"
        )
    dump = tmp_path / "graph.json"
    call_command("dumpdata", "papers", output=str(dump), verbosity=0)
    path = tmp_path / "graph.sqlite3"
    shutil.copy(migrated_sqlite, path)
    url = f"sqlite:///{path}"
    loaded = manage("loaddata", str(dump), env=production_env(DATABASE_URL=url))
    assert loaded.returncode == 0, loaded.stderr
    return url


def test_every_tool_over_stdio(database_url):
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp"],
        env=production_env(DATABASE_URL=database_url),
        cwd=str(ROOT),
    )

    async def go():
        async with Client(parameters, mode="legacy") as client:
            answers = await every_tool(client)
            hostile = await client.call_tool("get_paper", {"paper_id": "\x00"})
            return answers, hostile

    answers, hostile = in_thread(asyncio.run, go())
    check(answers)
    assert hostile.is_error


def test_the_mcp_server_answers_inside_gunicorn_and_is_rate_limited(
    database_url, tmp_path, collected_static
):
    """/mcp as deployed: gunicorn with the site's settings, the SDK's client, and a
    client past RATELIMIT_MCP refused with a JSON 429 and Retry-After."""
    env = production_env(
        DATABASE_URL=database_url, STATIC_ROOT=str(collected_static), RATELIMIT_MCP="12/m"
    )

    async def go(base: str):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            return await client.call_tool("get_paper", {"paper_id": "paper-1"})

    def post(base: str) -> tuple[int, dict, bytes]:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        request = urllib.request.Request(
            f"{base}/mcp",
            data=json.dumps(body).encode(),
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    with gunicorn(env, tmp_path / "gunicorn.log") as base:
        answer = in_thread(asyncio.run, go(base))
        assert not answer.is_error
        assert answer.structured_content["paper"]["id"] == "paper-1"
        statuses = []
        for _ in range(12):
            status, headers, body = post(base)
            statuses.append(status)
            if status == 429:
                assert int(headers["Retry-After"]) >= 1
                assert json.loads(body)["status"] == 429
                break
            assert status == 200 and "tools" in json.loads(body)["result"]
        assert statuses[-1] == 429, statuses
    log = (tmp_path / "gunicorn.log").read_text()
    assert "Traceback" not in log
