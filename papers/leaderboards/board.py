"""A leaderboard's page: the board a /sota/<task>-on-<dataset> slug names, and a page of
its rows ranked by the metric chosen, with the progress chart and the execution facts
(papers.kept.rankings keeps them; four queries whatever the board's size)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.db.models import Q
from django.utils.text import slugify

from codewithpapers.cache import by_version
from papers import charts
from papers.identifiers import board_slug, board_splits, metric_ids, split_evaluation_id
from papers.kept import rankings
from papers.kept.rankings import BoardExecution, Ranking
from papers.metrics import metric_text
from papers.models import ARCHIVE_SNAPSHOT, Leaderboard, LeaderboardMetric, LeaderboardRow
from papers.paging import Page, clamped


def find_board(slug: str) -> tuple[Leaderboard | None, bool]:
    """The board a /sota/<task>-on-<dataset> slug names, and whether the slug is its
    canonical one (False: redirect). Task and dataset slugs may hold "-on-" themselves, so
    every split is tried, in one query; then, case-insensitively, in one more. The API's
    "<task>--<dataset>" id is an alias too."""
    splits = board_splits(slug)
    if (api_id := split_evaluation_id(slug)) is not None:
        splits.append(api_id)  # the API's id for the board, "<task>--<dataset>"
    if not splits or len(splits) > 20:
        return None, False
    boards = Leaderboard.objects.select_related(
        "task", "dataset", "parent__task", "parent__dataset"
    ).order_by("id")
    exact = Q()
    for task, dataset in splits:
        exact |= Q(task__slug=task, dataset__slug=dataset)
    found = list(boards.filter(exact)[:1])
    if not found:
        loose = Q()
        for task, dataset in splits:
            loose |= Q(task__slug__iexact=task, dataset__slug__iexact=dataset)
            loose |= Q(task__slug=slugify(task), dataset__slug=slugify(dataset))
        found = list(boards.filter(loose)[:1])
    if not found:
        return None, False
    board = found[0]
    return board, slug == board_slug(board.task.slug, board.dataset.slug)


BOARD_PAGE = 100  # rows of a leaderboard's table a page


# The board's row filter: which rows the table keeps (their ranks stay the board's). A
# filter is a key here, a count in BoardView.row_filters and a test in
# BoardExecution.keeps; its chip swaps the results only (#results).
ROW_FILTERS = {
    "": "All rows",
    "report": "Code has a report",
    "ran": "A sample ran",
    "archive": "Archive rows only",
}


@dataclass
class BoardView:
    board: Leaderboard
    metrics: list[LeaderboardMetric]
    metric_ids: list[str]
    metric: LeaderboardMetric | None  # the one ranking the rows
    metric_id: str
    page: Page  # the rows of this page of the table, ranked
    chart: charts.ProgressChart | None
    execution: BoardExecution | None = None
    row_filter: str = ""  # a key of ROW_FILTERS
    all_rows: int = 0  # rows on the board, whatever the filter
    snapshot: str = ARCHIVE_SNAPSHOT

    @property
    def choices(self) -> list[tuple[str, LeaderboardMetric]]:
        return list(zip(self.metric_ids, self.metrics, strict=True))

    @property
    def other_metrics(self) -> list[LeaderboardMetric]:
        """The metrics beside the one ranking the rows, in the board's order."""
        return [m for m in self.metrics if m != self.metric]

    @property
    def rows(self) -> list[LeaderboardRow]:
        return self.page.items

    @property
    def row_filters(self) -> list[tuple[str, str, int]]:
        """(key, label, rows it keeps) of each row filter."""
        counts = {
            "": self.all_rows,
            "report": len(self.execution.reported) if self.execution else 0,
            "ran": len(self.execution.ran) if self.execution else 0,
            # Counted only when chosen (one more query): the page's total says it.
            "archive": self.page.total if self.row_filter == "archive" else None,
        }
        return [(key, label, counts[key]) for key, label in ROW_FILTERS.items()]


_ROW_DETAIL = (
    "id", "leaderboard_id", "position", "model_name", "paper_id", "paper_title",
    "paper_url", "paper_date", "metrics", "uses_additional_data", "code_links",
    "paper__slug", "paper__title", "paper__published", "paper__hidden",
    "paper__has_report", "paper__sample_count", "paper__sample_statuses",
    "edited_in_admin", "contributed_at", "contributed_by",
    "verification__verdict", "verification__note",
)  # fmt: skip


def _facts_of_board(
    board: Leaderboard,
    metrics: list[LeaderboardMetric],
    chosen: LeaderboardMetric | None,
    fresh: bool = False,
    chart: bool = True,
) -> tuple[Ranking | None, charts.ProgressChart | None, BoardExecution]:
    """The ranking by `chosen` (None without a metric) and its chart, and the board's
    execution facts: those kept (two primary-key reads), else worked out from the rows
    (kept per content version), or, when `fresh`, worked out now."""
    if not fresh:
        kept, execution = rankings.kept_facts(board, chosen, chart=chart)
        if execution is not None and (chosen is None or kept is not None):
            ranking, chart = kept if kept is not None else (None, None)
            return ranking, chart, execution
        facts = by_version(
            f"board.{board.id}.facts.v{rankings.VERSION}",
            functools.partial(rankings.board_facts, board, metrics),
        )
    else:
        facts = rankings.board_facts(board, metrics)
    ranking, chart = facts.rankings[chosen.id] if chosen is not None else (None, None)
    return ranking, chart, facts.execution


def _unranked(board: Leaderboard) -> Ranking:
    """A board without a metric: its rows in the archive's order, unranked."""
    ids = board.rows.order_by("position", "id").values_list("id", flat=True)
    return [(pk, None) for pk in ids]


def board_ranking(
    board: Leaderboard, metrics: list[LeaderboardMetric], row_filter: str = ""
) -> Ranking:
    """The board's rows ranked by its first metric as its page ranks them, best first: the
    kept ranking (two primary-key reads), else one worked out per content version; only
    the rows `row_filter` (a key of ROW_FILTERS but "archive") keeps, their ranks those on
    the whole board. What the API and the MCP tools page through instead of every row."""
    chosen = metrics[0] if metrics else None
    ranking, _, execution = _facts_of_board(board, metrics, chosen, chart=False)
    if ranking is None:
        ranking = _unranked(board)
    if row_filter:
        ranking = [(pk, rank) for pk, rank in ranking if execution.keeps(row_filter, pk)]
    return ranking


def _board_page(
    board: Leaderboard,
    chosen: LeaderboardMetric | None,
    facts: tuple[Ranking | None, charts.ProgressChart | None, BoardExecution],
    number: int,
    row_filter: str,
    strict: bool = True,
) -> tuple[Page, int] | None:
    """The page of ranked rows (details read in one query) and the rows on the board;
    None when a row the ranking names is gone (deleted since the ranking was made),
    unless not `strict`: then the page leaves it out."""
    ranking, chart, execution = facts
    if ranking is None:
        ranking = _unranked(board)
    all_rows = len(ranking)
    if row_filter == "archive":  # one query: the rows contributed or edited since
        changed = set(
            board.rows.filter(Q(edited_in_admin=True) | Q(contributed_at__isnull=False))
            .order_by()
            .values_list("id", flat=True)
        )
        ranking = [(pk, rank) for pk, rank in ranking if pk not in changed]
    elif row_filter:
        ranking = [(pk, rank) for pk, rank in ranking if execution.keeps(row_filter, pk)]
    window = clamped(number, len(ranking), BOARD_PAGE)
    shown = window.slice(ranking)
    wanted = {pk for pk, _ in shown} | {r.key for r in (chart.detailed if chart else [])}
    details = (
        board.rows.filter(id__in=wanted)
        .select_related("paper", "contributed_by", "verification")  # an author's verdict
        .only(*_ROW_DETAIL)
    )
    found = {row.id: row for row in details}
    if strict and len(found) < len(wanted):
        return None
    if chart is not None:
        chart.attach(
            {
                pk: (
                    row.model_name or row.paper_title,
                    metric_text(row.metrics.get(chosen.name)),
                    row.paper.get_absolute_url()
                    if row.paper_id and not row.paper.hidden
                    else None,
                )
                for pk, row in found.items()
            }
        )
    rows = []
    for pk, rank in shown:
        if (row := found.get(pk)) is not None:
            row.rank = rank
            rows.append(row)
    return Page(rows, len(ranking), window.number, BOARD_PAGE), all_rows


def board_view(
    board: Leaderboard, metric_id: str = "", number: int = 1, row_filter: str = ""
) -> BoardView | None:
    """One page of the board's rows ranked by the chosen metric (the first by default),
    and the progress chart of all of them; None when `metric_id` names no metric of the
    board. `row_filter` (a key of ROW_FILTERS) keeps only the rows whose paper's code has
    a report, or a sample that ran; the rows kept keep their ranks on the whole board.
    Four queries whatever the board's size: its metrics, the ranking and the execution
    facts `papers.kept.rankings` keeps, and the details of the rows shown and the records
    (one more, the rows themselves, where nothing is kept: see `_facts_of_board`)."""
    metrics = list(board.metrics.order_by("position", "id"))
    ids = metric_ids(metrics)
    if metric_id and metric_id not in ids:
        return None
    chosen = metrics[ids.index(metric_id) if metric_id else 0] if metrics else None
    chosen_id = ids[metrics.index(chosen)] if chosen else ""
    facts = _facts_of_board(board, metrics, chosen)
    shown = _board_page(board, chosen, facts, number, row_filter)
    if shown is None:  # rows deleted since the facts were made (an import is running)
        facts = _facts_of_board(board, metrics, chosen, fresh=True)
        shown = _board_page(board, chosen, facts, number, row_filter, strict=False)
    page, all_rows = shown
    return BoardView(
        board=board,
        metrics=metrics,
        metric_ids=ids,
        metric=chosen,
        metric_id=chosen_id,
        page=page,
        chart=facts[1],
        execution=facts[2],
        row_filter=row_filter,
        all_rows=all_rows,
    )
