"""The whole path of a new contributor, in a real browser on a phone, with JavaScript and
without: sign up, verify the address from the outbox, add a result on a board (a new
account's write is a proposal), a moderator approves it in the admin, the board shows it
ranked with "contributed by" and in its chart; then the same reader claims the paper, a
moderator approves the claim in the admin, the reader verifies the row and the paper's
badge says so, as valid SVG that its Markdown links to the board."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from playwright.sync_api import expect

from papers.models import (
    AuthorClaim,
    LeaderboardRow,
    Proposal,
    ResultVerification,
)
from papers.models.contributions import Status
from tests.accounts.test_accounts import PASSWORD
from tests.browser import PHONE, axe_violations, require_chromium, sideways_overflow
from tests.contribute.conftest import make_user
from tests.e2e.boards import BOARD, make_board

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PAPER = "/paper/new-net"


@pytest.fixture
def site(live_server):
    """A board of three results, a paper not on it yet, and a moderator (a superuser)."""
    make_board()
    moderator = make_user("staff", "moderator")
    moderator.is_superuser = True
    moderator.save(update_fields=["is_superuser"])
    return live_server.url


def checked(page) -> None:
    """axe clean and no sideways scroll at phone width. Both run scripts in the page, so a
    page without JavaScript is checked as a twin: its markup in a page with JavaScript."""
    target = page
    if not page.js:
        context = page.context.browser.new_context(viewport=PHONE)
        target = context.new_page()
        target.goto(page.url)
        target.set_content(page.content())
    assert axe_violations(target) == []
    assert sideways_overflow(target) == 0
    if target is not page:
        target.context.close()


def as_moderator(browser, site: str):
    """A page in a browser of its own, signed in as the moderator (staff)."""
    client = Client()
    client.force_login(get_user_model().objects.get(username="moderator"))
    context = browser.new_context()
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": site,
            }
        ]
    )
    return context.new_page()


def approve_in_admin(browser, site: str, changelist: str, action: str) -> None:
    page = as_moderator(browser, site)
    page.goto(f"{site}/admin/papers/{changelist}/")
    page.locator("input.action-select").first.check()
    page.locator("select[name=action]").select_option(action)
    page.locator("button[name=index]").click()
    expect(page.locator("ul.messagelist")).to_be_visible()
    page.context.close()


def sign_up_and_verify(page, site: str) -> None:
    page.goto(f"{site}/accounts/signup/")
    checked(page)
    page.fill("input[name=email]", "ada@example.org")
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.locator("main button[type=submit]").click()
    expect(page.locator("main")).to_contain_text("ada@example.org")
    (message,) = mail.outbox
    link = re.search(r"https?://\S+", message.body).group(0)
    page.goto(site + "/" + link.split("://", 1)[1].split("/", 1)[1])
    page.locator("main button[type=submit]").click()
    page.wait_for_url("**/accounts/profile/")
    expect(page.locator("#level")).to_contain_text("a moderator reviews your writes")
    checked(page)


def test_a_new_reader_signs_up_contributes_a_result_and_vouches_for_it(page_js, browser, site):
    page = page_js
    page.set_viewport_size(PHONE)
    sign_up_and_verify(page, site)

    # A new account's result is a proposal.
    page.goto(f"{site}{BOARD}")
    page.get_by_role("link", name="Add a result").click()
    page.get_by_label("Paper", exact=True).fill("2301.00042")
    page.get_by_label("Model name", exact=True).fill("NewNet-L")
    page.get_by_label("Top-1 Accuracy", exact=True).fill("90.5")
    page.get_by_label("Where in the paper", exact=True).fill("Table 2")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("main")).to_contain_text("Recorded as proposal")
    checked(page)
    proposal = Proposal.objects.get()
    assert proposal.status == Status.PENDING and proposal.user.username == "ada"
    assert not LeaderboardRow.objects.filter(model_name="NewNet-L").exists()

    # A moderator approves it in the admin; the board ranks it, credits it, charts it.
    approve_in_admin(browser, site, "proposal", "approve")
    assert Proposal.objects.get().status == Status.APPROVED
    page.goto(f"{site}{BOARD}")
    row = page.locator(".leaderboard-table tbody tr").first
    expect(row.locator("td.model")).to_have_text("NewNet-L")
    expect(row.locator("td.rank")).to_have_text("1")
    expect(row).to_contain_text("contributed by ada")
    expect(page.locator("#progress-desc")).to_contain_text("NewNet-L")
    checked(page)

    # The reader claims the paper; a moderator approves the claim in the admin.
    page.goto(f"{site}{PAPER}")
    page.get_by_role("link", name="I am an author").click()
    page.get_by_label("Your address at the authors' institution").fill("ada@uni.example")
    page.get_by_role("button", name="Send my claim").click()
    expect(page.locator("#claim")).to_contain_text("pending")
    approve_in_admin(browser, site, "authorclaim", "approve")
    assert AuthorClaim.objects.get().status == Status.APPROVED

    # The approved author verifies the row; the badge says so.
    result = LeaderboardRow.objects.get(model_name="NewNet-L")
    page.goto(f"{site}{PAPER}")
    cell = page.locator(f"#verdict-{result.pk}")
    cell.get_by_text("Verify or dispute").click()
    page.locator(f"#verdict-{result.pk}").get_by_role("button", name="Verify").click()
    expect(page.locator(f"#verdict-{result.pk}")).to_contain_text("verified by an author")
    assert ResultVerification.objects.get(row=result).verdict == "verified"
    checked(page)

    badge = page.locator(f"#result-{result.pk} .badge-copy")
    badge.get_by_text("Copy badge").click()
    markdown = badge.get_by_label("Markdown").input_value()
    image, target = re.fullmatch(r"\[!\[[^\]]+\]\(([^)]+)\)\]\(([^)]+)\)", markdown).groups()
    assert target == f"{site}{BOARD}"
    assert image == f"{site}{BOARD}/badge.svg?paper=new-net"
    svg = page.request.get(image)
    assert svg.status == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(svg.text())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    label = root.get("aria-label")
    assert label.startswith("SOTA on ImageNet") and "verified" in label
    assert page.request.get(target).status == 200
