"""Leaderboards from the evaluation tables: task → dataset → rows of metrics."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from django.db import models
from django.db.models.functions import Cast
from django.urls import reverse

from papers.db import chunks
from papers.identifiers import board_slug
from papers.metrics import (
    has_value,
    inferred_direction,
    json_safe_metrics,
    read_rows,
    reads_alone,
    stated_lower_is_better,
)
from papers.models.base import Record


class LeaderboardManager(models.Manager):
    def get_by_natural_key(self, task_slug, dataset_slug):
        return self.get(task__slug=task_slug, dataset__slug=dataset_slug)


class Leaderboard(Record):
    """The results of one task on one dataset (the archive's `sota` block)."""

    # No index of its own: leaderboard_unique starts with this column.
    task = models.ForeignKey(
        "Task", on_delete=models.CASCADE, related_name="leaderboards", db_index=False
    )
    # No index of its own: leaderboard_dataset_idx starts with this column.
    dataset = models.ForeignKey(
        "Dataset", on_delete=models.CASCADE, related_name="leaderboards", db_index=False
    )
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="subleaderboards",
        help_text="Set for a subdataset's leaderboard (a split or variant of the parent dataset).",
    )
    description = models.TextField(blank=True)
    dataset_links = models.JSONField(default=list, blank=True)
    dataset_citations = models.JSONField(default=list, blank=True)
    position = models.PositiveIntegerField(default=0, help_text="Order within the task.")
    mirror_url = models.CharField(  # noqa: DJ001
        max_length=500,
        null=True,
        blank=True,
        help_text="The table this one mirrors, as a contributor gave it.",
    )

    objects = LeaderboardManager()

    class Meta:
        ordering = ["task_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["task", "dataset"], name="leaderboard_unique")
        ]
        indexes = [
            # The dataset page: the leaderboards on a dataset.
            models.Index(fields=["dataset", "task"], name="leaderboard_dataset_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.task} on {self.dataset}"

    def get_absolute_url(self) -> str:
        """/sota/<task>-on-<dataset>, the old site's URL shape (task and dataset must be
        loaded with it)."""
        return reverse(
            "papers:leaderboard", kwargs={"slug": board_slug(self.task.slug, self.dataset.slug)}
        )

    def natural_key(self):
        return (self.task.slug, self.dataset.slug)

    natural_key.dependencies = ["papers.task", "papers.dataset"]


class LeaderboardMetricManager(models.Manager):
    def get_by_natural_key(self, task_slug, dataset_slug, name):
        return self.get(
            leaderboard__task__slug=task_slug, leaderboard__dataset__slug=dataset_slug, name=name
        )


class LeaderboardMetric(models.Model):
    """A metric column of a leaderboard; the first one ranks the rows."""

    # No index of its own: leaderboardmetric_unique starts with this column.
    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="metrics", db_index=False
    )
    name = models.CharField(max_length=255)
    position = models.PositiveSmallIntegerField(default=0)
    lower_is_better = models.BooleanField(
        null=True,
        blank=True,
        help_text="Leave empty to take the direction the leaderboard's description states "
        "for this metric, else the one its name says (error, loss, perplexity, WER, FID… "
        "are lower-is-better: papers/metrics.py); set it when that is wrong.",
    )
    stated_lower_is_better = models.BooleanField(
        null=True,
        blank=True,
        editable=False,
        help_text="The direction the source board's description states for this metric, "
        'if any ("perplexity (lower is better)").',
    )

    objects = LeaderboardMetricManager()

    class Meta:
        ordering = ["leaderboard_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["leaderboard", "name"], name="leaderboardmetric_unique"
            )
        ]

    def __str__(self) -> str:
        return self.name

    def natural_key(self):
        return (*self.leaderboard.natural_key(), self.name)

    natural_key.dependencies = ["papers.leaderboard"]

    @property
    def is_lower_better(self) -> bool:
        """Staff's choice, else what the board's description states for this metric, else
        what its name says, else higher (see direction_source)."""
        return self.direction[0]

    @property
    def direction_source(self) -> str:
        """Who decides the direction: "staff", "description", "name" or "default"."""
        return self.direction[1]

    @property
    def direction(self) -> tuple[bool, str]:
        if self.lower_is_better is not None:
            return self.lower_is_better, "staff"
        if self.stated_lower_is_better is not None:
            return self.stated_lower_is_better, "description"
        said = inferred_direction(self.name)
        if said is not None:
            return said, "name"
        return False, "default"


class LeaderboardRowManager(models.Manager):
    def get_by_natural_key(self, task_slug, dataset_slug, row_key):
        return self.get(
            leaderboard__task__slug=task_slug,
            leaderboard__dataset__slug=dataset_slug,
            row_key=row_key,
        )


class LeaderboardRow(Record):
    """One result row. Metrics are kept exactly as given (`metrics`) and, where a number
    can be read from them, parsed (`metric_values`) for ranking."""

    # No index of its own: leaderboardrow_unique starts with this column.
    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="rows", db_index=False
    )
    row_key = models.CharField(
        max_length=64, help_text="Stable identity within the leaderboard, derived by the importer."
    )
    position = models.PositiveIntegerField(default=0, help_text="Order in the archive.")
    model_name = models.CharField(max_length=500, blank=True)
    # No index of its own: leaderboardrow_paper_idx is the same index.
    paper = models.ForeignKey(
        "Paper",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="results",
        db_index=False,
    )
    paper_title = models.CharField(
        max_length=1000, blank=True, help_text="As the archive gives it."
    )
    paper_url = models.CharField(max_length=500, blank=True, help_text="As the archive gives it.")
    paper_date = models.CharField(max_length=32, blank=True, help_text="As the archive gives it.")
    metrics = models.JSONField(default=dict, blank=True, help_text="Metric name → value as given.")
    metric_values = models.JSONField(
        default=dict, blank=True, editable=False, help_text="Metric name → parsed number or null."
    )
    uses_additional_data = models.BooleanField(default=False)
    code_links = models.JSONField(default=list, blank=True)
    model_links = models.JSONField(default=list, blank=True)
    external_source_url = models.CharField(  # noqa: DJ001
        max_length=500,
        null=True,
        blank=True,
        help_text="Where a contributed result comes from (a competition's page), as given.",
    )

    objects = LeaderboardRowManager()

    class Meta:
        ordering = ["leaderboard_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["leaderboard", "row_key"], name="leaderboardrow_unique"
            )
        ]
        indexes = [
            # The paper page's results: the rows of one paper.
            models.Index(fields=["paper"], name="leaderboardrow_paper_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.model_name or self.paper_title} on {self.leaderboard}"

    def natural_key(self):
        return (*self.leaderboard.natural_key(), self.row_key)

    natural_key.dependencies = ["papers.leaderboard", "papers.paper"]

    def save(self, *args, **kwargs):
        """Keep the values as given (non-finite numbers as their text: JSON has none), and
        read them with the rest of their board's columns, whose readings this row may
        change (a decimal comma is decided per column: papers/metrics.py). Sets
        `revalued`: whether the readings of other rows changed.

        Only a value with the two readings of "12,345" depends on its column; while
        neither this row nor any other row of the board holds one, each value reads
        alone, and the board's other values need not be read (the rows with a comma
        before a digit, where such a value can only be, are read to be sure)."""
        self.metrics = json_safe_metrics(self.metrics)
        others = LeaderboardRow.objects.filter(leaderboard_id=self.leaderboard_id).exclude(
            pk=self.pk
        )
        self.revalued = False
        if reads_alone(self.metrics) and all(map(reads_alone, _with_commas(others))):
            self.metric_values = read_rows([self.metrics])[0]
            super().save(*args, **kwargs)
            return
        others = list(others.values_list("id", "metrics", "metric_values"))
        readings = read_rows([self.metrics, *(metrics for _, metrics, _ in others)])
        self.metric_values = readings[0]
        super().save(*args, **kwargs)
        for (pk, _, stored), reading in zip(others, readings[1:], strict=True):
            if stored != reading:
                LeaderboardRow.objects.filter(pk=pk).update(metric_values=reading)
                self.revalued = True


def reread_board(board_id: int) -> bool:
    """Read the board's values again when one of them reads by its column (after a row
    is deleted, which may have been what decided the column); whether any reading
    changed."""
    rows = LeaderboardRow.objects.filter(leaderboard_id=board_id)
    if all(map(reads_alone, _with_commas(rows))):
        return False
    return bool(revalue_boards([board_id]))


class CommaBeforeDigit(models.Func):
    """Whether a text holds a comma before a digit. PostgreSQL tests one regular
    expression (ten LIKEs cost it four times as much over a big board); elsewhere ten
    LIKEs, which SQLite runs natively (its REGEXP is a Python call per row)."""

    arity = 1
    output_field = models.BooleanField()

    def as_sql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        tests = " OR ".join([f"{sql} LIKE %s"] * 10)
        return f"({tests})", [value for d in range(10) for value in (*params, f"%,{d}%")]

    def as_postgresql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return f"({sql} ~ %s)", [*params, ",[0-9]"]


class FirstRanked(models.Func):
    """The first [row id, rank] of a kept ranking's `ranks` (best first) whose row is one
    of `ids` and ranked, found by the database in the stored JSON: a big board's ranking
    is ~9,500 pairs, which decoded in Python cost more than the rest of a badge."""

    output_field = models.JSONField()

    def __init__(self, ranks, ids: list[int]):
        self.ids = [int(pk) for pk in ids]
        super().__init__(ranks)

    def as_postgresql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return (
            f"(SELECT e FROM jsonb_array_elements({sql}) WITH ORDINALITY AS r(e, n) "
            "WHERE (e->>0)::bigint = ANY(%s) AND jsonb_typeof(e->1) = 'number' "
            "ORDER BY n LIMIT 1)",
            [*params, self.ids],
        )

    def as_sqlite(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        return (
            f"(SELECT value FROM json_each({sql}) WHERE json_extract(value, '$[0]') IN "
            "(SELECT value FROM json_each(%s)) AND json_type(value, '$[1]') = 'integer' "
            "ORDER BY key LIMIT 1)",
            [*params, json.dumps(self.ids)],
        )


def _with_commas(rows: models.QuerySet) -> Iterator:
    """The metrics of those rows whose metrics' JSON text holds a comma before a digit
    (as both engines write JSON text, the commas between members are followed by a
    space): a value with the two readings of "12,345" is among them."""
    text = Cast("metrics", models.TextField())
    return rows.filter(CommaBeforeDigit(text)).values_list("metrics", flat=True).iterator()


def restate_directions(board: Leaderboard) -> None:
    """Keep what the board's description states for each of its metrics (after staff
    edit the description)."""
    metrics = list(board.metrics.all())
    for metric in metrics:
        stated = stated_lower_is_better(board.description, metric.name, len(metrics))
        if stated != metric.stated_lower_is_better:
            metric.stated_lower_is_better = stated
            metric.save(update_fields=["stated_lower_is_better"])


def unranked_values(board_ids: Iterable[int]) -> Iterator[tuple[int, str, object]]:
    """(board id, metric name, value as given) of every value these boards' rows give
    that their readings hold no number for ("-", "", null say nothing and are not)."""
    for part in chunks(sorted(set(board_ids))):
        rows = LeaderboardRow.objects.filter(leaderboard_id__in=part).values_list(
            "leaderboard_id", "metrics", "metric_values"
        )
        for board, metrics, values in rows.iterator(chunk_size=5000):
            values = values if isinstance(values, dict) else {}
            for name, raw in (metrics if isinstance(metrics, dict) else {}).items():
                if has_value(raw) and values.get(name) is None:
                    yield board, name, raw


def revalue_boards(board_ids: Iterable[int]) -> set[int]:
    """Read every row's values of these boards again, each column as a whole, and store
    the readings that changed (an import, after it writes a board's rows); returns the
    boards whose readings changed."""
    changed: set[int] = set()
    for part in chunks(sorted(set(board_ids))):
        rows = (
            LeaderboardRow.objects.filter(leaderboard_id__in=part)
            .order_by("leaderboard_id", "id")
            .values_list("leaderboard_id", "id", "metrics", "metric_values")
        )
        by_board: dict[int, list[tuple]] = {}
        for row in rows.iterator(chunk_size=5000):
            by_board.setdefault(row[0], []).append(row)
        for board_rows in by_board.values():
            readings = read_rows([metrics for _, _, metrics, _ in board_rows])
            for (board, pk, _, stored), reading in zip(board_rows, readings, strict=True):
                if stored != reading:
                    LeaderboardRow.objects.filter(pk=pk).update(metric_values=reading)
                    changed.add(board)
    return changed


def ranked_rows(
    metrics: list[LeaderboardMetric], rows: list[LeaderboardRow]
) -> list[LeaderboardRow]:
    """Rows ordered by the first metric (best first, in the metric's direction), each given
    a `.rank`; rows without a number for it come last, unranked, in archive order."""
    if not metrics:
        for row in rows:
            row.rank = None
        return sorted(rows, key=lambda r: (r.position, r.id or 0))
    first = metrics[0]
    sign = 1 if first.is_lower_better else -1
    scored = [r for r in rows if r.metric_values.get(first.name) is not None]
    unscored = [r for r in rows if r.metric_values.get(first.name) is None]
    scored.sort(key=lambda r: (sign * r.metric_values[first.name], r.position, r.id or 0))
    previous, rank = None, 0
    for index, row in enumerate(scored, 1):
        value = row.metric_values[first.name]
        if value != previous:
            rank, previous = index, value
        row.rank = rank
    for row in unscored:
        row.rank = None
    return scored + sorted(unscored, key=lambda r: (r.position, r.id or 0))


# --- what the leaderboard page reads instead of every row ----------------------------------


class MetricRanking(models.Model):
    """A board's rows ranked by one of its metrics, and that metric's progress chart, as
    `papers.kept.rankings.refresh_boards()` worked them out from every row: the leaderboard
    page reads this instead of thousands of rows. An edit of the board's rows or metrics,
    or of a paper on it, deletes it (papers.kept.signals), so the page
    ranks the rows itself until the refresh that follows: a ranking is never older than
    the rows it ranks."""

    metric = models.OneToOneField(
        LeaderboardMetric, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    leaderboard = models.ForeignKey(Leaderboard, on_delete=models.CASCADE, related_name="+")
    ranks = models.JSONField(default=list)  # [[row id, rank or null], …], best first
    chart = models.JSONField(null=True)  # papers.charts.ProgressChart.to_json(), or null
    # What it was made with. The page ignores it when the metric's name or direction
    # differs now (staff's choice, or inferred from the name by code that may have
    # changed since), or when it was made by other ranking code (papers.kept.rankings.VERSION).
    metric_name = models.CharField(max_length=255)
    lower_is_better = models.BooleanField()
    version = models.PositiveSmallIntegerField()

    class Meta:
        indexes = [models.Index(fields=["leaderboard"], name="metricranking_board_idx")]

    def __str__(self) -> str:
        return f"ranking by metric {self.metric_id}"


class LeaderboardExecution(models.Model):
    """What the execution reports say of a board's rows (see MetricRanking for when it is
    written and deleted): the rows whose shown paper has a report, those with a sample
    that ran, and the reports' claim sentences, the most common first."""

    leaderboard = models.OneToOneField(
        Leaderboard, primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    reported = models.JSONField(default=list)  # row ids
    ran = models.JSONField(default=list)  # row ids
    claims = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"execution facts of board {self.leaderboard_id}"
