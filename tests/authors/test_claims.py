"""Claiming a paper on its page ("I am an author"), and staff deciding claims in the admin."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from papers.models import AuthorClaim, Member, ResultVerification
from papers.models.accounts import Verdict
from papers.models.contributions import Level, Status
from tests.authors.conftest import user_client

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true", "HX-Target": "claim"}


def claim_url(paper) -> str:
    return reverse("papers:paper-claim", args=[paper.slug])


def test_anonymous_visitors_see_a_sign_in_link_and_no_form(client, scene):
    page = client.get(scene.paper.get_absolute_url()).content.decode()
    assert f"/accounts/login/?next=/paper/{scene.paper.slug}" in page
    assert "I am an author" not in page
    assert "csrfmiddlewaretoken" not in page  # the page is cached for every visitor


def test_anonymous_claim_page_sends_to_sign_in(client, scene):
    response = client.get(claim_url(scene.paper))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.post(claim_url(scene.paper), {"evidence_email": "a@b.org"}).status_code == 302
    assert not AuthorClaim.objects.exists()


def test_signed_in_user_opens_the_claim_form_in_place(django_user_model, scene):
    reader = user_client(django_user_model, "ada")
    page = reader.get(scene.paper.get_absolute_url()).content.decode()
    assert "I am an author" in page and f'hx-get="{claim_url(scene.paper)}"' in page
    fragment = reader.get(claim_url(scene.paper), headers=HTMX)
    body = fragment.content.decode()
    assert fragment.status_code == 200 and "<html" not in body
    assert 'id="claim"' in body and 'name="evidence_email"' in body
    assert "csrfmiddlewaretoken" in body
    whole = reader.get(claim_url(scene.paper)).content.decode()  # without JavaScript
    assert "<html" in whole and 'name="evidence_url"' in whole and "<h1>" in whole


@pytest.mark.parametrize(
    "data",
    [{}, {"note": "I wrote it, honestly"}, {"evidence_email": "", "evidence_url": ""}],
    ids=["nothing", "a note alone", "blank evidence"],
)
def test_a_claim_needs_an_address_or_a_homepage(django_user_model, scene, data):
    reader = user_client(django_user_model, "ada")
    response = reader.post(claim_url(scene.paper), data, headers=HTMX)
    assert response.status_code == 400
    assert "at least one is needed" in response.content.decode()
    assert not AuthorClaim.objects.exists()


@pytest.mark.parametrize(
    "data, field",
    [
        ({"evidence_email": "not an address"}, "evidence_email"),
        ({"evidence_url": "javascript:alert(1)"}, "evidence_url"),
        ({"evidence_url": "ftp://uni.example/me"}, "evidence_url"),
        ({"evidence_email": "a@uni.example", "note": "x" * 2001}, "note"),
    ],
    ids=["bad address", "javascript url", "ftp url", "long note"],
)
def test_odd_evidence_is_refused_next_to_its_field(django_user_model, scene, data, field):
    reader = user_client(django_user_model, "ada")
    response = reader.post(claim_url(scene.paper), data)
    assert response.status_code == 400
    assert response.context["claim_form"].errors.get(field)
    assert not AuthorClaim.objects.exists()


def test_a_claim_without_javascript_is_pending_and_shown_on_the_paper_page(
    django_user_model, scene
):
    reader = user_client(django_user_model, "ada")
    response = reader.post(
        claim_url(scene.paper),
        {"evidence_email": "ada@uni.example", "evidence_url": "https://uni.example/~ada"},
    )
    assert response.status_code == 302
    assert response["Location"] == f"{scene.paper.get_absolute_url()}#claim"
    claim = AuthorClaim.objects.get()
    assert (claim.user, claim.paper, claim.status) == (reader.user, scene.paper, Status.PENDING)
    page = reader.get(scene.paper.get_absolute_url()).content.decode()
    assert "Your claim to be an author of this paper is" in page and "pending" in page
    assert "I am an author" not in page


def test_a_claim_with_htmx_answers_its_status_in_place(django_user_model, scene):
    reader = user_client(django_user_model, "ada")
    response = reader.post(
        claim_url(scene.paper), {"evidence_url": "https://uni.example/~ada"}, headers=HTMX
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert "pending" in body and 'role="status"' in body


def test_one_claim_per_user_and_paper(django_user_model, scene):
    reader = user_client(django_user_model, "ada")
    data = {"evidence_email": "ada@uni.example"}
    assert reader.post(claim_url(scene.paper), data).status_code == 302
    again = reader.post(claim_url(scene.paper), {"evidence_email": "other@uni.example"})
    assert again.status_code == 409 and "pending" in again.content.decode()
    assert AuthorClaim.objects.get().evidence_email == "ada@uni.example"
    # Another user may claim the same paper, and the same user another paper.
    other_user = user_client(django_user_model, "bob")
    assert other_user.post(claim_url(scene.paper), data).status_code == 302
    assert reader.post(claim_url(scene.other), data).status_code == 302
    assert AuthorClaim.objects.count() == 3


def test_a_claim_of_a_hidden_or_unknown_paper_is_a_404(django_user_model, scene):
    reader = user_client(django_user_model, "ada")
    scene.other.hidden = True
    scene.other.save()
    assert reader.get(claim_url(scene.other)).status_code == 404
    assert reader.get("/paper/no-such-paper/claim").status_code == 404


def test_a_rejected_claim_shows_its_reason(django_user_model, scene):
    reader = user_client(django_user_model, "ada")
    AuthorClaim.objects.create(
        user=reader.user, paper=scene.paper, evidence_email="ada@gmail.example",
        status=Status.REJECTED, reason="The address is not the university's.",
    )  # fmt: skip
    page = reader.get(scene.paper.get_absolute_url()).content.decode()
    assert "rejected" in page and "The address is not the university&#x27;s." in page


def test_the_paper_page_etag_differs_per_reader(django_user_model, scene, page_cache):
    anonymous = Client().get(scene.paper.get_absolute_url())
    reader = user_client(django_user_model, "ada")
    mine = reader.get(scene.paper.get_absolute_url())
    assert anonymous["ETag"] != mine["ETag"]
    # A claim made retires the reader's copy: the page now shows it.
    reader.post(claim_url(scene.paper), {"evidence_email": "ada@uni.example"})
    again = reader.get(scene.paper.get_absolute_url(), headers={"If-None-Match": mine["ETag"]})
    assert again.status_code == 200 and "pending" in again.content.decode()


# --- the admin ------------------------------------------------------------------------------


def changelist(model: str) -> str:
    return reverse(f"admin:papers_{model}_changelist")


def test_staff_approve_a_claim_and_the_author_may_then_vouch(
    admin_client, django_user_model, scene
):
    reader = user_client(django_user_model, "ada")
    reader.post(claim_url(scene.paper), {"evidence_email": "ada@uni.example"})
    claim = AuthorClaim.objects.get()
    listed = admin_client.get(changelist("authorclaim"), {"status__exact": "pending"})
    assert listed.status_code == 200 and "ada@uni.example" in listed.content.decode()
    response = admin_client.post(
        changelist("authorclaim"),
        {"action": "approve", "_selected_action": [claim.pk], "reason": ""},
    )
    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.status == Status.APPROVED and claim.moderator.is_superuser and claim.decided_at
    page = reader.get(scene.paper.get_absolute_url()).content.decode()
    assert "approved" in page and scene.verdict_url in page


def test_rejecting_a_claim_needs_a_reason(admin_client, django_user_model, scene):
    reader = user_client(django_user_model, "ada")
    reader.post(claim_url(scene.paper), {"evidence_email": "ada@gmail.example"})
    claim = AuthorClaim.objects.get()
    data = {"action": "reject", "_selected_action": [claim.pk], "reason": ""}
    admin_client.post(changelist("authorclaim"), data)
    claim.refresh_from_db()
    assert claim.status == Status.PENDING
    reason = "Not an institutional address"
    admin_client.post(changelist("authorclaim"), {**data, "reason": reason})
    claim.refresh_from_db()
    assert claim.status == Status.REJECTED and claim.reason == reason
    assert reader.get(scene.verdict_url).status_code == 403


def test_admin_lists_pending_claims_first(admin_client, django_user_model, scene):
    for name, status in (("a", Status.APPROVED), ("b", Status.PENDING), ("c", Status.REJECTED)):
        user = django_user_model.objects.create_user(name)
        AuthorClaim.objects.create(user=user, paper=scene.paper, evidence_email=f"{name}@x.org",
                                   status=status)  # fmt: skip
    shown = admin_client.get(changelist("authorclaim")).context["cl"].result_list
    assert shown[0].status == Status.PENDING


def test_admin_lists_disputed_results_first_and_filters_by_verdict(
    admin_client, scene, make_paper
):
    third = make_paper().results.get()
    ResultVerification.objects.create(row=scene.row, verdict=Verdict.VERIFIED)
    ResultVerification.objects.create(row=third, verdict=Verdict.DISPUTED, note="Table 3 says 78")
    response = admin_client.get(changelist("resultverification"))
    assert response.status_code == 200
    assert [v.verdict for v in response.context["cl"].result_list] == ["disputed", "verified"]
    only = admin_client.get(changelist("resultverification"), {"verdict__exact": "verified"})
    assert [v.verdict for v in only.context["cl"].result_list] == ["verified"]


def test_staff_raise_a_contributor_to_trusted(admin_client, django_user_model):
    user = django_user_model.objects.create_user("ada", email="ada@example.org")
    response = admin_client.post(
        reverse("admin:papers_member_add"), {"user": user.pk, "level": Level.TRUSTED}
    )
    assert response.status_code == 302
    assert Member.objects.get(user=user).level == Level.TRUSTED
    listed = admin_client.get(changelist("member"), {"level__exact": "trusted"})
    assert "ada@example.org" in listed.content.decode()


def test_admin_lists_run_a_fixed_number_of_queries(
    admin_client, django_user_model, scene, make_paper
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def counts() -> list[int]:
        found = []
        for model in ("authorclaim", "resultverification", "member"):
            with CaptureQueriesContext(connection) as queries:
                assert admin_client.get(changelist(model)).status_code == 200
            found.append(len(queries))
        return found

    def add(n: int) -> None:
        for _ in range(n):
            paper = make_paper()
            user = django_user_model.objects.create_user(f"user-{paper.pk}")
            AuthorClaim.objects.create(user=user, paper=paper, evidence_url="https://x.org")
            ResultVerification.objects.create(row=paper.results.get(), verdict="verified")
            Member.objects.create(user=user)

    add(2)
    counts()
    few = counts()
    add(4)
    assert counts() == few
