"""The SVG charts' geometry (papers.charts): what a reader would see drawn."""

from __future__ import annotations

import datetime as dt

from papers.charts import Result, nice_ticks, parse_date, progress_chart, share_bar, usage_chart


def r(date: str | None, value: float | None, label: str = "m", href: str | None = None) -> Result:
    return Result(
        date=dt.date.fromisoformat(date) if date else None,
        value=value,
        label=label,
        value_text="" if value is None else f"{value:g}",
        href=href,
    )


def test_records_are_the_results_that_beat_every_earlier_one():
    chart = progress_chart(
        [r("2018-01-01", 70, "A"), r("2019-01-01", 68, "B"), r("2020-01-01", 75, "C"),
         r("2021-01-01", 75, "D"), r("2022-01-01", 80, "E")],
        "Accuracy", lower_is_better=False,
    )  # fmt: skip
    assert [p.result.label for p in chart.records] == ["A", "C", "E"]
    assert len(chart.points) == 5


def test_lower_is_better_boards_step_down():
    chart = progress_chart(
        [r("2018-01-01", 10, "A"), r("2019-01-01", 12, "B"), r("2020-01-01", 8, "C")],
        "WER", lower_is_better=True,
    )  # fmt: skip
    assert [p.result.label for p in chart.records] == ["A", "C"]
    a, c = chart.records
    assert c.y > a.y  # a smaller value is drawn lower
    assert chart.step_path == f"M{a.x},{a.y}H{c.x}V{c.y}H{c.x}"
    assert (
        "lower is better" in chart.summary
        and "from 10 (A, Jan 2018) to 8 (C, Jan 2020)" in chart.summary
    )


def test_step_line_runs_on_to_the_last_result():
    chart = progress_chart([r("2018-01-01", 90, "A"), r("2021-06-01", 80, "B")], "F1", False)
    last = chart.points[-1]
    assert chart.step_path.endswith(f"H{last.x}")


def test_undated_results_are_left_out_and_counted():
    chart = progress_chart(
        [r("2018-01-01", 1), r(None, 2), r(None, 3), r("2019-01-01", None)], "x", False
    )
    assert len(chart.points) == 1 and chart.undated == 2
    assert progress_chart([r(None, 5)], "x", False) is None


def test_points_stay_inside_the_plot_and_later_results_lie_further_right():
    results = [r(f"{2010 + i}-06-01", (i * 37) % 11, f"M{i}") for i in range(12)]
    chart = progress_chart(results, "Score", False)
    xs = [p.x for p in chart.points]
    assert xs == sorted(xs)
    for p in chart.points:
        assert chart.left <= p.x <= chart.right and chart.top <= p.y <= chart.bottom


def test_close_record_labels_do_not_collide_and_the_best_is_always_labelled():
    results = [r(f"2020-01-{day:02d}", day, f"Model {day}") for day in range(1, 29)]
    chart = progress_chart(results, "Score", False)
    labelled = [p for p in chart.records if p.label]
    assert chart.records[-1].label == "Model 28"
    assert 1 < len(labelled) < len(chart.records)
    assert_labels_apart(labelled)


def label_box(point) -> tuple[float, float]:
    width = len(point.label) * 8.0
    if point.label_anchor == "end":
        return point.label_x - width, point.label_x
    return point.label_x, point.label_x + width


def assert_labels_apart(labelled) -> None:
    for a in labelled:
        for b in labelled:
            if a is not b:
                (a0, a1), (b0, b1) = label_box(a), label_box(b)
                assert a1 <= b0 or b1 <= a0 or abs(a.label_y - b.label_y) >= 16, (a, b)


def test_labels_anchored_apart_whose_texts_meet_are_not_both_drawn():
    """One label runs right from its point, the next (past 60% of the width) runs left
    to its point: far apart as anchors, their texts would overlap."""
    results = [
        r("2010-01-01", 100.0, "First"),
        r("2016-01-01", 12.0, "ChainTrack++"),
        r("2018-06-01", 11.0, "ConvMap-B"),
        r("2020-01-01", 30.0, "Later"),
    ]
    chart = progress_chart(results, "AbsRel", True)
    labelled = [p for p in chart.records if p.label]
    assert chart.records[-1].label == "ConvMap-B"
    assert_labels_apart(labelled)


def test_long_model_names_are_cut_in_labels():
    chart = progress_chart([r("2020-01-01", 1, "A" * 60)], "x", False)
    assert chart.records[0].label == "A" * 21 + "…"


def test_nice_ticks_are_round_numbers_covering_the_range():
    assert nice_ticks(0, 100) == [0, 25, 50, 75, 100]
    assert nice_ticks(0.31, 0.58) == [0.35, 0.4, 0.45, 0.5, 0.55]
    assert nice_ticks(3, 3) == [3]


def test_row_dates_are_read_as_the_archive_gives_them():
    assert parse_date("2019-05-28") == dt.date(2019, 5, 28)
    assert parse_date("2019-05-28T00:00:00") == dt.date(2019, 5, 28)
    assert parse_date("2019-05") == dt.date(2019, 5, 1)
    assert parse_date("") is None and parse_date("soon") is None


def test_usage_chart_has_a_bar_for_every_year_empty_ones_too():
    chart = usage_chart({"2015": 2, "2018": 10}, lambda year: f"/y/{year}")
    assert [b.year for b in chart.bars] == [2015, 2016, 2017, 2018]
    assert [b.count for b in chart.bars] == [2, 0, 0, 10]
    assert chart.bars[0].href == "/y/2015" and chart.bars[1].href is None
    assert chart.bars[3].height > chart.bars[0].height > 0
    assert chart.total == 12 and chart.peak.year == 2018
    assert usage_chart({}) is None


def test_share_bar_splits_the_whole_by_share():
    bar = share_bar({"ran": 3, "ran_violates": 1, "gone": 0})
    assert [(s.key, s.count) for s in bar.segments] == [("ran", 3), ("ran_violates", 1)]
    assert bar.segments[0].width == 750 and bar.segments[1].x == 750
    assert bar.segments[0].percent == "75%" and bar.segments[1].percent == "25%"
    assert share_bar({"ran": 0}) is None


def label_rect(point) -> tuple[float, float, float, float]:
    x0, x1 = label_box(point)
    return x0, point.label_y - 12, x1, point.label_y + 4


def test_record_labels_stay_off_the_line_and_the_points():
    """A board whose records come close together (as on SQuAD2.0): no label is drawn
    over the best-so-far line, over a point, or over another label."""
    results = [
        r(f"{2016 + i // 12}-{1 + i % 12:02d}-01", 60 + i * 0.7, f"Model {i}") for i in range(40)
    ]
    results += [
        r(f"{2016 + i // 12}-{1 + i % 12:02d}-15", 55 + i * 0.5, f"Other {i}") for i in range(40)
    ]
    chart = progress_chart(results, "F1", lower_is_better=False)
    from papers.charts import _line_boxes, _overlaps

    labelled = [p for p in chart.records if p.label]
    assert chart.records[-1].label and len(labelled) > 2
    obstacles = _line_boxes(chart.records, chart.right)
    obstacles += [(p.x - 4, p.y - 4, p.x + 4, p.y + 4) for p in chart.points]
    for point in labelled:
        rect = label_rect(point)
        assert not any(_overlaps(rect, box) for box in obstacles), point.label
    assert_labels_apart(labelled)


def test_a_large_board_shades_results_that_set_no_record_by_density():
    """Past a few hundred results, the non-record results are binned: cells shaded by
    how many fall in them (the fullest darkest), the records still drawn one by one."""
    results = [r(f"{2010 + i % 12}-06-01", 50 + (i % 97) / 10, f"M{i}") for i in range(2000)]
    chart = progress_chart(results, "Accuracy", lower_is_better=False)
    assert not chart.link_every_point
    assert len(chart.points) == len(chart.records) < 20
    shades = dict(chart.shades)
    assert 1 in shades and max(shades) == 4
    cells = sum(path.count("z") for _, path in chart.shades)
    assert 12 <= cells < 2000  # binned: far fewer shapes than results
    assert chart.others == 2000 - len(chart.records)
    again = chart.from_json(chart.to_json())
    assert again.density == chart.density
