"""Browser tests of /changes: a reader narrows the list by kind, user and status and
pages back through it, with JavaScript (htmx swaps the list in place and keeps the URL)
and without (a plain form); the pages pass axe and fit a phone."""

from __future__ import annotations

import os

import pytest

from papers.models import Proposal, Revision, Task
from papers.models.contributions import Action, Via
from tests.browser import DESKTOP, PHONE, page_faults, require_chromium
from tests.changes import records

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

require_chromium()

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# The /changes tests' records (tests/changes/records.py).
alice, bob, written = records.alice, records.bob, records.written


@pytest.fixture
def site(live_server, written, alice):
    """The written graph, and 60 more edits of task 1 by alice: two pages of tasks."""
    from django.contrib.contenttypes.models import ContentType

    task = Task.objects.get(slug="task-1")
    Revision.objects.bulk_create(
        Revision(
            user=alice,
            via=Via.TOKEN,
            action=Action.CHANGE,
            content_type=ContentType.objects.get_for_model(Task),
            object_id=task.pk,
            object_repr=f"Task 1 (edit {n})",
            changes={"description": [f"words {n}", f"words {n + 1} " + "long " * 30]},
        )
        for n in range(60)
    )
    return live_server.url


def entries(page) -> int:
    return page.locator("#changes section.revision").count()


def test_a_reader_filters_the_changes_and_pages_back(page_js, site):
    page = page_js
    page.goto(f"{site}/changes")
    assert page.locator("h1").inner_text() == "Recent changes"
    assert entries(page) == 50
    page.select_option("#changes-kind", "task")
    if not page.js:
        page.click("form.changes-filters button[type=submit]")
    page.wait_for_url("**/changes?kind=task**")
    page.wait_for_selector("#changes >> text=Showing tasks.")
    page.click("text=Older changes →")
    page.wait_for_url("**revisions_before=**")
    page.wait_for_selector("text=← Newest changes")
    assert 0 < entries(page) < 50
    page.fill("#changes-user", "bob")
    page.press("#changes-user", "Enter")
    page.wait_for_url("**user=bob**")
    page.wait_for_selector("#changes >> text=Showing tasks by bob.")
    assert "revisions_before" not in page.url
    assert entries(page) == 2  # bob's edit of task 2 and his waiting proposal
    page.select_option("#changes-status", "pending")
    if not page.js:
        page.click("form.changes-filters button[type=submit]")
    page.wait_for_url("**status=pending**")
    page.wait_for_selector("#changes >> text=Showing tasks by bob, pending proposals.")
    waiting = Proposal.objects.get(status="pending")
    assert (
        page.locator("#changes section.revision").get_attribute("id") == f"proposal-{waiting.pk}"
    )
    page.click(f"#proposal-{waiting.pk} >> text=history of this record")
    page.wait_for_url("**/task/task-2/history")


def test_a_reader_sees_a_notice_for_an_unknown_kind(page_js, site):
    page = page_js
    page.goto(f"{site}/changes?kind=spaceship")
    assert "There is no kind “spaceship”" in page.locator("#changes .notice").inner_text()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_change_pages_pass_axe_and_fit_a_phone(browser, site, viewport):
    pages = [
        "/changes",
        "/changes?kind=result",
        "/changes?status=rejected",
        "/changes?kind=spaceship",
        "/task/task-1/history",
        "/sota",
    ]
    faults, csp_errors = page_faults(browser, site, pages, viewport)
    assert not faults
    assert not csp_errors
