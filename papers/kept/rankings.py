"""Leaderboard rankings, worked out once per change instead of once per page.

A board may hold thousands of rows. Ranking them by a metric, drawing the progress chart
and finding the rows whose paper has an execution report means reading every row (and
its paper), which costs more than the rest of the leaderboard page together. So
`refresh_boards()` works them out in one pass over the rows and keeps them
(`MetricRanking` per metric, `LeaderboardExecution` per board); the page reads those and
the hundred rows it shows (papers.leaderboards).

Who refreshes: an import, at its end, every board (`papers.kept.refresh_all()`); any
other write, the boards it touched (`papers.kept.after_write()`, which the admin calls
after an edit).

Never stale: any save or delete of a row, a metric or a paper on a board through the ORM
deletes what was kept of that board (papers.kept.signals), so until the next refresh
the page ranks the rows itself, through `board_facts()`, the same code the refresh runs.
A kept ranking also names the metric's name and direction and the code (VERSION) it was
made with, and is not read when they no longer hold. Bulk writes bypass signals: the
importer forgets a board in the transaction that changes its rows or metrics
(`forget_boards()`, so a reader sees the old rows with their ranking, or the new rows
ranked live, even after the import is killed), and refreshes every board at its end.
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import math
import operator
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Q

from papers import charts
from papers.db import chunks
from papers.models import (
    Leaderboard,
    LeaderboardExecution,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
    uncertain_date,
)

logger = logging.getLogger(__name__)

Ranking = list[tuple[int, int | None]]  # (row id, rank or None), best first

# The version of what a kept ranking holds: raise it with any change to how rows are
# ranked, dated or charted here or in papers.charts, so that rankings kept by the code
# before are ignored (the pages rank live) until the next refresh.
VERSION = 3


def metric_number(value) -> float | None:
    """A row's parsed value of a metric as `LeaderboardRow.metric_values` keeps it (a
    number or null), read defensively: numeric text is its number; a boolean, a list, an
    object or other text is no number (as the database's JSON text extraction gives it on
    PostgreSQL, which the benchmarks tables and the paper page's ranks read), nor is an
    infinity or NaN (which no order can place)."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def rank_entries(entries: list[tuple[int, int, float | None]], lower_is_better: bool) -> Ranking:
    """(id, rank) of (id, position, value) entries, best first: `ranked_rows`' order and
    ranks (equal values share a rank; rows without a value last, unranked, in archive
    order), on plain tuples for boards of thousands of rows."""
    sign = 1 if lower_is_better else -1
    scored = sorted(
        (sign * value, position, pk) for pk, position, value in entries if value is not None
    )
    out: Ranking = []
    previous, rank = None, 0
    for index, (signed, _, pk) in enumerate(scored, 1):
        if signed != previous:
            rank, previous = index, signed
        out.append((pk, rank))
    unscored = sorted((position, pk) for pk, position, value in entries if value is None)
    out.extend((pk, None) for _, pk in unscored)
    return out


def row_date(given: str, published) -> dt.date | None:
    """The day a row's result is charted at: its own date, else its paper's; none when
    that is unreadable or uncertain (1790, or after the archive)."""
    date = (charts.parse_date(given) if given else published) or None
    return None if date and uncertain_date(date) else date


def row_execution(hidden, reported, statuses, claim) -> tuple[bool, bool, str]:
    """Whether a row's paper (shown, not hidden) has a report, whether a sample of it ran
    (a status starting "ran"), and the report's claim sentence ("" for none)."""
    if not (reported and hidden is False):
        return False, False, ""
    ran = any(n and str(status).startswith("ran") for status, n in (statuses or {}).items())
    return True, ran, claim or ""


@dataclass
class BoardExecution:
    """What the execution reports say about a board's rows: the rows whose paper (shown,
    not hidden) has a report, those of them with a sample that ran (a status starting
    "ran"), and the claim sentences of those reports as the records word them."""

    reported: set[int] = field(default_factory=set)
    ran: set[int] = field(default_factory=set)
    claims: list[str] = field(default_factory=list)

    def keeps(self, row_filter: str, pk: int) -> bool:
        if row_filter == "report":
            return pk in self.reported
        if row_filter == "ran":
            return pk in self.ran
        return True


@dataclass
class BoardFacts:
    """A board's rankings (metric id → its ranking and progress chart) and execution."""

    rankings: dict[int, tuple[Ranking, charts.ProgressChart | None]]
    execution: BoardExecution


CLAIMS_SHOWN = 3
_ROW = (
    "leaderboard_id", "id", "position", "metric_values", "paper_date", "paper__published",
    "paper__hidden", "paper__has_report", "paper__sample_statuses", "paper__report_claim",
)  # fmt: skip


def _facts_of(metrics: list[LeaderboardMetric], rows: Iterable[tuple]) -> BoardFacts:
    """One board's facts from its metrics and its rows (tuples of _ROW)."""
    entries: list[list] = [[] for _ in metrics]
    dated: list[list] = [[] for _ in metrics]
    execution = BoardExecution()
    claims: Counter[str] = Counter()
    for _, pk, position, values, given, published, hidden, reported, statuses, claim in rows:
        values = values if isinstance(values, dict) else {}
        date = False
        for index, metric in enumerate(metrics):
            value = metric_number(values.get(metric.name))
            entries[index].append((pk, position, value))
            if value is not None:
                if date is False:
                    date = row_date(given, published)
                dated[index].append((date, value, pk))
        reported, ran, claim = row_execution(hidden, reported, statuses, claim)
        if reported:
            execution.reported.add(pk)
            if ran:
                execution.ran.add(pk)
            if claim:
                claims[claim] += 1
    execution.claims = sorted(claims, key=lambda claim: (-claims[claim], claim))[:CLAIMS_SHOWN]
    rankings = {
        metric.id: (
            rank_entries(entries[index], metric.is_lower_better),
            _chart(dated[index], metric),
        )
        for index, metric in enumerate(metrics)
    }
    return BoardFacts(rankings, execution)


def _chart(dated: list, metric: LeaderboardMetric) -> charts.ProgressChart | None:
    """The metric's progress chart; none (the board ranked without it, and the failure
    logged) should any value still defeat the chart: one board never stops the rest."""
    try:
        return charts.progress_chart_of(dated, metric.name, metric.is_lower_better)
    except (ArithmeticError, ValueError):
        logger.exception("no progress chart for metric %s of board %s", metric.pk,
                         metric.leaderboard_id)  # fmt: skip
        return None


def _facts(
    board_ids: list[int], metrics: dict[int, list[LeaderboardMetric]]
) -> Iterator[tuple[int, BoardFacts]]:
    """(board id, facts) of these boards: one query over their rows with their papers,
    streamed board by board."""
    # In id order: a chart's results of one day and value are drawn (the first of them a
    # record) in that order, whoever reads them (papers.kept.increments inserts by it).
    rows = (
        LeaderboardRow.objects.filter(leaderboard_id__in=board_ids)
        .order_by("leaderboard_id", "id")
        .values_list(*_ROW)
    )
    seen = set()
    grouped = itertools.groupby(rows.iterator(chunk_size=5000), key=operator.itemgetter(0))
    for board_id, group in grouped:
        seen.add(board_id)
        yield board_id, _facts_of(metrics.get(board_id, []), group)
    for board_id in board_ids:
        if board_id not in seen:
            yield board_id, _facts_of(metrics.get(board_id, []), ())


def board_facts(board: Leaderboard, metrics: list[LeaderboardMetric]) -> BoardFacts:
    """The board's facts worked out from its rows now (one query), as refresh_boards()
    works them out: for the page when none are kept."""
    return next(_facts([board.id], {board.id: metrics}))[1]


# --- kept facts ---------------------------------------------------------------------------

SPAN = 500  # boards refreshed per transaction: their rows are held in memory together


def refresh_boards(board_ids: Iterable[int] | None = None) -> int:
    """Work out and keep the rankings, charts and execution facts of these boards (every
    board when None), replacing what was kept; how many boards. Each span of boards is
    one transaction, so a reader sees a board's old facts or its new ones."""
    if board_ids is None:
        ids = list(Leaderboard.objects.order_by("id").values_list("id", flat=True))
    else:
        wanted = sorted({pk for pk in board_ids if pk is not None})
        ids = []
        for part in chunks(wanted):
            ids += Leaderboard.objects.filter(id__in=part).values_list("id", flat=True)
        ids.sort()
    for span in chunks(ids, SPAN):
        metrics: dict[int, list[LeaderboardMetric]] = {}
        found = LeaderboardMetric.objects.filter(leaderboard_id__in=span)
        for metric in found.order_by("leaderboard_id", "position", "id"):
            metrics.setdefault(metric.leaderboard_id, []).append(metric)
        with transaction.atomic():
            write_kept(span, *_kept_rows(list(span), metrics))
    return len(ids)


def _kept_rows(
    span: list[int], metrics: dict[int, list[LeaderboardMetric]]
) -> tuple[list[MetricRanking], list[LeaderboardExecution]]:
    """The rows to keep for these boards: a ranking per metric, the execution facts."""
    rankings, executions = [], []
    for board_id, facts in _facts(span, metrics):
        for metric in metrics.get(board_id, []):
            ranks, chart = facts.rankings[metric.id]
            rankings.append(ranking_row(metric, ranks, chart.to_json() if chart else None))
        execution = facts.execution
        executions.append(
            LeaderboardExecution(
                leaderboard_id=board_id,
                reported=sorted(execution.reported),
                ran=sorted(execution.ran),
                claims=execution.claims,
            )
        )
    return rankings, executions


def ranking_row(metric: LeaderboardMetric, ranks: Ranking, chart: dict | None) -> MetricRanking:
    """What is kept of a metric: its ranking and chart, made for its name and direction
    by this code (VERSION)."""
    return MetricRanking(
        metric_id=metric.id,
        leaderboard_id=metric.leaderboard_id,
        ranks=ranks,
        chart=chart,
        metric_name=metric.name,
        lower_is_better=metric.is_lower_better,
        version=VERSION,
    )


def write_kept(
    span: Iterable[int], rankings: list[MetricRanking], executions: list[LeaderboardExecution]
) -> None:
    """Keep these rankings and execution facts of the boards in `span`, replacing what was
    kept of them (a ranking of a metric they no longer have is deleted)."""
    # Upserts: a refresh running beside this one (another import's end, an admin
    # edit) writes the same keys; on PostgreSQL the second waits for the first
    # and overwrites it, never failing on a duplicate key.
    MetricRanking.objects.filter(leaderboard_id__in=span).exclude(
        metric_id__in=[r.metric_id for r in rankings]
    ).delete()
    MetricRanking.objects.bulk_create(
        rankings,
        batch_size=100,
        update_conflicts=True,
        unique_fields=["metric"],
        update_fields=["leaderboard", "ranks", "chart", "metric_name",
                       "lower_is_better", "version"],
    )  # fmt: skip
    LeaderboardExecution.objects.bulk_create(
        executions,
        batch_size=100,
        update_conflicts=True,
        unique_fields=["leaderboard"],
        update_fields=["reported", "ran", "claims"],
    )


def kept_facts(
    board: Leaderboard, metric: LeaderboardMetric | None, *, chart: bool = True
) -> tuple[tuple[Ranking, charts.ProgressChart | None] | None, BoardExecution | None]:
    """The kept ranking and chart of `metric` (None when none is kept, or no metric, or
    it was made for another name, direction or VERSION; the chart None unless `chart`:
    those that only page through the rows need not read it) and the board's kept
    execution facts (None when none are kept): two primary-key reads."""
    ranking = None
    if metric is not None:
        found = MetricRanking.objects.filter(
            metric_id=metric.id,
            metric_name=metric.name,
            lower_is_better=metric.is_lower_better,
            version=VERSION,
        )
        if chart:
            for ranks, drawn in found.values_list("ranks", "chart"):
                ranking = (ranks, charts.ProgressChart.from_json(drawn) if drawn else None)
        else:
            for ranks in found.values_list("ranks", flat=True):
                ranking = (ranks, None)
    execution = None
    kept = LeaderboardExecution.objects.filter(leaderboard_id=board.id)
    for reported, ran, claims in kept.values_list("reported", "ran", "claims"):
        execution = BoardExecution(set(reported), set(ran), list(claims))
    return ranking, execution


def kept_leaders(
    metrics: Iterable[LeaderboardMetric],
) -> dict[int, tuple[int, int | None] | None]:
    """The first entry (row id, rank) of each metric's kept ranking, by metric id: one
    query that reads only that entry of each. A metric with no usable kept ranking (see
    kept_facts()) is left out; one whose ranking is empty maps to None."""
    wanted = Q()
    for metric in metrics:
        wanted |= Q(
            metric_id=metric.id, metric_name=metric.name, lower_is_better=metric.is_lower_better
        )
    if not wanted:
        return {}
    found = MetricRanking.objects.filter(wanted, version=VERSION)
    return {
        metric_id: (first[0], first[1]) if first else None
        for metric_id, first in found.values_list("metric_id", "ranks__0")
    }


def forget_boards(board_ids: Iterable[int]) -> None:
    """Delete what was kept of these boards (their pages rank their rows themselves until
    the next refresh)."""
    for part in chunks(sorted({pk for pk in board_ids if pk is not None})):
        MetricRanking.objects.filter(leaderboard_id__in=part).delete()
        LeaderboardExecution.objects.filter(leaderboard_id__in=part).delete()


def forget_boards_of_paper(paper_id: int) -> None:
    """Delete what was kept of the boards this paper has rows on."""
    boards = LeaderboardRow.objects.filter(paper_id=paper_id).values("leaderboard_id")
    MetricRanking.objects.filter(leaderboard_id__in=boards).delete()
    LeaderboardExecution.objects.filter(leaderboard_id__in=boards).delete()
