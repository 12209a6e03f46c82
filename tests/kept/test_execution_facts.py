"""Execution facts where researchers choose: the badges on leaderboards and benchmarks
tables, the board's row filter, the aggregates of task, dataset and method pages and of
/sota, the admin keeping them true, and the API's `execution` objects."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from papers.kept import refresh_all as refresh_browse_counts
from papers.kept.papers import refresh_counts
from papers.models import (
    Dataset,
    Method,
    Paper,
    PaperTask,
    Sample,
    Task,
)
from tests.views.test_browse import World

pytestmark = pytest.mark.django_db

BOARD = "/sota/image-classification-on-imagenet"
CLAIM = "Execution facts about samples on synthesized inputs; no verdict on any paper."
ODD = 'timed out <"x">'  # a status no vocabulary knows, with text HTML must escape


def give_report(paper: Paper, statuses: list[str], claim: str = CLAIM) -> None:
    Paper.objects.filter(pk=paper.pk).update(has_report=True, report_claim=claim)
    for position, status in enumerate(statuses):
        Sample.objects.create(paper=paper, position=position, repo="lab/net", status=status)


def refresh() -> None:
    refresh_counts(Paper.objects.values_list("id", flat=True))
    refresh_browse_counts()


@pytest.fixture
def world():
    return World()


@pytest.fixture
def reported(world):
    """paper-2 (best on both boards) has a report whose samples ran, and one with a
    status no vocabulary knows; paper-0 (last) a report with that odd status only;
    paper-1 none."""
    give_report(world.papers[2], ["ran", "ran", "ran_violates", ODD])
    give_report(world.papers[0], [ODD])
    refresh()
    return world


def body_of(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


def table_rows(body: str) -> list[str]:
    table = body[body.index('<table class="leaderboard-table">') :]
    tbody = table[table.index("<tbody>") : table.index("</tbody>")]
    return re.findall(r"<tr>(.*?)</tr>", tbody, flags=re.S)


def ranks_and_models(body: str) -> list[tuple[str, str]]:
    found = []
    for row in table_rows(body):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
        found.append((cells[0].strip(), cells[1].strip()))
    return found


# --- the leaderboard's badges -----------------------------------------------------------


def test_board_rows_badge_their_reports_and_say_no_report_otherwise(client, reported):
    rows = table_rows(body_of(client.get(BOARD)))
    best, middle, last = rows  # Net-2, Net-1, Net-0
    assert 'href="/paper/paper-2#report"' in best
    assert "Execution report: 2 Ran; 1 Ran, violates its contract; 1 " in best
    assert 'class="segment status-ran"' in best and 'class="segment status-ran_violates"' in best
    assert "no report" in middle and "exec-badge" not in middle
    assert 'href="/paper/paper-0#report"' in last


def test_a_status_no_vocabulary_knows_is_shown_verbatim_in_a_neutral_colour(client, reported):
    body = body_of(client.get(BOARD))
    last = table_rows(body)[2]
    assert html.escape(ODD) in last  # verbatim, escaped, never dropped or reworded
    assert 'class="segment status-other"' in last
    assert "status-timed" not in body  # its text never becomes a class name


def test_the_report_the_badge_links_to_is_on_the_paper_page(client, reported):
    assert 'id="report"' in body_of(client.get("/paper/paper-2"))


def test_board_shows_the_records_claim_beside_its_badges(client, reported):
    assert f'<p class="claim">{CLAIM}</p>' in body_of(client.get(BOARD))


def test_a_board_where_no_paper_has_a_report(client, world):
    body = body_of(client.get(BOARD))
    assert body.count("no report") == 3 and "exec-badge" not in body
    assert 'class="claim"' not in body  # no status shown, so no claim either
    assert re.search(r'data-rows="report"[^>]*>Code has a report <span class="n">0</span>', body)
    filtered = body_of(client.get(BOARD, {"rows": "report"}))
    assert table_rows(filtered) == [table_rows(filtered)[0]]  # one row: the message
    assert "No row of this board has a paper whose code has an execution report" in filtered
    assert f'href="{BOARD}"' in filtered  # back to every row


# --- the board's row filter ---------------------------------------------------------------


def test_board_filter_keeps_the_boards_ranks(client, reported):
    assert ranks_and_models(body_of(client.get(BOARD))) == [
        ("1", "Net-2"),
        ("2", "Net-1"),
        ("3", "Net-0"),
    ]
    with_report = body_of(client.get(BOARD, {"rows": "report"}))
    assert ranks_and_models(with_report) == [("1", "Net-2"), ("3", "Net-0")]
    assert "2 of 3 rows kept" in with_report
    ran = body_of(client.get(BOARD, {"rows": "ran"}))
    assert ranks_and_models(ran) == [("1", "Net-2")]  # paper-0's only status is not a run


def test_board_filter_counts_the_rows_each_choice_keeps(client, reported):
    body = body_of(client.get(BOARD))
    for key, label, n in [("all", "All rows", 3), ("report", "Code has a report", 2)]:
        assert re.search(rf'data-rows="{key}"[^>]*>{label} <span class="n">{n}</span>', body)
    assert re.search(r'data-rows="ran"[^>]*>A sample ran <span class="n">1</span>', body)


def test_board_filter_keeps_the_metric_and_the_metric_keeps_the_filter(client, reported):
    body = body_of(client.get(BOARD, {"metric": "params", "rows": "report"}))
    links = re.findall(r'href="([^"]+)"\s+hx-get="[^"]+"[^>]*data-rows="ran"', body)
    assert links and parse_qs(urlsplit(html.unescape(links[0])).query) == {
        "metric": ["params"],
        "rows": ["ran"],
    }
    assert '<input type="hidden" name="rows" value="report" form="metric-form">' in body
    assert 'id="metric-form"' in body


def test_board_filter_as_an_htmx_fragment(client, reported):
    response = client.get(BOARD, {"rows": "ran"}, headers={"HX-Request": "true"})
    body = body_of(response)
    assert body.lstrip().startswith('<div id="board"') and "<html" not in body
    assert ranks_and_models(body) == [("1", "Net-2")]
    assert 'aria-current="true"' in body and 'data-rows="ran"' in body


def test_an_unknown_row_filter_is_a_400(client, reported):
    assert client.get(BOARD, {"rows": "everything"}).status_code == 400


def test_board_filter_pages_what_it_keeps(client, reported):
    reported.add_results(120)  # paper-3…: no report; two pages of the whole board
    body = body_of(client.get(BOARD, {"rows": "report"}))
    assert 'rel="next"' not in body  # two rows kept: one page
    assert [model for _, model in ranks_and_models(body)] == ["Net-2", "Net-0"]
    # The board still holds all its results: the filter narrows the table, not the board.
    assert "dataset · 123 results</p>" in body and ": 123 results ranked by" in body


@pytest.mark.parametrize("query", ["", "?rows=report", "?rows=ran", "?metric=params&rows=ran"])
def test_board_runs_the_same_queries_whatever_the_filter_and_the_data(client, reported, query):
    with CaptureQueriesContext(connection) as few:
        body_of(client.get(BOARD + query))
    reported.add_results(30)
    for paper in reported.papers[3:]:
        give_report(paper, ["ran", ODD])
    refresh()
    with CaptureQueriesContext(connection) as many:
        body_of(client.get(BOARD + query))
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


# --- the benchmarks tables of task and dataset pages --------------------------------------


def test_benchmarks_tables_badge_the_best_rows_paper(client, reported):
    for url in ["/task/image-classification", "/dataset/imagenet"]:
        body = body_of(client.get(url))
        table = body[body.index('<table class="benchmarks">') : body.index("</table>")]
        assert 'href="/paper/paper-2#report"' in table, url
        after = body[body.index("</table>") :]
        assert f'<p class="claim">{CLAIM}</p>' in after, url


def test_benchmarks_table_of_a_best_row_without_report_says_so(client, world):
    body = body_of(client.get("/task/image-classification"))
    table = body[body.index('<table class="benchmarks">') : body.index("</table>")]
    assert "no report" in table and "exec-badge" not in table


# --- task, dataset and method pages --------------------------------------------------------


def execution_line(body: str) -> str:
    return body[
        body.index('<div class="exec-line">') : body.index("</div>", body.index("exec-line"))
    ]


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("/task/image-classification", "task"),
        ("/dataset/imagenet", "dataset"),
        ("/method/resnet", "method"),
    ],
)
def test_record_pages_count_code_reports_and_samples_by_status(client, reported, url, key):
    line = execution_line(body_of(client.get(url)))
    assert "3 papers:" in line
    assert re.search(r'data-figure="code"><strong>3</strong> with code', line)
    assert re.search(r'data-figure="reported"><strong>2</strong> of those with an exec', line)
    statuses = re.findall(
        r'data-status="([^"]*)"[^>]*><strong>(\d+)</strong> <span class="([^"]+)">([^<]*)</span>'
        r' <span class="meta">in (\d+) papers?</span>',
        line,
    )
    assert [
        (html.unescape(s), int(n), c, html.unescape(t), int(p)) for s, n, c, t, p in statuses
    ] == [
        ("ran", 2, "status-ran", "Ran", 1),
        ("ran_violates", 1, "status-ran_violates", "Ran, violates its contract", 1),
        (ODD, 2, "status-other", ODD, 2),  # verbatim, in both reports
    ]
    assert f'<p class="claim">{CLAIM}</p>' in line


@pytest.mark.parametrize(
    "url", ["/task/image-classification", "/dataset/imagenet", "/method/resnet"]
)
def test_each_figure_links_to_a_search_listing_exactly_what_it_counts(client, reported, url):
    line = execution_line(body_of(client.get(url)))
    figures = re.findall(
        r'<a href="([^"]+)" data-figure="[^"]+"[^>]*>.*?(?:<strong>(\d+)</strong> with code|'
        r"<strong>(\d+)</strong> of those|in (\d+) papers?</span>)",
        line,
        flags=re.S,
    )
    assert len(figures) == 5  # code, reported, three statuses
    for href, *counts in figures:
        (expected,) = [int(n) for n in counts if n]
        search = client.get(html.unescape(href))
        assert search.status_code == 200, href
        assert search.context["result"].total == expected, href


def test_a_record_without_reports_counts_its_code_and_no_reports(client, world):
    line = execution_line(body_of(client.get("/task/image-classification")))
    assert "<strong>3</strong> with code" in line
    assert "none of those with an execution report" in line
    assert "claim" not in line and "data-status" not in line


def test_hidden_papers_and_papers_without_code_are_not_counted(client, reported):
    Paper.objects.filter(pk=reported.papers[0].pk).update(hidden=True)
    reported.papers[2].code_links.all().delete()
    refresh()
    task = Task.objects.get(slug="image-classification")
    assert (task.paper_count, task.code_paper_count, task.report_paper_count) == (2, 1, 0)
    assert task.sample_statuses == {} and task.report_claims == []


@pytest.mark.parametrize(
    "url", ["/task/image-classification", "/dataset/imagenet", "/method/resnet"]
)
def test_record_pages_run_the_same_queries_with_reports(client, reported, url):
    with CaptureQueriesContext(connection) as few:
        body_of(client.get(url))
    reported.add_results(30)
    for paper in reported.papers[3:]:
        give_report(paper, ["ran_honours", ODD])
    refresh()
    with CaptureQueriesContext(connection) as many:
        body_of(client.get(url))
    assert len(many) == len(few)


# --- /sota and areas ----------------------------------------------------------------------


def test_sota_and_area_give_each_task_its_share_of_code_with_a_report(client, reported):
    for url in ["/sota", "/area/computer-vision"]:
        body = body_of(client.get(url))
        card = body[body.index('href="/task/image-classification"') :]
        card = card[: card.index("</li>")]
        assert "66% of 3 with code have a report" in card, url
        assert f'<p class="claim">{CLAIM}</p>' in body, url
    PaperTask.objects.create(paper=reported.papers[1], task=reported.other)
    refresh()
    speech = body_of(client.get("/area/speech"))
    assert "0% of 1 with code have a report" in speech
    assert 'class="claim"' not in speech  # none of its papers' code has a report


def test_sota_says_nothing_of_reports_for_a_task_without_code(client, world):
    body = body_of(client.get("/area/computer-vision"))
    card = body[body.index('href="/task/fine-grained"') :]
    assert "with code have a report" not in card[: card.index("</li>")]


def test_sota_runs_the_same_queries_with_reports(client, reported):
    with CaptureQueriesContext(connection) as few:
        body_of(client.get("/sota"))
    for i in range(20):
        Task.objects.create(slug=f"t-{i}", name=f"T {i}", categories=["Computer Vision"])
    refresh()
    with CaptureQueriesContext(connection) as many:
        body_of(client.get("/sota"))
    assert len(many) == len(few)


def test_about_page_explains_how_to_read_statuses_in_lists(client):
    body = body_of(client.get("/about"))
    assert 'id="statuses"' in body and "Reading them in lists" in body


# --- the admin keeps the aggregates true ---------------------------------------------------


def test_deleting_a_sample_in_the_admin_refreshes_the_task_and_the_board(admin_client, reported):
    sample = Sample.objects.get(paper=reported.papers[2], status="ran_violates")
    response = admin_client.post(
        reverse("admin:papers_sample_delete", args=[sample.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    task = Task.objects.get(slug="image-classification")
    assert "ran_violates" not in task.sample_statuses
    assert task.sample_statuses == {ODD: 2, "ran": 2}
    assert Method.objects.get(slug="resnet").sample_statuses == task.sample_statuses


def test_unlinking_a_paper_from_a_task_in_the_admin_refreshes_the_old_task(admin_client, reported):
    link = PaperTask.objects.get(paper=reported.papers[2], task=reported.task)
    response = admin_client.post(
        reverse("admin:papers_papertask_delete", args=[link.pk]),
        {"post": "yes"},
    )
    assert response.status_code == 302
    task = Task.objects.get(slug="image-classification")
    assert (task.paper_count, task.code_paper_count, task.report_paper_count) == (2, 2, 1)
    assert task.sample_statuses == {ODD: 1}


def test_moving_a_task_link_in_the_admin_refreshes_both_tasks(admin_client, reported):
    from tests.admin.test_admin import change_form_data, post_change

    link = PaperTask.objects.get(paper=reported.papers[2], task=reported.task)
    data = change_form_data(admin_client, link)
    data["task"] = [str(reported.other.pk)]
    post_change(admin_client, link, data)
    old, new = Task.objects.get(pk=reported.task.pk), Task.objects.get(pk=reported.other.pk)
    assert (old.paper_count, old.report_paper_count) == (2, 1)
    assert (new.paper_count, new.report_paper_count) == (1, 1)
    assert new.sample_statuses["ran"] == 2


def test_hiding_a_paper_in_the_admin_refreshes_its_records(admin_client, reported):
    from tests.admin.test_admin import change_form_data, post_change

    paper = reported.papers[2]
    data = change_form_data(admin_client, paper)
    data["hidden"] = ["on"]
    post_change(admin_client, paper, data)
    dataset = Dataset.objects.get(slug="imagenet")
    assert (dataset.paper_count, dataset.report_paper_count) == (2, 1)
    assert dataset.sample_statuses == {ODD: 1}


def test_deleting_a_paper_in_the_admin_refreshes_its_records(admin_client, reported):
    response = admin_client.post(
        reverse("admin:papers_paper_delete", args=[reported.papers[2].pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    task = Task.objects.get(slug="image-classification")
    assert (task.paper_count, task.report_paper_count, task.sample_statuses) == (2, 1, {ODD: 1})


# --- the API ------------------------------------------------------------------------------


def test_api_paper_and_list_items_carry_their_execution(client, reported):
    detail = client.get("/api/v1/papers/paper-2/").json()
    assert detail["execution"] == {
        "samples_by_status": {"ran": 2, "ran_violates": 1, ODD: 1},
        "sample_count": 4,
        "report_read_at": None,
    }
    assert client.get("/api/v1/papers/paper-1/").json()["execution"] is None
    items = {p["id"]: p["execution"] for p in client.get("/api/v1/papers/").json()["results"]}
    assert items["paper-0"]["samples_by_status"] == {ODD: 1} and items["paper-1"] is None


def test_api_results_carry_their_papers_execution_and_filter_like_the_board(client, reported):
    url = "/api/v1/evaluations/image-classification--imagenet/results/"
    every = client.get(url).json()["results"]
    assert [(r["methodology"], r["best_rank"]) for r in every] == [
        ("Net-2", 1),
        ("Net-1", 2),
        ("Net-0", 3),
    ]
    assert every[0]["execution"]["sample_count"] == 4 and every[1]["execution"] is None
    kept = client.get(url, {"has_report": "true"}).json()
    assert kept["count"] == 2
    assert [(r["methodology"], r["best_rank"]) for r in kept["results"]] == [
        ("Net-2", 1),
        ("Net-0", 3),
    ]
    assert client.get(url, {"has_report": "false"}).json()["count"] == 3
    assert client.get(url, {"has_report": "maybe"}).status_code == 400
