"""Reading leaderboard metrics (papers/metrics.py): the number each value states, read
column by column, and which way each metric is better."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from papers.kept.rankings import rank_entries
from papers.metrics import (
    infer_lower_is_better,
    inferred_direction,
    json_safe_metrics,
    read_column,
    read_rows,
    read_value,
    stated_lower_is_better,
)
from tests.conftest import realdata

# --- values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("89.09%", 89.09),
        ("0.6495 ± 0.0043", 0.6495),
        ("34M", 34e6),
        ("", None),
        ("-", None),
        (None, None),
        (12, 12.0),
        ("(7.3, 13.8) on 2%", None),
        ("**70.3**", 70.3),
        ("1,234.5", 1234.5),
        ("1.234,5", 1234.5),
        ("1,234,567", 1234567.0),
        ("37,7", 37.7),
        ("76,2%", 76.2),
        ("0,912", 0.912),
        ("−0.5", -0.5),  # noqa: RUF001 (a minus sign, as some tables write it)
        ("~257M", 257e6),
        ("43B?", 43e9),
        ("339m", 339e6),
        ("220k", 220e3),
        ("3.2GB", 3.2e9),
        ("1.2 million", 1.2e6),
        ("12.5ms", 12.5),
        ("17.1(16.1 with basic dynamic evaluation)", 17.1),
        ("78.6/84.4", 78.6),
        ("60.7+", 60.7),
    ],
)
def test_a_value_reads_as_the_number_it_states(raw, value):
    assert read_value(raw) == value


@pytest.mark.parametrize(
    "raw",
    ["2.2.M", "O.753", "1,2,3", "1.2.3", "1,23,4.5", "1e400", "-1e400", "9" * 400,
     float("nan"), float("inf"), 10**401, "NaN", "Infinity"],
)  # fmt: skip
def test_a_value_that_does_not_read_cleanly_is_no_number(raw):
    assert read_value(raw) is None


def test_a_decimal_comma_among_decimal_dots_reads_as_a_decimal():
    # The COCO test-dev column that put 37.7 above 47.1 when "37,7" read as 377.
    assert read_column(["47.1", "37,7", "45.3", "76,2%"]) == [47.1, 37.7, 45.3, 76.2]


def test_twelve_comma_three_four_five_reads_by_its_column():
    assert read_column(["47,123", "45.3"]) == [47.123, 45.3]  # dot decimals, small values
    assert read_column(["12,345", "9876.5", "15.2"]) == [12345.0, 9876.5, 15.2]
    assert read_column(["12,345", "1,234,567"]) == [12345.0, 1234567.0]  # thousands
    assert read_column(["12,345", "12,5"]) == [12.345, 12.5]  # decimal commas
    assert read_column(["12,345", "13"]) == [12.345, 13.0]  # the only value that large
    assert read_column(["1,234", "2,345"]) == [1234.0, 2345.0]  # nothing else to go by


def test_rows_read_each_column_apart():
    rows = read_rows([{"AP": "47,1", "Params": "1,234"}, {"AP": "45.3", "Params": "2,345"}])
    assert rows == [{"AP": 47.1, "Params": 1234.0}, {"AP": 45.3, "Params": 2345.0}]


def _ranking(values):
    return rank_entries([(i, i, v) for i, v in enumerate(values)], lower_is_better=False)


_DECIMALS = st.integers(min_value=0, max_value=3)
_NUMBERS = st.tuples(
    st.integers(min_value=-99_999, max_value=99_999), _DECIMALS, st.integers(0, 999)
)


def _written(number: tuple[int, int, int], separator: str) -> str:
    whole, decimals, fraction = number
    if not decimals:
        return str(whole)
    return f"{whole}{separator}{fraction % 10**decimals:0{decimals}d}"


@given(st.lists(_NUMBERS, min_size=1, max_size=30))
@example([(37, 1, 7), (47, 1, 1)])
@example([(12, 3, 345), (13, 0, 0)])
@example([(1234, 0, 0), (12, 3, 345)])
def test_a_column_written_with_decimal_commas_ranks_as_with_dots(numbers):
    dots = read_column([_written(n, ".") for n in numbers])
    commas = read_column([_written(n, ",") for n in numbers])
    assert _ranking(commas) == _ranking(dots)


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), max_size=20))
def test_a_column_of_json_numbers_reads_as_those_numbers(numbers):
    assert read_column(numbers) == [float(n) for n in numbers]


@given(st.one_of(st.text(max_size=30), st.floats(), st.integers(), st.none(), st.booleans()))
def test_any_value_reads_as_a_finite_number_or_none(raw):
    number = read_value(raw)
    assert number is None or (isinstance(number, float) and math.isfinite(number))


def test_numbers_json_has_no_literal_for_are_kept_as_text():
    safe = json_safe_metrics({"a": float("nan"), "b": float("-inf"), "c": 10**401, "d": 1.5})
    assert safe == {"a": "NaN", "b": "-Infinity", "c": "1" + "0" * 401, "d": 1.5}
    json.dumps(safe, allow_nan=False)


# --- directions --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "mRMSE", "iRMSE", "SceneFID", "LogLoss", "NegLL", "bits/dimension", "PA-MPJPE", "NME",
        "Fl-all", "NoC@90", "AEPE", "Size (MB)", "CPU (sec)", "Speed(ms/f)", "BadPix",
        "Cumulative regret", "AbsRel", "Sq Rel", "ATE", "RPE", "FPR95", "FPR@95", "CRPS",
        "Mean Rank", "Filtered_mean_rank", "GFLOPs", "Params (M)", "Inference time (ms)",
        "Top-1 Error Rate", "D1-all", "Word Error Rate (WER)", "FID score", "MR",
    ],
)  # fmt: skip
def test_compound_and_abbreviated_names_of_errors_costs_and_distances_rank_lowest_first(name):
    assert inferred_direction(name) is True


@pytest.mark.parametrize(
    "name",
    [
        "AUC (horizon error)", "ERR@20", "Rank-1", "HR@10", "Hits@10", "MRR",
        "Mean Reciprocal Rank", "Speed (FPS)", "F0.5", "mAP", "AP50", "MS-SSIM", "SI-SDRi",
        "Top-1 Accuracy", "F1", "Update Rate", "Accurate", "Score", "VI",
    ],
)  # fmt: skip
def test_measures_named_higher_is_better_or_naming_nothing_rank_highest_first(name):
    assert infer_lower_is_better(name) is False


# Every metric name the real evaluation tables in ../shared/realdata use, reviewed by hand
# with its board: these rank lowest first, every other one highest first. VI (Ubuntu IRC
# disentanglement) is reported as 100 * (1 - VI), and "Bias (F/M)" (GAP) is best at 1, which
# no direction states: higher, as the source lists them.
REVIEWED_LOWER = {
    "Bit per Character (BPC)", "Error", "Error rate", "Model Entropy", "Number of params",
    "Parameters", "Percentage error", "Perplexity", "Test Error", "Test perplexity",
    "Top-1 Error", "Validation perplexity", "WER", "ppl",
}  # fmt: skip
REVIEWED_HIGHER = {
    "% Test Accuracy", "% Train Accuracy", "1-1", "ANS-EM", "ANS-F1",
    "AVERAGE AUC ON 14 LABEL", "AVG", "Acc ex", "Accuracy", "All", "Ambiguous dataset", "Area",
    "Aspect", "Average", "Average Precision", "Avg F1", "Avg accuracy", "BLEU", "BLEU score",
    "BLEU-1", "BLEU-4", "Base Dataset", "Bias (F/M)", "Bio specifc taggers?", "Books",
    "CHALLENGE-EM", "CHALLENGE-F1", "CNN", "CR", "DVD", "Daily Mail", "Data", "Dev",
    "ELO rating", "EM", "EM (Quasar-T)", "Electronics", "F-BC", "F-S", "F-Score", "F0.5", "F1",
    "F1 (Quasar-T)", "F1 (surface form)", "F1 Full", "F1 Newswire", "F1 score", "F1-score",
    "F_NMI", "Feminine F1 (F)", "Food", "GLEU", "Hits@1", "IN-DOMAIN", "JOINT-EM", "JOINT-F1",
    "Joint", "Kitchen", "LAS", "Local", "MAP", "METEOR", "MRPC", "MRR", "Masculine F1 (M)",
    "Matched", "Mismatched", "N-gram F1", "NUM RADS BELOW CURVE", "Note", "OUT-OF-DOMAIN",
    "OVERALL", "Overall F1", "Overall score", "P@10%", "P@30%", "P@5", "PAC", "POS",
    "Percentage correct", "Precision", "Price", "Q->A", "Q->AR", "QA->R", "QAC", "Query Split",
    "Question Split", "RACE", "RACE-h", "RACE-m", "ROUGE-1", "ROUGE-2", "ROUGE-2*", "ROUGE-L",
    "R_100@1", "R_100@10", "R_100@50", "R_1@100", "ReVerb45k", "Recall", "Request", "Rouge-L",
    "SICK-E", "SICK-R", "STS", "SUP-EM", "SUP-F1", "Score", "SemEval 2007", "SemEval 2013",
    "SemEval 2015", "Senseval 2", "Senseval 3", "Sentiment", "Shen F-1", "Slot", "Smatch",
    "TEST-EM", "TEST-F1", "Temporal awareness", "Test", "Test AP", "Test Accuracy",
    "Test F1 score", "Test Hits@100", "Test Hits@20", "Test Hits@50", "Test MRR",
    "Test ROC-AUC", "UAS", "Unigram Acc", "V-M", "VI", "Validation AP", "Validation Accuracy",
    "Validation F1 score", "Validation Hits@100", "Validation Hits@20", "Validation Hits@50",
    "Validation MRR", "Validation ROC-AUC", "Weighted Accuracy (WAA)",
}  # fmt: skip
EVALUATION_FILES = [
    *(f"paperswithcode__sota-extractor/data/tasks/{name}.json" for name in (
        "chexpert", "cmrc", "coqa", "eff", "hotpotqa", "nlp-progress", "nlpprogress", "ogb",
        "record", "redditsota", "snli", "squad",
    )),
    "IllDepence__contextgraph/evaluation-tables_excerpt_from_notebook_output.json",
]  # fmt: skip


def _metric_names(boards: list[dict]) -> set[str]:
    names: set[str] = set()
    for board in boards:
        sota = board.get("sota") or {}
        names.update(sota.get("metrics") or [])
        for row in sota.get("rows") or []:
            names.update(row.get("metrics") or {})
        names |= _metric_names(board.get("subdatasets") or [])
    return names


def _task_metric_names(task: dict) -> set[str]:
    names = _metric_names(task.get("datasets") or [])
    for sub in task.get("subtasks") or []:
        names |= _task_metric_names(sub)
    return names


@pytest.mark.realdata
def test_every_metric_name_of_the_real_tables_has_its_reviewed_direction():
    names: set[str] = set()
    for path in EVALUATION_FILES:
        data = json.loads(realdata(path).read_text())
        for task in data if isinstance(data, list) else [data]:
            names |= _task_metric_names(task)
    assert names == REVIEWED_LOWER | REVIEWED_HIGHER, "a new metric name: review its direction"
    assert {name for name in names if infer_lower_is_better(name)} == REVIEWED_LOWER


def test_a_description_states_the_direction_of_the_metric_it_names():
    text = "Models are ranked by accuracy. Perplexity (lower is better) is also given."
    assert stated_lower_is_better(text, "Perplexity", 2) is True
    assert stated_lower_is_better(text, "Accuracy", 2) is None
    # A board of one metric: what the description says is said of it.
    assert stated_lower_is_better("Lower is better.", "Score", 1) is True
    # A general statement speaks for a metric whose name says nothing.
    assert stated_lower_is_better("Lower is better.", "Score", 3) is True
    assert stated_lower_is_better("Lower is better.", "Accuracy", 3) is None
    assert stated_lower_is_better("Higher is better, lower is better.", "Score", 1) is None


@pytest.mark.django_db
def test_a_saved_row_rereads_the_values_its_column_decides_on_every_engine():
    """ "12,345" reads as 12345 alone or beside "9876.5", and as 12.345 beside "13": a row
    saved to the board finds the other rows whose reading it may change (a comma before a
    digit in their JSON, which each engine tests its own way) and rereads them."""
    from papers.models import Dataset, Leaderboard, LeaderboardRow, Task

    board = Leaderboard.objects.create(
        task=Task.objects.create(slug="t", name="T"),
        dataset=Dataset.objects.create(slug="d", name="D"),
    )

    def add(key: str, value: str) -> LeaderboardRow:
        row = LeaderboardRow(leaderboard=board, row_key=key, metrics={"Score": value})
        row.save()
        return row

    first = add("a", "12,345")
    assert first.metric_values == {"Score": 12345.0}
    assert add("b", "13").revalued
    first.refresh_from_db()
    assert first.metric_values == {"Score": 12.345}
    assert add("c", "9876.5").revalued
    first.refresh_from_db()
    assert first.metric_values == {"Score": 12345.0}
