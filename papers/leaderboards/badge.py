"""A paper's badge on a board: /sota/<task>-on-<dataset>/badge.svg?paper=<slug>.

The paper's best row on the board by the board's first metric, placed by the board's
kept ranking (papers.kept.rankings): "SOTA on <dataset>" for the first place, "#3 on
<dataset>" otherwise, with the metric's name and the row's value, and "verified" when
an author of the paper verified the row. Two indexed queries: the paper's rows on the
board (with the board's names and the rows' verdicts), then the kept ranking of the
board's first metric (with the metric). A board nothing is kept of yet is ranked as its
page ranks it (papers.leaderboards.board.board_ranking).

The SVG is small and self-contained (no fonts, links or scripts): solid rectangles
with white text, readable on light and dark pages, its full text in `aria-label` and
`<title>` for screen readers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.models import Q, Subquery
from django.utils.html import escape

from papers.identifiers import board_slug, board_splits, split_evaluation_id
from papers.kept.rankings import VERSION
from papers.metrics import metric_text
from papers.models import Leaderboard, LeaderboardMetric, LeaderboardRow, MetricRanking
from papers.models.accounts import Verdict
from papers.models.leaderboards import FirstRanked

MAX_SLUG = 255  # Paper.slug's length: a longer parameter names no paper
MAX_TEXT = 40  # characters of a name or value shown; the title holds them whole
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass
class Badge:
    dataset: str
    rank: int
    metric: str
    value: str
    verdict: str | None  # a Verdict, or None
    board_path: str  # /sota/<task>-on-<dataset>

    @property
    def place(self) -> str:
        return f"SOTA on {self.dataset}" if self.rank == 1 else f"#{self.rank} on {self.dataset}"

    @property
    def text(self) -> str:
        """Everything the badge says, in words (its title and label)."""
        words = f"{self.place}: {self.metric} {self.value}".rstrip()
        if self.verdict == Verdict.VERIFIED:
            words += ", verified by an author"
        elif self.verdict == Verdict.DISPUTED:
            words += ", disputed by an author"
        return words


def _splits(slug: str) -> Q | None:
    """The (task, dataset) pairs the board's slug may name, as a filter on rows."""
    splits = board_splits(slug)
    if (api_id := split_evaluation_id(slug)) is not None:
        splits.append(api_id)
    if not splits or len(splits) > 20:
        return None
    wanted = Q()
    for task, dataset in splits:
        wanted |= Q(leaderboard__task__slug=task, leaderboard__dataset__slug=dataset)
    return wanted


def _best_rank(board_id: int, row_ids: list[int]) -> tuple[str, tuple[int, int]] | None:
    """The first metric's name and the best-ranked of `row_ids` by it ([row id, rank]):
    from the kept ranking (one query), else as the board's page works it out; None for a
    board without a metric, or when none of the rows is ranked."""
    first = LeaderboardMetric.objects.filter(leaderboard_id=board_id).order_by("position", "id")
    kept = (
        MetricRanking.objects.filter(metric_id=Subquery(first.values("id")[:1]))
        .annotate(best=FirstRanked("ranks", row_ids))
        .values_list(
            "metric__name",
            "metric__lower_is_better",
            "metric__stated_lower_is_better",
            "metric_name",
            "lower_is_better",
            "version",
            "best",
        )
        .first()
    )
    if kept is not None:
        name, chosen, stated, kept_name, kept_lower, version, found = kept
        metric = LeaderboardMetric(
            name=name, lower_is_better=chosen, stated_lower_is_better=stated
        )
        if (name, metric.is_lower_better, version) == (kept_name, kept_lower, VERSION):
            return (name, tuple(found)) if found else None
    from papers.leaderboards.board import board_ranking

    metrics = list(first)
    if not metrics:
        return None
    found = _first_ranked(board_ranking(Leaderboard(id=board_id), metrics), row_ids)
    return (metrics[0].name, found) if found else None


def _first_ranked(ranks, row_ids) -> tuple[int, int] | None:
    wanted = set(row_ids)
    return next(((pk, rank) for pk, rank in ranks if pk in wanted and rank is not None), None)


def find_badge(slug: str, paper_slug: str) -> Badge | None:
    """The paper's badge on the board `slug` names; None when the board is unknown, the
    paper has no ranked row on it, or a parameter could name neither."""
    if not paper_slug or len(paper_slug) > MAX_SLUG or _CONTROL.search(paper_slug + slug):
        return None
    wanted = _splits(slug)
    if wanted is None:
        return None
    rows = list(
        LeaderboardRow.objects.filter(wanted, paper__slug=paper_slug, paper__hidden=False)
        .order_by("leaderboard_id", "id")
        .values_list(
            "leaderboard_id",
            "id",
            "metrics",
            "verification__verdict",
            "leaderboard__task__slug",
            "leaderboard__dataset__slug",
            "leaderboard__dataset__name",
        )
    )
    if not rows:
        return None
    board_id = rows[0][0]  # the board find_board() names: the first by id
    rows = {row[1]: row for row in rows if row[0] == board_id}
    ranked = _best_rank(board_id, list(rows))
    if ranked is None:
        return None
    metric, best = ranked
    _, _, values, verdict, task_slug, dataset_slug, dataset = rows[best[0]]
    value = values.get(metric) if isinstance(values, dict) else None
    return Badge(
        dataset=dataset,
        rank=best[1],
        metric=metric,
        value=metric_text(value),
        verdict=verdict,
        board_path=f"/sota/{board_slug(task_slug, dataset_slug)}",
    )


# --- the SVG ----------------------------------------------------------------------------

HEIGHT = 20
PAD = 6
FONT = "Verdana,DejaVu Sans,Geneva,sans-serif"
# Backgrounds white text reads on at 4.5:1 or better, on any page around them.
DARK, BLUE, GREEN, RED, GREY = "#24292f", "#0a5ea8", "#116329", "#a40e26", "#57606a"
_NARROW = set("fijlrtI.,:;!|'() ")
_WIDE = set("mwMW@%#")


def _cut(text: str) -> str:
    text = _CONTROL.sub(" ", text).strip()
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _width(text: str) -> int:
    """About how wide 11 px Verdana sets `text` (the text is fitted to it exactly)."""
    units = sum(4 if c in _NARROW else 10 if c in _WIDE else 8 if c.isupper() else 7 for c in text)
    return max(units, 1)


def svg(segments: list[tuple[str, str]], title: str) -> str:
    """A badge of (text, background) segments, side by side."""
    x, rects, texts = 0, [], []
    for text, fill in segments:
        text = _cut(text)
        inner = _width(text)
        width = inner + 2 * PAD
        rects.append(f'<rect x="{x}" width="{width}" height="{HEIGHT}" fill="{fill}"/>')
        texts.append(
            f'<text x="{x + width / 2:g}" y="14" textLength="{inner}" '
            f'lengthAdjust="spacingAndGlyphs">{escape(text)}</text>'
        )
        x += width
    label = escape(_CONTROL.sub(" ", title))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{x}" height="{HEIGHT}" '
        f'viewBox="0 0 {x} {HEIGHT}" role="img" aria-label="{label}">'
        f"<title>{label}</title>"
        f'<g shape-rendering="crispEdges">{"".join(rects)}</g>'
        f'<g fill="#fff" text-anchor="middle" font-family="{FONT}" font-size="11">'
        f"{''.join(texts)}</g></svg>"
    )


def badge_svg(badge: Badge) -> str:
    segments = [(badge.place, DARK), (f"{badge.metric} {badge.value}".strip(), BLUE)]
    if badge.verdict == Verdict.VERIFIED:
        segments.append(("✓ verified", GREEN))
    elif badge.verdict == Verdict.DISPUTED:
        segments.append(("disputed", RED))
    return svg(segments, badge.text)


def missing_svg() -> str:
    return svg([("Code with Papers", DARK), ("not on this board", GREY)],
               "Code with Papers: not on this board")  # fmt: skip
