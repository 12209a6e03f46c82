"""Browser test of contributing from the page you are on: a trusted contributor signs in,
opens "Add a result" on a leaderboard (in place with JavaScript, as a page without),
sends a result and sees it ranked on the board — on a phone, axe clean, with no
sideways scroll."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from papers.models import LeaderboardRow
from tests.accounts.test_accounts import PASSWORD
from tests.browser import PHONE, axe_violations, require_chromium, sideways_overflow
from tests.contribute.conftest import make_user
from tests.e2e.boards import BOARD, make_board

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def site(live_server):
    """A board of three results, a paper not on it yet, and a trusted contributor."""
    make_board()
    make_user("trusted", "reader")
    return live_server.url


def sign_in(page, site: str) -> None:
    page.goto(f"{site}/accounts/login/?next={BOARD}")
    page.fill("input[name=login]", "reader@example.org")
    page.fill("input[name=password]", PASSWORD)
    page.locator("main button[type=submit]").click()
    page.wait_for_url(f"**{BOARD}")


def violations(page, browser) -> list[str]:
    """axe's violations of the page as it is now. axe runs scripts, so a page without
    JavaScript is checked as a twin: its HTML in a page with JavaScript, at its address,
    signed in as it is."""
    if page.js:
        return axe_violations(page)
    context = browser.new_context(storage_state=page.context.storage_state(), viewport=PHONE)
    twin = context.new_page()
    twin.goto(page.url)
    twin.set_content(page.content())
    found = axe_violations(twin)
    context.close()
    return found


def test_a_trusted_contributor_adds_a_result_on_a_board_and_sees_it_ranked(page_js, browser, site):
    page = page_js
    page.set_viewport_size(PHONE)
    sign_in(page, site)
    page.get_by_role("link", name="Add a result").click()
    if page.js:  # opened in place, below the button
        expect(page.locator("#contribute-result form")).to_be_visible()
        assert page.url.endswith(BOARD)
    else:
        page.wait_for_url(f"**{BOARD}/contribute/result")
    assert violations(page, browser) == []
    assert sideways_overflow(page) == 0

    page.get_by_label("Paper", exact=True).fill("2301.00042")
    page.get_by_label("Model name", exact=True).fill("NewNet-L")
    page.get_by_label("Top-1 Accuracy", exact=True).fill("90.5")
    page.get_by_label("Where in the paper", exact=True).fill("Table 2")
    page.get_by_role("button", name="Send").click()
    if page.js:  # the answer in place, and a link to the board as it is now
        expect(page.locator("#contribute-result")).to_contain_text("Your result is live.")
        assert violations(page, browser) == []
        page.get_by_role("link", name="Reload the page to see it").click()
    page.wait_for_url(f"**{BOARD}")
    if not page.js:
        expect(page.locator("ul.messages")).to_contain_text("Your result is live.")
    row = page.locator(".leaderboard-table tbody tr").first
    expect(row.locator("td.model")).to_have_text("NewNet-L")
    expect(row.locator("td.rank")).to_have_text("1")
    expect(row).to_contain_text("contributed by reader")
    expect(page.locator("#progress-desc")).to_contain_text("NewNet-L")
    assert violations(page, browser) == []
    assert sideways_overflow(page) == 0


def test_an_error_is_shown_beside_its_field_in_place_and_on_the_page(page_js, browser, site):
    page = page_js
    page.set_viewport_size(PHONE)
    sign_in(page, site)
    page.get_by_role("link", name="Add a result").click()
    page.get_by_label("Paper", exact=True).fill("1999.99999")
    page.get_by_label("Model name", exact=True).fill("Ghost")
    page.get_by_label("Top-1 Accuracy", exact=True).fill("99")
    page.get_by_role("button", name="Send").click()
    error = page.locator("[data-field=paper] .field-error")
    expect(error).to_have_text("No paper here has this arXiv id or id.")
    if page.js:
        assert page.url.endswith(BOARD)
    assert violations(page, browser) == []
    assert sideways_overflow(page) == 0
    assert not LeaderboardRow.objects.filter(model_name="Ghost").exists()
