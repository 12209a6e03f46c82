"""/api/v1: tasks, areas, datasets, methods and evaluation tables (leaderboards).

An evaluation table's id is "<task slug>--<dataset slug>" (a leaderboard is one task on
one dataset); a metric's id is the slug of its name; a result's id is the row's stable
key within its leaderboard. Areas are the tasks' categories ("Computer Vision").
"""

from __future__ import annotations

from django import forms
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest

from papers.api import shapes
from papers.api.http import (
    PageForm,
    Payload,
    Text,
    endpoint,
    page_of,
    parameters,
    requested_page,
)
from papers.api.lists import NoParameters, method_row, methods_with_paper, paper_page, sourced
from papers.api.openapi import declare, page, ref
from papers.identifiers import metric_ids, split_evaluation_id
from papers.kept.rankings import Ranking
from papers.leaderboards.board import board_ranking
from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    Task,
)
from papers.paging import Window


class NameQuery(PageForm):
    q = Text()
    name = Text()


class FullNameQuery(NameQuery):
    full_name = Text()


def visible_tasks() -> QuerySet[Task]:
    return sourced(Task).filter(hidden=False)


# --- tasks --------------------------------------------------------------------------------


@declare("Tasks", response=page(ref("Task")), query=NameQuery)
@endpoint
def task_list(request: HttpRequest) -> Payload:
    params = parameters(request, NameQuery)
    page = requested_page(params)
    tasks = visible_tasks()
    for key in ("q", "name"):
        if params[key]:
            tasks = tasks.filter(name__icontains=params[key])
    rows = tasks.order_by("name", "id")[page.offset : page.stop]
    return Payload(page_of(request, page, tasks.count(), map(shapes.task, rows)))


@declare("A task", response=ref("Task"), query=NoParameters)
@endpoint
def task_detail(request: HttpRequest, task_id: str) -> Payload:
    parameters(request, NoParameters)
    task = sourced(Task).get(slug=task_id)
    return Payload(shapes.task(task), task.updated_at)


def _related_tasks(request: HttpRequest, task_id: str, tasks_of) -> Payload:
    page = requested_page(parameters(request, PageForm))
    tasks = tasks_of(sourced(Task).get(slug=task_id))
    rows = tasks[page.offset : page.stop]
    return Payload(page_of(request, page, tasks.count(), map(shapes.task, rows)))


@declare("A task's parent tasks", response=page(ref("Task")), query=PageForm)
@endpoint
def task_parents(request: HttpRequest, task_id: str) -> Payload:
    return _related_tasks(
        request,
        task_id,
        lambda task: sourced(Task).filter(child_edges__child=task).order_by("name", "id"),
    )


@declare("A task's subtasks", response=page(ref("Task")), query=PageForm)
@endpoint
def task_children(request: HttpRequest, task_id: str) -> Payload:
    return _related_tasks(
        request,
        task_id,
        lambda task: (
            sourced(Task)
            .filter(parent_edges__parent=task)
            .order_by("parent_edges__position", "id")
        ),
    )


@declare("A task's papers, newest first", response=page(ref("Paper")), query=PageForm)
@endpoint
def task_papers(request: HttpRequest, task_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    task = sourced(Task).get(slug=task_id)
    return Payload(
        paper_page(request, Paper.objects.visible().filter(task_links__task=task), page)
    )


def _evaluations(request: HttpRequest, boards: QuerySet[Leaderboard]) -> Payload:
    page = requested_page(parameters(request, PageForm))
    rows = boards.select_related("task", "dataset").order_by("task_id", "position", "id")
    results = map(shapes.evaluation, rows[page.offset : page.stop])
    return Payload(page_of(request, page, boards.count(), results))


@declare("A task's evaluation tables", response=page(ref("Evaluation")), query=PageForm)
@endpoint
def task_evaluations(request: HttpRequest, task_id: str) -> Payload:
    return _evaluations(request, sourced(Leaderboard).filter(task=sourced(Task).get(slug=task_id)))


# --- areas: the tasks' categories ------------------------------------------------------------


def areas() -> dict[str, list[int]]:
    """Area name → ids of the visible tasks in it, in name order: one query."""
    found: dict[str, list[int]] = {}
    for task_id, categories in (
        visible_tasks().order_by("name", "id").values_list("id", "categories")
    ):
        for name in categories or []:
            if isinstance(name, str) and shapes.area(name)["id"]:
                found.setdefault(name, []).append(task_id)
    return dict(sorted(found.items(), key=lambda item: item[0].casefold()))


def area_named(area_id: str) -> tuple[str, list[int]]:
    """The area with this id; names that slug alike ("NLP", "nlp") are one area."""
    matches = [(name, ids) for name, ids in areas().items() if shapes.area(name)["id"] == area_id]
    if not matches:
        raise Http404
    task_ids = sorted({i for _, ids in matches for i in ids})
    return matches[0][0], task_ids


@declare("Areas (the tasks' categories)", response=page(ref("Area")), query=NameQuery)
@endpoint
def area_list(request: HttpRequest) -> Payload:
    params = parameters(request, NameQuery)
    page = requested_page(params)
    unique: dict[str, dict] = {}
    for name in areas():
        if all(params[k].casefold() in name.casefold() for k in ("q", "name")):
            area = shapes.area(name)
            unique.setdefault(area["id"], area)
    rows = list(unique.values())
    return Payload(page_of(request, page, len(rows), page.slice(rows)))


@declare("An area", response=ref("Area"), query=NoParameters)
@endpoint
def area_detail(request: HttpRequest, area_id: str) -> Payload:
    parameters(request, NoParameters)
    return Payload(shapes.area(area_named(area_id)[0]))


@declare("An area's tasks", response=page(ref("Task")), query=PageForm)
@endpoint
def area_tasks(request: HttpRequest, area_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    _, task_ids = area_named(area_id)
    tasks = sourced(Task).filter(id__in=page.slice(task_ids)).order_by("name", "id")
    return Payload(page_of(request, page, len(task_ids), map(shapes.task, tasks)))


# --- datasets and methods -------------------------------------------------------------------


@declare("Datasets", response=page(ref("Dataset")), query=FullNameQuery)
@endpoint
def dataset_list(request: HttpRequest) -> Payload:
    params = parameters(request, FullNameQuery)
    page = requested_page(params)
    datasets = sourced(Dataset).filter(hidden=False)
    if q := params["q"]:
        datasets = datasets.filter(Q(name__icontains=q) | Q(full_name__icontains=q))
    for key in ("name", "full_name"):
        if params[key]:
            datasets = datasets.filter(**{f"{key}__iexact": params[key]})
    rows = datasets.order_by("name", "id")[page.offset : page.stop]
    return Payload(page_of(request, page, datasets.count(), map(shapes.dataset, rows)))


@declare("A dataset", response=ref("Dataset"), query=NoParameters)
@endpoint
def dataset_detail(request: HttpRequest, dataset_id: str) -> Payload:
    parameters(request, NoParameters)
    dataset = sourced(Dataset).get(slug=dataset_id)
    return Payload(shapes.dataset(dataset), dataset.updated_at)


@declare("A dataset's evaluation tables", response=page(ref("Evaluation")), query=PageForm)
@endpoint
def dataset_evaluations(request: HttpRequest, dataset_id: str) -> Payload:
    dataset = sourced(Dataset).get(slug=dataset_id)
    return _evaluations(request, sourced(Leaderboard).filter(dataset=dataset))


@declare("Methods", response=page(ref("Method")), query=FullNameQuery)
@endpoint
def method_list(request: HttpRequest) -> Payload:
    params = parameters(request, FullNameQuery)
    page = requested_page(params)
    methods = Method.objects.filter(hidden=False)
    if q := params["q"]:
        methods = methods.filter(Q(name__icontains=q) | Q(full_name__icontains=q))
    for key in ("name", "full_name"):
        if params[key]:
            methods = methods.filter(**{f"{key}__icontains": params[key]})
    rows = methods_with_paper(methods.order_by("name", "id"))[page.offset : page.stop]
    return Payload(page_of(request, page, methods.count(), map(method_row, rows)))


@declare("A method", response=ref("Method"), query=NoParameters)
@endpoint
def method_detail(request: HttpRequest, method_id: str) -> Payload:
    parameters(request, NoParameters)
    method = methods_with_paper(Method.objects.all()).get(slug=method_id)
    return Payload(method_row(method), method.updated_at)


# --- evaluation tables ------------------------------------------------------------------------


def get_board(evaluation_id: str) -> Leaderboard:
    parts = split_evaluation_id(evaluation_id)
    if parts is None:
        raise Http404
    return (
        sourced(Leaderboard)
        .select_related("task", "dataset")
        .get(task__slug=parts[0], dataset__slug=parts[1])
    )


@declare("Evaluation tables (leaderboards)", response=page(ref("Evaluation")), query=PageForm)
@endpoint
def evaluation_list(request: HttpRequest) -> Payload:
    return _evaluations(request, sourced(Leaderboard))


@declare("An evaluation table", response=ref("Evaluation"), query=NoParameters)
@endpoint
def evaluation_detail(request: HttpRequest, evaluation_id: str) -> Payload:
    parameters(request, NoParameters)
    board = get_board(evaluation_id)
    return Payload(shapes.evaluation(board), board.updated_at)


def _metrics(board: Leaderboard) -> list[tuple[str, dict]]:
    metrics = list(board.metrics.all())
    return [
        (metric_id, shapes.metric(m, metric_id))
        for metric_id, m in zip(metric_ids(metrics), metrics, strict=True)
    ]


@declare(
    "An evaluation table's metrics; the first ranks", response=page(ref("Metric")), query=PageForm
)
@endpoint
def evaluation_metrics(request: HttpRequest, evaluation_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    metrics = [shape for _, shape in _metrics(get_board(evaluation_id))]
    return Payload(page_of(request, page, len(metrics), page.slice(metrics)))


@declare("A metric of an evaluation table", response=ref("Metric"), query=NoParameters)
@endpoint
def evaluation_metric(request: HttpRequest, evaluation_id: str, metric_id: str) -> Payload:
    parameters(request, NoParameters)
    for found_id, shape in _metrics(get_board(evaluation_id)):
        if found_id == metric_id:
            return Payload(shape)
    raise Http404


class ResultQuery(PageForm):
    """`has_report=true` keeps the results whose paper's code has an execution report, as
    the leaderboard page's row filter does: their ranks stay those on the whole board."""

    has_report = forms.TypedChoiceField(
        required=False,
        choices=[("", ""), ("true", "true"), ("false", "false"), ("1", "1"), ("0", "0")],
        coerce=lambda value: value in ("true", "1"),
        empty_value=False,
    )


def board_metrics(board: Leaderboard) -> list[LeaderboardMetric]:
    """The board's metrics in its order; the first ranks its rows."""
    return list(board.metrics.order_by("position", "id"))


def board_results(
    board: Leaderboard,
    window: Window,
    *,
    has_report: bool = False,
    metrics: list[LeaderboardMetric] | None = None,
) -> tuple[int, list[tuple[dict, LeaderboardRow]]]:
    """A window of the board's results ranked by its first metric (the site's leaderboard
    order), each with its row, and how many there are; with `has_report`, only those whose
    paper's code has a report, ranks unchanged. Reads the board's kept ranking and the
    rows of the window only, whatever the board's size (and its metrics, unless given)."""
    metrics = board_metrics(board) if metrics is None else metrics
    ranking = board_ranking(board, metrics, "report" if has_report else "")
    return len(ranking), ranked_results_of(board, metrics, window.slice(ranking))


def ranked_results_of(
    board: Leaderboard, metrics: list[LeaderboardMetric], ranked: Ranking
) -> list[tuple[dict, LeaderboardRow]]:
    """The results of these (row id, rank) of the board, in their order: one query. A row
    deleted since the ranking was kept is left out."""
    rows = (
        board.rows.filter(id__in=[pk for pk, _ in ranked])
        .select_related("paper", "contributed_by", "verification")
        .defer(*HEAVY_PAPER)
        .in_bulk()
    )
    best = metrics[0].name if metrics else None
    return [(shapes.result(rows[pk], rank, best), rows[pk]) for pk, rank in ranked if pk in rows]


# A result needs only its paper's slug and report summary (the MCP tools read results too).
HEAVY_PAPER = tuple(
    f"paper__{name}"
    for name in (
        "abstract", "short_abstract", "arxiv_metadata", "extracted_results", "extra",
        "report_mcp", "report_repo_kind_vocabulary", "report_claim", "author_names",
    )
)  # fmt: skip


@declare("An evaluation table's results, ranked", response=page(ref("Result")), query=ResultQuery)
@endpoint
def evaluation_results(request: HttpRequest, evaluation_id: str) -> Payload:
    params = parameters(request, ResultQuery)
    page = requested_page(params)
    count, results = board_results(get_board(evaluation_id), page, has_report=params["has_report"])
    return Payload(page_of(request, page, count, [shape for shape, _ in results]))


@declare("A result of an evaluation table", response=ref("Result"), query=NoParameters)
@endpoint
def evaluation_result(request: HttpRequest, evaluation_id: str, result_id: str) -> Payload:
    parameters(request, NoParameters)
    board = get_board(evaluation_id)
    row = board.rows.filter(row_key=result_id).values_list("id", flat=True).first()
    if row is None:
        raise Http404
    metrics = board_metrics(board)
    ranked = [(pk, rank) for pk, rank in board_ranking(board, metrics) if pk == row]
    for shape, _ in ranked_results_of(board, metrics, ranked or [(row, None)]):
        return Payload(shape)
    raise Http404
