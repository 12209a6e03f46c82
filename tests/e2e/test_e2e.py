"""Browser tests: htmx behaviour a person sees, in the system Chromium (marked e2e)."""

from __future__ import annotations

import os

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from papers.models import Paper
from tests.browser import require_chromium

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests
# make for set-up are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def site(live_server, seed_record_path):
    call_command("import_archive", str(seed_record_path), verbosity=0)
    for i in range(25):
        Paper.objects.create(
            slug=f"graph-paper-{i}", title=f"Graph networks {i}", abstract="On graphs.",
            published="2020-01-01",
        )  # fmt: skip
    Paper.objects.create(slug="vision-paper", title="Vision transformers", published="2021-01-01")
    return live_server.url


def test_typing_updates_results_and_url(page, site):
    page.goto(f"{site}/search")
    page.fill("#q", "vision")
    page.wait_for_url("**/search?q=vision*")
    assert page.locator(".results li").count() == 1
    assert "Vision transformers" in page.locator(".results").inner_text()
    page.fill("#q", "graph")
    page.wait_for_url("**q=graph*")
    expect(page.locator(".results li")).to_have_count(20)
    assert "25 papers" in page.locator("#results").inner_text()


def test_back_and_forward_restore_the_right_results(page, site):
    page.goto(f"{site}/search?q=vision")
    page.fill("#q", "graph")
    page.wait_for_url("**q=graph*")
    expect(page.locator(".results li")).to_have_count(20)
    page.go_back()
    page.wait_for_url("**q=vision*")
    expect(page.locator(".results li")).to_have_count(1)
    assert page.locator("h1").count() == 1  # a full page, never a bare fragment
    page.go_forward()
    page.wait_for_url("**q=graph*")
    expect(page.locator(".results li")).to_have_count(20)


def test_search_works_with_javascript_off(browser, site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}/search")
    page.fill("#q", "vision")
    page.press("#q", "Enter")
    page.wait_for_url("**/search?q=vision*")
    assert "Vision transformers" in page.locator(".results").inner_text()
    page.check("input[name=has_code]")
    page.click("button[type=submit]")
    assert "0 papers" in page.locator("#results").inner_text()
    context.close()
