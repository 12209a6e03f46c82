"""Browser tests of /search as a visitor uses it: the form, the URL and the history stay
in step with the results, with JavaScript on and off."""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from papers.kept.papers import refresh_counts
from papers.models import CodeLink, Paper, PaperTask, Repository, Task
from tests.browser import require_chromium

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SEED = "limits-to-depth-efficiencies-of-self"


@pytest.fixture
def site(live_server, seed_record_path):
    """The seed record; 25 graph papers (2020, some with PyTorch or unspecified-framework
    code and the task Question Answering); an older paper that is all about graphs; a
    vision paper."""
    call_command("import_archive", str(seed_record_path), verbosity=0)
    task = Task.objects.create(slug="question-answering", name="Question Answering")
    Task.objects.create(slug="question-generation", name="Question Generation")
    repository = Repository.objects.create(url="https://github.com/lab/graphs")
    for i in range(25):
        paper = Paper.objects.create(
            slug=f"graph-paper-{i}", title=f"Networks {i} on a graph", abstract="On graphs.",
            published="2020-01-01",
        )  # fmt: skip
        if i < 3:
            PaperTask.objects.create(paper=paper, task=task)
        if i < 4:
            CodeLink.objects.create(
                paper=paper, repository=repository, framework="pytorch" if i % 2 else "none"
            )
    Paper.objects.create(
        slug="graph-graph-graph", title="Graph graph graph: graphs of graphs",
        abstract="Graph graph graph graph.", published="2001-01-01",
    )  # fmt: skip
    Paper.objects.create(slug="vision-paper", title="Vision transformers", published="2021-01-01")
    refresh_counts(Paper.objects.values_list("id", flat=True))
    return live_server.url


def at(address: str):
    """A predicate for wait_for_url: the page is at this path with exactly these
    parameters (in any order; a space may be sent as + or %20)."""
    path, _, query = address.partition("?")
    wanted = sorted(parse_qsl(query, keep_blank_values=True))

    def matches(url: str) -> bool:
        parts = urlsplit(url)
        return (
            parts.path == path and sorted(parse_qsl(parts.query, keep_blank_values=True)) == wanted
        )

    return matches


def open_filters(page) -> None:
    """Open the Filters disclosure where the layout folds it."""
    if not page.locator("input[name=task]").is_visible():
        page.locator("summary", has_text="Filters").click()


def wait_results(page, n: int) -> None:
    # A locator's expectation, not wait_for_function: the CSP (no eval) stops a string
    # predicate that is polled more than once.
    expect(page.locator(".results > li")).to_have_count(n)


def test_a_query_typed_after_browse_is_ranked_by_relevance(page, site):
    page.goto(f"{site}/search")
    assert page.locator("select[name=sort]").input_value() == ""  # newest, not chosen
    page.fill("#q", "graph")
    page.wait_for_url(at("/search?q=graph"))
    wait_results(page, 20)
    assert page.locator(".result-title").first.inner_text().startswith("Graph graph graph")
    page.select_option("select[name=sort]", "newest")
    page.wait_for_url(at("/search?q=graph&sort=newest"))
    expect(page.locator(".result-title").first).not_to_contain_text("Graph graph graph")


def test_back_and_forward_restore_the_form_with_the_results(page, site):
    page.goto(f"{site}/search?q=graph")
    page.fill("#q", "graph networks")
    page.wait_for_url(at("/search?q=graph networks"))
    page.locator("#q").blur()
    page.check("input[name=has_code]")
    page.wait_for_url(at("/search?q=graph networks&has_code=1"))
    wait_results(page, 4)
    page.go_back()
    page.wait_for_url(at("/search?q=graph networks"))
    wait_results(page, 20)
    assert page.locator("#q").input_value() == "graph networks"
    assert not page.locator("input[name=has_code]").is_checked()
    page.go_back()
    page.wait_for_url(at("/search?q=graph"))
    assert page.locator("#q").input_value() == "graph"
    page.go_forward()
    page.go_forward()
    page.wait_for_url(at("/search?q=graph networks&has_code=1"))
    wait_results(page, 4)
    assert page.locator("input[name=has_code]").is_checked()
    assert page.locator("#q").input_value() == "graph networks"


def test_typing_then_opening_a_result_takes_one_back(page, site):
    page.goto(f"{site}/search")
    page.locator("#q").press_sequentially("vis")
    page.wait_for_url(at("/search?q=vis"))
    wait_results(page, 1)
    page.locator("#q").press_sequentially("ion")
    page.wait_for_url(at("/search?q=vision"))
    page.get_by_role("link", name="Vision transformers").click()
    page.wait_for_url("**/paper/vision-paper")
    page.go_back()
    page.wait_for_url(at("/search?q=vision"))
    page.go_back()
    page.wait_for_url(re.compile(r".*/search$"))


def test_an_invalid_year_range_is_shown_in_place_and_on_reload(page, site):
    page.goto(f"{site}/search?q=graph")
    open_filters(page)
    page.fill("input[name=year_from]", "2020")
    page.locator("input[name=year_from]").blur()
    page.wait_for_url(at("/search?q=graph&year_from=2020"))
    page.fill("input[name=year_to]", "2010")
    page.locator("input[name=year_to]").blur()
    page.wait_for_url(at("/search?q=graph&year_from=2020&year_to=2010"))
    message = page.locator("#results [role=alert]")
    message.wait_for()
    assert "year_to" in message.inner_text() or "before" in message.inner_text()
    assert page.locator(".results > li").count() == 0  # no stale results under the error
    response = page.reload()
    assert response.status == 400
    assert "before" in page.locator("#results [role=alert]").inner_text()
    assert page.locator("input[name=year_to]").input_value() == "2010"
    assert page.locator("h1").count() == 1


def test_typing_an_arxiv_id_offers_the_paper_and_enter_opens_it(page, site):
    page.goto(f"{site}/search")
    page.fill("#q", "2006.12467")
    page.wait_for_url(at("/search?q=2006.12467"))
    offer = page.locator("#results .direct-hit")
    offer.wait_for()
    assert "The Depth-to-Width Interplay in Self-Attention" in offer.inner_text()
    page.wait_for_timeout(500)
    assert page.url.endswith("/search?q=2006.12467")  # still searching, not sent away
    page.press("#q", "Enter")
    page.wait_for_url(f"**/paper/{SEED}")


def test_pushed_urls_and_links_carry_no_empty_parameters(page, site):
    page.goto(f"{site}/search")
    page.fill("#q", "graph")
    page.wait_for_url(at("/search?q=graph"))
    assert page.url == f"{site}/search?q=graph"
    hrefs = page.locator("#results a[href*='/search']").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    assert hrefs and not [h for h in hrefs if re.search(r"=(&|$|#)", h)]


def test_next_page_shows_the_top_of_the_results_with_focus_on_their_heading(page, site):
    page.set_viewport_size({"width": 1000, "height": 600})
    page.goto(f"{site}/search?q=graph")
    page.get_by_role("link", name="Next →").scroll_into_view_if_needed()
    page.get_by_role("link", name="Next →").click()
    page.wait_for_url(at("/search?q=graph&page=2"))
    wait_results(page, 6)
    expect(page.locator("#results-heading")).to_be_focused()
    top = page.locator("#results-heading").bounding_box()["y"]
    assert -1 < top < 200  # at the top, give or take scrollIntoView's sub-pixel rounding


def test_task_method_and_dataset_filters_take_names_in_any_case(page, site):
    page.goto(f"{site}/search?q=graph&task=question+answering")
    wait_results(page, 3)
    page.goto(f"{site}/search?q=graph&task=QUESTION-ANSWERING")
    wait_results(page, 3)
    page.goto(f"{site}/search?q=graph&framework=PyTorch")
    wait_results(page, 2)


def test_task_suggestions_as_you_type_are_usable_by_keyboard(page, site):
    page.goto(f"{site}/search?q=graph")
    open_filters(page)
    task = page.locator("input[name=task]")
    task.press_sequentially("quest")
    options = page.locator(f"datalist#{task.get_attribute('list')} option")
    options.nth(1).wait_for(state="attached")
    assert options.evaluate_all("os => os.map(o => o.value)") == [
        "Question Answering",
        "Question Generation",
    ]
    task.fill("Question Answering")  # what choosing the option with the keyboard does
    task.press("Enter")
    page.wait_for_url(at("/search?q=graph&task=Question Answering"))
    wait_results(page, 3)


def test_an_unknown_task_suggests_the_nearest_names(page, site):
    page.goto(f"{site}/search?q=graph&task=Questoin+Answring")
    notice = page.locator("#results .notice", has_text="No task")
    assert "Questoin Answring" in notice.inner_text()
    notice.get_by_role("link", name="Question Answering").click()
    page.wait_for_url(at("/search?q=graph&task=Question Answering"))
    wait_results(page, 3)
    assert page.locator("input[name=task]").input_value() == "Question Answering"


def test_facet_values_are_links_that_apply_them(page, site):
    page.goto(f"{site}/search?q=graph")
    facets = page.locator(".facets")
    assert "unspecified" in facets.inner_text() and "none" not in facets.inner_text()
    facets.get_by_role("link", name=re.compile(r"^pytorch")).click()
    page.wait_for_url(at("/search?q=graph&framework=pytorch"))
    wait_results(page, 2)
    assert page.locator("input[name=framework]").input_value() == "pytorch"
    page.locator(".facets").get_by_role("link", name=re.compile(r"^with code")).click()
    page.wait_for_url(at("/search?q=graph&framework=pytorch&has_code=1"))
    expect(page.locator("input[name=has_code]")).to_be_checked()


def test_a_stable_live_region_announces_the_number_of_results(page, site):
    page.goto(f"{site}/search")
    region = page.locator("[role=status]#result-count")
    handle = region.element_handle()
    page.fill("#q", "vision")
    page.wait_for_url(at("/search?q=vision"))
    expect(page.locator("#result-count")).to_have_text("1 result")
    assert handle.evaluate("el => el.isConnected")  # the same node, so it is announced
    assert page.locator("#results[aria-live]").count() == 0


def test_search_works_with_javascript_off(browser, site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}/search")
    page.fill("#q", "graph")
    page.press("#q", "Enter")
    page.wait_for_url(at("/search?q=graph"))
    assert page.url == f"{site}/search?q=graph"  # the empty fields are left out
    assert page.locator(".result-title").first.inner_text().startswith("Graph graph graph")
    page.get_by_role("link", name="Next →").click()
    page.wait_for_url(at("/search?q=graph&page=2"))
    assert page.locator(".results > li").count() == 6
    page.locator(".facets").get_by_role("link", name=re.compile(r"^unspecified")).click()
    page.wait_for_url(at("/search?q=graph&framework=unspecified"))
    assert page.locator(".results > li").count() == 2
    page.goto(f"{site}/search?q=graph")
    page.fill("input[name=task]", "questoin answering")
    page.press("input[name=task]", "Enter")
    page.locator("#results .notice", has_text="No task").get_by_role(
        "link", name="Question Answering"
    ).click()
    assert page.locator(".results > li").count() == 3
    page.goto(f"{site}/search?year_from=2020&year_to=2010")
    assert "before" in page.locator("#results [role=alert]").inner_text()
    page.goto(f"{site}/search")
    page.fill("#q", "2006.12467")
    page.press("#q", "Enter")
    page.wait_for_url(f"**/paper/{SEED}")
    context.close()
