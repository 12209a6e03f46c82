"""Leaderboards as the real dumps give them, however they are written: values read the
way their column writes them, no board split or merged with rows lost, and a re-import
of unchanged files changes nothing. Each test starts from a real board of
../shared/realdata, written the way other real dumps write theirs."""

from __future__ import annotations

import copy
import json

import pytest

from papers import charts
from papers.archive.fidelity import Verdict, reports
from papers.kept.rankings import board_facts
from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
    Task,
)
from tests.archive_helpers import run_import, write
from tests.conftest import realdata

pytestmark = [pytest.mark.realdata, pytest.mark.django_db]

TASKS = "paperswithcode__sota-extractor/data/tasks"


def imported(*paths, **options) -> str:
    status, out, err = run_import(*paths, kind="evaluation-tables", **options)
    assert status == 0, err
    return out


def summary(out: str) -> dict[str, dict[str, int]]:
    """The import summary's table: model → outcome → count."""
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("model"))
    outcomes = lines[header].replace("left alone", "left_alone").split()[1:]
    table = {}
    for line in lines[header + 1 :]:
        cells = line.split()
        if len(cells) != len(outcomes) + 1 or not cells[1].replace(",", "").isdigit():
            break
        table[cells[0]] = {
            o: int(c.replace(",", "")) for o, c in zip(outcomes, cells[1:], strict=True)
        }
    return table


def real_task(name: str, index: int = 0) -> dict:
    data = json.loads(realdata(f"{TASKS}/{name}.json").read_text())
    return (data if isinstance(data, list) else [data])[index]


def only_board(task: dict, dataset: str) -> dict:
    """The task with this one dataset board (no subtasks, no other boards)."""
    task = copy.deepcopy(task)
    task["datasets"] = [d for d in task["datasets"] if d["dataset"] == dataset]
    task["subtasks"] = []
    return task


def stored(task_slug: str) -> Leaderboard:
    return Leaderboard.objects.get(task__slug=task_slug)


def ranking(lb: Leaderboard, metric: str) -> list[str]:
    """Model names, best first, as the page ranks them."""
    metrics = list(lb.metrics.all())
    facts = board_facts(lb, metrics)
    ranks, _ = facts.rankings[next(m.id for m in metrics if m.name == metric)]
    names = dict(lb.rows.values_list("id", "model_name"))
    return [names[pk] for pk, rank in ranks if rank is not None]


# --- values read the way their column writes them ----------------------------------------------


def test_a_board_written_with_decimal_commas_ranks_and_charts_as_written_with_dots(tmp_path):
    squad = only_board(real_task("squad"), "SQuAD1.1")
    imported(write(tmp_path / "dots.json", [squad]))
    with_dots = ranking(stored("question-answering"), "EM")
    for row in squad["datasets"][0]["sota"]["rows"]:
        row["metrics"] = {k: v.replace(".", ",") for k, v in row["metrics"].items()}
    imported(write(tmp_path / "commas.json", [squad]))
    lb = stored("question-answering")
    assert ranking(lb, "EM") == with_dots
    row = lb.rows.get(model_name=with_dots[0])
    assert row.metrics["EM"].count(",") == 1  # shown as given
    assert 80 < row.metric_values["EM"] < 100  # 90,202 is 90.202, not 90202
    metric = lb.metrics.get(name="EM")
    chart = charts.ProgressChart.from_json(MetricRanking.objects.get(metric=metric).chart)
    assert max(point.result.value for point in chart.points) < 100


def test_a_few_decimal_commas_among_decimal_dots_read_as_decimals(tmp_path):
    # COCO test-dev's defect: "37,7" read as 377 topped a board led by 47.1.
    coqa = only_board(real_task("coqa"), "CoQA (Conversational Question Answering Challenge)")
    rows = coqa["datasets"][0]["sota"]["rows"]
    last = rows[-1]
    last["metrics"]["OVERALL"] = last["metrics"]["OVERALL"].replace(".", ",")
    imported(write(tmp_path / "coqa.json", [coqa]))
    lb = stored("question-answering")
    assert ranking(lb, "OVERALL")[0] == rows[0]["model_name"]
    assert ranking(lb, "OVERALL")[-1] == last["model_name"]


def test_mixed_units_are_scaled_and_malformed_values_left_unranked(tmp_path):
    data = json.loads(realdata(f"{TASKS}/nlpprogress.json").read_text())
    lm = next(t for t in data if t["task"] == "Language modeling")["subtasks"][0]
    lm = only_board(lm, "WikiText-103")
    rows = lm["datasets"][0]["sota"]["rows"]
    written = ["339m", "220", "2.2.M", "O.753", "0.8B"]
    for row, value in zip(rows, written, strict=False):
        row["metrics"]["Number of params"] = value
    imported(write(tmp_path / "lm.json", [lm]))
    values = {
        r.metrics["Number of params"]: r.metric_values["Number of params"]
        for r in LeaderboardRow.objects.filter(position__lt=len(written))
    }
    assert values == {"339m": 339e6, "220": 220.0, "2.2.M": None, "O.753": None, "0.8B": 0.8e9}


# --- no board split or merged with rows lost ---------------------------------------------


def _split(board: dict, names: tuple[str, str]) -> list[dict]:
    """The board as two boards of one task, named as given, each with half its rows."""
    rows = board["sota"]["rows"]
    half = len(rows) // 2
    first, second = copy.deepcopy(board), copy.deepcopy(board)
    first["dataset"], first["sota"]["rows"] = names[0], rows[:half]
    second["dataset"], second["sota"]["rows"] = names[1], rows[half:]
    return [first, second]


@pytest.mark.parametrize(
    "names", [("SNLI", "snli"), ("SNLI", " SNLI  "), ("Snli ", "sNLI")], ids=str
)
def test_one_dataset_named_two_ways_in_one_task_is_one_board_with_every_row(tmp_path, names):
    snli = real_task("snli")
    rows = len(snli["datasets"][0]["sota"]["rows"])
    snli["datasets"] = _split(snli["datasets"][0], names)
    out = imported(write(tmp_path / "snli.json", [snli]))
    assert Leaderboard.objects.count() == 1
    assert LeaderboardRow.objects.count() == rows == 64
    assert "#2" not in Leaderboard.objects.get().dataset.name
    assert summary(out)["LeaderboardRow"]["deleted"] == 0


def test_an_empty_board_in_a_later_file_replaces_nothing():
    imported(realdata(f"{TASKS}/nlp-progress.json"))
    parsing = Leaderboard.objects.get(
        task__slug="dependency-parsing", dataset__name="Penn Treebank"
    )
    before = set(parsing.rows.values_list("id", flat=True))
    assert len(before) == 15
    imported(realdata(f"{TASKS}/nlpprogress.json"))  # Penn Treebank there: no rows
    assert set(parsing.rows.values_list("id", flat=True)) == before
    amr = Leaderboard.objects.get(task__slug="amr-parsing", dataset__name="LDC2016E25")
    assert amr.rows.count() == 7


def test_a_board_given_twice_in_one_file_is_stable_across_reimports(tmp_path):
    snli = real_task("snli")
    rows = snli["datasets"][0]["sota"]["rows"]
    again = copy.deepcopy(snli)
    snli["datasets"][0]["sota"]["rows"] = rows[:40]
    again["datasets"][0]["sota"]["rows"] = rows[20:]  # 20 rows given twice
    snli["datasets"][0]["description"] = "Given first."
    again["datasets"][0]["description"] = "Given again."
    path = write(tmp_path / "twice.json", [snli, again])
    # One task a batch, so that the two occurrences are written apart.
    out = imported(path, batch_size=1)
    lb = Leaderboard.objects.get()
    assert lb.rows.count() == 64
    assert lb.description == "Given first."
    assert (
        summary(out)["LeaderboardRow"] | {"created": 64, "deleted": 0}
        == summary(out)["LeaderboardRow"]
    )
    ids = dict(lb.rows.values_list("row_key", "id"))
    positions = sorted(lb.rows.values_list("position", flat=True))
    assert positions == list(range(64))
    out = imported(path, batch_size=1)
    assert "Nothing changed" in out
    assert dict(lb.rows.values_list("row_key", "id")) == ids


# --- the fidelity report tells the truth ---------------------------------------------------------


def _walk(boards: list[dict]) -> tuple[int, int]:
    """(boards, rows) a list of dataset entries gives, subdatasets included."""
    count, rows = 0, 0
    for board in boards:
        count += 1
        rows += len((board.get("sota") or {}).get("rows") or [])
        sub = _walk(board.get("subdatasets") or [])
        count, rows = count + sub[0], rows + sub[1]
    return count, rows


def _given(task: dict) -> tuple[int, int]:
    count, rows = _walk(task.get("datasets") or [])
    for sub in task.get("subtasks") or []:
        more = _given(sub)
        count, rows = count + more[0], rows + more[1]
    return count, rows


@pytest.mark.parametrize("name", ["nlp-progress", "nlpprogress", "ogb", "eff", "squad", "snli"])
def test_the_fidelity_report_of_a_real_file_agrees_with_a_count_of_its_own(name):
    path = realdata(f"{TASKS}/{name}.json")
    imported(path)
    data = json.loads(path.read_text())
    boards = rows = 0
    for task in data if isinstance(data, list) else [data]:
        b, r = _given(task)
        boards, rows = boards + b, rows + r
    (report,) = reports([path])
    assert (report.lost, report.rows_lost, report.merged, report.split) == ([], [], [], [])
    assert not report.not_stored and report.ok
    notes = "\n".join(report.notes)
    assert f"boards {boards:,} given, {Leaderboard.objects.count():,} in the database" in notes
    distinct = LeaderboardRow.objects.count()
    assert f"rows {rows:,} given, {distinct:,} distinct" in notes
    assert report.found == report.distinct == Task.objects.count()


def test_the_fidelity_report_counts_merged_boards_once_and_names_rows_lost(tmp_path):
    snli = real_task("snli")
    snli["datasets"] = _split(snli["datasets"][0], ("SNLI", " snli"))
    path = write(tmp_path / "snli.json", [snli])
    out = imported(path)
    assert "Fidelity: 0 lost or rejected" in out and "1 records given again" in out
    (report,) = reports([path])
    assert report.ok and "boards 2 given, 1 in the database" in "\n".join(report.notes)
    LeaderboardRow.objects.filter(position__in=[3, 40]).delete()
    (report,) = reports([path])
    assert report.rows_lost == ["2 of Natural Language Inference on SNLI"]
    assert "rows lost: 2 (2 of Natural Language Inference on SNLI)" in "\n".join(report.lines())
    verdict = Verdict.of([report])
    assert verdict.lost == 2 and "2 lost" in verdict.line()


def test_the_fidelity_report_finds_a_board_split_in_two_and_values_not_stored(tmp_path):
    snli = real_task("snli")
    snli["datasets"][0]["description"] = "The SNLI corpus."
    path = write(tmp_path / "snli.json", [snli])
    imported(path)
    lb = Leaderboard.objects.get()
    Leaderboard.objects.filter(pk=lb.pk).update(description="")
    Leaderboard.objects.create(
        task=lb.task, dataset=Dataset.objects.create(slug="snli-2", name="SNLI #2")
    )
    (report,) = reports([path])
    assert report.split == ["SNLI | SNLI #2"]
    assert report.not_stored == {"datasets[].description": 1}
    assert not report.ok


def test_the_fidelity_report_lists_unranked_values_overrides_and_contradictions(tmp_path):
    squad = only_board(real_task("squad"), "SQuAD1.1")
    squad["datasets"][0]["sota"]["rows"][5]["metrics"]["EM"] = "O.753"
    path = write(tmp_path / "squad.json", [squad])
    imported(path)
    LeaderboardMetric.objects.filter(name="EM").update(lower_is_better=True)
    (report,) = reports([path])
    assert report.unranked_count == 1 and report.unranked[0].startswith("EM = 'O.753'")
    assert report.overrides == ["EM on Question Answering on SQuAD1.1: lower (staff)"]
    assert report.contradicted == ["EM on Question Answering on SQuAD1.1 (lower is better)"]
    LeaderboardMetric.objects.filter(name="EM").update(lower_is_better=None)
    (report,) = reports([path])
    assert report.overrides == report.contradicted == []
