"""Browser test of an author vouching for their result: they claim the paper on its page,
a moderator approves the claim, they verify a row in place, and the paper's badge says
"verified" — on a phone, with JavaScript and without, axe clean."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from papers.contributions.authors import decide
from papers.kept.rankings import refresh_boards
from papers.models import AuthorClaim, ResultVerification
from papers.models.contributions import Status
from tests.browser import PHONE, axe_violations, require_chromium, sideways_overflow

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def sign_in(page, site: str, user) -> None:
    """The browser carries a session of `user` (the sign-in form has tests of its own)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": site}]
    )


def faults(page) -> list[str]:
    """axe's violations and the sideways scroll at phone width. Both run scripts in the
    page, which a page without JavaScript cannot: they are checked on the same markup
    in the run with it."""
    if not page.js:
        return []
    found = axe_violations(page)
    if overflow := sideways_overflow(page):
        found.append(f"scrolls sideways by {overflow}px")
    return found


def test_an_author_claims_the_paper_verifies_a_row_and_the_badge_says_verified(
    page_js, live_server, make_paper, django_user_model
):
    page, site = page_js, live_server.url
    paper = make_paper()
    row = paper.results.get()
    refresh_boards()
    user = django_user_model.objects.create_user("ada", email="ada@example.org")
    page.set_viewport_size(PHONE)
    sign_in(page, site, user)

    page.goto(f"{site}{paper.get_absolute_url()}")
    page.get_by_role("link", name="I am an author").click()
    page.get_by_label("Your address at the authors' institution").fill("ada@uni.example")
    assert faults(page) == []
    page.get_by_role("button", name="Send my claim").click()
    expect(page.locator("#claim")).to_contain_text("pending")
    assert AuthorClaim.objects.get().status == Status.PENDING

    decide(AuthorClaim.objects.all(), None, Status.APPROVED)  # a moderator, in the admin
    page.goto(f"{site}{paper.get_absolute_url()}")
    expect(page.locator("#claim")).to_contain_text("approved")
    cell = page.locator(f"#verdict-{row.pk}")
    cell.get_by_text("Verify or dispute").click()
    assert faults(page) == []
    cell.get_by_role("button", name="Dispute").click()  # without the note it needs
    expect(page.locator(f"#verdict-{row.pk}")).to_contain_text("a dispute needs a note")
    assert not ResultVerification.objects.exists()
    page.locator(f"#verdict-{row.pk}").get_by_role("button", name="Verify").click()
    expect(page.locator(f"#verdict-{row.pk}")).to_contain_text("verified by an author")
    assert ResultVerification.objects.get().verdict == "verified"
    assert faults(page) == []

    badge = page.locator(f"#result-{row.pk} .badge-copy")
    badge.get_by_text("Copy badge").click()
    markdown = badge.get_by_label("Markdown")
    expect(markdown).to_have_value(
        f"[![SOTA on Dataset 1]({site}{row.leaderboard.get_absolute_url()}/badge.svg"
        f"?paper={paper.slug})]({site}{row.leaderboard.get_absolute_url()})"
    )
    if page.js:
        badge.get_by_role("button", name="Copy Markdown").click()
        expect(badge.locator(".copy-status")).not_to_be_empty()
    else:
        expect(badge.get_by_role("button", name="Copy Markdown")).to_be_hidden()
    assert faults(page) == []

    svg = page.request.get(
        f"{site}{row.leaderboard.get_absolute_url()}/badge.svg?paper={paper.slug}"
    )
    assert svg.status == 200
    assert "SOTA on Dataset 1: Top-1 Accuracy 89.09%, verified by an author" in svg.text()
