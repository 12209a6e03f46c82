"""Charts as inline SVG, drawn on the server: geometry here, markup in templates/charts/.

No JavaScript and no style attributes (the CSP allows neither): shapes carry classes and
presentation attributes only, and every chart has a text alternative (a <title>/<desc>
and a caption or table beside it) so a screen reader or a client without SVG gets the
same facts. Coordinates are in a fixed viewBox; the SVG scales to its box's width.

- `progress_chart()`: a leaderboard's results over time, each dated result a point
  (paper date by metric value), the running best a step line (down when lower is better),
  the record-setting results labelled with their model names, each label placed clear of
  the line, the points and the other labels. Past a few hundred results the results that
  set no record are drawn as a density layer: the plot cut into small cells, each shaded
  by how many results fall in it, so a board of 9,000 rows reads as a cloud, not a block.
- `usage_chart()`: papers a year, as bars (a method's use over time).
- `share_bar()`: parts of a whole as one stacked bar (samples by status).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from papers.chart_labels import _line_boxes, _overlaps, _place_labels  # noqa: F401

# The viewBox of the line and bar charts, and their plot area inside it.
WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 64, 20, 20, 40
LABEL_CHARS = 22  # a record's label: the model name cut to this many characters
# A label's box, to keep labels apart: user units a character takes at most (bold, at
# the desktop size), and the height of a line.
LABEL_CHAR_WIDTH = 8.0
LABEL_HEIGHT = 16
# The progress chart is wider: it spans the page's width.
PROGRESS_WIDTH, PROGRESS_HEIGHT = 960, 340
# Up to this many results every point is its own linked shape; past it, the records are,
# and the other results are binned into DENSITY_CELL-unit squares drawn as one path a
# shade (DENSITY_LEVELS shades, darker for fuller cells).
LINK_EVERY_POINT = 200
DENSITY_CELL = 10
DENSITY_LEVELS = 4
# Past this magnitude the y axis counts in units of the largest value (see progress_chart_of).
HUGE = 1e300


@dataclass(slots=True)
class Result:
    """One leaderboard result as a chart reads it. Only the points drawn one by one need
    their label, value text and link: `ProgressChart.attach()` can add them later."""

    date: dt.date | None
    value: float | None
    label: str = ""  # the model name
    value_text: str = ""  # the value as the source gives it
    href: str | None = None  # the paper page, when we have the paper
    key: object = None  # the caller's id for it (a leaderboard row's id)


@dataclass(slots=True)
class Point:
    x: float
    y: float
    result: Result
    record: bool = False
    label_x: float = 0.0
    label_y: float = 0.0
    label_anchor: str = "start"
    label: str = ""  # empty: not labelled (records too close to a labelled one)


@dataclass
class Tick:
    position: float
    text: str


@dataclass
class ProgressChart:
    metric: str
    lower_is_better: bool
    points: list[Point]
    records: list[Point]
    step_path: str
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    undated: int  # results with a value but no date: left out of the chart
    count: int = 0  # dated results drawn
    # Past LINK_EVERY_POINT results, the results that are not records, binned: one path
    # of cells per shade, the lightest first (see `density_layer`).
    density: list[str] = field(default_factory=list)
    # What the geometry was worked out from, so that one result added or taken away can be
    # drawn without the others (papers.chart_edits): the first and last day and the
    # smallest and largest value; the results in each density cell {(x, y): count}.
    bounds: tuple[int, int, float, float] | None = None
    cells: dict[tuple[int, int], int] = field(default_factory=dict)
    width: int = PROGRESS_WIDTH
    height: int = PROGRESS_HEIGHT
    left: int = LEFT
    right: int = PROGRESS_WIDTH - RIGHT
    top: int = TOP
    bottom: int = PROGRESS_HEIGHT - BOTTOM

    @property
    def link_every_point(self) -> bool:
        return self.count <= LINK_EVERY_POINT

    @property
    def detailed(self) -> list[Result]:
        """The results drawn one by one, which need a label, value text and link."""
        return [p.result for p in self.points]

    def attach(self, details: dict) -> None:
        """Give the detailed results their (label, value text, href) by key, then label
        the records."""
        for result in self.detailed:
            if result.key in details:
                result.label, result.value_text, result.href = details[result.key]
        _place_labels(
            self.records, self._obstacles(), self.left, self.right, self.top, self.bottom
        )

    def _obstacles(self) -> list[tuple[float, float, float, float]]:
        """Boxes a record's label must not cover: the line, the points drawn one by one
        and the density layer's cells."""
        boxes = _line_boxes(self.records, self.right)
        boxes += [(p.x - 7, p.y - 7, p.x + 7, p.y + 7) for p in self.points]
        for path in self.density:
            for x, y in _CELL.findall(path):
                x, y = float(x), float(y)
                boxes.append((x, y, x + DENSITY_CELL, y + DENSITY_CELL))
        return boxes

    @property
    def others(self) -> int:
        """Dated results that set no record."""
        return self.count - len(self.records)

    @property
    def shades(self) -> list[tuple[int, str]]:
        """(shade, path) of the density layer, lightest first."""
        return [(level, path) for level, path in enumerate(self.density, 1) if path]

    def to_json(self) -> dict:
        """The chart as JSON, without what `attach()` adds (labels, value texts, links:
        they follow the rows, which an edit may change without moving a point)."""
        return {
            "metric": self.metric,
            "lower_is_better": self.lower_is_better,
            # x, y, the result's day (ordinal), value and key, and whether a record
            "points": [
                [p.x, p.y, p.result.date.toordinal(), p.result.value, p.result.key, p.record]
                for p in self.points
            ],
            "step_path": self.step_path,
            "x_ticks": [[t.position, t.text] for t in self.x_ticks],
            "y_ticks": [[t.position, t.text] for t in self.y_ticks],
            "undated": self.undated,
            "count": self.count,
            "density": self.density,
            "bounds": list(self.bounds) if self.bounds else None,
            "cells": [n for (x, y), count in sorted(self.cells.items()) for n in (x, y, count)],
        }

    @classmethod
    def from_json(cls, data: dict) -> ProgressChart:
        """The chart `to_json()` gave, ready for `attach()`."""
        points = [
            Point(x, y, Result(dt.date.fromordinal(day), value, key=key), record)
            for x, y, day, value, key, record in data["points"]
        ]
        flat = data.get("cells") or []  # x, y, count, x, y, count…
        return cls(
            metric=data["metric"],
            lower_is_better=data["lower_is_better"],
            points=points,
            records=[p for p in points if p.record],
            step_path=data["step_path"],
            x_ticks=[Tick(position, text) for position, text in data["x_ticks"]],
            y_ticks=[Tick(position, text) for position, text in data["y_ticks"]],
            undated=data["undated"],
            count=data["count"],
            density=data["density"],
            bounds=tuple(data["bounds"]) if data.get("bounds") else None,
            cells={(flat[i], flat[i + 1]): flat[i + 2] for i in range(0, len(flat), 3)},
        )

    @property
    def summary(self) -> str:
        """What the chart shows, in a sentence (its <desc>)."""
        first, last = self.records[0].result, self.records[-1].result
        direction = "lower" if self.lower_is_better else "higher"
        shaded = " (the results that set no record shaded by density)" if self.density else ""
        text = (
            f"{self.count} dated results{shaded} for {self.metric} ({direction} is better). "
            f"The best went from {first.value_text} ({first.label}, {first.date:%b %Y}) "
            f"to {last.value_text} ({last.label}, {last.date:%b %Y})"
        )
        return text + f" over {len(self.records)} records."


_PARTIAL_DATE = re.compile(r"(\d{4})(?:-(\d{2}))?(?:[T ].*)?")


def parse_date(text: str | None) -> dt.date | None:
    """A leaderboard row's date as the archive gives it ("2019-05-28", sometimes with a
    time, sometimes just "2019-05" or "2019": its first day); None when it cannot be
    read, or names a day or month no calendar has ("2020-13-45" is no date, not 2020)."""
    if not text:
        return None
    try:  # the usual "2019-05-28", first and fast: a board may hold thousands of rows
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        pass
    text = text.strip()
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        pass
    partial = _PARTIAL_DATE.fullmatch(text)
    if partial is None:
        return None
    year, month = partial.group(1), partial.group(2) or "01"
    try:
        return dt.date(int(year), int(month), 1)
    except ValueError:
        return None


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About `count` round values covering low..high (1, 2 or 5 times a power of ten)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return []
    if high == low:
        return [low]
    raw = (high - low) / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = min((m * power for m in (1, 2, 2.5, 5, 10)), key=lambda s: abs(math.log(s / raw)))
    start = math.ceil(low / step - 1e-9) * step
    ticks, value = [], start
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    return ticks


def format_tick(value: float) -> str:
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1e6 or magnitude < 1e-3:
        return f"{value:.3g}"
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:.6g}"


def _cut(text: str, limit: int = LABEL_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def progress_chart(
    results: Iterable[Result], metric: str, lower_is_better: bool
) -> ProgressChart | None:
    """The progress chart of these results, or None without a dated value."""
    entries = ((r.date, r.value, r) for r in results)
    return progress_chart_of(entries, metric, lower_is_better, keys_are_results=True)


def progress_chart_of(
    entries: Iterable[tuple[dt.date | None, float | None, object]],
    metric: str,
    lower_is_better: bool,
    keys_are_results: bool = False,
) -> ProgressChart | None:
    """The progress chart of (date, value, key) entries, or None without a dated value.
    Built in one pass over plain numbers (a board may hold thousands of results): only
    the points drawn one by one become Results (with the key, for `attach()`)."""
    dated, undated = [], 0
    for date, value, key in entries:
        if value is None:
            continue
        if date is None:
            undated += 1
        else:
            dated.append((date.toordinal(), value if lower_is_better else -value, value, key))
    if not dated:
        return None
    dated.sort(key=lambda entry: entry[:2])  # by date, the best of a day first
    frame = _Frame.of(dated)
    points, records, cells = _plot(dated, frame, keys_are_results)

    chart = ProgressChart(
        metric=metric,
        lower_is_better=lower_is_better,
        points=points,
        records=records,
        step_path=step_path(records, frame),
        x_ticks=frame.x_ticks(),
        y_ticks=frame.y_ticks(),
        undated=undated,
        count=len(dated),
        density=density_layer(cells),
        bounds=frame.bounds,
        cells=cells,
    )
    chart.attach({})
    return chart


def step_path(records: list[Point], frame: _Frame) -> str:
    """The running best: flat until the next record, then a step to it; on to the last
    date."""
    path = [f"M{records[0].x},{records[0].y}"]
    for point in records[1:]:
        path.append(f"H{point.x}V{point.y}")
    path.append(f"H{frame.x_of(frame.last_day)}")
    return "".join(path)


_CELL = re.compile(r"M([\d.-]+) ([\d.-]+)")


def density_layer(cells: dict[tuple[int, int], int]) -> list[str]:
    """One path of squares per shade from {(x, y) of a cell's corner: results in it}:
    shade k of DENSITY_LEVELS holds the cells whose count reaches the k-th step of a
    logarithmic scale up to the fullest cell (one result is always the lightest)."""
    if not cells:
        return []
    fullest = max(cells.values())
    paths: list[list[str]] = [[] for _ in range(DENSITY_LEVELS)]
    for (x, y), n in sorted(cells.items()):
        share = math.log(n) / math.log(fullest) if fullest > 1 else 0.0
        level = min(DENSITY_LEVELS - 1, int(share * DENSITY_LEVELS))
        paths[level].append(f"M{x} {y}h{DENSITY_CELL}v{DENSITY_CELL}h-{DENSITY_CELL}z")
    return ["".join(path) for path in paths]


@dataclass
class _Frame:
    """A progress chart's axes: the days and values its plot area spans, and the scale
    from them to user units."""

    first_day: int
    last_day: int
    x_low: float
    x_high: float
    unit: float
    y_low: float
    y_high: float
    left: float = LEFT
    right: float = PROGRESS_WIDTH - RIGHT
    top: float = TOP
    bottom: float = PROGRESS_HEIGHT - BOTTOM
    bounds: tuple[int, int, float, float] | None = None

    @classmethod
    def of(cls, dated: list[tuple]) -> _Frame:
        """The frame of (day, signed value, value, key) entries sorted by day."""
        values = [value for _, _, value, _ in dated]
        return cls.spanning(dated[0][0], dated[-1][0], min(values), max(values))

    @classmethod
    def spanning(cls, first_day: int, last_day: int, smallest: float, largest: float) -> _Frame:
        """The frame of results from `first_day` to `last_day` (ordinals) with values from
        `smallest` to `largest`."""
        span = max(last_day - first_day, 60)
        # Values near a float's limits (1e308 beside -1e308) would overflow the geometry's
        # arithmetic: the y axis then counts in units of the largest magnitude.
        magnitude = max(abs(smallest), abs(largest))
        unit = magnitude if magnitude > HUGE else 1.0
        low, high = smallest / unit, largest / unit
        pad = (high - low) * 0.08 or abs(high) * 0.05 or 1.0
        return cls(
            first_day=first_day,
            last_day=last_day,
            x_low=first_day - span * 0.03,
            x_high=first_day + span * 1.03,
            unit=unit,
            y_low=low - pad,
            y_high=high + pad,
            bounds=(first_day, last_day, smallest, largest),
        )

    @property
    def x_scale(self) -> float:
        return (self.right - self.left) / (self.x_high - self.x_low)

    @property
    def y_scale(self) -> float:
        return (self.bottom - self.top) / (self.y_high - self.y_low)

    def x_of(self, day: float) -> float:
        return round(self.left + (day - self.x_low) * self.x_scale, 1)

    def y_of(self, value: float) -> float:
        return round(self.bottom - (value / self.unit - self.y_low) * self.y_scale, 1)

    def cell(self, day: float, value: float) -> tuple[int, int]:
        """The corner of the density cell a result falls in (cells tile the plot area
        from its top left corner)."""
        x = self.left + (day - self.x_low) * self.x_scale
        y = self.bottom - (value / self.unit - self.y_low) * self.y_scale
        column = int((x - self.left) // DENSITY_CELL)
        row = int((y - self.top) // DENSITY_CELL)
        return int(self.left) + column * DENSITY_CELL, int(self.top) + row * DENSITY_CELL

    def x_ticks(self) -> list[Tick]:
        first_year = dt.date.fromordinal(self.first_day).year
        last_year = dt.date.fromordinal(self.last_day).year
        ticks = [
            Tick(self.x_of(dt.date(year, 1, 1).toordinal()), str(year))
            for year in range(first_year, last_year + 2)
            if self.x_low <= dt.date(year, 1, 1).toordinal() <= self.x_high
        ]
        if len(ticks) > 8:  # every other year (or fewer) on long histories
            step = math.ceil(len(ticks) / 8)
            ticks = ticks[::step]
        return ticks

    def y_ticks(self) -> list[Tick]:
        y_low, y_high, unit = self.y_low, self.y_high, self.unit
        return [
            Tick(round(self.bottom - (v - y_low) * self.y_scale, 1), format_tick(v * unit))
            for v in nice_ticks(y_low, y_high)
            if y_low <= v <= y_high and math.isfinite(v * unit)
        ]


def _plot(
    dated: list[tuple], frame: _Frame, keys_are_results: bool
) -> tuple[list[Point], list[Point], dict[tuple[int, int], int]]:
    """The points drawn one by one (every result on a small board, else the records),
    the records among them, and the other results counted by density cell."""
    each = len(dated) <= LINK_EVERY_POINT
    points, records = [], []
    cells: dict[tuple[int, int], int] = {}
    best = None  # the best so far, signed so that smaller is better
    for day, signed, value, key in dated:
        record = best is None or signed < best
        if record:
            best = signed
        if record or each:
            result = key if keys_are_results else Result(dt.date.fromordinal(day), value, key=key)
            point = Point(frame.x_of(day), frame.y_of(value), result, record)
            points.append(point)
            if record:
                records.append(point)
        else:
            cell = frame.cell(day, value)
            cells[cell] = cells.get(cell, 0) + 1
    return points, records, cells


# --- papers a year ----------------------------------------------------------------------------


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    year: int
    count: int
    href: str | None = None


@dataclass
class UsageChart:
    bars: list[Bar]
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    total: int
    width: int = WIDTH
    height: int = 240
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = 240 - BOTTOM

    @property
    def first_year(self) -> int:
        return self.bars[0].year

    @property
    def last_year(self) -> int:
        return self.bars[-1].year

    @property
    def peak(self) -> Bar:
        return max(self.bars, key=lambda b: (b.count, b.year))


def usage_chart(by_year: dict, href_for=None) -> UsageChart | None:
    """Bars of papers a year from {year: count} (years as ints or strings), every year
    from the first to the last shown, empty ones too; None without any paper."""
    counts = {int(year): int(n) for year, n in by_year.items() if int(n) > 0}
    if not counts:
        return None
    first, last = min(counts), max(counts)
    years = list(range(first, last + 1))
    height = 240
    plot_left, plot_right, plot_top, plot_bottom = LEFT, WIDTH - RIGHT, TOP, height - BOTTOM
    ticks = nice_ticks(0, max(counts.values()), 4)
    top_value = max(ticks[-1], max(counts.values()))
    slot = (plot_right - plot_left) / len(years)
    bars = []
    for index, year in enumerate(years):
        n = counts.get(year, 0)
        bar_height = round(n / top_value * (plot_bottom - plot_top), 1)
        bars.append(
            Bar(
                x=round(plot_left + index * slot + slot * 0.15, 1),
                y=round(plot_bottom - bar_height, 1),
                width=round(slot * 0.7, 1),
                height=bar_height,
                year=year,
                count=n,
                href=href_for(year) if href_for and n else None,
            )
        )
    step = max(1, math.ceil(len(years) / 10))
    x_ticks = [Tick(round(b.x + b.width / 2, 1), str(b.year)) for b in bars[::step]]
    y_ticks = [
        Tick(round(plot_bottom - v / top_value * (plot_bottom - plot_top), 1), format_tick(v))
        for v in ticks
    ]
    return UsageChart(bars=bars, y_ticks=y_ticks, x_ticks=x_ticks, total=sum(counts.values()))


# --- shares of a whole ------------------------------------------------------------------------


@dataclass
class Segment:
    key: str
    count: int
    share: float  # 0..1
    x: float
    width: float

    @property
    def percent(self) -> str:
        percent = self.share * 100
        if 0 < percent < 0.1:
            return "<0.1%"
        return f"{percent:.1f}%" if percent < 10 else f"{percent:.0f}%"


@dataclass
class ShareBar:
    segments: list[Segment] = field(default_factory=list)
    total: int = 0
    width: int = 1000
    height: int = 28


def share_bar(counts: dict[str, int]) -> ShareBar | None:
    """One bar split into each key's share of the total, in the order given (keys with
    no count left out); None when the total is zero."""
    items = [(key, n) for key, n in counts.items() if n > 0]
    total = sum(n for _, n in items)
    if not total:
        return None
    bar = ShareBar(total=total)
    x = 0.0
    for key, n in items:
        width = n / total * bar.width
        bar.segments.append(Segment(key, n, n / total, round(x, 2), round(width, 2)))
        x += width
    return bar
