"""paperswithcode.com is gone: no page links to it. A link the archive gives to one of
its pages leads to the record here when we have it; otherwise the page shows the title
as text, with the original URL as a muted "archived link" to the Internet Archive's copy."""

from __future__ import annotations

import json
import re

import pytest

from papers.models import Leaderboard, Method, Paper
from tests.archive_helpers import run_import, write
from tests.conftest import realdata

pytestmark = pytest.mark.django_db

METHODS_2022 = "mariaayuso__topic-modeling-on-software/methods.json.gz"
EXCERPT = "IllDepence__contextgraph/evaluation-tables_excerpt_from_notebook_output.json"
WAYBACK = "https://web.archive.org/web/20250728/"
DEAD = re.compile(r'href="https?://(www\.)?paperswithcode\.com', re.IGNORECASE)


def _evaluation_tables() -> list[dict]:
    """The real evaluation-tables records of the notebook excerpt, as the dump nests them:
    OCR on I2L-140K, and its sub-subtask Active Object Detection on COCO."""
    excerpt = json.loads(realdata(EXCERPT).read_text())
    ocr = {**excerpt["task_0"], "datasets": [excerpt["task_0.datasets[0]"]], "subtasks": []}
    return [ocr, *excerpt["task_0.subtasks[0].subtasks"]]


@pytest.fixture
def boards(tmp_path):
    status, _, err = run_import(write(tmp_path / "evaluation-tables.json", _evaluation_tables()))
    assert status == 0, err
    return {board.get_absolute_url(): board for board in Leaderboard.objects.all()}


def test_a_boards_leaderboard_link_is_an_archived_link_not_a_dead_one(client, boards):
    url = "/sota/optical-character-recognition-on-i2l-140k"
    assert url in boards
    body = client.get(url).content.decode()
    assert not DEAD.search(body)
    links = body[body.index("Links:") :]
    links = links[: links.index("</p>")]
    assert "Papers with Code Leaderboard URL" in links
    assert (
        f'href="{WAYBACK}https://paperswithcode.com/sota/optical-character-recognition-on-i2l-140k"'
        in links
    )
    assert "archived link" in links and 'class="meta archived-link"' in links


def test_a_link_to_a_board_we_have_leads_here(client, boards):
    board = Leaderboard.objects.get(dataset__name="I2L-140K")
    other = "https://paperswithcode.com/sota/active-object-detection-on-coco"
    board.dataset_citations = [{"title": "The COCO board", "url": other}]
    board.description = f"Compare [the COCO board]({other}) and [a gone one](/sota/x-on-y)."
    board.save()
    body = client.get(board.get_absolute_url()).content.decode()
    assert body.count('<a href="/sota/active-object-detection-on-coco">') == 2
    assert f'href="{WAYBACK}https://paperswithcode.com/sota/x-on-y"' in body
    assert not DEAD.search(body)


def test_introduced_in_a_paper_not_in_the_archive_is_an_archived_link(client):
    assert run_import(realdata(METHODS_2022))[0] == 0
    adam = Method.objects.get(slug="adam")
    assert adam.introduced_by is None
    body = client.get("/method/adam").content.decode()
    assert not DEAD.search(body)
    introduced = body[body.index("Introduced in") :]
    introduced = introduced[: introduced.index("</p>")]
    assert introduced.startswith("Introduced in Adam: A Method for Stochastic Optimization <span")
    assert f'href="{WAYBACK}https://paperswithcode.com/paper/adam-a-method-for-' in introduced
    assert 'href="http://arxiv.org/abs/1412.6980v9"' in body  # another site: linked


def test_introduced_in_a_paper_we_have_leads_to_its_page(client, tmp_path):
    paper = {
        "paper_url": "https://paperswithcode.com/paper/adam-a-method-for-stochastic-optimization",
        "title": "Adam: A Method for Stochastic Optimization",
        "abstract": "",
        "date": "2014-12-22",
    }
    assert run_import(realdata(METHODS_2022), write(tmp_path / "p.json", [paper]))[0] == 0
    body = client.get("/method/adam").content.decode()
    assert '<a href="/paper/adam-a-method-for-stochastic-optimization">Adam: A Method' in body
    assert not DEAD.search(body)


def test_a_row_whose_paper_is_not_in_the_archive_has_an_archived_link(client, boards):
    board = Leaderboard.objects.get(dataset__name="I2L-140K")
    row = board.rows.first()
    row.paper = None
    row.paper_url = "https://paperswithcode.com/paper/teaching-machines-to-code-neural-markup"
    row.save()
    body = client.get(board.get_absolute_url()).content.decode()
    assert not DEAD.search(body)
    assert f'href="{WAYBACK}{row.paper_url}"' in body and "(not in the archive)" in body


def test_no_page_links_to_paperswithcode(client, boards, make_paper):
    paper = make_paper()
    Paper.objects.filter(pk=paper.pk).update(
        url_abs="https://paperswithcode.com/paper/paper-1",
        conference_url_abs="https://paperswithcode.com/conference/neurips-2020-12",
    )
    pages = ["/about", paper.get_absolute_url(), *boards, "/task/optical-character-recognition"]
    for url in pages:
        body = client.get(url).content.decode()
        assert not DEAD.search(body), url
    about = client.get("/about").content.decode()
    assert f'href="{WAYBACK}https://paperswithcode.com/"' in about


def test_a_board_resolves_its_links_in_a_constant_number_of_queries(client, boards):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from papers.kept import refresh_all as refresh_browse_counts
    from papers.models import LeaderboardRow

    board = Leaderboard.objects.get(dataset__name="I2L-140K")

    def add_rows(start: int, n: int) -> None:
        for i in range(start, start + n):
            LeaderboardRow.objects.create(
                leaderboard=board,
                row_key=f"gone-{i}",
                position=10 + i,
                model_name=f"Gone-{i}",
                paper_url=f"https://paperswithcode.com/paper/gone-{i}",
                metrics={"BLEU": f"{i}%"},
            )
        refresh_browse_counts()  # as an import leaves the board: its ranking kept

    url = board.get_absolute_url()
    add_rows(0, 1)
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    add_rows(1, 30)
    with CaptureQueriesContext(connection) as many:
        body = client.get(url).content.decode()
    assert body.count("archived link") == 32  # 31 rows and the board's own link
    assert len(many) == len(few)
