"""What the MCP server's tools answer, as plain synchronous functions over the ORM.

Each returns a dict in the JSON API's shapes (papers.api.shapes), so an agent and a
script reading /api/v1/ see the same records, plus `licence` (the data's licence and
attribution, as every page carries them). Bad arguments raise ToolInputError with a
message naming the argument; the server turns it into an error result, never a crash.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Q

from codewithpapers.cache import by_version
from papers import search as fulltext
from papers.api import shapes
from papers.api.http import ID_MAX_LENGTH
from papers.api.lists import PAPER_COLUMNS, paper_rows, ranked_results, sourced, with_source
from papers.api.taxonomy import HEAVY_PAPER, board_metrics, board_results, visible_tasks
from papers.forms import MAX_PAGE, SearchForm, describe_errors
from papers.identifiers import evaluation_id, metric_ids
from papers.kept.rankings import kept_leaders
from papers.models import (
    CodeLink,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Paper,
    Sample,
    Task,
    ranked_rows,
)
from papers.paging import Window
from papers.querysets import filter_papers, frameworks, named_ids, paper_id_sets
from papers.vocabularies import STATUS_CLAIM

MAX_LIMIT = 50  # results a call; `page` goes further
MAX_BOARDS = 20  # leaderboards find_sota answers


class ToolInputError(ValueError):
    """An argument the tool cannot use; the message names it."""


# --- arguments ----------------------------------------------------------------------------


def text(name: str, value: str, *, limit: int = ID_MAX_LENGTH) -> str:
    if not isinstance(value, str):
        raise ToolInputError(f"{name}: must be text")
    if "\x00" in value:
        raise ToolInputError(f"{name}: contains a NUL character")
    if len(value) > limit:
        raise ToolInputError(f"{name}: longer than {limit} characters")
    return value.strip()


def window(page: int, limit: int) -> tuple[int, int]:
    """(offset, size) of page `page` of `limit` results."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ToolInputError(f"limit: must be between 1 and {MAX_LIMIT}")
    if not 1 <= page <= 10_000:
        raise ToolInputError("page: must be between 1 and 10000")
    return (page - 1) * limit, limit


def site_url(path: str) -> str:
    return settings.ARCHIVE_ABOUT["site"].rstrip("/") + path


def with_licence(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "licence": shapes.licence()}


def find_paper(paper_id: str) -> Paper:
    """The visible paper with this slug, or this arXiv id."""
    paper_id = text("paper_id", paper_id)
    if not paper_id:
        raise ToolInputError("paper_id: give a paper's id (its slug) or its arXiv id")
    found = (
        with_source(Paper.objects.visible(), *PAPER_COLUMNS, "report_claim")
        .filter(slug=paper_id)
        .first()
    )
    if found is None:
        named = Paper.objects.named_by(paper_id)
        if named is not None:
            found = with_source(Paper.objects, *PAPER_COLUMNS, "report_claim").get(pk=named.pk)
    if found is None:
        raise ToolInputError(f"paper_id: no paper {paper_id!r} (try search_papers)")
    return found


# --- the tools ------------------------------------------------------------------------------


def search_papers(
    q: str = "",
    *,
    task: str = "",
    method: str = "",
    dataset: str = "",
    framework: str = "",
    status: str = "",
    has_code: bool = False,
    official: bool = False,
    has_report: bool = False,
    year_from: int | None = None,
    year_to: int | None = None,
    sort: str = "",
    page: int = 1,
    limit: int = 20,
) -> dict[str, Any]:
    offset, size = window(page, limit)
    if (offset + size) > MAX_PAGE * 20:
        raise ToolInputError(f"page: the search pages through its first {MAX_PAGE * 20} results")
    params: dict[str, Any] = {
        "q": text("q", q, limit=10_000),
        "task": text("task", task),
        "method": text("method", method),
        "dataset": text("dataset", dataset),
        "framework": text("framework", framework),
        "status": text("status", status),
        "sort": text("sort", sort),
        "has_code": "1" if has_code else "",
        "official": "1" if official else "",
        "has_report": "1" if has_report else "",
        "year_from": "" if year_from is None else str(year_from),
        "year_to": "" if year_to is None else str(year_to),
    }
    form = SearchForm(params, frameworks=by_version("frameworks", frameworks))
    if not form.is_valid():
        raise ToolInputError(describe_errors(form))
    data = form.cleaned_data
    if form.unknown:  # a filter naming nothing the archive has: no paper can match
        return with_licence({"total": 0, "capped": False, "results": [], "unknown": form.unknown})
    q = data["q"]
    result = fulltext.search(
        q,
        filter_papers(Paper.objects.visible(), data),
        sort=data["sort"] or ("relevance" if q.strip() else "newest"),
        offset=offset,
        limit=size,
        narrowed_by=paper_id_sets(data),
    )
    by_id = {p.id: p for p in with_source(Paper.objects.filter(id__in=result.ids), *PAPER_COLUMNS)}
    papers = [by_id[pk] for pk in result.ids if pk in by_id]
    results = [
        {**row, "url": site_url(paper.get_absolute_url())}
        for row, paper in zip(paper_rows(papers), papers, strict=True)
    ]
    return with_licence(
        {"total": result.total, "capped": result.capped, "page": page, "results": results}
    )


def get_paper(paper_id: str) -> dict[str, Any]:
    paper = find_paper(paper_id)
    authors = [
        spelled or name
        for spelled, name in paper.authorships.order_by("position").values_list(
            "name", "author__name"
        )
    ]
    links = CodeLink.objects.filter(paper=paper).select_related("repository")
    code = [
        shapes.repository(link.repository, link.framework, is_official=link.is_official)
        for link in links.order_by("-is_official", "position", "id")
    ]
    rows = list(
        paper.results.select_related(
            "paper", "contributed_by", "verification", "leaderboard__task", "leaderboard__dataset"
        )
        .defer(*HEAVY_PAPER)
        .order_by("leaderboard_id", "position", "id")
    )
    results = [
        {
            **result,
            "evaluation": evaluation_id(row.leaderboard.task.slug, row.leaderboard.dataset.slug),
        }
        for result, row in zip(ranked_results(rows), rows, strict=True)
    ]
    return with_licence(
        {
            "paper": shapes.paper(paper, authors),
            "url": site_url(paper.get_absolute_url()),
            "code": code,
            "results": results,
            "execution": execution_summary(paper),
        }
    )


def execution_summary(paper: Paper) -> dict[str, Any]:
    return {
        "summary": paper.samples.status_counts(),
        "claim": paper.report_claim or STATUS_CLAIM,
        "report_read_at": paper.report_read_at.isoformat() if paper.report_read_at else None,
    }


def get_execution_report(
    paper_id: str,
    *,
    status: str = "",
    language: str = "",
    contract_check: str = "",
    repo_kind: str = "",
    page: int = 1,
    limit: int = 20,
) -> dict[str, Any]:
    offset, size = window(page, limit)
    paper = find_paper(paper_id)
    filters = {
        key: value
        for key, value in (
            ("status", text("status", status)),
            ("language", text("language", language)),
            ("contract_check", text("contract_check", contract_check)),
            ("repo_kind", text("repo_kind", repo_kind)),
        )
        if value
    }
    samples = Sample.objects.filter(paper=paper, **filters)
    rows = samples.order_by("position")[offset : offset + size]
    return with_licence(
        {
            "paper": paper.slug,
            "url": site_url(paper.get_absolute_url()),
            **execution_summary(paper),
            "count": samples.count(),
            "page": page,
            "samples": [shapes.sample(s, paper.slug) for s in rows],
        }
    )


def find_board(task: str, dataset: str) -> Leaderboard:
    task_ids = named_ids(Task, text("task", task))
    dataset_ids = named_ids(Dataset, text("dataset", dataset))
    if not task_ids:
        raise ToolInputError(f"task: no task named {task!r} (try list_tasks)")
    if not dataset_ids:
        raise ToolInputError(f"dataset: no dataset named {dataset!r}")
    board = (
        sourced(Leaderboard)
        .select_related("task", "dataset")
        .filter(task_id__in=task_ids, dataset_id__in=dataset_ids)
        .order_by("id")
        .first()
    )
    if board is None:
        raise ToolInputError(f"no leaderboard for {task!r} on {dataset!r} (try find_sota)")
    return board


def metric_row(m: LeaderboardMetric, metric_id: str) -> dict[str, Any]:
    lower, source = m.direction
    return {
        **shapes.metric(m, metric_id),
        "direction": "lower is better" if lower else "higher is better",
        "direction_source": source,
    }


def row_source(row: LeaderboardRow) -> dict[str, Any]:
    """Where a leaderboard row comes from: its paper as the archive names it, and its code."""
    return {
        "paper": row.paper.slug if row.paper_id else None,
        "paper_title": row.paper_title or None,
        "paper_url": shapes.link(row.paper_url),
        "code_links": [
            url
            for url in ((c.get("url") if isinstance(c, dict) else c) for c in row.code_links or [])
            if shapes.link(url)
        ],
    }


def get_leaderboard(task: str, dataset: str, *, limit: int = 20) -> dict[str, Any]:
    _, size = window(1, limit)
    board = find_board(task, dataset)
    metrics = board_metrics(board)
    count, rows = board_results(board, Window(1, size), metrics=metrics)
    ranked = [{**shape, "source": row_source(row)} for shape, row in rows]
    return with_licence(
        {
            "evaluation": shapes.evaluation(board),
            "task": board.task.name,
            "dataset": board.dataset.name,
            "url": site_url(board.get_absolute_url()),
            "metrics": [
                metric_row(m, i) for i, m in zip(metric_ids(metrics), metrics, strict=True)
            ],
            "ranked_by": metrics[0].name if metrics else None,
            "count": count,
            "rows": ranked,
        }
    )


def find_sota(task: str, dataset: str = "") -> dict[str, Any]:
    """Each leaderboard of the task (on the dataset, if named) with its best result."""
    task = text("task", task)
    if not task:
        raise ToolInputError("task: name a task (try list_tasks)")
    task_ids = named_ids(Task, task) or list(
        visible_tasks().filter(name__icontains=task).values_list("id", flat=True)[:50]
    )
    if not task_ids:
        raise ToolInputError(f"task: no task named {task!r} (try list_tasks)")
    boards = sourced(Leaderboard).filter(task_id__in=task_ids).select_related("task", "dataset")
    if dataset := text("dataset", dataset):
        dataset_ids = named_ids(Dataset, dataset) or list(
            Dataset.objects.filter(
                Q(name__icontains=dataset) | Q(full_name__icontains=dataset)
            ).values_list("id", flat=True)[:50]
        )
        if not dataset_ids:
            raise ToolInputError(f"dataset: no dataset named {dataset!r}")
        boards = boards.filter(dataset_id__in=dataset_ids)
    total = boards.count()
    boards = list(boards.order_by("task_id", "position", "id")[:MAX_BOARDS])
    best = best_rows(boards)
    found = []
    for board in boards:
        row, metric = best.get(board.id, (None, None))
        found.append(
            {
                "evaluation": shapes.evaluation(board),
                "task": board.task.name,
                "dataset": board.dataset.name,
                "url": site_url(board.get_absolute_url()),
                "metric": metric_row(metric, "") if metric else None,
                "best": (
                    {
                        **shapes.result(row, row.rank, metric.name),
                        "value": row.metrics.get(metric.name),
                        "source": row_source(row),
                    }
                    if row
                    else None
                ),
            }
        )
    return with_licence({"count": total, "boards": found})


def best_rows(
    boards: list[Leaderboard],
) -> dict[int, tuple[LeaderboardRow, LeaderboardMetric]]:
    """Each board's first-ranked row by its first metric, as its page ranks them: from
    the kept rankings (their first entries), the boards without one ranked here from
    their rows. Three queries for all boards."""
    firsts: dict[int, LeaderboardMetric] = {}
    for m in LeaderboardMetric.objects.filter(leaderboard_id__in=[b.id for b in boards]).order_by(
        "leaderboard_id", "position", "id"
    ):
        firsts.setdefault(m.leaderboard_id, m)
    leaders = kept_leaders(firsts.values())
    unkept = [board_id for board_id, m in firsts.items() if m.id not in leaders]
    leader_ids = [leader[0] for leader in leaders.values() if leader and leader[1] is not None]
    rows: dict[int, list[LeaderboardRow]] = {}
    by_id: dict[int, LeaderboardRow] = {}
    for row in (
        LeaderboardRow.objects.filter(Q(id__in=leader_ids) | Q(leaderboard_id__in=unkept))
        .select_related("paper", "contributed_by", "verification")
        .defer(*HEAVY_PAPER)
    ):
        rows.setdefault(row.leaderboard_id, []).append(row)
        by_id[row.id] = row
    best = {}
    for board_id, metric in firsts.items():
        if metric.id in leaders:
            row_id, rank = leaders[metric.id] or (None, None)
            row = by_id.get(row_id)
            if row is not None and rank is not None:
                row.rank = rank
                best[board_id] = (row, metric)
            continue
        ranked = ranked_rows([metric], rows.get(board_id, []))
        if ranked and ranked[0].rank is not None:
            best[board_id] = (ranked[0], metric)
    return best


def list_tasks(q: str = "", *, area: str = "", page: int = 1, limit: int = 50) -> dict[str, Any]:
    offset, size = window(page, limit)
    tasks = with_source(visible_tasks(), "id", "slug", "name", "description", "categories")
    if q := text("q", q):
        tasks = tasks.filter(Q(name__icontains=q) | Q(slug__icontains=q))
    tasks = tasks.order_by("name", "id")
    if area := text("area", area).casefold():  # categories are a JSON list: read in Python
        rows = [
            t
            for t in tasks
            if any(
                isinstance(c, str) and area in (c.casefold(), shapes.area(c)["id"])
                for c in t.categories or []
            )
        ]
        count, page_rows = len(rows), rows[offset : offset + size]
    else:
        count, page_rows = tasks.count(), list(tasks[offset : offset + size])
    boards: dict[int, int] = {}
    for task_id in Leaderboard.objects.filter(task_id__in=[t.id for t in page_rows]).values_list(
        "task_id", flat=True
    ):
        boards[task_id] = boards.get(task_id, 0) + 1
    return with_licence(
        {
            "count": count,
            "page": page,
            "results": [
                {
                    **shapes.task(t),
                    "areas": [c for c in t.categories or [] if isinstance(c, str)],
                    "leaderboards": boards.get(t.id, 0),
                    "url": site_url(t.get_absolute_url()),
                }
                for t in page_rows
            ],
        }
    )
