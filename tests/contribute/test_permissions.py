"""Every contribution form, by who sends it: visitors who are not signed in are sent to
sign in; a contributor's, a new account's and an unverified address's write becomes a
proposal a moderator approves; a trusted contributor's and staff's goes live with a
revision naming them, made through the site. The page says which happened."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client

from papers.contributions.proposals import approve
from papers.models import (
    CodeLink,
    Dataset,
    LeaderboardRow,
    Method,
    Paper,
    Proposal,
    Revision,
    Task,
)
from papers.models.contributions import Status, Via
from tests.contribute.conftest import LEVELS, make_user, signed_in

pytestmark = pytest.mark.django_db


@dataclass
class Form:
    """A form's URL for the paper made by make_paper, what it sends, and whether what it
    sends is in the archive."""

    url: str
    data: dict
    applied: Callable[[Paper], bool]
    back: str


def _row(model: str) -> bool:
    return LeaderboardRow.objects.filter(model_name=model).exists()


FORMS = {
    "paper: add code": Form(
        "/paper/{slug}/contribute/code",
        {"url": "https://github.com/Reader/Repo.git", "framework": "jax", "is_official": "on"},
        lambda paper: CodeLink.objects.filter(
            paper=paper, repository__url="https://github.com/Reader/Repo", framework="jax"
        ).exists(),
        "/paper/{slug}",
    ),
    "paper: add a result to a board": Form(
        "/paper/{slug}/contribute/result",
        {
            "task": "Task 1",
            "dataset": "Dataset 1",
            "model": "Reader net",
            "metrics": "Top-1 Accuracy: 91.5",
            "location": "Table 2",
        },
        lambda paper: _row("Reader net"),
        "/paper/{slug}",
    ),
    "paper: add a result on a new board": Form(
        "/paper/{slug}/contribute/result",
        {
            "task": "task-1",
            "dataset": "Other data",
            "model": "Reader net",
            "metrics": "Error: 3.2",
            "uses_additional_data": "on",
        },
        lambda paper: LeaderboardRow.objects.filter(
            model_name="Reader net",
            leaderboard__dataset__slug="other-data",
            uses_additional_data=True,
        ).exists(),
        "/paper/{slug}",
    ),
    "paper: suggest a correction": Form(
        "/paper/{slug}/contribute/correction",
        {
            "title": "A corrected title",
            "published": "2020-07-01",
            "arxiv_id": "2101.00001",
            "tasks": "Task 1\nSubtask 1",
            "methods": "",
            "datasets": "Dataset 1",
            "reason": "the PDF says so",
        },
        lambda paper: (
            Paper.objects.filter(pk=paper.pk, title="A corrected title").exists()
            and sorted(paper.task_links.values_list("task__slug", flat=True))
            == ["subtask-1", "task-1"]
            and not paper.methods.exists()
        ),
        "/paper/{slug}",
    ),
    "leaderboard: add a result": Form(
        "/sota/task-1-on-dataset-1/contribute/result",
        {"paper": "2101.00001", "model": "Reader net", "metric_0": "95.1%", "location": "Fig. 3"},
        lambda paper: _row("Reader net"),
        "/sota/task-1-on-dataset-1",
    ),
    "task: suggest an edit": Form(
        "/task/task-1/contribute/description",
        {"description": "Sorting **images** into classes, as [ImageNet](https://x.org) does."},
        lambda paper: "**images**" in Task.objects.get(slug="task-1").description,
        "/task/task-1",
    ),
    "dataset: suggest an edit": Form(
        "/dataset/dataset-1/contribute/description",
        {"description": "A dataset of one million labelled photographs in many classes."},
        lambda paper: "million" in Dataset.objects.get(slug="dataset-1").description,
        "/dataset/dataset-1",
    ),
    "method: suggest an edit": Form(
        "/method/method-1/contribute/description",
        {"description": "A layer that weighs every input by its relevance to the query."},
        lambda paper: "weighs" in Method.objects.get(slug="method-1").description,
        "/method/method-1",
    ),
}


@pytest.fixture
def paper(make_paper):
    paper = make_paper()
    Dataset.objects.create(slug="other-data", name="Other data")
    return paper


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_a_visitor_who_is_not_signed_in_is_sent_to_sign_in_and_nothing_is_written(paper, form):
    url = form.url.format(slug=paper.slug)
    client = Client()
    for response in (client.get(url), client.post(url, form.data)):
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")
    assert not form.applied(paper)
    assert not Proposal.objects.exists()


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
@pytest.mark.parametrize("level", LEVELS)
def test_each_level_s_write_goes_live_or_becomes_a_proposal_and_the_page_says_which(
    paper, form, level
):
    user = make_user(level)
    client = signed_in(user)
    response = client.post(form.url.format(slug=paper.slug), form.data)
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert response["Location"] == form.back.format(slug=paper.slug)
    page = client.get(response["Location"]).content.decode()
    if LEVELS[level]:
        assert form.applied(paper)
        assert not Proposal.objects.exists()
        revisions = Revision.objects.filter(user=user)
        assert revisions.exists() and {r.via for r in revisions} == {Via.SITE}
        assert "is live." in page
    else:
        assert not form.applied(paper)
        proposal = Proposal.objects.get(user=user)
        assert proposal.status == Status.PENDING and proposal.token_id is None
        assert f"Recorded as proposal #{proposal.pk}; a moderator will review it." in page
        assert 'href="/accounts/profile/"' in page
        assert not Revision.objects.filter(user=user).exists()


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_approving_a_proposal_made_on_the_site_applies_it_under_both_names(paper, form):
    user = make_user("contributor")
    signed_in(user).post(form.url.format(slug=paper.slug), form.data)
    proposal = Proposal.objects.get(user=user)
    moderator = make_user("staff")
    approve(proposal, moderator)
    assert proposal.status == Status.APPROVED
    assert form.applied(paper)
    revisions = Revision.objects.filter(proposal=proposal)
    assert revisions.exists()
    assert {(r.user_id, r.moderator_id, r.via) for r in revisions} == {
        (user.pk, moderator.pk, Via.SITE)
    }


def test_where_in_the_paper_is_kept_in_the_revision_s_comment(paper, trusted):
    form = FORMS["leaderboard: add a result"]
    signed_in(trusted).post(form.url, form.data)
    row = LeaderboardRow.objects.get(model_name="Reader net")
    assert Revision.objects.get(object_id=row.pk, user=trusted).comment == (
        "Where in the paper: Fig. 3"
    )


def test_where_in_the_paper_is_kept_in_the_proposal_s_comment(paper, contributor):
    form = FORMS["paper: add a result to a board"]
    signed_in(contributor).post(form.url.format(slug=paper.slug), form.data)
    assert Proposal.objects.get().comment == "Where in the paper: Table 2"


def test_a_correction_s_reason_is_its_revision_s_comment(paper, trusted):
    form = FORMS["paper: suggest a correction"]
    signed_in(trusted).post(form.url.format(slug=paper.slug), form.data)
    revision = Revision.objects.get(object_id=paper.pk, content_type__model="paper")
    assert revision.comment == "the PDF says so"
    assert revision.changes["title"][1] == "A corrected title"
