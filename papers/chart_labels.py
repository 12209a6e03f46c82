"""Where a progress chart's record labels go (papers.charts): beside their points, clear
of the best-so-far line, the points, the density cells and each other."""

from __future__ import annotations

from typing import Any, Protocol


class Point(Protocol):
    """What placing a label reads and writes of a chart's point (papers.charts.Point),
    named here so that this module needs nothing of the chart's."""

    x: float
    y: float
    result: Any
    record: bool
    label_x: float
    label_y: float
    label_anchor: str
    label: str


LABEL_CHARS = 22
# A label's box: user units a character takes at most (bold, at the desktop size), the
# height of a line, and the plot's right margin a label may run into.
LABEL_CHAR_WIDTH = 8.0
LABEL_HEIGHT = 16
RIGHT = 20


def _cut(text: str, limit: int = LABEL_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _line_boxes(records: list[Point], right: float) -> list[tuple[float, float, float, float]]:
    """The boxes (x0, y0, x1, y1) of the best-so-far line's segments, a little thickened:
    flat from each record to the next, then a step to it; flat to the right edge."""
    boxes = []
    for point, following in zip(records, [*records[1:], None], strict=True):
        end = following.x if following is not None else right
        boxes.append((point.x, point.y - 3, end, point.y + 3))
        if following is not None:
            low, high = sorted((point.y, following.y))
            boxes.append((end - 3, low, end + 3, high))
    return boxes


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class _Boxes:
    """Boxes (x0, y0, x1, y1) indexed by the 40-unit columns they span: whether a box
    overlaps any of them asks only those in its columns (a chart may hold two thousand
    density cells, and every request labels its records)."""

    SPAN = 40

    def __init__(self, boxes=()):
        self.columns: dict[int, list[tuple[float, float, float, float]]] = {}
        for box in boxes:
            self.add(box)

    def _span(self, box) -> range:
        return range(int(box[0] // self.SPAN), int(box[2] // self.SPAN) + 1)

    def add(self, box) -> None:
        for column in self._span(box):
            self.columns.setdefault(column, []).append(box)

    def hit(self, box) -> bool:
        return any(
            _overlaps(box, other)
            for column in self._span(box)
            for other in self.columns.get(column, ())
        )


# Where a record's label may go, tried in turn: (anchor, dx, dy of the baseline).
_LABEL_SPOTS = [
    ("end", -9, -9), ("start", 9, -9), ("end", -9, 19), ("start", 9, 19),
    ("end", -9, -27), ("start", 9, -27), ("end", -9, 37), ("start", 9, 37),
]  # fmt: skip


def _place_labels(
    records: list[Point],
    obstacles: list[tuple[float, float, float, float]],
    left: float,
    right: float,
    top: float,
    bottom: float | None = None,
) -> None:
    """Label records with their model names, newest first, each in the first spot beside
    its point where the label's box (estimated from the text's length) stays inside the
    plot and covers neither the line, nor a point, nor a label already placed; a record
    with no such spot goes unlabelled, but the current best is always labelled."""
    bottom = bottom if bottom is not None else top + 10_000
    taken = _Boxes(obstacles)
    for index, point in enumerate(reversed(records)):
        point.label = ""
        text = _cut(point.result.label or point.result.value_text)
        if not text:
            continue
        width = len(text) * LABEL_CHAR_WIDTH
        spots = []  # (free, anchor, x, y, box) of each spot inside the plot
        for anchor, dx, dy in _LABEL_SPOTS:
            x, y = point.x + dx, point.y + dy
            start, end = (x - width, x) if anchor == "end" else (x, x + width)
            box = (start, y - LABEL_HEIGHT + 4, end, y + 4)
            if start < left or end > right + RIGHT or box[1] < top - 12 or box[3] > bottom:
                continue
            free = not taken.hit(box)
            spots.append((free, anchor, x, y, box))
            if free:
                break
        chosen = next((spot for spot in spots if spot[0]), None)
        if chosen is None and index == 0:  # the current best: its first spot inside
            chosen = spots[0] if spots else (False, "end", point.x - 9, point.y - 9, None)
        if chosen is None:
            continue
        _, anchor, x, y, box = chosen
        point.label = text
        point.label_x, point.label_y, point.label_anchor = x, y, anchor
        if box is not None:
            taken.add(box)
