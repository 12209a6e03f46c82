"""Browser tests of a leaderboard page as a former Papers with Code user reads it: a
board with many metrics fits a laptop (rank, model, the ranking metric, paper and code in
view, the other metrics scrolling in their own box), every row is a card on a phone, and
the rows filter swaps the results only, keeping the reader's place — with JavaScript and
without."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from papers.kept import refresh_all as refresh_browse_counts
from papers.models import Dataset, Leaderboard, LeaderboardMetric, LeaderboardRow, Paper, Task
from tests.browser import DESKTOP, PHONE, page_faults, require_chromium, sideways_overflow
from tests.kept.test_execution_facts import give_report
from tests.views.test_browse import World

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

WIDE = "/sota/question-answering-on-squad"
METRICS = ["F1", "EM", "Exact Match (dev)", "F1 (dev)", "Latency ms", "Params", "HasAns EM",
           "NoAns EM", "Tokens per second"]  # fmt: skip


def wide_board() -> None:
    """A board of nine metrics whose rows have long model names and paper titles, code,
    extra training data, and (for three of them) an execution report."""
    task = Task.objects.create(slug="question-answering", name="Question Answering")
    board = Leaderboard.objects.create(
        task=task, dataset=Dataset.objects.create(slug="squad", name="SQuAD2.0")
    )
    for position, name in enumerate(METRICS):
        LeaderboardMetric.objects.create(leaderboard=board, name=name, position=position)
    for i in range(40):
        paper = Paper.objects.create(
            slug=f"qa-{i}",
            title=f"Retrospective Reader {i}: reading comprehension with a very long title "
            "that goes on about attention and verification",
            published=f"{2017 + i % 6}-05-01",
        )
        LeaderboardRow.objects.create(
            leaderboard=board,
            row_key=f"qa{i}",
            position=i,
            model_name=f"Retro-Reader on ALBERT (ensemble, large, v{i})",
            paper=paper,
            paper_date=f"{2017 + i % 6}-05-01",
            metrics={name: f"{50 + i * 0.9 + k:.2f}" for k, name in enumerate(METRICS)},
            uses_additional_data=i % 3 == 0,
            code_links=[{"title": "code", "url": f"https://github.com/qa/reader{i}"}],
        )
        if i % 13 == 0:
            give_report(paper, ["ran"])


@pytest.fixture
def site(live_server):
    World().add_results(12)
    wide_board()
    from papers.kept.papers import refresh_counts

    refresh_counts(Paper.objects.values_list("id", flat=True))
    refresh_browse_counts()
    return live_server.url


def in_view(page, selector: str, width: int) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


def test_a_wide_board_fits_a_laptop_and_other_metrics_scroll_in_their_box(browser, site):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{site}{WIDE}")
    first = ".leaderboard-table tbody tr:first-child"
    for cell in ("td.rank", "td.model", "td.ranked-by", "td.paper a", "a.code-link",
                 "span.badge"):  # fmt: skip
        assert in_view(page, f".leaderboard-table tbody {cell}", DESKTOP["width"]), cell
    assert in_view(page, f"{first} td.paper", DESKTOP["width"])
    paper = page.locator(f"{first} td.paper").bounding_box()
    assert paper["width"] >= 300  # the paper column is never squeezed
    assert sideways_overflow(page) == 0
    box = page.locator(".board-scroll")
    assert box.evaluate("e => e.scrollWidth > e.clientWidth")  # the other metrics scroll
    rank_x = page.locator(f"{first} td.rank").bounding_box()["x"]
    model_x = page.locator(f"{first} td.model").bounding_box()["x"]
    box.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    assert page.locator(f"{first} td.rank").bounding_box()["x"] == pytest.approx(rank_x, abs=1)
    assert page.locator(f"{first} td.model").bounding_box()["x"] == pytest.approx(model_x, abs=1)
    assert in_view(page, f"{first} td.other:last-child", DESKTOP["width"])
    context.close()


def test_on_a_phone_each_row_is_a_card_with_its_paper_in_view(browser, site):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{site}{WIDE}")
    row = page.locator(".leaderboard-table tbody tr").first
    assert row.evaluate("e => getComputedStyle(e).display") == "block"
    assert in_view(page, ".leaderboard-table tbody tr:first-child td.paper a", PHONE["width"])
    labels = row.locator("td[data-label]").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c, '::before').content)"
    )
    assert labels[0] == '"F1: "' and labels[-1] == '"Tokens per second: "'
    assert sideways_overflow(page) == 0
    context.close()


def test_the_rows_filter_swaps_the_results_only_and_keeps_the_readers_place(page_js, site):
    page = page_js
    page.set_viewport_size(DESKTOP)
    page.goto(f"{site}{WIDE}")
    page.locator("#results-heading").scroll_into_view_if_needed()
    history = page.evaluate("history.length")
    if page.js:
        page.evaluate("document.getElementById('progress').dataset.kept = 'yes'")
    page.click("[data-rows=report]")
    page.wait_for_url("**rows=report")
    expect(page.locator(".leaderboard-table tbody tr")).to_have_count(4)
    assert page.evaluate("history.length") == history + 1
    assert page.locator("h1").count() == 1
    if page.js:  # the chart was not swapped; the heading has the focus, at the top
        assert page.evaluate("document.getElementById('progress').dataset.kept") == "yes"
        expect(page.locator("#results-heading")).to_be_focused()
        top = page.locator("#results-heading").bounding_box()["y"]
        assert 0 <= top < 80
    page.go_back()
    page.wait_for_url(f"**{WIDE}")
    expect(page.locator(".leaderboard-table tbody tr")).to_have_count(40)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_leaderboards_pass_axe_and_fit_a_phone(browser, site, viewport):
    urls = [WIDE, f"{WIDE}?rows=report", f"{WIDE}?metric=params",
            "/sota/image-classification-on-imagenet"]  # fmt: skip
    faults, csp_errors = page_faults(browser, site, urls, viewport)
    assert not faults
    assert not csp_errors
