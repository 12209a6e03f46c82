"""Queries of the browse pages: areas and their tasks, the index pages of tasks, datasets
and methods, benchmark tables, leaderboards by their /sota/<task>-on-<dataset> slug,
ranks, subtask trees and paged paper lists. Each answers in a fixed number of queries,
whatever the data; views format nothing here and query nothing themselves.
"""

from __future__ import annotations

import functools
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from django.db.models import (
    Case,
    Count,
    Exists,
    OuterRef,
    Q,
    QuerySet,
    TextField,
    Value,
    When,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils.text import slugify

from codewithpapers.cache import by_version
from papers import charts
from papers.identifiers import board_slug, board_splits, metric_ids, split_evaluation_id
from papers.kept import rankings
from papers.kept.rankings import BoardExecution, Ranking, metric_number, rank_entries
from papers.models import (
    NEWEST_FIRST,
    Collection,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Paper,
    Task,
    TaskEdge,
)
from papers.paging import Page, clamped, page_of, page_of_list
from papers.vocabularies import STATUS_CLAIM

OTHER_AREA = "Other"  # tasks the archive files under no area
AREA_PREVIEW = 12  # tasks an area shows on /sota before "all N tasks"
FILTER_LIMIT = 300  # tasks /sota lists for a filter, at most


# --- areas -------------------------------------------------------------------------------------


@dataclass
class Area:
    name: str
    slug: str
    tasks: list = field(default_factory=list)  # task rows, most benchmarked first
    task_count: int = 0  # its visible tasks, however many `tasks` holds
    benchmark_count: int = 0
    reported_tasks: int = 0  # its tasks with a paper whose code has a report

    @property
    def preview(self) -> list:
        return self.tasks[:AREA_PREVIEW]


_TASK_ROW = (
    "id", "slug", "name", "categories", "paper_count", "benchmark_count",
    "code_paper_count", "report_paper_count",
)  # fmt: skip


def report_share(task) -> int | None:
    """The percentage of a task's papers with code whose code has a report (rounded
    down, so 0 means none; 100 means all), None without papers with code."""
    if not task.code_paper_count:
        return None
    return task.report_paper_count * 100 // task.code_paper_count


def _report_claims() -> list[str]:
    """The claim sentences the visible tasks keep (Task.report_claims), the most common
    first, at most three. One query over the tasks that count a report."""
    found: dict[str, int] = {}
    rows = Task.objects.listed().filter(report_paper_count__gt=0).order_by()
    for claims in rows.values_list("report_claims", flat=True):
        for claim in claims or []:
            if isinstance(claim, str) and claim:
                found[claim] = found.get(claim, 0) + 1
    return sorted(found, key=lambda claim: -found[claim])[:3]


def task_claims(areas: list[Area]) -> list[str]:
    """The claim sentences to show beside these areas' report shares: the records' own
    (kept per content version: thousands of tasks' JSON is not read per request), or the
    site's when the records carry none; nothing when no task counts a report."""
    if not any(area.reported_tasks for area in areas):
        return []
    return by_version("task-claims", _report_claims) or [STATUS_CLAIM]


def _task(values: tuple) -> SimpleNamespace:
    task = SimpleNamespace(**dict(zip(_TASK_ROW, values, strict=True)))
    task.report_share = report_share(task)
    return task


def areas(q: str = "", keep: int | None = None, only: str | None = None) -> list[Area]:
    """Every area (the tasks' categories; "Other" for none) with its visible tasks, most
    benchmarked first, then most papers; only tasks whose name holds `q` when given. Names
    that slug alike ("NLP", "nlp") are one area. Each area counts all its tasks but
    holds only its first `keep` (all when None), and only the area `only` when given:
    /sota shows a dozen tasks of each area, and thousands of task objects would cost more
    than the query. One query, read as tuples."""
    tasks = Task.objects.listed().order_by("-benchmark_count", "-paper_count", "name", "id")
    if q:
        tasks = tasks.filter(name__icontains=q)[:FILTER_LIMIT]
    found: dict[str, Area] = {}
    other = {slugify(OTHER_AREA): OTHER_AREA}
    slugs: dict[str, str] = {}  # a few dozen names over thousands of tasks: slugify each once
    for values in tasks.values_list(*_TASK_ROW):
        categories = values[3]
        names = [c for c in categories or [] if isinstance(c, str)]
        for name in names:
            if name not in slugs:
                slugs[name] = slugify(name)
        # Each area once, however many of the task's names slug alike.
        placed = {slugs[name]: name for name in reversed(names) if slugs[name]}
        task = None
        for slug, name in (placed or other).items():
            if only is not None and slug != only:
                continue
            found_area = found.get(slug)
            if found_area is None:
                found_area = found[slug] = Area(name, slug)
            found_area.task_count += 1
            found_area.benchmark_count += values[5]
            found_area.reported_tasks += values[7] > 0
            if keep is None or len(found_area.tasks) < keep:
                task = task or _task(values)
                found_area.tasks.append(task)
    return sorted(found.values(), key=lambda a: (a.name == OTHER_AREA, a.name.casefold()))


def area(slug: str) -> Area | None:
    """One area with all its tasks (one query), or None."""
    found = areas(only=slug)
    return found[0] if found else None


# --- index pages -------------------------------------------------------------------------------

SORTS = {
    "name": ("name", "id"),
    "papers": ("-paper_count", "name", "id"),
    "benchmarks": ("-benchmark_count", "-paper_count", "name", "id"),
}


def catalogue_page(model, q: str, sort: str, number: int, per_page: int, **filters) -> Page:
    """/tasks, /datasets, /methods: visible records whose name (or full name) holds q."""
    records = model.objects.listed().filter(**filters)
    if q:
        names = Q(name__icontains=q)
        if hasattr(model, "full_name"):
            names |= Q(full_name__icontains=q)
        records = records.filter(names)
    order = SORTS.get(sort, SORTS["name"])
    if not hasattr(model, "benchmark_count"):
        order = tuple(o for o in order if "benchmark" not in o)
    return page_of(records.order_by(*order), number, per_page)


@dataclass
class CollectionGroup:
    area: str
    collections: list


def collection_groups() -> list[CollectionGroup]:
    """Method collections by area, each with its number of visible methods: one query."""
    rows = Collection.objects.annotate(
        method_count=Count("methods", filter=Q(methods__hidden=False))
    ).order_by("area", "name", "id")
    groups: dict[str, CollectionGroup] = {}
    for collection in rows:
        if collection.method_count:
            name = collection.area or OTHER_AREA
            groups.setdefault(name, CollectionGroup(name, [])).collections.append(collection)
    return sorted(groups.values(), key=lambda g: (g.area == OTHER_AREA, g.area.casefold()))


# --- benchmarks: one row per leaderboard, its best result ----------------------------------


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


# --- one leaderboard ---------------------------------------------------------------------------


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


# The board's row filter: which rows the table keeps (their ranks stay the board's).
ROW_FILTERS = {
    "": "All rows",
    "report": "Code has a report",
    "ran": "A sample ran",
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

    @property
    def choices(self) -> list[tuple[str, LeaderboardMetric]]:
        return list(zip(self.metric_ids, self.metrics, strict=True))

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
        }
        return [(key, label, counts[key]) for key, label in ROW_FILTERS.items()]


_ROW_DETAIL = (
    "id", "leaderboard_id", "position", "model_name", "paper_id", "paper_title",
    "paper_url", "paper_date", "metrics", "uses_additional_data", "code_links",
    "paper__slug", "paper__title", "paper__published", "paper__hidden",
    "paper__has_report", "paper__sample_count", "paper__sample_statuses",
)  # fmt: skip


def _facts_of_board(
    board: Leaderboard,
    metrics: list[LeaderboardMetric],
    chosen: LeaderboardMetric | None,
    fresh: bool = False,
) -> tuple[Ranking | None, charts.ProgressChart | None, BoardExecution]:
    """The ranking by `chosen` (None without a metric) and its chart, and the board's
    execution facts: those kept (two primary-key reads), else worked out from the rows
    (kept per content version), or, when `fresh`, worked out now."""
    if not fresh:
        kept, execution = rankings.kept_facts(board, chosen)
        if execution is not None and (chosen is None or kept is not None):
            ranking, chart = kept if kept is not None else (None, None)
            return ranking, chart, execution
        facts = by_version(
            f"board.{board.id}.facts", functools.partial(rankings.board_facts, board, metrics)
        )
    else:
        facts = rankings.board_facts(board, metrics)
    ranking, chart = facts.rankings[chosen.id] if chosen is not None else (None, None)
    return ranking, chart, facts.execution


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
    if ranking is None:  # no metric: the rows in the archive's order, unranked
        ranking = [
            (pk, None) for pk in board.rows.order_by("position", "id").values_list("id", flat=True)
        ]
    all_rows = len(ranking)
    if row_filter:
        ranking = [(pk, rank) for pk, rank in ranking if execution.keeps(row_filter, pk)]
    window = clamped(number, len(ranking), BOARD_PAGE)
    shown = window.slice(ranking)
    wanted = {pk for pk, _ in shown} | {r.key for r in (chart.detailed if chart else [])}
    details = board.rows.filter(id__in=wanted).select_related("paper").only(*_ROW_DETAIL)
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


def metric_text(value: Any) -> str:
    """A metric value as the source gives it: text verbatim, numbers without a float's
    ".0" (62687, not 62687.0)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    return str(value)


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


# --- the subtask tree --------------------------------------------------------------------------


@dataclass
class TreeNode:
    task: Task
    children: list[TreeNode] = field(default_factory=list)


def subtask_tree(task: Task, depth: int = 4) -> list[TreeNode]:
    """The task's subtasks, theirs and so on to `depth` levels, in the archive's order
    (a subtask under several parents appears under each; a cycle is cut). Two queries:
    every edge, then the tasks of the tree."""
    children: dict[int, list[int]] = defaultdict(list)
    for parent, child in TaskEdge.objects.order_by("parent_id", "position", "id").values_list(
        "parent_id", "child_id"
    ):
        children[parent].append(child)

    def walk(node: int, path: frozenset[int], level: int) -> list[tuple[int, list]]:
        if level >= depth:
            return []
        return [
            (child, walk(child, path | {child}, level + 1))
            for child in children.get(node, [])
            if child not in path
        ]

    shape = walk(task.id, frozenset({task.id}), 0)
    ids: set[int] = set()

    def collect(items):
        for pk, sub in items:
            ids.add(pk)
            collect(sub)

    collect(shape)
    tasks = Task.objects.listed().in_bulk(ids) if ids else {}

    def build(items) -> list[TreeNode]:
        return [TreeNode(tasks[pk], build(sub)) for pk, sub in items if pk in tasks]

    return build(shape)


# --- paged paper lists -------------------------------------------------------------------------

# A list of more papers than this is read newest first from the papers' date index,
# probing the links for each paper, which stops after a page; a smaller one is read from
# the links' index and sorted (probing would walk most of the archive to fill a page).
DENSE = 2_000


def linked_papers(links: QuerySet, total: int) -> QuerySet[Paper]:
    """The papers that have one of these link rows (a task's PaperTask rows…), written for
    the plan that reads a page of `total` of them fastest."""
    if total > DENSE:
        return Paper.objects.filter(Exists(links.filter(paper=OuterRef("pk"))))
    return Paper.objects.filter(id__in=links.values("paper_id"))


def paper_page(
    papers: QuerySet[Paper], number: int, per_page: int, total: int | None = None
) -> Page:
    """A page of visible papers, newest first (undated last), with their authors: three
    queries (count unless given, rows, authors)."""
    return page_of(
        papers.visible().order_by(*NEWEST_FIRST).with_authors(), number, per_page, total
    )


# --- venues ------------------------------------------------------------------------------------

VENUE_SORTS = ("name", "papers")


@dataclass
class VenueSeries:
    """A venue over its years: its rows (papers.models.Venue), the newest year first and
    the papers without a year last, and their papers."""

    series: str
    name: str
    years: list = field(default_factory=list)
    paper_count: int = 0

    def get_absolute_url(self) -> str:
        return reverse("conference", kwargs={"slug": self.series})

    @property
    def proceedings(self) -> list[str]:
        return sorted({text for venue in self.years for text in venue.proceedings})


def _series_of(rows) -> dict[str, VenueSeries]:
    """Venue rows grouped by series, in the order given; each named as its newest year."""
    found: dict[str, VenueSeries] = {}
    for venue in rows:
        group = found.get(venue.series)
        if group is None:
            group = found[venue.series] = VenueSeries(venue.series, venue.name)
        group.years.append(venue)
        group.paper_count += venue.paper_count
    return found


def _newest_year_first(venue) -> tuple:
    return (venue.series, venue.year is None, -(venue.year or 0))


def venue_index(q: str, sort: str, number: int, per_page: int) -> Page:
    """/conferences: every venue with its years and their papers, those whose name holds
    `q`; by name or by papers, a page of venues at a time. One query (a few thousand
    small rows at archive scale, grouped here)."""
    from papers.models import Venue

    rows = Venue.objects.filter(paper_count__gt=0)
    if q:
        rows = rows.filter(name__icontains=q)
    fields = ("id", "slug", "series", "name", "year", "paper_count")
    grouped = list(_series_of(sorted(rows.only(*fields), key=_newest_year_first)).values())
    if sort == "papers":
        grouped.sort(key=lambda s: (-s.paper_count, s.name.casefold(), s.series))
    else:
        grouped.sort(key=lambda s: (s.name.casefold(), s.series))
    return page_of_list(grouped, number, per_page)


@dataclass
class VenuePage:
    """What /conference/<slug> shows: a venue over its years (`venue` None), or one
    year's proceedings (`venue`), with the venue's other years."""

    series: VenueSeries
    venue: Any = None  # papers.models.Venue

    @property
    def name(self) -> str:
        return str(self.venue) if self.venue is not None else self.series.name

    @property
    def proceedings(self) -> list[str]:
        return self.venue.proceedings if self.venue is not None else self.series.proceedings

    @property
    def paper_count(self) -> int:
        return self.venue.paper_count if self.venue is not None else self.series.paper_count


# Papers with Code's proceedings URLs end with the issue: /conference/neurips-2020-12.
_ISSUE_SUFFIX = re.compile(r"-\d{1,2}$")


def find_venue(slug: str) -> tuple[VenuePage | None, str | None]:
    """The venue or year /conference/<slug> names, or (None, the canonical slug to
    redirect to) for Papers with Code's form of it ("neurips-2020-12"), or (None, None).
    One query: the rows of every series the slug may name."""
    from papers.models import Venue

    names = {slug}
    if (stripped := _ISSUE_SUFFIX.sub("", slug)) != slug:
        names.add(stripped)
    named = Venue.objects.filter(slug__in=names).values("series")
    rows = Venue.objects.filter(Q(series__in=names) | Q(series__in=named)).order_by()
    grouped = _series_of(sorted(rows, key=_newest_year_first))
    if slug in grouped:
        return VenuePage(grouped[slug]), None
    for series in grouped.values():
        for venue in series.years:
            if venue.slug == slug:
                return VenuePage(series, venue), None
    for series in grouped.values():
        if any(venue.slug == stripped for venue in series.years) or series.series == stripped:
            return None, stripped
    return None, None


def venue_papers(page: VenuePage) -> QuerySet[Paper]:
    """The papers of a venue or year, by the `proceeding` values that name it
    (paper_proceeding_idx)."""
    return Paper.objects.filter(proceeding__in=page.proceedings)
