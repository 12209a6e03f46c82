"""Browser tests of the venue pages: /conferences filtered by name, a venue's years and a
year's papers, and the byline's venue link back to them — with JavaScript and without —
each page free of serious accessibility faults and of sideways scroll on a phone."""

from __future__ import annotations

import os

import pytest

from papers.kept import refresh_all as refresh_browse_counts
from papers.models import Author, Paper, PaperAuthor
from tests.browser import DESKTOP, PHONE, page_faults, require_chromium

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PROCEEDINGS = [
    "NeurIPS 2020 12",
    "NeurIPS 2019 12",
    "International Conference on Learning Representations 2018 workshop",
    "3DV 2020 11",
]


@pytest.fixture
def site(live_server):
    author = Author.objects.create(slug="grace-hopper", name="Grace Hopper")
    for i in range(45):
        paper = Paper.objects.create(
            slug=f"venue-paper-{i}",
            title=f"A paper at a venue, number {i}, with a title long enough to wrap on phones",
            published=f"20{18 + i % 3}-0{1 + i % 9}-15",
            proceeding=PROCEEDINGS[i % len(PROCEEDINGS)],
        )
        PaperAuthor.objects.create(paper=paper, author=author, position=0)
    refresh_browse_counts()
    return live_server.url


def test_a_reader_finds_a_venue_opens_a_year_and_comes_back_from_a_paper(page_js, site):
    page = page_js
    page.goto(f"{site}/conferences")
    assert page.locator("table.venues tbody tr").count() == 3
    page.fill("#venue-q", "neur")
    page.press("#venue-q", "Enter")
    page.wait_for_url("**/conferences?q=neur**")
    assert page.locator("table.venues tbody tr").count() == 1
    page.click("text=2020")
    page.wait_for_url("**/conference/neurips-2020")
    assert page.locator("h1").inner_text() == "NeurIPS 2020"
    first = page.locator("ul.plain li a").first
    href = first.get_attribute("href")
    first.click()
    page.wait_for_url(f"**{href}")
    page.click("a.venue")
    page.wait_for_url("**/conference/neurips-2020")
    page.click("text=All years")
    page.wait_for_url("**/conference/neurips")
    assert page.locator("h1").inner_text() == "NeurIPS"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_venue_pages_pass_axe_and_fit_a_phone(browser, site, viewport):
    pages = [
        "/conferences",
        "/conferences?sort=papers",
        "/conference/neurips",
        "/conference/neurips-2020",
        "/conference/international-conference-on-learning-representations-workshop-2018",
        "/paper/venue-paper-2",
    ]
    faults, csp_errors = page_faults(browser, site, pages, viewport)
    assert not faults
    assert not csp_errors
