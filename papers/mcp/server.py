"""The MCP server: read-only tools over the archive, on the official MCP Python SDK.

The tools are async wrappers around papers.mcp.tools, each running its ORM work with
asgiref's sync_to_async (thread-sensitive): under the /mcp view that is the request's own
thread and database connection (papers.mcp.http), under `manage.py mcp` one worker thread.
Papers are also resources, `paper://<id>`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from papers.mcp import tools

INSTRUCTIONS = (
    "Code with Papers: the archived Papers with Code data (papers, code links, "
    "leaderboards, tasks, datasets) with execution reports on each paper's code. "
    "search_papers finds papers; get_paper gives one with its code, results and execution "
    "summary; find_sota gives the best results for a task (and dataset); get_leaderboard "
    "ranks one task on one dataset; list_tasks names the tasks; get_execution_report lists "
    "a paper's samples. A sample's status is an execution fact about one function, not a "
    "verdict on the paper. The data is CC BY-SA 4.0: cite it as each result's licence says."
)

READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)

# Set by `manage.py mcp`: a long-lived process closes stale connections before each call,
# as Django does around each request.
STANDALONE = {"on": False}


def run(function: Callable[..., dict[str, Any]], /, *args, **kwargs) -> Any:
    """The tool's work, in the thread that owns the database connection; bad arguments
    become a ToolError, which the client sees as an error result naming the argument."""

    def work() -> dict[str, Any]:
        if STANDALONE["on"]:
            close_old_connections()
        try:
            return function(*args, **kwargs)
        except tools.ToolInputError as exc:
            raise ToolError(str(exc)) from exc

    return sync_to_async(work, thread_sensitive=True)()


Text = Annotated[str, Field(max_length=255)]
Page = Annotated[int, Field(ge=1, le=10_000, description="Page of results, from 1.")]
Limit = Annotated[int, Field(ge=1, le=tools.MAX_LIMIT, description="Results a page.")]


async def search_papers(
    q: Annotated[
        str,
        Field(
            max_length=10_000,
            description='Search syntax: every word must match; "a phrase", -word, a OR b.',
        ),
    ] = "",
    task: Annotated[Text, Field(description="A task's name or id.")] = "",
    method: Annotated[Text, Field(description="A method's name or id.")] = "",
    dataset: Annotated[Text, Field(description="A dataset's name or id.")] = "",
    framework: Annotated[
        Text, Field(description="pytorch, tf, jax… ('unspecified': none named).")
    ] = "",
    status: Annotated[Text, Field(description="Papers with a sample of this status.")] = "",
    has_code: bool = False,
    official: Annotated[bool, Field(description="Only papers with official code.")] = False,
    has_report: Annotated[
        bool, Field(description="Only papers whose code has an execution report.")
    ] = False,
    year_from: Annotated[int | None, Field(ge=1000, le=2100)] = None,
    year_to: Annotated[int | None, Field(ge=1000, le=2100)] = None,
    sort: Literal["", "relevance", "newest", "implementations"] = "",
    page: Page = 1,
    limit: Limit = 20,
) -> dict[str, Any]:
    """Search the papers as the site's search does, with its filters; each result is a
    paper in the API's shape with its execution summary and its page's URL."""
    return await run(
        tools.search_papers,
        q,
        task=task,
        method=method,
        dataset=dataset,
        framework=framework,
        status=status,
        has_code=has_code,
        official=official,
        has_report=has_report,
        year_from=year_from,
        year_to=year_to,
        sort=sort,
        page=page,
        limit=limit,
    )


async def get_paper(
    paper_id: Annotated[Text, Field(description="The paper's id (its slug) or its arXiv id.")],
) -> dict[str, Any]:
    """One paper: its record, its code (official first), its results with their ranks on
    each leaderboard, and its execution summary with the claim a status makes."""
    return await run(tools.get_paper, paper_id)


async def get_leaderboard(
    task: Annotated[Text, Field(description="The task's name or id.")],
    dataset: Annotated[Text, Field(description="The dataset's name or id.")],
    limit: Limit = 20,
) -> dict[str, Any]:
    """One leaderboard (a task on a dataset): its metrics with their direction (lower or
    higher is better), and its rows ranked by the first metric, each with its source."""
    return await run(tools.get_leaderboard, task, dataset, limit=limit)


async def find_sota(
    task: Annotated[Text, Field(description="A task's name or id, or part of its name.")],
    dataset: Annotated[Text, Field(description="A dataset's name or id (optional).")] = "",
) -> dict[str, Any]:
    """The state of the art: each leaderboard of the task (on the dataset, if given) with
    its best result by its first metric."""
    return await run(tools.find_sota, task, dataset)


async def list_tasks(
    q: Annotated[Text, Field(description="Part of the task's name.")] = "",
    area: Annotated[
        Text, Field(description="An area: 'Computer Vision', 'natural-language-processing'…")
    ] = "",
    page: Page = 1,
    limit: Limit = 50,
) -> dict[str, Any]:
    """Tasks by name, with their areas and how many leaderboards each has."""
    return await run(tools.list_tasks, q, area=area, page=page, limit=limit)


async def get_execution_report(
    paper_id: Annotated[Text, Field(description="The paper's id (its slug) or its arXiv id.")],
    status: Text = "",
    language: Text = "",
    contract_check: Text = "",
    repo_kind: Text = "",
    page: Page = 1,
    limit: Limit = 20,
) -> dict[str, Any]:
    """A paper's execution report: its samples (functions from its code run on synthesized
    inputs), filtered as on the site, with the summary by status and what a status claims."""
    return await run(
        tools.get_execution_report,
        paper_id,
        status=status,
        language=language,
        contract_check=contract_check,
        repo_kind=repo_kind,
        page=page,
        limit=limit,
    )


TOOLS = (search_papers, get_paper, get_leaderboard, find_sota, list_tasks, get_execution_report)


async def paper_resource(paper_id: str) -> str:
    """A paper's record: what get_paper answers, as JSON."""
    try:
        found = await run(tools.get_paper, paper_id)
    except ToolError as exc:
        raise ResourceNotFoundError(str(exc)) from exc
    return json.dumps(found, ensure_ascii=False)


@functools.cache
def server() -> MCPServer:
    built = MCPServer(
        "Code with Papers",
        instructions=INSTRUCTIONS,
        website_url="https://codewithpapers.app",
        version="1",
    )
    for tool in TOOLS:
        built.add_tool(tool, annotations=READ_ONLY, structured_output=True)
    built.resource(
        "paper://{paper_id}",
        name="paper",
        description="A paper's record, with its code, results and execution summary.",
        mime_type="application/json",
    )(paper_resource)
    return built
