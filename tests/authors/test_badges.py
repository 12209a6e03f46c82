"""The badge a paper puts in its README: /sota/<board>/badge.svg?paper=<slug>, and the
"Copy badge" code beside each result on the paper page."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from papers.kept.rankings import forget_boards, refresh_boards
from papers.models import LeaderboardRow, ResultVerification
from papers.models.accounts import Verdict

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"


def badge_url(scene, paper=None) -> str:
    return f"{scene.board_path}/badge.svg?paper={(paper or scene.paper).slug}"


def parsed(response) -> tuple[ET.Element, str]:
    """The SVG parsed as XML, and its full text (its title)."""
    assert response["Content-Type"].startswith("image/svg+xml")
    root = ET.fromstring(response.content)
    assert root.tag == f"{SVG}svg" and root.get("role") == "img"
    title = root.find(f"{SVG}title").text
    assert root.get("aria-label") == title
    # Self-contained: no links, scripts, images or fonts from elsewhere.
    body = response.content.decode()
    for word in ("<a", "href", "<script", "<image", "@import", "url("):
        assert word not in body
    return root, title


def shown_texts(root: ET.Element) -> list[str]:
    return [t.text for t in root.iter(f"{SVG}text")]


def rank_third(scene) -> None:
    for key, value in (("best", "95.5%"), ("second", "92.0%")):
        LeaderboardRow.objects.create(
            leaderboard=scene.board, row_key=key, model_name=key,
            metrics={"Top-1 Accuracy": value},
        )  # fmt: skip
    refresh_boards()


def test_the_best_paper_on_a_board_is_sota(scene, client):
    refresh_boards()
    response = client.get(badge_url(scene))
    assert response.status_code == 200
    root, title = parsed(response)
    assert title == "SOTA on Dataset 1: Top-1 Accuracy 89.09%"
    assert shown_texts(root) == ["SOTA on Dataset 1", "Top-1 Accuracy 89.09%"]
    assert int(root.get("width")) > 100 and root.get("height") == "20"


def test_a_third_place_says_so(scene, client):
    rank_third(scene)
    root, title = parsed(client.get(badge_url(scene)))
    assert title == "#3 on Dataset 1: Top-1 Accuracy 89.09%"
    assert shown_texts(root)[0] == "#3 on Dataset 1"


def test_the_papers_best_row_counts(scene, client):
    rank_third(scene)
    LeaderboardRow.objects.create(
        leaderboard=scene.board,
        row_key="mine-2",
        paper=scene.paper,
        metrics={"Top-1 Accuracy": "93%"},
    )
    refresh_boards()
    assert parsed(client.get(badge_url(scene)))[1] == "#2 on Dataset 1: Top-1 Accuracy 93%"


def test_a_verified_row_says_verified(scene, client):
    refresh_boards()
    ResultVerification.objects.create(row=scene.row, verdict=Verdict.VERIFIED)
    root, title = parsed(client.get(badge_url(scene)))
    assert title.endswith(", verified by an author")
    assert "✓ verified" in shown_texts(root)


def test_a_board_nothing_is_kept_of_is_ranked_as_its_page_ranks_it(scene, client):
    rank_third(scene)
    forget_boards([scene.board.pk])
    assert parsed(client.get(badge_url(scene)))[1].startswith("#3 on Dataset 1")


def test_names_are_escaped_and_cut(scene, client):
    dataset = scene.board.dataset
    dataset.name = 'A <b>"dataset"</b> & co ' + "x" * 80 + "\x01"
    dataset.save()
    refresh_boards()
    root, title = parsed(client.get(badge_url(scene)))
    assert title.startswith('SOTA on A <b>"dataset"</b> & co xxx')
    assert shown_texts(root)[0].endswith("…") and len(shown_texts(root)[0]) == 40


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?paper=",
        "?paper=paper-2",  # a paper on another board
        "?paper=no-such-paper",
        "?paper=" + "x" * 300,
        "?paper=%00",
        "?paper=%01abc",
        "?paper=%F0%9F%98%80",
        "?paper=a&paper=b",
        "?paper=../../etc/passwd",
        "?paper[]=x",
    ],
)
def test_a_paper_not_on_the_board_or_an_odd_parameter_is_a_404_badge(scene, client, query):
    refresh_boards()
    response = client.get(f"{scene.board_path}/badge.svg{query}")
    if response.status_code == 301:  # a parameter the badge does not read: dropped
        response = client.get(response["Location"])
    assert response.status_code == 404
    assert parsed(response)[1] == "Code with Papers: not on this board"


@pytest.mark.parametrize(
    "board",
    ["no-such-task-on-dataset-1", "task-1-on-nothing", "nothing", "-on-", "a" * 500, "task-1--"],
)
def test_an_unknown_board_is_a_404_badge(scene, client, board):
    response = client.get(f"/sota/{board}/badge.svg?paper={scene.paper.slug}")
    assert response.status_code == 404
    parsed(response)


def test_a_hidden_paper_has_no_badge(scene, client):
    refresh_boards()
    scene.paper.hidden = True
    scene.paper.save()
    assert client.get(badge_url(scene)).status_code == 404


def test_a_row_without_a_value_for_the_metric_has_no_badge(scene, client):
    scene.row.metrics = {"Other": "1"}
    scene.row.save()
    refresh_boards()
    assert client.get(badge_url(scene)).status_code == 404


def test_a_badge_costs_two_queries_however_big_the_board(scene, client, django_assert_num_queries):
    refresh_boards()
    client.get(badge_url(scene))
    with django_assert_num_queries(2):
        assert client.get(badge_url(scene)).status_code == 200
    LeaderboardRow.objects.bulk_create(
        LeaderboardRow(leaderboard=scene.board, row_key=f"r{i}", metrics={"Top-1 Accuracy": i})
        for i in range(200)
    )
    refresh_boards()
    with django_assert_num_queries(2):
        assert client.get(badge_url(scene)).status_code == 200
    unknown = f"/sota/nothing-on-nowhere/badge.svg?paper={scene.paper.slug}"
    with CaptureQueriesContext(connection) as queries:
        assert client.get(unknown).status_code == 404
    assert len(queries) <= 1


def test_a_badge_is_cached_until_the_content_changes(scene, page_cache, author):
    refresh_boards()
    reader = Client()
    first = reader.get(badge_url(scene))
    assert first["X-Cache"] == "miss" and "public" in first["Cache-Control"]
    assert "max-age" in first["Cache-Control"]
    again = reader.get(badge_url(scene))
    assert again["X-Cache"] == "hit"
    not_modified = reader.get(badge_url(scene), headers={"If-None-Match": first["ETag"]})
    assert not_modified.status_code == 304
    author.post(scene.verdict_url, {"verdict": "verified"})  # moves the content version on
    fresh = reader.get(badge_url(scene), headers={"If-None-Match": first["ETag"]})
    assert fresh.status_code == 200 and fresh["X-Cache"] == "miss"
    assert "verified" in parsed(fresh)[1]


def test_the_paper_page_gives_each_ranked_result_its_badge_code(scene, client, settings):
    settings.SITE_URL = "https://codewithpapers.example"
    rank_third(scene)
    page = client.get(scene.paper.get_absolute_url()).content.decode()
    board = f"https://codewithpapers.example{scene.board_path}"
    image = f"{board}/badge.svg?paper={scene.paper.slug}"
    assert f"[![#3 on Dataset 1]({image})]({board})" in page
    assert f"&lt;a href=&quot;{board}&quot;&gt;&lt;img src=&quot;{image}&quot;" in page
    assert "readonly" in page and "Copy badge" in page
    assert f'src="{scene.board_path}/badge.svg?paper={scene.paper.slug}"' in page  # preview


def test_the_board_page_route_is_untouched(scene, client):
    assert client.get(scene.board_path).status_code == 200
    assert client.get(f"{scene.board_path}/history").status_code == 200
