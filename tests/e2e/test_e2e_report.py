"""Browser tests of the execution report: status chips on the paper and repository pages,
the samples list, counts that lead to the filtered list, on a laptop and a phone, with
JavaScript on and off."""

from __future__ import annotations

import os

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from papers.kept.counts import refresh_paper_count
from papers.models import Paper
from tests.browser import PHONE, require_chromium

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SEED = "limits-to-depth-efficiencies-of-self"
REPO = "/repo/github.com/uf-hobi-informatics-lab/GatorTron"


@pytest.fixture
def site(live_server, seed_record_path):
    call_command("import_archive", str(seed_record_path), verbosity=0)
    return live_server.url


def chip(page, label: str):
    return page.locator("#samples .chips").get_by_role("link", name=label)


def test_a_status_chip_keeps_the_paper_url_so_reload_and_share_work(page, site):
    page.goto(f"{site}/paper/{SEED}")
    assert page.locator("#samples tr.sample").count() == 16
    chip(page, "Ran, drafted contract wrong 4").click()
    page.wait_for_url(f"**/paper/{SEED}?status=ran_draft_wrong")
    expect(page.locator("#samples tr.sample")).to_have_count(4)
    page.reload()
    assert page.locator("#samples tr.sample").count() == 4
    assert page.locator("h1").inner_text() == "The Depth-to-Width Interplay in Self-Attention"


def test_chip_counts_follow_the_filters_already_chosen(page, site):
    page.goto(f"{site}/paper/{SEED}?status=ran_violates")
    contract = page.locator("#samples .chips[aria-label='Contract check']")
    assert contract.get_by_role("link", name="Violates 1").count() == 1
    disabled = contract.locator("[aria-disabled=true]", has_text="Output misdeclared")
    assert disabled.inner_text().split()[-1] == "0"
    assert disabled.get_attribute("href") is None  # nothing to follow
    # Every chip that can be followed leads to as many samples as it says.
    page.goto(f"{site}/paper/{SEED}?contract_check=OUTPUT_MISDECLARED")
    status = page.locator("#samples .chips[aria-label='Status']")
    assert status.get_by_role("link", name="Ran, drafted contract wrong 4").count() == 1
    assert status.locator("[aria-disabled=true]").count() == 3


def test_chips_show_labels_and_keep_codes_in_titles_and_urls(page, site):
    page.goto(f"{site}/paper/{SEED}")
    violates = chip(page, "Ran, violates its contract 1")
    assert "ran_violates" in violates.get_attribute("title")
    assert violates.get_attribute("href").endswith("?status=ran_violates#samples")
    assert page.locator("a[aria-pressed]").count() == 0
    violates.click()
    page.wait_for_url("**?status=ran_violates")
    current = page.locator("#samples .chips a[aria-current=true]")
    assert current.inner_text().startswith("Ran, violates its contract")


def test_on_a_phone_each_sample_is_a_card_with_its_status_first(browser, site):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{site}/paper/{SEED}")
    card = page.locator("#samples tr.sample").first
    cells = card.locator("td")
    status, path = cells.nth(0), cells.nth(1)
    assert "Ran" in status.inner_text() and status.is_visible()
    assert status.bounding_box()["y"] < path.bounding_box()["y"]  # stacked, status on top
    assert card.bounding_box()["width"] <= PHONE["width"]
    # The repository is named once, above its samples, not on every card.
    assert page.locator("#samples").inner_text().count("uf-hobi-informatics-lab/GatorTron") == 1
    context.close()


def test_the_repository_page_lists_its_samples_with_the_same_filters(page, site):
    page.goto(site + REPO)
    assert page.locator("#samples tr.sample").count() == 16
    chip(page, "Ran, violates its contract 1").click()
    page.wait_for_url(f"**{REPO}?status=ran_violates")
    expect(page.locator("#samples tr.sample")).to_have_count(1)
    page.reload()
    assert page.locator("#samples tr.sample").count() == 1


def test_every_status_count_leads_to_the_filtered_list(page, site):
    page.goto(f"{site}/")
    page.locator(".counts").get_by_role("link", name="4 Ran, drafted contract wrong").click()
    page.wait_for_url("**/samples?status=ran_draft_wrong")
    assert page.locator("#samples tr.sample").count() == 4
    page.goto(site + REPO)
    page.locator(".counts").get_by_role("link", name="10 Ran").click()
    page.wait_for_url(f"**{REPO}?status=ran#samples")
    expect(page.locator("#samples tr.sample")).to_have_count(10)
    page.goto(f"{site}/paper/{SEED}")
    page.locator(".counts").get_by_role("link", name="1 Ran, honours its contract").click()
    page.wait_for_url(f"**/paper/{SEED}?status=ran_honours#samples")
    expect(page.locator("#samples tr.sample")).to_have_count(1)


def test_samples_can_be_filtered_by_repository(page, site):
    page.goto(f"{site}/samples?repository=github.com/uf-hobi-informatics-lab/GatorTron")
    assert page.locator("#samples tr.sample").count() == 16
    assert "uf-hobi-informatics-lab/GatorTron" in page.locator("h1, #samples").first.inner_text()
    page.goto(f"{site}/samples?repository=github.com/nobody/nothing")
    assert page.locator("#samples tr.sample").count() == 0


def test_the_report_works_with_javascript_off(browser, site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}/paper/{SEED}")
    chip(page, "Ran, drafted contract wrong 4").click()
    page.wait_for_url(f"**/paper/{SEED}?status=ran_draft_wrong#samples")
    assert page.locator("#samples tr.sample").count() == 4
    page.goto(site + REPO)
    chip(page, "Ran 10").click()
    page.wait_for_url(f"**{REPO}?status=ran#samples")
    assert page.locator("#samples tr.sample").count() == 10
    page.goto(f"{site}/samples")
    chip(page, "Ran, violates its contract 1").click()
    assert page.locator("#samples tr.sample").count() == 1
    context.close()


def test_counts_have_thousands_separators(page, site):
    Paper.objects.bulk_create(
        Paper(slug=f"bulk-{i}", title=f"Bulk {i}", published="2020-01-01") for i in range(1200)
    )
    refresh_paper_count()  # bulk writes move no kept number: an import of them would count
    page.goto(f"{site}/")
    assert "1,201" in page.locator(".counts").first.inner_text()
    page.goto(f"{site}/search?q=bulk")
    assert "1,200" in page.locator("#results-heading").inner_text()


def test_the_about_page_explains_repository_kinds_and_has_the_attribution(page, site):
    page.goto(f"{site}/")
    page.locator("footer").get_by_role("link", name="attribution").click()
    page.wait_for_url("**/about#attribution")
    section = page.locator("#attribution")
    assert "Papers with Code" in section.inner_text() and "CC BY-SA 4.0" in section.inner_text()
    kinds = page.locator("#repository-kinds").inner_text()
    assert "Syntology found this repository in the paper's own text" in kinds
    assert "a community repository Syntology harvested" in kinds
