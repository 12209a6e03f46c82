"""An approved author verifies or disputes their paper's results: who may, what is
recorded (a revision on the board's history), and where it shows (the board, the paper
page, the API)."""

from __future__ import annotations

import pytest
from django.test import Client

from papers.kept.rankings import refresh_boards
from papers.models import LeaderboardRow, ResultVerification, Revision
from papers.models.accounts import Verdict

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.mark.parametrize(
    "who, allowed",
    [
        ("approved author", True),
        ("staff", True),
        ("author of another paper", False),
        ("pending claimant", False),
        ("rejected claimant", False),
        ("plain user", False),
        ("anonymous", False),
    ],
)
def test_only_approved_authors_of_the_paper_and_staff_may_verify(scene, people, who, allowed):
    response = people[who].post(scene.verdict_url, {"verdict": "verified"})
    if allowed:
        assert response.status_code == 302
        assert response["Location"] == f"{scene.paper.get_absolute_url()}#result-{scene.row.pk}"
        assert ResultVerification.objects.get(row=scene.row).verdict == Verdict.VERIFIED
    else:
        assert response.status_code == 403
        assert not ResultVerification.objects.exists()


@pytest.mark.parametrize("who", ["author of another paper", "pending claimant", "plain user"])
def test_the_paper_page_offers_the_verdict_form_only_to_those_who_may(scene, people, who):
    page = people[who].get(scene.paper.get_absolute_url()).content.decode()
    assert scene.verdict_url not in page
    mine = people["approved author"].get(scene.paper.get_absolute_url()).content.decode()
    assert f'action="{scene.verdict_url}"' in mine and 'value="disputed"' in mine


def test_anonymous_paper_page_offers_no_verdict_form(client, scene, people):
    page = client.get(scene.paper.get_absolute_url()).content.decode()
    assert scene.verdict_url not in page and "csrfmiddlewaretoken" not in page


def test_the_verdict_form_is_a_page_of_its_own_without_javascript(scene, author, people):
    page = author.get(scene.verdict_url)
    body = page.content.decode()
    assert page.status_code == 200 and "<h1>" in body
    assert '<details class="verdict-form" open>' in body
    assert people["plain user"].get(scene.verdict_url).status_code == 403
    assert "/accounts/login/" in people["anonymous"].get(scene.verdict_url)["Location"]


def test_a_dispute_needs_a_note(scene, author):
    response = author.post(scene.verdict_url, {"verdict": "disputed", "note": "  "})
    assert response.status_code == 400
    assert "a dispute needs a note" in response.content.decode()
    assert not ResultVerification.objects.exists()
    response = author.post(scene.verdict_url, {"verdict": "disputed", "note": "Table 2: 78.1"})
    assert response.status_code == 302
    found = ResultVerification.objects.get()
    assert (found.verdict, found.note, found.user) == ("disputed", "Table 2: 78.1", author.user)


@pytest.mark.parametrize(
    "data",
    [{}, {"verdict": "maybe"}, {"verdict": "verified", "note": "x" * 2001}, {"verdict": ["", ""]}],
    ids=["nothing", "unknown verdict", "long note", "empty twice"],
)
def test_odd_verdicts_are_refused_not_a_500(scene, author, data):
    assert author.post(scene.verdict_url, data).status_code == 400
    assert not ResultVerification.objects.exists()


def test_a_row_of_another_paper_or_no_row_is_a_404(scene, author):
    other_row = scene.other.results.get()
    assert author.post(f"/paper/{scene.paper.slug}/results/{other_row.pk}/verdict",
                       {"verdict": "verified"}).status_code == 404  # fmt: skip
    assert author.post(f"/paper/{scene.paper.slug}/results/999999/verdict",
                       {"verdict": "verified"}).status_code == 404  # fmt: skip
    assert not ResultVerification.objects.exists()


def test_verdict_with_htmx_swaps_the_rows_cell(scene, author):
    response = author.post(
        scene.verdict_url, {"verdict": "verified"}, headers={**HTMX, "HX-Target": "x"}
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert f'id="verdict-{scene.row.pk}"' in body and "verified by an author" in body
    refused = author.post(scene.verdict_url, {"verdict": "disputed"}, headers=HTMX)
    assert refused.status_code == 400 and "a dispute needs a note" in refused.content.decode()


def test_each_verdict_change_is_a_revision_on_the_boards_history(scene, author, client):
    author.post(scene.verdict_url, {"verdict": "verified", "note": "As in Table 1"})
    author.post(scene.verdict_url, {"verdict": "disputed", "note": "Test set, not val"})
    revisions = list(Revision.objects.filter(parent_id=scene.board.pk).order_by("id"))
    changes = [r.changes["verdict"] for r in revisions]
    assert changes == [[None, "verified"], ["verified", "disputed"]]
    assert all(r.user == author.user and r.via == "site" for r in revisions)
    assert revisions[1].comment == "Test set, not val"
    history = client.get(f"{scene.board_path}/history").content.decode()
    assert "Test set, not val" in history and "ada" in history


def test_verified_rows_carry_a_badge_on_the_board_and_the_paper_page(scene, author, client):
    author.post(scene.verdict_url, {"verdict": "verified"})
    board = client.get(scene.board_path).content.decode()
    assert "verified by an author" in board
    paper = client.get(scene.paper.get_absolute_url()).content.decode()
    assert "verified by an author" in paper


def test_disputed_rows_are_marked_on_the_board(scene, author, client):
    author.post(scene.verdict_url, {"verdict": "disputed", "note": "Wrong split"})
    board = client.get(scene.board_path).content.decode()
    assert "disputed by an author" in board and "Wrong split" in board


def test_api_results_say_what_the_author_said(scene, author, client):
    evaluation = f"/api/v1/evaluations/{scene.board.task.slug}--{scene.board.dataset.slug}"
    before = client.get(f"{evaluation}/results/").json()["results"]
    assert [r["verification"] for r in before] == [None]
    author.post(scene.verdict_url, {"verdict": "verified"})
    after = client.get(f"{evaluation}/results/").json()["results"]
    assert [r["verification"] for r in after] == ["verified"]
    mine = client.get(f"/api/v1/papers/{scene.paper.slug}/results/").json()["results"]
    assert [r["verification"] for r in mine] == ["verified"]
    one = client.get(f"{evaluation}/results/{scene.row.row_key}/").json()
    assert one["verification"] == "verified"


def test_the_openapi_result_documents_verification(client):
    schema = client.get("/api/v1/schema.json").json()
    result = schema["components"]["schemas"]["Result"]
    assert "verification" in result["required"]
    assert result["properties"]["verification"]["enum"] == ["verified", "disputed", None]


def _more_rows(board, n: int, start: int) -> None:
    for i in range(start, start + n):
        row = LeaderboardRow.objects.create(
            leaderboard=board, row_key=f"more-{i}", model_name=f"M{i}",
            metrics={"Top-1 Accuracy": f"{50 + i}%"},
        )  # fmt: skip
        ResultVerification.objects.create(
            row=row, verdict=Verdict.VERIFIED if i % 2 else Verdict.DISPUTED, note="n"
        )


def test_verdicts_add_no_query_to_the_board_page(scene, django_assert_num_queries):
    client = Client()
    refresh_boards()
    client.get(scene.board_path)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as plain:
        assert client.get(scene.board_path).status_code == 200
    _more_rows(scene.board, 8, 0)
    refresh_boards()
    with django_assert_num_queries(len(plain)):
        page = client.get(scene.board_path).content.decode()
    assert page.count("verified by an author") == 4 and page.count("disputed by an author") == 4


def test_verdicts_add_no_query_to_the_paper_page_or_the_api(
    scene, author, django_assert_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    board = f"{scene.board.task.slug}--{scene.board.dataset.slug}"
    urls = [
        scene.paper.get_absolute_url(),
        f"/api/v1/evaluations/{board}/results/",
        f"/api/v1/papers/{scene.paper.slug}/results/",
    ]
    client = Client()
    refresh_boards()
    for url in urls:
        client.get(url)
    counts = []
    for url in urls:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        counts.append(len(queries))
    author.post(scene.verdict_url, {"verdict": "verified"})
    _more_rows(scene.board, 6, 0)
    refresh_boards()
    for url, count in zip(urls, counts, strict=True):
        with django_assert_num_queries(count):
            assert client.get(url).status_code == 200


def test_the_approved_authors_paper_page_runs_a_fixed_number_of_queries(scene, author):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = scene.paper.get_absolute_url()
    author.get(url)
    with CaptureQueriesContext(connection) as before:
        author.get(url)
    author.post(scene.verdict_url, {"verdict": "verified"})
    LeaderboardRow.objects.create(
        leaderboard=scene.board, row_key="second", paper=scene.paper, metrics={}
    )
    with CaptureQueriesContext(connection) as after:
        page = author.get(url).content.decode()
    assert len(after) == len(before)
    assert page.count('value="disputed"') == 2


def test_verdicts_and_claims_count_against_the_hourly_allowance(
    scene, author, page_cache, settings
):
    settings.SITE_WRITES_PER_HOUR = 1
    assert author.post(scene.verdict_url, {"verdict": "verified"}).status_code == 302
    again = author.post(scene.verdict_url, {"verdict": "disputed", "note": "Wrong split"})
    assert again.status_code == 429 and int(again["Retry-After"]) > 0
    assert ResultVerification.objects.get().verdict == "verified"
    claim = author.post(f"/paper/{scene.other.slug}/claim", {"evidence_email": "a@uni.example"})
    assert claim.status_code == 429
