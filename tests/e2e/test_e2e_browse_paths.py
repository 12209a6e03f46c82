"""Browser tests of the browsing paths a Papers with Code user knew: methods by area and
category, the dataset filters, a task's papers with and without code and newest,
/trends, paged area pages and the home page — followed with JavaScript and without, each
page free of serious accessibility faults and of sideways scroll on a phone."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from papers.kept import refresh_all as refresh_browse_counts
from papers.models import CodeLink, Dataset, Paper, PaperTask, Repository, Task
from tests.browser import DESKTOP, PHONE, page_faults, require_chromium
from tests.views.test_browse import World

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def site(live_server):
    world = World()
    world.add_results(9)
    Dataset.objects.filter(slug="imagenet").update(modalities=["Images"], languages=["English"])
    world.imagenet.tasks.add(world.task)
    kitti = Dataset.objects.create(slug="kitti", name="KITTI", modalities=["Point cloud"])
    kitti.tasks.add(world.task)
    for i in range(3):
        paper = Paper.objects.create(slug=f"bare-{i}", title=f"Bare {i}", published="2023-01-01")
        PaperTask.objects.create(paper=paper, task=world.task)
    for i in range(70):
        Task.objects.create(slug=f"vision-{i}", name=f"Vision {i}", categories=["Computer Vision"])
    for i, framework in enumerate(["pytorch"] * 14 + ["tf"] * 8):
        paper = Paper.objects.create(slug=f"t-{i}", title=f"T {i}", published="2021-05-01")
        repo = Repository.objects.create(url=f"https://github.com/t/r{i}")
        CodeLink.objects.create(paper=paper, repository=repo, framework=framework)
    from papers.kept.papers import refresh_counts

    refresh_counts(Paper.objects.values_list("id", flat=True))
    refresh_browse_counts()
    return live_server.url


PAGES = [
    "/",
    "/about",
    "/methods",
    "/methods/area/computer-vision",
    "/methods/category/cnns",
    "/datasets?mod=images",
    "/datasets?mod=smells",
    "/dataset/imagenet",
    "/task/image-classification/codeless",
    "/task/image-classification/latest",
    "/area/computer-vision?page=2",
    "/trends",
]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_browse_paths_pass_axe_and_fit_a_phone(browser, site, viewport):
    faults, csp_errors = page_faults(browser, site, PAGES, viewport)
    assert not faults
    assert not csp_errors


def test_filtering_datasets_by_modality_then_task(page_js, site):
    page = page_js
    page.goto(f"{site}/datasets")
    page.get_by_role("navigation", name="Modality").get_by_role("link", name="Point cloud").click()
    page.wait_for_url("**/datasets?mod=point-cloud")
    expect(page.locator("table.catalogue tbody tr")).to_have_count(1)
    assert "KITTI" in page.locator("table.catalogue").inner_text()
    page.get_by_role("link", name="Point cloud 1 ✕").click()
    page.wait_for_url("**/datasets?")
    expect(page.locator("table.catalogue tbody tr")).to_have_count(3)


def test_moving_between_a_tasks_lists_of_papers(page_js, site):
    page = page_js
    page.goto(f"{site}/task/image-classification")
    page.get_by_role("link", name="Papers without code 3").click()
    page.wait_for_url("**/task/image-classification/codeless#papers")
    assert page.locator("h2#papers").inner_text() == "Papers without code"
    assert "Bare 0" in page.locator("main").inner_text()
    page.get_by_role("link", name="Newest papers 15").click()
    page.wait_for_url("**/task/image-classification/latest#papers")
    assert page.locator('[aria-current="page"]').inner_text().startswith("Newest papers")


def test_methods_navigate_from_area_to_category(page_js, site):
    page = page_js
    page.goto(f"{site}/methods")
    page.get_by_role("link", name="Computer Vision 1 collection").click()
    page.wait_for_url("**/methods/area/computer-vision")
    page.get_by_role("region", name="Collections in Computer Vision").get_by_role(
        "link", name="CNNs"
    ).click()
    page.wait_for_url("**/methods/category/cnns")
    assert "ResNet" in page.locator("table.catalogue").inner_text()


def test_the_search_form_keeps_has_code_ticked_when_the_url_says_on(page_js, site):
    page = page_js
    page.goto(f"{site}/search?q=paper&has_code=on")
    expect(page.locator("input[name=has_code]")).to_be_checked()
    page.goto(f"{site}/search?q=paper&has_code=1")
    expect(page.locator("input[name=has_code]")).to_be_checked()
