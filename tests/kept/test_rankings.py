"""The rankings the leaderboard page reads instead of every row (papers.kept.rankings): kept by
imports and admin edits, forgotten by any other ORM write, and the same page whether
kept or worked out from the rows."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from papers.db import delete_where_in
from papers.kept.rankings import forget_boards, metric_number, rank_entries, refresh_boards
from papers.models import (
    Leaderboard,
    LeaderboardExecution,
    LeaderboardMetric,
    LeaderboardRow,
    MetricRanking,
    Paper,
    Sample,
)
from tests.archive_helpers import run_import, write
from tests.kept.test_execution_facts import ODD, body_of, give_report, ranks_and_models, refresh
from tests.views.test_browse import World

pytestmark = pytest.mark.django_db

BOARD = "/sota/image-classification-on-imagenet"
UNRANKED = "\N{EN DASH}"  # the rank cell of a row without a number
SPEECH = "/sota/speech-on-device-on-libri-on-air"


@pytest.fixture
def world():
    return World()


def kept(board: Leaderboard) -> bool:
    """Whether every metric of the board has a kept ranking, and the board its facts."""
    metrics = LeaderboardMetric.objects.filter(leaderboard=board).count()
    rankings = MetricRanking.objects.filter(leaderboard=board).count()
    return rankings == metrics and LeaderboardExecution.objects.filter(leaderboard=board).exists()


def reads_rows(queries: CaptureQueriesContext) -> bool:
    """Whether a query read the rows' parsed metrics (what a kept ranking spares)."""
    return any("metric_values" in query["sql"] for query in queries.captured_queries)


def live_and_kept(client, url: str) -> tuple[str, str]:
    """The page worked out from the rows, then from what refresh_boards() keeps."""
    forget_boards(Leaderboard.objects.values_list("id", flat=True))
    with CaptureQueriesContext(connection) as live_queries:
        live = body_of(client.get(url))
    assert reads_rows(live_queries)
    refresh_boards()
    with CaptureQueriesContext(connection) as kept_queries:
        stored = body_of(client.get(url))
    assert not reads_rows(kept_queries), url
    return live, stored


# --- the same page, kept or live ------------------------------------------------------------


@pytest.fixture
def odd(world):
    """Rows whose parsed values are what a hand-edited database may hold: numeric text, a
    tie, a null, a list, an object, a boolean; the worst and best in both directions;
    undated rows (the chart takes their paper's date) and a report with an odd status."""
    world.add_results(4)
    values = {0: "71.5", 1: 71.5, 2: None, 3: [1, 2], 4: {"x": 1}, 5: True, 6: -3.0}
    for i, value in values.items():
        LeaderboardRow.objects.filter(leaderboard=world.board, row_key=f"r{i}").update(
            metric_values={"Top-1 Accuracy": value, "Params": None}
        )
    LeaderboardRow.objects.filter(leaderboard=world.speech, row_key__in=["s1", "s5"]).update(
        metric_values={"WER": 9.9}
    )
    give_report(world.papers[1], ["ran", ODD])
    give_report(world.papers[5], [ODD])
    refresh()
    return world


@pytest.mark.parametrize(
    "url",
    [BOARD, BOARD + "?metric=params", BOARD + "?rows=report", BOARD + "?rows=ran", SPEECH],
)
def test_the_kept_ranking_and_the_live_one_give_the_same_page(client, odd, url):
    live, stored = live_and_kept(client, url)
    assert stored == live


def test_odd_values_rank_as_numbers_or_not_at_all(client, odd):
    stored = live_and_kept(client, BOARD)[1]
    # 71.5 as text and as a number tie at the top; -3 is the worst number; the null, the
    # list, the object and the boolean are no numbers: unranked, last, in archive order.
    assert ranks_and_models(stored) == [
        ("1", "Net-0"),
        ("1", "Net-1"),
        ("3", "Net-6"),
        (UNRANKED, "Net-2"),
        (UNRANKED, "Net-3"),
        (UNRANKED, "Net-4"),
        (UNRANKED, "Net-5"),
    ]


def test_paper_pages_give_each_result_the_rank_its_board_gives(client, odd):
    """The paper page ranks a result in SQL, the board from what refresh_boards() keeps:
    on odd values too, "1st of 3" there is rank 1 here."""
    board = {model: rank for rank, model in ranks_and_models(body_of(client.get(BOARD)))}
    ranked = sum(1 for rank in board.values() if rank != UNRANKED)
    for i in range(7):
        body = body_of(client.get(f"/paper/paper-{i}"))
        cell = re.search(rf'<a href="{BOARD}">([^<]*)</a>', body).group(1)
        if board[f"Net-{i}"] == UNRANKED:
            assert cell == "leaderboard", i
        else:
            rank = int(board[f"Net-{i}"])
            suffix = {1: "st", 2: "nd", 3: "rd"}.get(rank, "th")
            assert cell == f"{rank}{suffix} of {ranked}", i


def test_metric_number_reads_only_numbers():
    values = (1, 2.5, "3.5", True, None, [1], {"a": 1}, "n/a", "nan", "inf", float("inf"))
    assert [metric_number(v) for v in values] == [1.0, 2.5, 3.5] + [None] * 8


def test_a_lower_is_better_board_ranks_its_smallest_value_first(client, odd):
    ranked = ranks_and_models(body_of(client.get(SPEECH)))
    assert ranked[0] == ("1", "Speech-6")
    # Speech-1 and Speech-5 tie at 9.9, so the next rank is 7
    assert ranked[-3:] == [("5", "Speech-1"), ("5", "Speech-5"), ("7", "Speech-0")]


def test_a_paged_board_gives_each_page_its_ranks_from_the_kept_ranking(client, world):
    world.add_results(120)
    live, stored = live_and_kept(client, BOARD + "?page=2")
    assert stored == live
    assert ranks_and_models(stored)[0] == ("101", "Net-22")


def test_the_chart_kept_as_json_draws_as_the_live_one(world):
    world.add_results(220)  # past the points drawn one by one: a density layer too
    refresh_boards()
    metric = LeaderboardMetric.objects.get(leaderboard=world.board, name="Top-1 Accuracy")
    from papers import charts
    from papers.kept import rankings

    stored = charts.ProgressChart.from_json(MetricRanking.objects.get(metric=metric).chart)
    live = rankings.board_facts(world.board, [metric]).rankings[metric.id][1]
    assert stored.density and stored.density == live.density
    assert stored.to_json() == live.to_json()


# --- kept by imports and by the admin, forgotten by any other write -----------------------


def test_an_import_keeps_every_boards_ranking(tmp_path):
    from tests.archive.test_import_archive import EVALUATIONS

    status, _, err = run_import(write(tmp_path / "evaluation-tables.json", EVALUATIONS))
    assert status == 0, err
    boards = list(Leaderboard.objects.all())
    assert boards and all(kept(board) for board in boards)


def test_a_saved_row_is_never_shown_with_its_old_rank(client, world):
    refresh_boards()
    row = LeaderboardRow.objects.get(leaderboard=world.board, row_key="r0")
    row.metrics = {"Top-1 Accuracy": 99.0}
    row.save()
    assert not kept(world.board) and kept(world.speech)
    assert ranks_and_models(body_of(client.get(BOARD)))[0] == ("1", "Net-0")


def test_a_row_moved_to_another_board_forgets_both(world):
    refresh_boards()
    row = LeaderboardRow.objects.get(leaderboard=world.board, row_key="r0")
    row.leaderboard = world.speech
    row.row_key = "moved"
    row.save()
    assert not kept(world.board) and not kept(world.speech)


def test_hiding_a_paper_through_the_orm_forgets_its_boards(client, world):
    give_report(world.papers[2], ["ran"])
    refresh()
    assert 'href="/paper/paper-2#report"' in body_of(client.get(BOARD, {"rows": "ran"}))
    paper = Paper.objects.get(pk=world.papers[2].pk)
    paper.hidden = True
    paper.save()
    assert not kept(world.board)
    assert 'href="/paper/paper-2#report"' not in body_of(client.get(BOARD, {"rows": "ran"}))


def test_a_paper_saved_without_board_fields_keeps_its_boards(world):
    refresh_boards()
    paper = Paper.objects.get(pk=world.papers[0].pk)
    paper.title = "Renamed"
    paper.save(update_fields=["title"])
    assert kept(world.board)


def test_rows_deleted_behind_a_kept_ranking_never_break_the_page(client, world):
    """A bulk delete (an import's) bypasses the signals: until the import's refresh, the
    page finds the rows gone and ranks what is left."""
    refresh_boards()
    gone = LeaderboardRow.objects.filter(leaderboard=world.board, row_key="r2")
    delete_where_in(LeaderboardRow, "id", list(gone.values_list("id", flat=True)))
    assert kept(world.board)
    assert ranks_and_models(body_of(client.get(BOARD))) == [("1", "Net-1"), ("2", "Net-0")]


def test_a_ranking_kept_for_another_direction_is_not_read(client, world):
    """A direction changed behind the signals (a bulk update, or new inference code
    after an upgrade) makes the kept ranking void: never an inverted board."""
    refresh_boards()
    LeaderboardMetric.objects.filter(leaderboard=world.board, name="Top-1 Accuracy").update(
        lower_is_better=True
    )
    with CaptureQueriesContext(connection) as queries:
        body = body_of(client.get(BOARD))
    assert reads_rows(queries)
    assert ranks_and_models(body)[0] == ("1", "Net-0")


def test_a_ranking_kept_by_other_ranking_code_is_not_read(client, world):
    from papers.kept import rankings

    refresh_boards()
    MetricRanking.objects.update(version=rankings.VERSION - 1)
    with CaptureQueriesContext(connection) as queries:
        body_of(client.get(BOARD))
    assert reads_rows(queries)


def edit_in_admin(admin_client, obj, **fields: str) -> None:
    """Post `obj`'s change form back with these fields changed."""
    from tests.admin.test_admin import change_form_data, post_change

    data = change_form_data(admin_client, obj)
    data.update({name: [value] for name, value in fields.items()})
    post_change(admin_client, obj, data)


def test_editing_a_row_in_the_admin_keeps_the_new_ranking(admin_client, client, world):
    refresh_boards()
    row = LeaderboardRow.objects.get(leaderboard=world.board, row_key="r0")
    edit_in_admin(admin_client, row, metrics='{"Top-1 Accuracy": 99, "Params": "1M"}')
    assert kept(world.board)
    assert ranks_and_models(body_of(client.get(BOARD)))[0] == ("1", "Net-0")


def test_moving_a_row_in_the_admin_keeps_both_boards_ranked(admin_client, world):
    refresh_boards()
    row = LeaderboardRow.objects.get(leaderboard=world.board, row_key="r0")
    edit_in_admin(admin_client, row, leaderboard=str(world.speech.pk), row_key="moved")
    assert kept(world.board) and kept(world.speech)
    ids = {pk for pk, _ in MetricRanking.objects.get(leaderboard=world.speech).ranks}
    assert row.pk in ids


def test_flipping_a_metric_in_the_admin_inverts_the_kept_ranking(admin_client, client, world):
    refresh_boards()
    metric = LeaderboardMetric.objects.get(leaderboard=world.board, name="Top-1 Accuracy")
    edit_in_admin(admin_client, metric, lower_is_better="true")
    assert kept(world.board)
    assert ranks_and_models(body_of(client.get(BOARD)))[0] == ("1", "Net-0")


def test_editing_rows_on_the_board_page_in_the_admin_keeps_the_new_ranking(
    admin_client, client, world
):
    from tests.admin.test_admin import change_form_data, post_change

    refresh_boards()
    data = change_form_data(admin_client, world.board)
    index = next(
        key.split("-")[1]
        for key, value in data.items()
        if re.fullmatch(r"rows-\d+-row_key", key) and value == ["r0"]
    )
    data[f"rows-{index}-metrics"] = ['{"Top-1 Accuracy": 1.0}']
    data["metrics-0-lower_is_better"] = ["true"]
    post_change(admin_client, world.board, data)
    assert kept(world.board)
    assert ranks_and_models(body_of(client.get(BOARD)))[0] == ("1", "Net-0")


def test_deleting_a_sample_in_the_admin_refreshes_the_boards_ran_filter(
    admin_client, client, world
):
    give_report(world.papers[2], ["ran", ODD])
    refresh()
    assert 'href="/paper/paper-2#report"' in body_of(client.get(BOARD, {"rows": "ran"}))
    sample = Sample.objects.get(paper=world.papers[2], status="ran")
    response = admin_client.post(
        reverse("admin:papers_sample_delete", args=[sample.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert kept(world.board)
    execution = LeaderboardExecution.objects.get(leaderboard=world.board)
    row = LeaderboardRow.objects.get(leaderboard=world.board, paper=world.papers[2])
    assert row.pk in execution.reported and row.pk not in execution.ran


def test_deleting_a_paper_in_the_admin_keeps_its_boards_ranked_without_it(admin_client, world):
    give_report(world.papers[2], ["ran"])
    refresh()
    response = admin_client.post(
        reverse("admin:papers_paper_delete", args=[world.papers[2].pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert kept(world.board)
    assert LeaderboardExecution.objects.get(leaderboard=world.board).reported == []


def test_rank_entries_ranks_ties_together_and_values_before_nones():
    entries = [(1, 0, 5.0), (2, 1, None), (3, 2, 7.0), (4, 3, 7.0)]
    assert rank_entries(entries, lower_is_better=False) == [(3, 1), (4, 1), (1, 3), (2, None)]


def test_the_refresh_command_keeps_every_board_and_says_so(world):
    import io

    from django.core.management import call_command

    forget_boards(Leaderboard.objects.values_list("id", flat=True))
    out = io.StringIO()
    call_command("refresh_browse_counts", stdout=out)
    assert "every leaderboard ranked" in out.getvalue()
    assert kept(world.board) and kept(world.speech)


# --- staff and the metrics' directions ---------------------------------------------------


def test_staff_find_the_metrics_whose_name_decides_and_turn_one_around_in_a_click(
    admin_client, client, world
):
    refresh_boards()
    changelist = reverse("admin:papers_leaderboardmetric_changelist")
    page = admin_client.get(changelist, {"decided_by": "name"}).content.decode()
    assert "Top-1 Accuracy" in page and "WER" in page and "Params" in page
    accuracy = LeaderboardMetric.objects.get(name="Top-1 Accuracy")
    flip = reverse("admin:papers_leaderboardmetric_flip", args=[accuracy.pk])
    assert f'formaction="{flip}"' in page
    assert admin_client.get(flip).status_code == 403  # a click posts; a link changes nothing
    response = admin_client.post(
        flip, HTTP_REFERER=f"http://testserver{changelist}?decided_by=name"
    )
    assert response.status_code == 302 and response["Location"].endswith("?decided_by=name")
    accuracy.refresh_from_db()
    assert (accuracy.lower_is_better, accuracy.direction_source) == (True, "staff")
    assert kept(world.board)  # ranked again, lowest first
    assert ranks_and_models(body_of(client.get(BOARD)))[0] == ("1", "Net-0")
    page = admin_client.get(changelist, {"decided_by": "staff"}).content.decode()
    assert "Top-1 Accuracy" in page and "WER" not in page


def test_a_change_of_a_boards_description_in_the_admin_restates_its_metrics_direction(
    admin_client, world
):
    from tests.admin.test_admin import change_form_data, post_change

    metric = LeaderboardMetric.objects.create(leaderboard=world.speech, name="Score", position=1)
    data = change_form_data(admin_client, world.speech)
    data["description"] = ["Systems are ranked by Score (lower is better)."]
    post_change(admin_client, world.speech, data)
    metric.refresh_from_db()
    assert (metric.is_lower_better, metric.direction_source) == (True, "description")


# --- rankings never lie, during an import or after one ---------------------------------------


def test_an_import_batch_that_changes_a_board_drops_its_kept_ranking_in_the_same_commit(
    client, world
):
    """105-114 of 194 boards showed ranks contradicting their values for a whole import
    (and after a kill -9): the rows changed in bulk, the kept ranking stayed. The batch
    that changes a board forgets its ranking in its own transaction, so a reader sees
    the old rows in their kept order or the new rows ranked live."""
    from papers.archive.read.parsers import parse_evaluation
    from papers.archive.write.loader import Loader

    refresh_boards()
    assert kept(world.board)
    record = {
        "task": "Image Classification",
        "datasets": [{"dataset": "ImageNet", "sota": {"metrics": ["Top-1 Accuracy"], "rows": [
            {"model_name": "Net-0", "metrics": {"Top-1 Accuracy": 99.0}},
            {"model_name": "Net-1", "metrics": {"Top-1 Accuracy": 1.0}},
        ]}}],
    }  # fmt: skip
    loader = Loader()
    loader.begin_file()
    loader.write_batch("evaluations", [parse_evaluation(record)])  # committed; no end
    assert not kept(world.board)
    assert ranks_and_models(body_of(client.get(BOARD)))[0] == ("1", "Net-0")


@pytest.mark.django_db(transaction=True)
def test_refreshes_running_at_once_never_fail_on_each_other(tmp_path, migrated_sqlite):
    """A second refresh_browse_counts beside a first exited 1 on PostgreSQL (duplicate
    key papers_metricranking_pkey). Rankings are upserted: both finish, as processes of
    their own on the database the suite runs on (SQLite: a file, as in production)."""
    import shutil
    import subprocess
    import sys

    from tests.conftest import realdata
    from tests.servers import ROOT, manage, production_env

    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        database = tmp_path / "db.sqlite3"
        shutil.copy(migrated_sqlite, database)
        url = f"sqlite:///{database}"
    else:
        url = (
            f"postgres://{settings['USER']}@{settings['HOST']}:{settings['PORT']}"
            f"/{settings['NAME']}"
        )
    env = production_env(DATABASE_URL=url)
    tables = realdata("paperswithcode__sota-extractor/data/tasks/nlp-progress.json")
    assert manage("import_archive", str(tables), "-v", "0", env=env).returncode == 0
    command = [sys.executable, "manage.py", "refresh_browse_counts", "-v", "0"]
    for _ in range(3):
        runs = [
            subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        errors = [run.communicate(timeout=120)[1] for run in runs]
        assert [run.returncode for run in runs] == [0, 0], errors


def test_a_row_dated_on_no_calendar_day_is_undated_on_the_chart(client, world):
    """ "2020-13-45" was charted as 1 January 2020."""
    from papers import charts

    LeaderboardRow.objects.filter(leaderboard=world.board, row_key="r0").update(
        paper_date="2020-13-45", paper=None
    )
    refresh_boards()
    metric = LeaderboardMetric.objects.get(leaderboard=world.board, name="Top-1 Accuracy")
    chart = charts.ProgressChart.from_json(MetricRanking.objects.get(metric=metric).chart)
    assert chart.undated == 1 and chart.count == world.rows - 1


@pytest.mark.parametrize("typed", ["NaN", "Infinity", "-Infinity", "1e400", "9" * 401])
def test_numbers_json_cannot_hold_typed_in_the_admin_are_kept_as_text(admin_client, world, typed):
    """NaN or 1e400 typed into a row's metrics in the admin gave a 500 (JSON_VALID on
    SQLite, jsonb's refusal on PostgreSQL) and lost the edit."""
    refresh_boards()
    row = LeaderboardRow.objects.get(leaderboard=world.board, row_key="r0")
    edit_in_admin(admin_client, row, metrics=f'{{"Top-1 Accuracy": {typed}, "Params": "1M"}}')
    row.refresh_from_db()
    assert row.metrics["Top-1 Accuracy"] == typed
    assert row.metric_values["Top-1 Accuracy"] is None  # kept, unranked
    assert kept(world.board)
