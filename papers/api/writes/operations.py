"""What each write call does, given its validated body (papers.api.writes.fields), its
URL's ids and who writes: the record written, its revision, and what the one refresh
call (papers.kept.after_write) must refresh. The views run each in one transaction; an
approved proposal runs the same function with the contributor and the moderator.

A board's writes lock the board first, so that two writers to one board take turns:
each one's refresh ranks every row the other committed.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Max
from django.http import Http404
from django.utils.text import slugify

from papers.api import shapes
from papers.contributions.revisions import Actor, delete, record, snapshot
from papers.identifiers import metric_ids, split_evaluation_id
from papers.kept.increments import Kept, RowFacts, keep_row_change, kept_before
from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    MetricRanking,
    Paper,
    Record,
    Task,
    TaskEdge,
    reread_board,
)


class Invalid(Exception):
    """A value the call cannot take: 400 naming the field."""

    def __init__(self, field_name: str, message: str):
        self.field, self.message = field_name, message
        super().__init__(f"{field_name}: {message}")


class Conflict(Exception):
    """409: the record exists already."""


@dataclass
class Outcome:
    """A live write's answer and what it touched (after_write()'s arguments)."""

    status: int
    data: Any
    papers: set = field(default_factory=set)
    boards: set = field(default_factory=set)
    records: dict = field(default_factory=dict)
    kept_boards: set = field(default_factory=set)  # boards the write kept up to date itself


def _contribute(obj: Record, actor: Actor) -> None:
    obj.mark_contributed(actor.user)


def _given(data: dict, name: str) -> bool:
    return name in data and data[name] is not None


# --- lookups ------------------------------------------------------------------------------


def _named(model, noun: str, slug: str, field_name: str | None) -> Task | Dataset:
    """The record with this id; else an error naming the body's field (or a 404 when the
    id is the URL's)."""
    found = model.objects.filter(slug=slug).first()
    if found is None:
        if field_name:
            raise Invalid(field_name, f"no {noun} with id {slug!r}")
        raise Http404
    return found


def task_of(slug: str, field_name: str | None = None) -> Task:
    return _named(Task, "task", slug, field_name)


def dataset_of(slug: str, field_name: str | None = None) -> Dataset:
    return _named(Dataset, "dataset", slug, field_name)


def method_of(slug: str, field_name: str | None = None) -> Method:
    return _named(Method, "method", slug, field_name)


def paper_of(text: str, field_name: str | None = "paper") -> Paper:
    """A paper by its id (slug), or the visible paper its arXiv id names."""
    found = Paper.objects.filter(slug=text).first() or Paper.objects.named_by(text)
    if found is None:
        if field_name:
            raise Invalid(field_name, f"no paper with id or arXiv id {text!r}")
        raise Http404
    return found


def board_of(evaluation_id: str, *, lock: bool = False) -> Leaderboard:
    parts = split_evaluation_id(evaluation_id)
    if parts is None:
        raise Http404
    boards = Leaderboard.objects.select_related("task", "dataset", "contributed_by")
    board = boards.filter(task__slug=parts[0], dataset__slug=parts[1]).first()
    if board is None:
        raise Http404
    if lock:
        lock_board(board.pk)
    return board


def lock_board(pk: int) -> None:
    """Hold the board's row until the transaction ends (PostgreSQL; SQLite has one writer
    at a time anyway): writes to one board take turns."""
    list(Leaderboard.objects.select_for_update().filter(pk=pk).values_list("pk"))


def metric_of(board: Leaderboard, metric_id: str) -> LeaderboardMetric:
    metrics = list(board.metrics.all())
    for found_id, metric in zip(metric_ids(metrics), metrics, strict=True):
        if found_id == metric_id:
            return metric
    raise Http404


def row_of(board: Leaderboard, result_id: str) -> LeaderboardRow:
    row = board.rows.select_related("paper", "contributed_by").filter(row_key=result_id).first()
    if row is None:
        raise Http404
    return row


def target_of(operation: str, target: dict) -> Record | None:
    """The existing record a call changes or deletes (None for an add)."""
    if operation.startswith("task_") and "task_id" in target:
        return task_of(target["task_id"])
    if operation.startswith("dataset_") and "dataset_id" in target:
        return dataset_of(target["dataset_id"])
    if operation.startswith("method_") and "method_id" in target:
        return method_of(target["method_id"])
    if operation.startswith(("paper_", "code_link_")) and "paper_id" in target:
        return paper_of(target["paper_id"], None)
    if "evaluation_id" in target and operation.startswith("evaluation_"):
        board = board_of(target["evaluation_id"])
        if "result_id" in target:
            return row_of(board, target["result_id"])
        if "metric_id" in target:
            return metric_of(board, target["metric_id"])
        if operation in ("evaluation_update", "evaluation_delete"):
            return board
    return None


# --- tasks --------------------------------------------------------------------------------


def _area_name(text: str) -> str:
    """An area given by id or name: the name the tasks already use, else the text."""
    wanted = slugify(text)
    for categories in Task.objects.exclude(categories=[]).values_list("categories", flat=True):
        for name in categories or []:
            if isinstance(name, str) and (name == text or slugify(name) == wanted):
                return name
    return text


def _set_parent(task: Task, parent_slug: str) -> None:
    parent = task_of(parent_slug, "parent_task")
    if parent.pk == task.pk:
        raise Invalid("parent_task", "a task cannot be its own parent")
    TaskEdge.objects.get_or_create(parent=parent, child=task)


def task_add(data: dict, target: dict, actor: Actor) -> Outcome:
    slug = Task.slug_for(data["name"])
    if not slug:
        raise Invalid("name", "gives no usable id (letters or digits needed)")
    if Task.objects.filter(slug=slug).exists():
        raise Conflict(f"a task with id {slug!r} exists")
    task = Task(slug=slug, name=data["name"], description=data.get("description") or "")
    if data.get("area"):
        task.categories = [_area_name(data["area"])]
    _contribute(task, actor)
    task.save()
    if data.get("parent_task"):
        _set_parent(task, data["parent_task"])
    record(task, {}, actor)
    return Outcome(201, shapes.task(task), records={Task: {task.pk}})


def task_update(data: dict, target: dict, actor: Actor) -> Outcome:
    task = task_of(target["task_id"])
    before = snapshot(task)
    for name in ("name", "description"):
        if _given(data, name):
            setattr(task, name, data[name])
    if data.get("area"):
        task.categories = [_area_name(data["area"])]
    _contribute(task, actor)
    task.save()
    if data.get("parent_task"):
        _set_parent(task, data["parent_task"])
    record(task, before, actor)
    return Outcome(200, shapes.task(task), records={Task: {task.pk}})


def task_delete(data: dict, target: dict, actor: Actor) -> Outcome:
    task = task_of(target["task_id"])
    delete(task, actor)
    return Outcome(204, None)


# --- datasets -----------------------------------------------------------------------------


def dataset_add(data: dict, target: dict, actor: Actor) -> Outcome:
    slug = Dataset.slug_for(data["name"])
    if not slug:
        raise Invalid("name", "gives no usable id (letters or digits needed)")
    if Dataset.objects.filter(slug=slug).exists():
        raise Conflict(f"a dataset with id {slug!r} exists")
    dataset = Dataset(
        slug=slug,
        name=data["name"],
        full_name=data.get("full_name") or "",
        homepage=data.get("url") or "",
    )
    _contribute(dataset, actor)
    dataset.save()
    record(dataset, {}, actor)
    return Outcome(201, shapes.dataset(dataset), records={Dataset: {dataset.pk}})


def dataset_update(data: dict, target: dict, actor: Actor) -> Outcome:
    dataset = dataset_of(target["dataset_id"])
    before = snapshot(dataset)
    if _given(data, "name"):
        dataset.name = data["name"]
    if _given(data, "url"):
        dataset.homepage = data["url"]
    if _given(data, "description"):
        dataset.description = data["description"]
    _contribute(dataset, actor)
    dataset.save()
    record(dataset, before, actor)
    return Outcome(200, shapes.dataset(dataset), records={Dataset: {dataset.pk}})


def dataset_delete(data: dict, target: dict, actor: Actor) -> Outcome:
    delete(dataset_of(target["dataset_id"]), actor)
    return Outcome(204, None)


# --- methods ------------------------------------------------------------------------------


def method_update(data: dict, target: dict, actor: Actor) -> Outcome:
    method = method_of(target["method_id"])
    before = snapshot(method)
    for name in ("name", "description"):
        if _given(data, name):
            setattr(method, name, data[name])
    _contribute(method, actor)
    method.save()
    record(method, before, actor)
    paper = Paper.objects.filter(pk=method.introduced_by_id).values_list("slug", flat=True)
    return Outcome(200, shapes.method(method, paper.first()), records={Method: {method.pk}})


# --- evaluation tables --------------------------------------------------------------------


def _board_records(board: Leaderboard) -> dict:
    return {Task: {board.task_id}, Dataset: {board.dataset_id}}


def evaluation_create(data: dict, target: dict, actor: Actor) -> Outcome:
    task = task_of(data["task"], "task")
    dataset = dataset_of(data["dataset"], "dataset")
    if Leaderboard.objects.filter(task=task, dataset=dataset).exists():
        raise Conflict(f"the evaluation table {task.slug}--{dataset.slug} exists")
    position = Leaderboard.objects.filter(task=task).aggregate(top=Max("position"))["top"]
    board = Leaderboard(
        task=task,
        dataset=dataset,
        description=data.get("description") or "",
        mirror_url=data.get("mirror_url") or None,
        position=(position or 0) + 1,
    )
    _contribute(board, actor)
    board.save()
    record(board, {}, actor)
    return Outcome(201, shapes.evaluation(board), boards={board.pk}, records=_board_records(board))


def evaluation_update(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    before, records = snapshot(board), _board_records(board)
    if _given(data, "task"):
        board.task = task_of(data["task"], "task")
    if _given(data, "dataset"):
        board.dataset = dataset_of(data["dataset"], "dataset")
    if _given(data, "description"):
        board.description = data["description"]
    if _given(data, "mirror_url"):
        board.mirror_url = data["mirror_url"] or None
    clash = Leaderboard.objects.filter(task=board.task, dataset=board.dataset)
    if clash.exclude(pk=board.pk).exists():
        raise Conflict(f"the evaluation table {board.task.slug}--{board.dataset.slug} exists")
    _contribute(board, actor)
    board.save()
    record(board, before, actor)
    for model, ids in _board_records(board).items():
        records[model] |= ids
    return Outcome(200, shapes.evaluation(board), boards={board.pk}, records=records)


def evaluation_delete(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    records = _board_records(board)
    papers = set(board.rows.exclude(paper=None).values_list("paper_id", flat=True))
    delete(board, actor)
    return Outcome(204, None, papers=papers, records=records)


# --- metrics ------------------------------------------------------------------------------


def _metric_shape(metric: LeaderboardMetric) -> dict:
    metrics = list(LeaderboardMetric.objects.filter(leaderboard_id=metric.leaderboard_id))
    for found_id, found in zip(metric_ids(metrics), metrics, strict=True):
        if found.pk == metric.pk:
            return shapes.metric(metric, found_id)
    return shapes.metric(metric, slugify(metric.name))


def evaluation_metric_add(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    if board.metrics.filter(name=data["name"]).exists():
        raise Conflict(f"the board has a metric named {data['name']!r}")
    top = board.metrics.aggregate(top=Max("position"))["top"]
    metric = LeaderboardMetric.objects.create(
        leaderboard=board,
        name=data["name"],
        lower_is_better=data["is_loss"],
        position=0 if top is None else top + 1,
    )
    record(metric, {}, actor)
    return Outcome(201, _metric_shape(metric), boards={board.pk})


def evaluation_metric_update(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    metric = metric_of(board, target["metric_id"])
    before = snapshot(metric)
    if _given(data, "name") and data["name"] != metric.name:
        if board.metrics.filter(name=data["name"]).exists():
            raise Conflict(f"the board has a metric named {data['name']!r}")
        _rename_metric(board, metric.name, data["name"])
        metric.name = data["name"]
    if _given(data, "is_loss"):
        metric.lower_is_better = data["is_loss"]
    metric.save()
    record(metric, before, actor)
    return Outcome(200, _metric_shape(metric), boards={board.pk})


def _rename_metric(board: Leaderboard, old: str, new: str) -> None:
    """The rows' values follow their column's new name."""
    rows = list(board.rows.only("id", "metrics", "metric_values"))
    for row in rows:
        for values in (row.metrics, row.metric_values):
            if isinstance(values, dict) and old in values:
                values[new] = values.pop(old)
    LeaderboardRow.objects.bulk_update(rows, ["metrics", "metric_values"], batch_size=500)


def evaluation_metric_delete(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    delete(metric_of(board, target["metric_id"]), actor)
    return Outcome(204, None, boards={board.pk})


# --- results --------------------------------------------------------------------------------


def _row_values(row: LeaderboardRow, data: dict, *, partial: bool) -> None:
    if not partial or _given(data, "metrics"):
        row.metrics = data.get("metrics") or {}
    if not partial or _given(data, "methodology"):
        row.model_name = data.get("methodology") or ""
    if not partial or _given(data, "uses_additional_data"):
        row.uses_additional_data = bool(data.get("uses_additional_data"))
    if not partial or _given(data, "evaluated_on"):
        row.paper_date = data.get("evaluated_on") or ""
    if not partial or _given(data, "external_source_url"):
        row.external_source_url = data.get("external_source_url") or None
    if not partial or _given(data, "paper"):
        paper = paper_of(data["paper"]) if data.get("paper") else None
        row.paper = paper
        row.paper_title = paper.title if paper else ""
        row.paper_url = f"https://paperswithcode.com/paper/{paper.slug}" if paper else ""


def result_shape(row: LeaderboardRow) -> dict:
    """The row as the API gives it, ranked by its board's kept ranking of the first metric."""
    first = LeaderboardMetric.objects.filter(leaderboard_id=row.leaderboard_id).first()
    rank = None
    if first is not None:
        for ranks in MetricRanking.objects.filter(metric=first).values_list("ranks", flat=True):
            rank = next((r for pk, r in ranks if pk == row.pk), None)
    return shapes.result(row, rank, first.name if first else None)


def _kept(outcome: Outcome, kept: Kept | None, before: RowFacts | None, row) -> Outcome:
    """The outcome with the row's board kept up to date here, when it can be (one row
    moved in its rankings and charts: papers.kept.increments), instead of by the refresh
    after the write (from every row). Not when the row's save read other rows' values
    differently."""
    if kept is None or (row is not None and row.revalued):
        return outcome
    if keep_row_change(kept, before, RowFacts.of(row) if row is not None else None):
        outcome.boards.discard(kept.board_id)
        outcome.kept_boards.add(kept.board_id)
    return outcome


def evaluation_result_add(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    kept = kept_before(board.pk)
    top = board.rows.aggregate(top=Max("position"))["top"]
    row = LeaderboardRow(
        leaderboard=board, row_key="api-" + secrets.token_hex(8), position=(top or 0) + 1
    )
    _row_values(row, data, partial=False)
    _contribute(row, actor)
    row.save()
    record(row, {}, actor)
    outcome = Outcome(201, row, papers={row.paper_id}, boards={board.pk})
    return _kept(outcome, kept, None, row)


def evaluation_result_update(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    kept = kept_before(board.pk)
    row = row_of(board, target["result_id"])
    before, paper_before, facts = snapshot(row), row.paper_id, RowFacts.of(row)
    _row_values(row, data, partial=True)
    _contribute(row, actor)
    row.save()
    record(row, before, actor)
    outcome = Outcome(200, row, papers={paper_before, row.paper_id}, boards={board.pk})
    return _kept(outcome, kept, facts, row)


def evaluation_result_delete(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    kept = kept_before(board.pk)
    row = row_of(board, target["result_id"])
    paper, facts = row.paper_id, RowFacts.of(row)
    delete(row, actor)
    outcome = Outcome(204, None, papers={paper}, boards={board.pk})
    if reread_board(board.pk):  # the row decided how its column's commas read
        return outcome
    return _kept(outcome, kept, facts, None)
