"""/changes: every revision and every proposal still waiting or refused, newest first,
filtered by kind, user and status, paged by keyset; odd parameters are refused with a
notice, never a 500; the page reads the same number of queries however many changes."""

from __future__ import annotations

import re

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers import changes
from papers.models import (
    CodeLink,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    Proposal,
    Revision,
    Task,
)
from papers.models.contributions import Action, Via
from tests.changes.records import BOARD_URL

pytestmark = pytest.mark.django_db


def entry_ids(html: str) -> list[str]:
    return re.findall(r'<section class="revision[^"]*" id="((?:revision|proposal)-\d+)"', html)


def get(client, **params):
    response = client.get("/changes", params)
    return response, response.content.decode()


def test_changes_lists_revisions_and_waiting_proposals_newest_first(client, written):
    response, html = get(client)
    assert response.status_code == 200
    ids = entry_ids(html)
    revisions = [f"revision-{pk}" for pk in Revision.objects.values_list("pk", flat=True)]
    proposals = [f"proposal-{pk}" for pk in Proposal.objects.values_list("pk", flat=True)]
    # Both proposals came after every revision: they lead, newest first, then the revisions.
    assert ids == proposals + revisions
    assert "Bob waits." in html and "not in the paper" in html  # the value and the reason
    assert "Alice&#x27;s words." in html and "by alice" in html and "through API token" in html


def test_an_approved_proposal_is_shown_once_by_its_revisions(client, written, bob):
    Proposal.objects.filter(status="pending").update(status="approved")
    ids = entry_ids(get(client)[1])
    approved = Proposal.objects.get(status="approved")
    assert f"proposal-{approved.pk}" not in ids
    assert f"proposal-{approved.pk}" in entry_ids(get(client, status="approved")[1])


def test_entries_link_to_their_record_and_its_history(client, written):
    first, _ = written
    html = get(client)[1]
    row = Revision.objects.get(content_type=ContentType.objects.get_for_model(LeaderboardRow))
    section = html[html.index(f'id="revision-{row.pk}"') :].split("</section>")[0]
    assert f'href="{BOARD_URL}"' in section
    assert f'href="{BOARD_URL}/history#revision-{row.pk}"' in section
    link = Revision.objects.get(content_type=ContentType.objects.get_for_model(CodeLink))
    section = html[html.index(f'id="revision-{link.pk}"') :].split("</section>")[0]
    assert f'href="/paper/{first.slug}"' in section
    assert f'href="/paper/{first.slug}/history#revision-{link.pk}"' in section
    waiting = Proposal.objects.get(status="pending")
    section = html[html.index(f'id="proposal-{waiting.pk}"') :].split("</section>")[0]
    assert 'href="/task/task-2"' in section and 'href="/task/task-2/history"' in section


def test_a_hidden_papers_changes_do_not_link_to_it(client, written):
    first, _ = written
    Paper.objects.filter(pk=first.pk).update(hidden=True)
    assert f'href="/paper/{first.slug}"' not in get(client)[1]


@pytest.fixture
def every_kind(written, alice):
    """A revision of each kind besides the written ones (made as staff's admin makes
    them), and an import run."""
    from papers.contributions.revisions import Actor, record

    actor = Actor(user=alice, via=Via.ADMIN)
    for obj in (
        Paper.objects.get(slug="paper-2"),
        Leaderboard.objects.filter(parent__isnull=True).first(),
        LeaderboardMetric.objects.first(),
        Dataset.objects.get(slug="dataset-1"),
        Method.objects.get(slug="method-1"),
    ):
        record(obj, {}, actor)
    Revision.objects.create(via=Via.IMPORT, action=Action.IMPORT, summary={"files": ["a.json"]})
    return written


KIND_MODELS = {
    "paper": {Paper},
    "code": {CodeLink},
    "result": {LeaderboardRow},
    "board": {Leaderboard},
    "metric": {LeaderboardMetric},
    "task": {Task},
    "dataset": {Dataset},
    "method": {Method},
}


@pytest.mark.parametrize("kind", [*KIND_MODELS, "import"])
def test_each_kind_keeps_only_its_records_changes(client, every_kind, kind):
    response, html = get(client, kind=kind)
    assert response.status_code == 200
    ids = entry_ids(html)
    assert ids, f"no {kind} change listed"
    for entry in ids:
        source, pk = entry.rsplit("-", 1)
        if source == "revision":
            revision = Revision.objects.get(pk=pk)
            if kind == "import":
                assert revision.action == Action.IMPORT
            else:
                assert revision.content_type.model_class() in KIND_MODELS[kind]
        else:
            assert changes.kind_of_operation(Proposal.objects.get(pk=pk).operation) == kind
    wanted = {
        f"revision-{r.pk}"
        for r in Revision.objects.all()
        if (r.action == Action.IMPORT) == (kind == "import")
        and (kind == "import" or r.content_type.model_class() in KIND_MODELS[kind])
    }
    assert wanted <= set(ids)


def test_the_result_kind_lists_result_proposals_too(client, written):
    refused = Proposal.objects.get(status="rejected")
    assert f"proposal-{refused.pk}" in entry_ids(get(client, kind="result")[1])


def test_the_user_filter_keeps_that_users_changes(client, written, bob):
    ids = entry_ids(get(client, user="bob")[1])
    assert len(ids) == 3  # bob's task edit, his waiting and his refused proposal
    for entry in ids:
        source, pk = entry.rsplit("-", 1)
        model = Revision if source == "revision" else Proposal
        assert model.objects.get(pk=pk).user == bob
    assert entry_ids(get(client, user="alice", kind="task")[1]) == [
        f"revision-{Revision.objects.get(user__username='alice', content_type__model='task').pk}"
    ]


def test_an_unknown_user_is_named_in_a_notice(client, written):
    response, html = get(client, user="nobody-here")
    assert response.status_code == 200
    assert "No user is named “nobody-here”" in html and not entry_ids(html)


@pytest.mark.parametrize(
    ("status", "expected"),
    [("live", "revision"), ("pending", "proposal"), ("rejected", "proposal")],
)
def test_the_status_filter_keeps_live_revisions_or_proposals_in_that_state(
    client, written, status, expected
):
    ids = entry_ids(get(client, status=status)[1])
    assert ids and all(entry.startswith(expected) for entry in ids)
    if expected == "proposal":
        for entry in ids:
            assert Proposal.objects.get(pk=entry.rsplit("-", 1)[1]).status == status
    else:
        assert len(ids) == Revision.objects.count()


def test_no_approved_proposal_says_so(client, written):
    response, html = get(client, status="approved")
    assert response.status_code == 200 and not entry_ids(html)
    assert "No change matches these filters." in html


@pytest.fixture
def many(written, alice, bob):
    """120 more revisions and 12 more proposals, made in bulk, interleaved in time."""
    import datetime as dt

    from django.utils import timezone

    task = ContentType.objects.get_for_model(Task)
    start = timezone.now() + dt.timedelta(minutes=1)
    Revision.objects.bulk_create(
        Revision(
            user=alice,
            via=Via.TOKEN,
            action=Action.CHANGE,
            content_type=task,
            object_id=Task.objects.get(slug="task-1").pk,
            object_repr=f"Task 1 edit {n}",
            changes={"description": [str(n), str(n + 1)]},
            created_at=start + dt.timedelta(seconds=n),
        )
        for n in range(120)
    )
    Proposal.objects.bulk_create(
        Proposal(
            user=bob,
            operation="task_update",
            target={"task_id": "task-1"},
            body={"description": f"wish {n}"},
            created_at=start + dt.timedelta(seconds=10 * n + 5),
        )
        for n in range(12)
    )
    return written


def _pages(client, **params) -> list[list[str]]:
    pages, url = [], "/changes"
    query = dict(params)
    while True:
        response = client.get(url, query)
        assert response.status_code == 200
        html = response.content.decode()
        pages.append(entry_ids(html))
        found = re.search(r'<a rel="next" href="([^"]+)"', html)
        if not found:
            return pages
        url, query = found.group(1).replace("&amp;", "&"), {}
        assert len(pages) < 10


def test_paging_walks_every_change_once_newest_first(client, many):
    pages = _pages(client)
    assert [len(p) for p in pages] == [50, 50, 38]
    seen = [entry for page in pages for entry in page]
    total = Revision.objects.count() + Proposal.objects.exclude(status="approved").count()
    assert len(seen) == len(set(seen)) == total
    times = []
    for entry in seen:
        source, pk = entry.rsplit("-", 1)
        model = Revision if source == "revision" else Proposal
        times.append(model.objects.get(pk=pk).created_at)
    assert times == sorted(times, reverse=True)


def test_paging_keeps_the_filters(client, many):
    pages = _pages(client, kind="task", user="alice")
    seen = [entry for page in pages for entry in page]
    assert len(pages) == 3 and len(seen) == 121 and all(e.startswith("revision") for e in seen)


def test_a_later_page_links_back_to_the_newest(client, many):
    html = client.get("/changes", {"kind": "task", "revisions_before": 50}).content.decode()
    assert '<a href="/changes?kind=task">← Newest changes</a>' in html
    assert "← Newest" not in get(client, kind="task")[1]


def test_a_cursor_past_every_change_lists_nothing(client, written):
    response, html = get(client, revisions_before=1, proposals_before=1)
    assert response.status_code == 200 and not entry_ids(html)


@pytest.mark.parametrize(
    "params",
    [
        {"kind": "spaceship"},
        {"status": "maybe"},
        {"kind": "x\x00y"},
        {"revisions_before": "abc"},
        {"revisions_before": "-3"},
        {"proposals_before": str(2**80)},
        {"revisions_before": "1e9"},
        {"user": "bo\x00b"},
        {"user": "x" * 500},
    ],
)
def test_odd_parameters_are_refused_with_a_notice(client, written, params):
    response, html = get(client, **params)
    assert response.status_code == 400
    assert 'class="notice" role="alert"' in html and not entry_ids(html)
    assert "<h1>Recent changes</h1>" in html  # the page itself, its filters still there


def test_an_unknown_kind_names_the_kinds_there_are(client, written):
    html = get(client, kind="spaceship")[1]
    assert "There is no kind “spaceship”: choose one of paper, code, result" in html


def test_an_unread_parameter_is_redirected_away(client, written):
    response = client.get("/changes", {"page": "99999999999999999999", "kind": "task"})
    assert response.status_code == 301 and response["Location"] == "/changes?kind=task"


def test_htmx_gets_the_list_alone(client, written):
    response = client.get("/changes", {"kind": "task"}, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="changes"') and "<html" not in html
    assert entry_ids(html)
    full = client.get("/changes", {"kind": "task"}).content.decode()
    assert "<html" in full and 'id="changes-kind"' in full


def _count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def _more(n: int, alice) -> None:
    """`n` more revisions of every kind that links to a record, and proposals."""
    from papers.contributions.revisions import Actor, record

    actor = Actor(user=alice, via=Via.ADMIN)
    objects = [
        Paper.objects.get(slug="paper-2"),
        Leaderboard.objects.filter(parent__isnull=True).first(),
        LeaderboardMetric.objects.first(),
        LeaderboardRow.objects.first(),
        CodeLink.objects.first(),
        Task.objects.get(slug="task-1"),
        Dataset.objects.get(slug="dataset-1"),
        Method.objects.get(slug="method-1"),
    ]
    for i in range(n):
        record(objects[i % len(objects)], {}, actor)
        Proposal.objects.create(user=alice, operation="task_update", target={"task_id": "task-1"})


@pytest.mark.parametrize("params", ["", "?kind=result", "?user=alice", "?status=live"])
def test_the_page_reads_the_same_queries_with_3_or_30_revisions(client, written, alice, params):
    url = f"/changes{params}"
    _more(3, alice)
    _count(client, url)  # content types cached, as in a running site
    few = _count(client, url)
    _more(27, alice)
    assert _count(client, url) == few
    assert few <= 10


def test_the_history_pages_keep_their_diffs(client, written):
    html = client.get("/task/task-1/history").content.decode()
    assert '<table class="diff">' in html and "Alice&#x27;s words." in html
    assert 'href="/task/task-1/history#' not in html  # its revisions do not link themselves


def test_the_footer_links_recent_changes(client, written):
    assert 'href="/changes"' in client.get("/about").content.decode()


def test_an_authors_verdict_is_a_result_change_linked_to_its_board(client, written, alice):
    from papers.contributions.authors import set_verdict

    row = LeaderboardRow.objects.get(model_name="Alice net")
    set_verdict(row, alice, "disputed", "Table 2 says 93%.")
    response, html = get(client, kind="result")
    assert response.status_code == 200
    newest = entry_ids(html)[0]
    revision = Revision.objects.order_by("-id").first()
    assert newest == f"revision-{revision.pk}"
    section = html.split(f'id="{newest}"', 1)[1].split("</section>", 1)[0]
    assert BOARD_URL in section and "Table 2 says 93%." in section
