"""One row's write kept without ranking its board again (papers.kept.rankings).

A board of thousands of rows takes hundreds of milliseconds to rank and chart from every
row; a write to one of its rows (the write API's result add, change and delete) changes
one entry of each ranking, one point or density cell of each chart and perhaps the
execution facts. So the writer reads what was kept of the board before the write
(`kept_before()`: the write's save forgets it, papers.kept.signals), then, once the row
is written, `keep_row_change()` moves the row in each ranking and chart and keeps the
result: the very rankings, charts and facts `refresh_boards()` would work out from every
row, which tests/kept/test_increments.py checks against it after random writes.

Where the row goes in a ranking is found by reading the values of a few dozen of the
ranked rows (a search by their order in the ranking, which is the order of their values),
never all of them. When anything is not as it must be for that (something not kept, or
kept for another metric name, direction or VERSION, or for another count of rows; a
chart that cannot be changed without its other results: papers.chart_edits) the change
is not kept, and the caller refreshes the board from every row instead.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Count

from papers import charts
from papers.chart_edits import Unsure, with_result, with_undated, without_result
from papers.kept.rankings import (
    CLAIMS_SHOWN,
    VERSION,
    Ranking,
    metric_number,
    ranking_row,
    row_date,
    row_execution,
    write_kept,
)
from papers.models import (
    LeaderboardExecution,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
)

# Ranked rows whose values one search step reads: a board of 10,000 rows is searched in
# two steps.
PROBES = 100


@dataclass(frozen=True)
class RowFacts:
    """What a board's kept facts read of one row."""

    pk: int
    position: int
    values: dict  # metric name → its number (papers.kept.rankings.metric_number) or None
    date: dt.date | None
    reported: bool
    ran: bool
    claim: str

    @classmethod
    def of(cls, row: LeaderboardRow) -> RowFacts:
        """The facts of a row as written (with its paper loaded)."""
        values = row.metric_values if isinstance(row.metric_values, dict) else {}
        paper = row.paper
        published = paper.published if paper else None
        reported, ran, claim = (
            row_execution(paper.hidden, paper.has_report, paper.sample_statuses,
                          paper.report_claim)
            if paper
            else (False, False, "")
        )  # fmt: skip
        return cls(
            pk=row.pk,
            position=row.position,
            values={name: metric_number(value) for name, value in values.items()},
            date=row_date(row.paper_date, published),
            reported=reported,
            ran=ran,
            claim=claim,
        )


@dataclass
class Kept:
    """What was kept of a board before a write to one of its rows."""

    board_id: int
    metrics: list[LeaderboardMetric]
    rankings: dict[int, tuple[list, dict | None]]  # metric id → (ranks, chart JSON)
    reported: list[int]
    ran: list[int]
    claims: list[str]


def kept_before(board_id: int) -> Kept | None:
    """What is kept of the board, if all of it is kept by this code for its metrics as
    they are and for as many rows as it has; else None. Three queries."""
    metrics = list(
        LeaderboardMetric.objects.filter(leaderboard_id=board_id).order_by("position", "id")
    )
    found = {
        metric_id: (name, lower, version, ranks, chart)
        for metric_id, name, lower, version, ranks, chart in MetricRanking.objects.filter(
            leaderboard_id=board_id
        ).values_list("metric_id", "metric_name", "lower_is_better", "version", "ranks", "chart")
    }
    execution = LeaderboardExecution.objects.filter(leaderboard_id=board_id).values_list(
        "reported", "ran", "claims"
    )
    execution = next(iter(execution), None)
    rows = LeaderboardRow.objects.filter(leaderboard_id=board_id).count()
    rankings = {}
    for metric in metrics:
        name, lower, version, ranks, chart = found.get(metric.id, (None,) * 5)
        fits = (name, lower, version) == (metric.name, metric.is_lower_better, VERSION)
        if not fits or not isinstance(ranks, list) or len(ranks) != rows:
            return None
        rankings[metric.id] = (ranks, chart)
    if execution is None:
        return None
    return Kept(board_id, metrics, rankings, *execution)


def keep_row_change(kept: Kept, before: RowFacts | None, after: RowFacts | None) -> bool:
    """Keep the board's rankings, charts and execution facts with one row changed: added
    (`before` None), changed, or deleted (`after` None), as read before and after the
    write. False when the change cannot be kept this way: the board must then be
    refreshed from every row."""
    values = _Values(kept.board_id)
    rankings = []
    try:
        for metric in kept.metrics:
            ranks, chart = kept.rankings[metric.id]
            ranks = _reranked(ranks, metric, before, after, values)
            chart = _recharted(chart, metric, before, after)
            rankings.append(ranking_row(metric, ranks, chart))
    except Unsure:
        return False
    write_kept([kept.board_id], rankings, [_execution(kept, before, after)])
    return True


class _Values:
    """The values and positions of a board's rows, read a few at a time and remembered."""

    def __init__(self, board_id: int):
        self.board_id = board_id
        self.known: dict[int, tuple[int, dict]] = {}

    def of(self, pks: list[int]) -> dict[int, tuple[int, dict]]:
        wanted = [pk for pk in pks if pk not in self.known]
        if wanted:
            # By primary key alone: with the board's id too, SQLite reads them through
            # the board's index, every row of the board.
            rows = LeaderboardRow.objects.filter(pk__in=wanted).values_list(
                "id", "leaderboard_id", "position", "metric_values"
            )
            for pk, board_id, position, values in rows:
                if board_id == self.board_id:
                    self.known[pk] = (position, values if isinstance(values, dict) else {})
        if any(pk not in self.known for pk in pks):
            raise Unsure("a ranked row is not on the board")
        return {pk: self.known[pk] for pk in pks}


def _reranked(
    ranks: list, metric: LeaderboardMetric, before: RowFacts | None, after: RowFacts | None,
    values: _Values,
) -> Ranking:  # fmt: skip
    """The ranking with the row taken out (`before`) and put in (`after`): ranked rows
    by (value in the metric's direction, position, id), equal values sharing a rank, the
    rest after them by (position, id), as papers.kept.rankings.rank_entries() ranks."""
    if _same(metric, before, after) and before.position == after.position:
        return [(pk, rank) for pk, rank in ranks]
    # Each entry keeps its rank as the mark of its value: entries share one exactly when
    # they share a value, so the ranks can be counted again without the values.
    entries = [(pk, rank) for pk, rank in ranks]
    if before is not None:
        at = next((i for i, (pk, _) in enumerate(entries) if pk == before.pk), None)
        if at is None:
            raise Unsure("the row is not in the ranking")
        del entries[at]
    if after is not None:
        _insert(entries, metric, after, values)
    out: Ranking = []
    previous, rank = object(), 0
    for index, (pk, mark) in enumerate(entries, 1):
        if mark is None:
            out.append((pk, None))
            continue
        if mark != previous:
            rank, previous = index, mark
        out.append((pk, rank))
    return out


def _same(metric: LeaderboardMetric, before: RowFacts | None, after: RowFacts | None) -> bool:
    """Whether a change leaves the row's value of the metric as it was."""
    if before is None or after is None:
        return False
    # repr: -0.0 is drawn as itself, not as 0.0
    return repr(before.values.get(metric.name)) == repr(after.values.get(metric.name))


def _insert(entries: list, metric: LeaderboardMetric, row: RowFacts, values: _Values) -> None:
    name, sign = metric.name, 1 if metric.is_lower_better else -1
    ranked = len(entries)  # the unranked entries are the last ones: usually few
    while ranked and entries[ranked - 1][1] is None:
        ranked -= 1
    value = row.values.get(name)
    if value is None:  # after the ranked rows, by (position, id)
        at, _ = _search(entries, ranked, len(entries), (row.position, row.pk),
                        lambda pk, found: (found[0], pk), values)  # fmt: skip
        entries.insert(at, (row.pk, None))
        return

    def order(pk: int, found: tuple[int, dict]) -> tuple:
        number = metric_number(found[1].get(name))
        if number is None:
            raise Unsure("a ranked row has no value")
        return (sign * number, found[0], pk)

    mine = (sign * value, row.position, row.pk)
    at, seen = _search(entries, 0, ranked, mine, order, values)
    mark: object = object()  # a value of its own, unless a neighbour has it
    for neighbour in (at - 1, at):
        if 0 <= neighbour < ranked:
            if neighbour not in seen:
                raise Unsure("a neighbour's value was not read")
            if seen[neighbour][0] == mine[0]:
                mark = entries[neighbour][1]
    entries.insert(at, (row.pk, mark))


def _search(
    entries: list, low: int, high: int, mine: tuple,
    order: Callable[[int, tuple[int, dict]], tuple], values: _Values,
) -> tuple[int, dict[int, tuple]]:  # fmt: skip
    """Where `mine` goes among entries[low:high], which are in `order`: found by reading
    up to PROBES of them a step. Also the orders read, by index."""
    seen: dict[int, tuple] = {}
    while low < high:
        if high - low <= PROBES:
            picks = list(range(low, high))
        else:
            picks = sorted({low + (high - low) * j // PROBES for j in range(PROBES)})
        found = values.of([entries[i][0] for i in picks])
        orders = [order(entries[i][0], found[entries[i][0]]) for i in picks]
        if any(a >= b for a, b in itertools.pairwise(orders)) or mine in orders:
            raise Unsure("the kept ranking is not in the order of the values")
        seen.update(zip(picks, orders, strict=True))
        after = next((i for i, o in zip(picks, orders, strict=True) if o > mine), high)
        low = max((i + 1 for i, o in zip(picks, orders, strict=True) if o < mine), default=low)
        high = after
    return low, seen


def _recharted(
    chart: dict | None, metric: LeaderboardMetric, before: RowFacts | None,
    after: RowFacts | None,
) -> dict | None:  # fmt: skip
    if _same(metric, before, after) and before.date == after.date:
        return chart
    drawn = charts.ProgressChart.from_json(chart) if chart else None
    for row, change in ((before, -1), (after, 1)):
        value = row.values.get(metric.name) if row is not None else None
        if value is None:
            continue
        if row.date is None:
            drawn = with_undated(drawn, change)
        elif change < 0:
            drawn = without_result(drawn, row.date.toordinal(), value, row.pk)
        else:
            drawn = with_result(drawn, row.date.toordinal(), value, row.pk)
    return drawn.to_json() if drawn else None


def _execution(
    kept: Kept, before: RowFacts | None, after: RowFacts | None
) -> LeaderboardExecution:
    reported, ran, claims = set(kept.reported), set(kept.ran), kept.claims
    if before is not None:
        reported.discard(before.pk)
        ran.discard(before.pk)
    if after is not None and after.reported:
        reported.add(after.pk)
        if after.ran:
            ran.add(after.pk)
    if (before and before.claim) or (after and after.claim):
        claims = _claims(kept.board_id)
    return LeaderboardExecution(
        leaderboard_id=kept.board_id, reported=sorted(reported), ran=sorted(ran), claims=claims
    )


def _claims(board_id: int) -> list[str]:
    """The board's most common claim sentences of its rows' reports (papers shown, not
    hidden), as refresh_boards() counts them: one query."""
    rows = (
        LeaderboardRow.objects.filter(
            leaderboard_id=board_id, paper__has_report=True, paper__hidden=False
        )
        .exclude(paper__report_claim="")
        .values("paper__report_claim")
        .annotate(n=Count("id"))
        .order_by()
    )
    counts = {row["paper__report_claim"]: row["n"] for row in rows}
    return sorted(counts, key=lambda claim: (-counts[claim], claim))[:CLAIMS_SHOWN]
