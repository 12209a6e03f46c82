"""Browser tests over every page of the guard list, on a laptop and on a phone: axe finds
no critical or serious violation, nothing scrolls sideways at 390 px, the phone layout
collapses the search filters and keeps a wide table's key column in view."""

from __future__ import annotations

import os
import re

import pytest
from django.core.management import call_command

from papers.models import Dataset, Method, Paper, Repository, Task
from tests.browser import DESKTOP, PHONE, axe_violations, require_chromium, sideways_overflow

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SEED = "limits-to-depth-efficiencies-of-self"
LATEX = (
    r"We bound $\mathcal{L}_{\mathrm{total}}=\sum_{i=1}^{N}\lambda_i\|\nabla_\theta"
    r"f_\theta(x_i)-y_i\|_2^2+\mathrm{KL}\left(q_\phi(z\mid x)\,\|\,p(z)\right)$"
    "_and_an_unbroken_identifier_like_"
    "averyveryverylongtokenwithoutanyspacesatallthatkeepsgoingandgoingandgoingonandon."
)


def guard_pages() -> list[str]:
    """The pages of the guard list (tests/views/test_pages.py and
    test_discoverability.py), on the demo archive: every named page, a search with results,
    and the error pages."""
    task = Task.objects.filter(leaderboards__isnull=False).order_by("slug").first()
    dataset = Dataset.objects.filter(leaderboards__isnull=False).order_by("slug").first()
    method = Method.objects.filter(paper_links__isnull=False).order_by("slug").first()
    repository = Repository.objects.get(url="https://github.com/uf-hobi-informatics-lab/GatorTron")
    return [
        "/",
        "/about",
        "/search",
        "/search?q=attention",
        "/search?q=latex",
        "/search?year_from=2020&year_to=2010",
        "/search?task=Questoin+Answring&framework=PyTorch",
        "/search/names/task?task=se",
        "/samples",
        "/samples?status=ran_violates",
        f"/paper/{SEED}",
        f"/paper/{SEED}?status=ran_draft_wrong",
        f"/paper/{SEED}/samples",
        "/paper/latex-abstract",
        "/author/yoav-levine",
        repository.get_absolute_url(),
        task.get_absolute_url(),
        method.get_absolute_url(),
        dataset.get_absolute_url(),
        "/paper/no-such-paper",
    ]


@pytest.fixture
def demo(live_server):
    call_command("load_demo", papers=60, verbosity=0)
    Paper.objects.create(
        slug="latex-abstract", title="A bound with LaTeX " + "x" * 120, abstract=LATEX
    )
    return live_server.url


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_every_page_passes_axe(browser, demo, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    found = {}
    for url in guard_pages():
        page.goto(demo + url)
        if violations := axe_violations(page):
            found[url] = violations
    context.close()
    assert not found


def test_no_page_scrolls_sideways_on_a_phone(browser, demo):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    wider = {}
    for url in guard_pages():
        page.goto(demo + url)
        if overflow := sideways_overflow(page):
            wider[url] = overflow
    context.close()
    assert not wider


def test_phone_search_folds_the_filters_behind_a_disclosure(browser, demo):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{demo}/search")
    assert not page.locator("input[name=task]").is_visible()
    page.locator("summary", has_text="Filters").click()
    assert page.locator("input[name=task]").is_visible()
    # Filters in use are never hidden.
    page.goto(f"{demo}/search?has_code=1")
    assert page.locator("input[name=has_code]").is_visible()
    context.close()
    wide = browser.new_context(viewport=DESKTOP).new_page()
    wide.goto(f"{demo}/search")
    assert wide.locator("input[name=task]").is_visible()
    wide.context.close()


def test_wide_tables_keep_their_key_column_in_view_on_a_phone(browser, demo):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    task = Task.objects.filter(leaderboards__isnull=False).order_by("slug").first()
    page.goto(demo + task.get_absolute_url())
    scroller = page.locator(".table-scroll").first
    key = scroller.locator("tbody tr").first.locator(".key")
    before = key.bounding_box()["x"]
    scroller.evaluate("el => { el.scrollLeft = el.scrollWidth }")
    assert scroller.evaluate("el => el.scrollLeft") > 0  # the table is wider than the phone
    after = key.bounding_box()["x"]
    box = scroller.bounding_box()
    assert box["x"] <= after and after + 20 < box["x"] + box["width"]
    assert after <= before
    context.close()


def test_focus_is_visible_on_a_disclosure(browser, demo):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(f"{demo}/search")
    summary = page.locator("summary").first
    summary.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    outline = summary.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline not in ("none", "")
    context.close()


def test_every_page_has_a_favicon(page, demo):
    response = page.goto(f"{demo}/favicon.ico")
    assert response.status == 200
    assert response.headers["content-type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    page.goto(f"{demo}/")
    icon = page.locator("link[rel=icon]").get_attribute("href")
    assert page.goto(demo + icon).status == 200


def test_a_missing_page_says_so_in_our_words(page, demo):
    response = page.goto(f"{demo}/paper/no-such-paper")
    assert response.status == 404
    text = page.locator("main").inner_text()
    assert "No Paper matches the given query" not in text
    assert "no-such-paper" in text
    page.get_by_role("link", name="search for “no such paper”").click()
    page.wait_for_url(re.compile(r".*/search\?q=no(\+|%20)such(\+|%20)paper$"))
    assert page.locator("#q").input_value() == "no such paper"
