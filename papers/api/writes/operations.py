"""What each write call does, given its validated body (papers.api.writes.fields), its
URL's ids and who writes: the record written, its revision, and what the one refresh
call (papers.kept.after_write) must refresh. The views run each in one transaction; an
approved proposal runs the same function with the contributor and the moderator.

A board's writes lock the board first, so that two writers to one board take turns:
each one's refresh ranks every row the other committed.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.db.models import Max
from django.http import Http404
from django.utils.text import slugify

from papers.api import shapes
from papers.contributions.revisions import Actor, delete, record, snapshot
from papers.identifiers import arxiv_slug, metric_ids, parse_arxiv, split_evaluation_id
from papers.models import (
    Author,
    CodeLink,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
    Paper,
    PaperAuthor,
    Record,
    Repository,
    Revision,
    Task,
    TaskEdge,
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


def _contribute(obj: Record, actor: Actor) -> None:
    obj.mark_contributed(actor.user)


def _given(data: dict, name: str) -> bool:
    return name in data and data[name] is not None


# --- lookups ------------------------------------------------------------------------------


def task_of(slug: str, field_name: str | None = None) -> Task:
    found = Task.objects.filter(slug=slug).first()
    if found is None:
        if field_name:
            raise Invalid(field_name, f"no task with id {slug!r}")
        raise Http404
    return found


def dataset_of(slug: str, field_name: str | None = None) -> Dataset:
    found = Dataset.objects.filter(slug=slug).first()
    if found is None:
        if field_name:
            raise Invalid(field_name, f"no dataset with id {slug!r}")
        raise Http404
    return found


def paper_of(text: str, field_name: str | None = "paper") -> Paper:
    """A paper by its id (slug) or arXiv id."""
    found = Paper.objects.filter(slug=text).first()
    if found is None and (arxiv := parse_arxiv(text)):
        found = Paper.objects.filter(arxiv_id=arxiv).first()
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
    _contribute(dataset, actor)
    dataset.save()
    record(dataset, before, actor)
    return Outcome(200, shapes.dataset(dataset), records={Dataset: {dataset.pk}})


def dataset_delete(data: dict, target: dict, actor: Actor) -> Outcome:
    delete(dataset_of(target["dataset_id"]), actor)
    return Outcome(204, None)


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


def evaluation_result_add(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    top = board.rows.aggregate(top=Max("position"))["top"]
    row = LeaderboardRow(
        leaderboard=board, row_key="api-" + secrets.token_hex(8), position=(top or 0) + 1
    )
    _row_values(row, data, partial=False)
    _contribute(row, actor)
    row.save()
    record(row, {}, actor)
    return Outcome(201, row, papers={row.paper_id}, boards={board.pk})


def evaluation_result_update(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    row = row_of(board, target["result_id"])
    before, paper_before = snapshot(row), row.paper_id
    _row_values(row, data, partial=True)
    _contribute(row, actor)
    row.save()
    record(row, before, actor)
    return Outcome(200, row, papers={paper_before, row.paper_id}, boards={board.pk})


def evaluation_result_delete(data: dict, target: dict, actor: Actor) -> Outcome:
    board = board_of(target["evaluation_id"], lock=True)
    row = row_of(board, target["result_id"])
    paper = row.paper_id
    delete(row, actor)
    return Outcome(204, None, papers={paper}, boards={board.pk})


# --- evaluation_synchronize: a whole board in one call ------------------------------------


def sync_key(result: dict) -> str:
    """A synchronized row's stable key: from its external id when given, else from what
    it is (methodology, paper, date), so that the same call twice writes nothing new."""
    if result.get("external_id"):
        basis = "id:" + result["external_id"]
    else:
        basis = "|".join(
            str(result.get(k) or "") for k in ("methodology", "paper", "evaluated_on")
        )
    return "sync-" + hashlib.sha1(basis.encode()).hexdigest()[:24]


_ROW_FIELDS = ["metrics", "model_name", "uses_additional_data", "paper_date",
               "external_source_url", "paper", "paper_title", "paper_url"]  # fmt: skip


def evaluation_synchronize(data: dict, target: dict, actor: Actor) -> Outcome:
    task = task_of(data["task"], "task")
    dataset = dataset_of(data["dataset"], "dataset")
    board = Leaderboard.objects.filter(task=task, dataset=dataset).first()
    if board is None:
        evaluation_create(data, {}, actor)
        board = Leaderboard.objects.select_related("task", "dataset").get(
            task=task, dataset=dataset
        )
    lock_board(board.pk)
    before = snapshot(board)
    board.description = data.get("description") or board.description
    if data.get("mirror_url"):
        board.mirror_url = data["mirror_url"]
    if snapshot(board) != before:
        _contribute(board, actor)
        board.save()
        record(board, before, actor)
    metrics = _sync_metrics(board, data["metrics"], actor)
    results = _sync_results(board, data["results"], actor)
    response = {
        **shapes.evaluation(board),
        "external_id": data.get("external_id") or "",
        "metrics": metrics,
        "results": results,
    }
    papers = set(board.rows.exclude(paper=None).values_list("paper_id", flat=True).distinct())
    return Outcome(200, response, boards={board.pk}, papers=papers)


def _sync_metrics(board: Leaderboard, given: list[dict], actor: Actor) -> list[dict]:
    existing = {m.name: m for m in board.metrics.all()}
    top = max((m.position for m in existing.values()), default=-1)
    out = []
    for item in given:
        metric = existing.get(item["name"])
        is_loss = item.get("is_loss")
        if metric is None:
            top += 1
            metric = LeaderboardMetric.objects.create(
                leaderboard=board,
                name=item["name"],
                lower_is_better=True if is_loss is None else is_loss,
                position=top,
            )
            existing[metric.name] = metric
            record(metric, {}, actor)
        elif is_loss is not None and metric.lower_is_better != is_loss:
            before = snapshot(metric)
            metric.lower_is_better = is_loss
            metric.save()
            record(metric, before, actor)
        out.append(
            {"name": metric.name, "description": item.get("description") or "",
             "is_loss": metric.is_lower_better}
        )  # fmt: skip
    return out


def _sync_results(board: Leaderboard, given: list[dict], actor: Actor) -> list[dict]:
    wanted = {sync_key(item): item for item in given}
    existing = {
        row.row_key: row
        for row in LeaderboardRow.objects.filter(leaderboard=board, row_key__in=list(wanted))
    }
    papers = _papers_named({item["paper"] for item in wanted.values() if item.get("paper")})
    top = board.rows.aggregate(top=Max("position"))["top"] or 0
    created, changed, befores = [], [], {}
    for key, item in wanted.items():
        row = existing.get(key)
        if row is None:
            top += 1
            row = LeaderboardRow(leaderboard=board, row_key=key, position=top)
            _sync_row(row, item, papers)
            _contribute(row, actor)
            created.append(row)
            continue
        before = snapshot(row)
        _sync_row(row, item, papers)
        if snapshot(row) != before:
            _contribute(row, actor)
            befores[row.pk] = before
            changed.append(row)
    LeaderboardRow.objects.bulk_create(created, batch_size=500)
    LeaderboardRow.objects.bulk_update(
        changed, [*_ROW_FIELDS, "contributed_by", "contributed_at", "edited_in_admin",
                  "updated_at"], batch_size=500,
    )  # fmt: skip
    if created or changed:
        from papers.models import revalue_boards

        revalue_boards([board.pk])
    revisions = [record(row, {}, actor, save=False) for row in created]
    revisions += [record(row, befores[row.pk], actor, save=False) for row in changed]
    Revision.objects.bulk_create([r for r in revisions if r is not None], batch_size=500)
    rows = {**existing, **{row.row_key: row for row in created}}
    return [
        {
            "id": key,
            "metrics": rows[key].metrics,
            "methodology": rows[key].model_name,
            "paper": item.get("paper") or None,
            "uses_additional_data": rows[key].uses_additional_data,
            "external_id": item.get("external_id") or "",
            "evaluated_on": rows[key].paper_date or None,
            "external_source_url": rows[key].external_source_url,
        }
        for key, item in wanted.items()
    ]


def _papers_named(names: set[str]) -> dict[str, Paper]:
    """Papers by the ids or arXiv ids given (two queries); an unknown one is a 400."""
    names = sorted(names)
    found = {p.slug: p for p in Paper.objects.filter(slug__in=names).only("id", "slug", "title")}
    arxiv = {parse_arxiv(n): n for n in names if n not in found and parse_arxiv(n)}
    for paper in Paper.objects.filter(arxiv_id__in=list(arxiv)).only("id", "slug", "title",
                                                                     "arxiv_id"):  # fmt: skip
        found[arxiv[paper.arxiv_id]] = paper
    missing = [n for n in names if n not in found]
    if missing:
        raise Invalid("results", f"no paper with id or arXiv id {missing[0]!r}")
    return found


def _sync_row(row: LeaderboardRow, item: dict, papers: dict[str, Paper]) -> None:
    from papers.metrics import json_safe_metrics

    paper = papers.get(item.get("paper") or "")
    row.metrics = json_safe_metrics(item.get("metrics") or {})
    row.model_name = item.get("methodology") or ""
    row.uses_additional_data = bool(item.get("uses_additional_data"))
    row.paper_date = item.get("evaluated_on") or ""
    row.external_source_url = item.get("external_source_url") or None
    row.paper = paper
    row.paper_title = paper.title if paper else ""
    row.paper_url = f"https://paperswithcode.com/paper/{paper.slug}" if paper else ""


# --- papers and code links ----------------------------------------------------------------


def paper_add(data: dict, target: dict, actor: Actor) -> Outcome:
    arxiv = parse_arxiv(data["arxiv_id"])
    if not arxiv:
        raise Invalid("arxiv_id", f"not an arXiv id: {data['arxiv_id']!r}")
    existing = Paper.objects.filter(arxiv_id=arxiv).first()
    if existing is not None:
        raise Conflict(f"the paper {existing.slug!r} has arXiv id {arxiv}")
    paper = Paper(
        slug=arxiv_slug(arxiv),
        arxiv_id=arxiv,
        title=data.get("title") or "",
        abstract=data.get("abstract") or "",
        published=data.get("published") or None,
        url_abs=data.get("url_abs") or f"https://arxiv.org/abs/{arxiv}",
        url_pdf=data.get("url_pdf") or f"https://arxiv.org/pdf/{arxiv}",
    )
    _contribute(paper, actor)
    paper.save()
    for position, name in enumerate(data.get("authors") or []):
        author, _ = Author.objects.get_or_create(
            slug=Author.slug_for(name)[:255] or "author", defaults={"name": name}
        )
        PaperAuthor.objects.create(paper=paper, author=author, position=position, name=name)
    record(paper, {}, actor)
    return Outcome(201, paper, papers={paper.pk})


def normalise_repository_url(url: str) -> str:
    """https, lower-case host without www., no trailing slash, no .git."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = parts.path.rstrip("/").removesuffix(".git").rstrip("/")
    return urlunsplit(("https", host, path, "", ""))


def code_link_add(data: dict, target: dict, actor: Actor) -> Outcome:
    paper = paper_of(target["paper_id"], None)
    url = normalise_repository_url(data["url"])
    if not Repository.parts_from_url(url)[1]:
        raise Invalid("url", "names no repository (https://host/owner/name)")
    repository = Repository.objects.filter(url__iexact=url).first()
    if repository is None:
        repository = Repository(url=url)
        _contribute(repository, actor)
        repository.save()
    if CodeLink.objects.filter(paper=paper, repository=repository).exists():
        raise Conflict(f"{paper.slug} already links {repository.url}")
    top = paper.code_links.aggregate(top=Max("position"))["top"]
    link = CodeLink(
        paper=paper,
        repository=repository,
        framework=(data.get("framework") or "").lower(),
        is_official=bool(data.get("is_official")),
        position=0 if top is None else top + 1,
    )
    _contribute(link, actor)
    link.save()
    record(link, {}, actor)
    shape = shapes.repository(repository, link.framework, is_official=link.is_official)
    return Outcome(201, {**shape, **shapes.provenance(link)}, papers={paper.pk})


OPERATIONS = {
    "task_add": task_add,
    "task_update": task_update,
    "task_delete": task_delete,
    "dataset_add": dataset_add,
    "dataset_update": dataset_update,
    "dataset_delete": dataset_delete,
    "evaluation_create": evaluation_create,
    "evaluation_update": evaluation_update,
    "evaluation_delete": evaluation_delete,
    "evaluation_metric_add": evaluation_metric_add,
    "evaluation_metric_update": evaluation_metric_update,
    "evaluation_metric_delete": evaluation_metric_delete,
    "evaluation_result_add": evaluation_result_add,
    "evaluation_result_update": evaluation_result_update,
    "evaluation_result_delete": evaluation_result_delete,
    "evaluation_synchronize": evaluation_synchronize,
    "paper_add": paper_add,
    "code_link_add": code_link_add,
}
DELETES = {name for name in OPERATIONS if name.endswith("_delete")}
