"""/trends' chart: shares of a whole over periods, as lines labelled at their right ends
(inline SVG drawn by templates/papers/trends.html; conventions as papers.charts)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from papers.charts import BOTTOM, LABEL_HEIGHT, PROGRESS_WIDTH, TOP, Tick


@dataclass
class ShareSeries:
    name: str
    index: int  # its colour and dash (series-<index>)
    path: str
    points: list[tuple[float, float]]
    shares: list[float]  # 0..100, one a period
    label_y: float = 0.0
    last: float = 0.0  # its share in the last period


@dataclass
class ShareChart:
    periods: list[str]
    totals: list[int]
    series: list[ShareSeries]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    width: int = PROGRESS_WIDTH
    height: int = 360
    left: int = 56
    right: int = PROGRESS_WIDTH - 150
    top: int = TOP
    bottom: int = 360 - BOTTOM

    @property
    def rows(self) -> list[tuple[str, int, list[float]]]:
        """(period, total, each series' share) of each period, for the chart's table."""
        return [
            (period, total, [s.shares[i] for s in self.series])
            for i, (period, total) in enumerate(zip(self.periods, self.totals, strict=True))
        ]


def share_chart(periods: list[str], counts: dict[str, list[int]]) -> ShareChart | None:
    """Each series' share of each period's total, as lines (0 to 100%), labelled at their
    right ends (pushed apart so that no two labels overlap); None without a period."""
    if not periods:
        return None
    totals = [sum(values[i] for values in counts.values()) for i in range(len(periods))]
    chart = ShareChart(periods=periods, totals=totals, series=[], x_ticks=[], y_ticks=[])
    span = max(1, len(periods) - 1)
    plot_width = chart.right - chart.left
    plot_height = chart.bottom - chart.top

    def x_of(i: int) -> float:
        return round(chart.left + plot_width * i / span, 1)

    def y_of(share: float) -> float:
        return round(chart.bottom - plot_height * share / 100, 1)

    for index, (name, values) in enumerate(counts.items()):
        shares = [round(100 * n / t, 1) if t else 0.0 for n, t in zip(values, totals, strict=True)]
        points = [(x_of(i), y_of(share)) for i, share in enumerate(shares)]
        path = "M" + "L".join(f"{x},{y}" for x, y in points)
        chart.series.append(ShareSeries(name, index, path, points, shares, last=shares[-1]))
    # Labels at the right end, in the order of their lines, at least a line apart.
    placed = sorted(chart.series, key=lambda s: s.points[-1][1])
    previous = chart.top - LABEL_HEIGHT
    for series in placed:
        series.label_y = max(series.points[-1][1] + 4, previous + LABEL_HEIGHT)
        previous = series.label_y
    overflow = previous - (chart.bottom + 4)
    if overflow > 0:  # pushed below the plot: move them all up, keeping their gaps
        for series in placed:
            series.label_y -= overflow
    chart.y_ticks = [Tick(y_of(v), f"{v}%") for v in (0, 25, 50, 75, 100)]
    years = {}
    for i, period in enumerate(periods):
        years.setdefault(period.split()[0], i)
    step = max(1, math.ceil(len(years) / 10))
    chart.x_ticks = [Tick(x_of(i), year) for year, i in list(years.items())[::step]]
    return chart
