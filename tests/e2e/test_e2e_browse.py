"""Browser tests of the browse pages: filtering /sota as you type, re-ranking a
leaderboard and going back, chart points that open papers — with JavaScript and without —
and every new page free of serious accessibility faults and sideways scroll on a phone."""

from __future__ import annotations

import os

import pytest

from tests.browser import (
    DESKTOP,
    PHONE,
    page_faults,
    require_chromium,
)
from tests.views.test_browse import World

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def site(live_server):
    World().add_results(12)
    return live_server.url


def test_typing_in_the_sota_filter_narrows_the_tasks(page_js, site):
    page = page_js
    page.goto(f"{site}/sota")
    assert page.locator(".area").count() == 2
    page.fill("#sota-q", "speech")
    if not page.js:
        page.press("#sota-q", "Enter")
    page.wait_for_url("**/sota?q=speech")
    page.wait_for_function("document.querySelectorAll('.area').length === 1")
    assert "Speech on Device" in page.locator("#areas").inner_text()
    assert "Image Classification" not in page.locator("#areas").inner_text()
    assert page.locator("h1").count() == 1


def test_changing_the_metric_reranks_and_back_restores(page_js, site):
    page = page_js
    page.goto(f"{site}/sota/image-classification-on-imagenet")
    first_model = (
        "document.querySelector('.leaderboard-table tbody tr td:nth-child(2)').textContent"
    )
    assert page.evaluate(first_model).startswith("Net-")
    assert "higher is better" in page.locator("#board h2").nth(1).inner_text()
    page.select_option("#metric", "params")
    if not page.js:
        page.click(".metric-picker button")
    page.wait_for_url("**metric=params")
    page.wait_for_function(
        "document.querySelector('#results-heading').textContent.includes('lower')"
    )
    page.go_back()
    page.wait_for_url("**/sota/image-classification-on-imagenet")
    page.wait_for_function(
        "document.querySelector('#results-heading').textContent.includes('higher')"
    )
    assert page.locator("h1").count() == 1  # a full page, never a bare fragment


def test_chart_points_open_their_papers(page_js, site):
    page = page_js
    page.goto(f"{site}/sota/image-classification-on-imagenet")
    record = page.locator("#progress a.record-link").last
    href = record.get_attribute("href")
    assert href.startswith("/paper/")
    record.click()
    page.wait_for_url(f"**{href}")
    assert page.locator("h1").count() == 1


PAGES = [
    "/",
    "/samples",
    "/sota",
    "/area/computer-vision",
    "/tasks",
    "/datasets",
    "/methods",
    "/task/image-classification",
    "/dataset/imagenet",
    "/method/resnet",
    "/sota/image-classification-on-imagenet",
    "/author/kaiming-he",
    "/paper/paper-3",
]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_browse_pages_pass_axe_and_fit_a_phone(browser, site, viewport):
    faults, csp_errors = page_faults(browser, site, PAGES, viewport)
    assert not faults
    assert not csp_errors
