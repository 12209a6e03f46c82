"""evaluation_synchronize: a whole board (its metrics and results) in one call, written
in bulk: one query for the rows it names, one insert and one update, one reading of the
board's values, and a revision per row created or changed."""

from __future__ import annotations

import hashlib

from django.db.models import Max

from papers.api import shapes
from papers.api.writes.operations import (
    Invalid,
    Outcome,
    _contribute,
    dataset_of,
    evaluation_create,
    lock_board,
    task_of,
)
from papers.contributions.revisions import Actor, record, snapshot
from papers.identifiers import parse_arxiv
from papers.models import Leaderboard, LeaderboardMetric, LeaderboardRow, Paper, Revision


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
