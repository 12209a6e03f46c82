"""A progress chart (papers.charts) changed by one result added or taken away, without
the board's other results: drawn exactly as `progress_chart_of()` draws it from all of
them, for a write to one row of a board of thousands (papers.kept.increments).

That holds while the frame stays (the new result lies within the first and last day and
the smallest and largest value; a result taken away lies strictly inside them), no
record is taken away or loses its place to the new one, and the chart keeps drawing its
results the same way (every one as a point, or the records as points and the rest as
density cells). Otherwise `Unsure` is raised: the caller draws the chart from every
result.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt

from papers.charts import (
    LINK_EVERY_POINT,
    Point,
    ProgressChart,
    Result,
    _Frame,
    density_layer,
    step_path,
)


class Unsure(Exception):
    """The chart cannot be changed without its other results."""


def _order(chart: ProgressChart, day: int, value: float, key) -> tuple:
    """Where a result is drawn among the others: by day, the best of a day first, then
    in key (row id) order (as `progress_chart_of()` reads the rows)."""
    return (day, value if chart.lower_is_better else -value, key)


def _point_order(chart: ProgressChart, point: Point) -> tuple:
    result = point.result
    return _order(chart, result.date.toordinal(), result.value, result.key)


def _checked(chart: ProgressChart | None) -> tuple[ProgressChart, _Frame]:
    if chart is None or chart.bounds is None:
        raise Unsure("no chart, or one kept without its bounds")
    return chart, _Frame.spanning(*chart.bounds)


def with_undated(chart: ProgressChart | None, change: int) -> ProgressChart | None:
    """The chart with `change` more (or fewer) results that have a value but no date:
    only its count of them changes (none are drawn, and without a dated result there is
    no chart)."""
    if chart is None:
        return None
    return dataclasses.replace(chart, undated=chart.undated + change)


def with_result(chart: ProgressChart | None, day: int, value: float, key) -> ProgressChart:
    """The chart with one more dated result (day as an ordinal)."""
    chart, frame = _checked(chart)
    first, last, smallest, largest = chart.bounds
    if not (first <= day <= last and smallest <= value <= largest):
        raise Unsure("the result moves the frame")
    count = chart.count + 1
    every = count <= LINK_EVERY_POINT
    if every != chart.link_every_point:
        raise Unsure("the chart changes how it draws its results")
    mine = _order(chart, day, value, key)
    orders = [_point_order(chart, p) for p in chart.points]
    at = bisect.bisect_left(orders, mine)
    if at < len(orders) and orders[at] == mine:
        raise Unsure("the result is drawn already")
    earlier = [p for p in chart.points[:at] if p.record]
    signed = mine[1]
    record = not earlier or signed < _point_order(chart, earlier[-1])[1]
    if record and any(p.record and orders[i][1] >= signed
                      for i, p in enumerate(chart.points[at:], at)):  # fmt: skip
        raise Unsure("a later record would lose its place")
    points, cells, density = list(chart.points), chart.cells, chart.density
    if record or every:
        result = Result(dt.date.fromordinal(day), value, key=key)
        points.insert(at, Point(frame.x_of(day), frame.y_of(value), result, record))
    else:
        cell = frame.cell(day, value)
        cells = {**cells, cell: cells.get(cell, 0) + 1}
        density = density_layer(cells)
    return _redrawn(chart, frame, points, cells, density, count)


def without_result(chart: ProgressChart | None, day: int, value: float, key) -> ProgressChart:
    """The chart without one of its dated results, which must not be a record."""
    chart, frame = _checked(chart)
    first, last, smallest, largest = chart.bounds
    if not (first < day < last and smallest < value < largest):
        raise Unsure("the result may bound the frame")
    count = chart.count - 1
    if (count <= LINK_EVERY_POINT) != chart.link_every_point:
        raise Unsure("the chart changes how it draws its results")
    points, cells, density = list(chart.points), chart.cells, chart.density
    drawn = [i for i, p in enumerate(points) if p.result.key == key]
    if drawn:
        point = points[drawn[0]]
        if point.record or (point.result.date.toordinal(), point.result.value) != (day, value):
            raise Unsure("a record, or not the result the chart holds")
        del points[drawn[0]]
    elif chart.link_every_point:
        raise Unsure("the result is not drawn")
    else:
        cell = frame.cell(day, value)
        if not cells.get(cell):
            raise Unsure("the result's density cell is empty")
        cells = {**cells, cell: cells[cell] - 1}
        if not cells[cell]:
            del cells[cell]
        density = density_layer(cells)
    return _redrawn(chart, frame, points, cells, density, count)


def _redrawn(
    chart: ProgressChart, frame: _Frame, points: list[Point], cells: dict, density: list,
    count: int,
) -> ProgressChart:  # fmt: skip
    records = [p for p in points if p.record]
    return dataclasses.replace(
        chart,
        points=points,
        records=records,
        step_path=step_path(records, frame),
        count=count,
        cells=cells,
        density=density,
    )
