"""Atom feeds of changes: site-wide, per task (the task's and its boards') and per board
(the board's, its metrics' and its results'), linked from the pages they follow."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.contributions.revisions import Actor
from papers.models import Revision
from papers.models.contributions import Via
from tests.changes.records import BOARD_URL

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


def feed(client, url: str) -> ET.Element:
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    return ET.fromstring(response.content)


def titles(root: ET.Element) -> list[str]:
    return [entry.find(f"{ATOM}title").text for entry in root.iter(f"{ATOM}entry")]


def test_the_board_feed_lists_its_results_changes_and_no_other_boards(client, written, bob):
    from papers.api.writes.views import apply

    apply(
        "evaluation_result_add",
        {"evaluation_id": "task-2--dataset-2"},
        {"metrics": {"Top-1 Accuracy": "1%"}, "methodology": "Elsewhere net"},
        Actor(user=bob, via=Via.TOKEN),
    )
    root = feed(client, f"{BOARD_URL}/changes.atom")
    assert titles(root) == ["added Alice net on Task 1 on Dataset 1"]
    assert "Task 1 on Dataset 1" in root.find(f"{ATOM}title").text
    entry = next(root.iter(f"{ATOM}entry"))
    assert entry.find(f"{ATOM}author/{ATOM}name").text == "alice"
    pk = Revision.objects.get(object_repr__startswith="Alice net").pk
    assert entry.find(f"{ATOM}link").get("href").endswith(f"#revision-{pk}")
    assert "Alice net" in entry.find(f"{ATOM}summary").text


def test_the_task_feed_lists_the_task_and_its_boards_changes(client, written):
    got = titles(feed(client, "/task/task-1/changes.atom"))
    assert got == ["changed Task 1", "added Alice net on Task 1 on Dataset 1"]
    assert titles(feed(client, "/task/task-2/changes.atom")) == ["changed Task 2"]


def test_the_site_feed_lists_every_revision_newest_first(client, written):
    got = titles(feed(client, "/changes.atom"))
    assert len(got) == Revision.objects.count() and got[0] == "changed Task 2"


def test_feeds_of_records_that_do_not_exist_are_404(client, written):
    assert client.get("/task/no-such-task/changes.atom").status_code == 404
    assert client.get("/sota/no-such-board/changes.atom").status_code == 404
    assert client.get("/sota/task-1-on-no-such/changes.atom").status_code == 404


def test_task_and_board_pages_link_their_change_feeds(client, written):
    task = client.get("/task/task-1").content.decode()
    assert '<link rel="alternate" type="application/atom+xml" title="Changes to Task 1"' in task
    assert 'href="/task/task-1/changes.atom"' in task
    board = client.get(BOARD_URL).content.decode()
    head = board.split("</head>")[0]
    assert f'href="{BOARD_URL}/changes.atom"' in head
    assert f'href="{BOARD_URL}/changes.atom"' in board.split("</head>")[1]
    assert 'href="/changes.atom"' in client.get("/changes").content.decode()


@pytest.mark.parametrize(
    "url", ["/changes.atom", "/task/task-1/changes.atom", f"{BOARD_URL}/changes.atom"]
)
def test_change_feeds_read_the_same_queries_however_many_changes(client, written, alice, url):
    from papers.api.writes.views import apply

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            feed(client, url)
        return len(queries)

    count()
    few = count()
    for n in range(5):
        apply(
            "evaluation_result_add",
            {"evaluation_id": "task-1--dataset-1"},
            {"metrics": {"Top-1 Accuracy": f"{n}%"}, "methodology": f"Net {n}"},
            Actor(user=alice, via=Via.TOKEN),
        )
    assert count() == few <= 3


def test_a_change_feed_parses_whatever_text_a_revision_holds(client, written):
    Revision.objects.filter(object_repr__startswith="Alice net").update(
        object_repr="Alice \x0b net \ufffe", comment="why \x08 not", changes={"x": ["\x01", "<b>"]}
    )
    got = titles(feed(client, f"{BOARD_URL}/changes.atom"))
    assert got == ["added Alice  net "]
