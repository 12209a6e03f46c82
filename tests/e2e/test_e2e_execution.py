"""Browser tests of the execution facts in lists: the leaderboard's row filter with
JavaScript (htmx swaps the board, the URL follows, back restores) and without it (plain
links), the metric picker keeping the filter, and the changed pages free of serious
accessibility faults and sideways scroll on a phone."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from papers.kept import refresh_all as refresh_browse_counts
from papers.kept.papers import refresh_counts
from papers.models import Paper
from tests.browser import (
    DESKTOP,
    PHONE,
    page_faults,
    require_chromium,
)
from tests.kept.test_execution_facts import ODD, give_report
from tests.views.test_browse import World

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

BOARD = "/sota/image-classification-on-imagenet"
MODELS = ".leaderboard-table tbody tr td:nth-child(2)"
RANKS = ".leaderboard-table tbody tr td:nth-child(1)"


def wait_for_rows(page, n: int) -> None:
    """Until the table holds n rows (polled by Playwright: the page's CSP refuses the
    evaluated predicates wait_for_function polls with)."""
    expect(page.locator(".leaderboard-table tbody tr")).to_have_count(n)


def cells(page, selector: str) -> list[str]:
    return [text.strip() for text in page.locator(selector).all_inner_texts()]


@pytest.fixture
def site(live_server):
    """Six rows (Net-5 best); Net-5 has a report whose samples ran, Net-2 one whose only
    status no vocabulary knows, the others none."""
    world = World()
    world.add_results(3)
    give_report(world.papers[5], ["ran", "ran_honours", "ran_violates", ODD])
    give_report(world.papers[2], [ODD])
    refresh_counts(Paper.objects.values_list("id", flat=True))
    refresh_browse_counts()
    return live_server.url


def test_the_board_filter_keeps_rows_and_their_ranks(page_js, site):
    page = page_js
    page.goto(f"{site}{BOARD}")
    assert len(cells(page, MODELS)) == 6
    page.click("[data-rows=report]")
    page.wait_for_url("**rows=report")
    wait_for_rows(page, 2)
    assert cells(page, MODELS) == ["Net-5", "Net-2"]
    assert cells(page, RANKS) == ["1", "4"]  # the board's ranks, not 1 and 2
    assert page.locator("[data-rows=report]").get_attribute("aria-current") == "true"
    page.click("[data-rows=ran]")
    page.wait_for_url("**rows=ran")
    wait_for_rows(page, 1)
    assert cells(page, MODELS) == ["Net-5"]
    page.go_back()
    page.wait_for_url("**rows=report")
    wait_for_rows(page, 2)
    page.click("[data-rows=all]")
    wait_for_rows(page, 6)
    assert page.locator("h1").count() == 1  # a full page, never a bare fragment


def test_changing_the_metric_keeps_the_row_filter(page_js, site):
    page = page_js
    page.goto(f"{site}{BOARD}")
    page.click("[data-rows=report]")
    page.wait_for_url("**rows=report")
    wait_for_rows(page, 2)
    page.select_option("#metric", "params")
    if not page.js:
        page.click(".metric-picker button")
    page.wait_for_url("**metric=params**")
    assert "rows=report" in page.url
    expect(page.locator("#board h2").nth(1)).to_contain_text("lower is better")
    assert sorted(cells(page, MODELS)) == ["Net-2", "Net-5"]


def test_a_badge_opens_the_papers_report(page_js, site):
    page = page_js
    page.goto(f"{site}{BOARD}")
    badge = page.locator(".leaderboard-table a.exec-badge").first
    assert "Execution report: 1 Ran; 1 Ran, honours its contract" in badge.inner_text()
    badge.click()
    page.wait_for_url("**/paper/paper-5#report")
    assert page.locator("#report").is_visible()


PAGES = [
    BOARD,
    f"{BOARD}?rows=report",
    f"{BOARD}?rows=ran&metric=params",
    "/sota",
    "/area/computer-vision",
    "/task/image-classification",
    "/dataset/imagenet",
    "/method/resnet",
    "/about",
    "/search?task=image-classification&has_code=1&has_report=1",
]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_changed_pages_pass_axe_and_fit_a_phone(browser, site, viewport):
    faults, csp_errors = page_faults(browser, site, PAGES, viewport)
    assert not faults
    assert not csp_errors
