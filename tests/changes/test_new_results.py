"""/sota shows the results added in the last week, newest first, with their model,
paper, board and contributor; the section is not there when there are none."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from papers.contributions.site import prepare, submit
from papers.models import Level, Member, Paper, Revision
from tests.accounts.test_accounts import verified_user
from tests.changes.records import BOARD_URL

pytestmark = pytest.mark.django_db
HEADING = "New results this week"


@pytest.fixture
def trusted(db):
    user = verified_user("tess@example.org")
    Member.objects.create(user=user, level=Level.TRUSTED)
    return user


def add_result(user, model_name: str, paper: str = "", board: str = "task-1--dataset-1"):
    body = {"metrics": {"Top-1 Accuracy": "97.5%"}, "methodology": model_name}
    if paper:
        body["paper"] = paper
    data = prepare("evaluation_result_add", body)
    return submit(user, "evaluation_result_add", {"evaluation_id": board}, data, "from the paper")


def new_results_section(html: str) -> str:
    start = html.index(f">{HEADING}</h2>")
    return html[start : html.index("</section>", start)]


def test_a_trusted_users_result_shows_on_sota_with_its_board_and_contributor(
    client, make_paper, trusted
):
    paper = make_paper()
    submitted = add_result(trusted, "Tess net", paper=paper.slug)
    assert submitted.live
    section = new_results_section(client.get("/sota").content.decode())
    assert "Tess net" in section
    assert f'href="{paper.get_absolute_url()}"' in section
    assert f'href="{BOARD_URL}"' in section and "Task 1 on Dataset 1" in section
    assert "contributed by tess" in section


def test_new_results_come_newest_first_and_stop_at_ten(client, make_paper, trusted):
    make_paper()
    for n in range(12):
        add_result(trusted, f"Tess net {n:02d}")
    section = new_results_section(client.get("/sota").content.decode())
    shown = [f"Tess net {n:02d}" for n in range(12) if f"Tess net {n:02d}<" in section]
    assert shown == [f"Tess net {n:02d}" for n in range(2, 12)]
    assert section.index("Tess net 11") < section.index("Tess net 02")


def test_the_section_is_hidden_when_nothing_was_added_this_week(client, make_paper, trusted):
    make_paper()
    assert HEADING not in client.get("/sota").content.decode()
    add_result(trusted, "Old net")
    Revision.objects.update(created_at=timezone.now() - dt.timedelta(days=8))
    assert HEADING not in client.get("/sota").content.decode()


def test_a_contributors_proposal_is_not_a_new_result_until_approved(client, make_paper):
    make_paper()
    newcomer = verified_user("new@example.org", days_old=0)
    assert not add_result(newcomer, "Waiting net").live
    assert HEADING not in client.get("/sota").content.decode()


def test_a_result_deleted_since_is_left_out(client, make_paper, trusted):
    make_paper()
    add_result(trusted, "Gone net")
    add_result(trusted, "Kept net")
    from papers.models import LeaderboardRow

    LeaderboardRow.objects.filter(model_name="Gone net").delete()
    section = new_results_section(client.get("/sota").content.decode())
    assert "Kept net" in section and "Gone net" not in section


def test_a_hidden_paper_is_not_linked_from_new_results(client, make_paper, trusted):
    paper = make_paper()
    add_result(trusted, "Tess net", paper=paper.slug)
    Paper.objects.filter(pk=paper.pk).update(hidden=True)
    section = new_results_section(client.get("/sota").content.decode())
    assert "Tess net" in section and paper.get_absolute_url() not in section


def test_sota_reads_the_same_queries_with_one_or_many_new_results(client, make_paper, trusted):
    make_paper()
    add_result(trusted, "First net")

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/sota").status_code == 200
        return len(queries)

    count()
    one = count()
    for n in range(6):
        add_result(trusted, f"More net {n}")
    assert count() == one


def test_a_contributors_result_shows_once_a_moderator_approves_it(client, make_paper):
    from django.contrib.auth import get_user_model

    from papers.contributions.proposals import approve

    make_paper()
    newcomer = verified_user("new@example.org", days_old=0)
    proposal = add_result(newcomer, "Approved net").proposal
    moderator = get_user_model().objects.create_user("mod", is_staff=True)
    approve(proposal, moderator)
    section = new_results_section(client.get("/sota").content.decode())
    assert "Approved net" in section and "contributed by new, approved by mod" in section
