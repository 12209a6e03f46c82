"""Ranks other pages show: each board's best result by its first metric (the task and
dataset pages' benchmark tables) and a paper's rank on each board it has a result on
(the paper page), both ranked in SQL on the first metric as the board's page ranks it."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Case, QuerySet, TextField, Value, When
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from papers.kept.rankings import metric_number, rank_entries
from papers.models import Leaderboard, LeaderboardMetric, LeaderboardRow


def _metric_value(name: str):
    """An expression for a row's parsed number of the metric `name`, read in SQL, and
    whether what it gives is the whole JSON to decode instead: SQLite's JSON paths cannot
    name a key holding a quote or a backslash, so such a metric is read the slow way."""
    if '"' in name or "\\" in name:
        return Cast("metric_values", TextField()), True
    return KeyTextTransform(name, "metric_values"), False


def _read_number(value, name: str, whole: bool) -> float | None:
    if whole:
        value = json.loads(value).get(name) if value else None
    return metric_number(value)  # as the leaderboard page reads it


def _first_metric_entries(
    board_ids: list[int], metrics: dict[int, list[LeaderboardMetric]]
) -> dict[int, list[tuple[int, int, float | None]]]:
    """(id, position, number by the board's first metric) of every row of these boards,
    in one query: each board's number is extracted in SQL (a CASE over the boards), since
    decoding every row's JSON would cost more than the query on boards of thousands."""
    firsts = {board_id: found[0].name for board_id, found in metrics.items() if found}
    reads = {board_id: _metric_value(name) for board_id, name in firsts.items()}
    entries: dict[int, list[tuple[int, int, float | None]]] = defaultdict(list)
    if not board_ids:
        return entries
    value = (
        Case(
            *(
                When(leaderboard_id=board_id, then=expression)
                for board_id, (expression, _) in reads.items()
            ),
            default=Value(None),
            output_field=TextField(),
        )
        if firsts
        else Value(None, output_field=TextField())
    )
    found = (
        LeaderboardRow.objects.filter(leaderboard_id__in=board_ids)
        .order_by()
        .annotate(value=value)
        .values_list("leaderboard_id", "id", "position", "value")
    )
    for board_id, pk, position, number in found:
        if board_id in reads:
            number = _read_number(number, firsts[board_id], reads[board_id][1])
        entries[board_id].append((pk, position, number))
    return entries


def _metrics_of(board_ids: list[int]) -> dict[int, list[LeaderboardMetric]]:
    metrics: dict[int, list[LeaderboardMetric]] = defaultdict(list)
    for metric in LeaderboardMetric.objects.filter(leaderboard_id__in=board_ids).order_by(
        "leaderboard_id", "position", "id"
    ):
        metrics[metric.leaderboard_id].append(metric)
    return metrics


@dataclass
class Benchmark:
    board: Leaderboard
    metric: LeaderboardMetric | None
    best: LeaderboardRow | None
    results: int  # rows on the board

    @property
    def best_value(self) -> Any:
        if self.best is None or self.metric is None:
            return None
        return self.best.metrics.get(self.metric.name)


def benchmarks(boards: QuerySet[Leaderboard]) -> list[Benchmark]:
    """The boards in (task, position, id) order, each with its best row by its first
    metric, in four queries whatever the number of boards and rows."""
    boards = list(boards.select_related("task", "dataset").order_by("task_id", "position", "id"))
    ids = [b.id for b in boards]
    metrics = _metrics_of(ids)
    entries = _first_metric_entries(ids, metrics)
    best_ids = {}
    for board in boards:
        if not metrics[board.id]:
            continue
        ranked = rank_entries(entries[board.id], metrics[board.id][0].is_lower_better)
        if ranked and ranked[0][1] is not None:
            best_ids[board.id] = ranked[0][0]
    best = LeaderboardRow.objects.filter(id__in=best_ids.values()).select_related("paper")
    best_rows = best.only(
        "id", "leaderboard_id", "model_name", "metrics", "paper_title", "paper_url",
        "code_links", "uses_additional_data", "paper__slug", "paper__title", "paper__hidden",
        "paper__has_report", "paper__sample_count", "paper__sample_statuses",
        "paper__report_claim",
    )  # fmt: skip
    by_id = {row.id: row for row in best_rows}
    return [
        Benchmark(
            board=board,
            metric=(metrics[board.id] or [None])[0],
            best=by_id.get(best_ids.get(board.id)),
            results=len(entries[board.id]),
        )
        for board in boards
    ]


@dataclass
class PaperResult:
    """A paper's result row with its rank on its board, its metrics in the board's order."""

    row: LeaderboardRow
    rank: int | None
    ranked: int  # rows on the board with a rank
    metrics: list[tuple[str, Any]]


def paper_results(rows: list[LeaderboardRow]) -> list[PaperResult]:
    """A paper's result rows, each ranked on its board by the board's first metric as the
    leaderboard page ranks it, its metrics in the board's column order (two queries)."""
    board_ids = sorted({row.leaderboard_id for row in rows})
    metrics = _metrics_of(board_ids) if board_ids else {}
    entries = _first_metric_entries(board_ids, metrics)
    ranks: dict[int, tuple[int, int]] = {}
    wanted = {row.id for row in rows}
    for board_id in board_ids:
        if not metrics[board_id]:
            continue
        ranked = rank_entries(entries[board_id], metrics[board_id][0].is_lower_better)
        total = sum(1 for _, rank in ranked if rank is not None)
        for pk, rank in ranked:
            if pk in wanted and rank is not None:
                ranks[pk] = (rank, total)
    out = []
    for row in rows:
        names = [m.name for m in metrics.get(row.leaderboard_id, [])]
        names += [name for name in row.metrics if name not in names]
        rank, total = ranks.get(row.id, (None, 0))
        shown = [(name, row.metrics[name]) for name in names if name in row.metrics]
        out.append(PaperResult(row, rank, total, shown))
    return out
