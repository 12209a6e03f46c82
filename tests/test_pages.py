"""Every page answers, with one <h1>, at a query count that does not grow with the data."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.models import Author, Dataset, Method, Paper, Repository, Task

pytestmark = pytest.mark.django_db


@pytest.fixture
def seeded(seed_record_path):
    call_command("import_archive", str(seed_record_path), verbosity=0)
    return Paper.objects.get(slug="limits-to-depth-efficiencies-of-self")


def _add_papers(count: int, start: int = 0) -> None:
    """More papers sharing the seed's author, task, method, dataset and repository."""
    author = Author.objects.get(slug="yoav-levine")
    repository = Repository.objects.get()
    task, _ = Task.objects.get_or_create(slug="depth", defaults={"name": "Depth"})
    method, _ = Method.objects.get_or_create(slug="attention", defaults={"name": "Attention"})
    dataset, _ = Dataset.objects.get_or_create(slug="wiki", defaults={"name": "Wiki"})
    seed = Paper.objects.get(slug="limits-to-depth-efficiencies-of-self")
    for i in range(start, start + count):
        paper = Paper.objects.create(slug=f"extra-{i}", title=f"Extra {i}", published="2021-01-01")
        paper.authorships.create(author=author, position=0)
        paper.code_links.create(repository=repository, is_official=bool(i % 2))
        paper.task_links.create(task=task)
        paper.method_links.create(method=method)
        paper.dataset_links.create(dataset=dataset)
        seed.related_entries.create(related=paper, score=0.5, rank=i)  # the page's section
    Paper.objects.refresh_counts()


PAGES = [
    "/",
    "/about",
    "/paper/limits-to-depth-efficiencies-of-self",
    "/author/yoav-levine",
    "/repo/github.com/uf-hobi-informatics-lab/GatorTron",
    "/task/depth",
    "/method/attention",
    "/dataset/wiki",
]


@pytest.mark.parametrize("url", PAGES)
def test_every_page_answers_with_one_h1(client, seeded, url):
    _add_papers(2)
    response = client.get(url)
    assert response.status_code == 200
    assert len(re.findall(r"<h1[ >]", response.content.decode())) == 1
    assert "CC BY-SA 4.0" in response.content.decode()
    assert "not affiliated with" in response.content.decode()


@pytest.mark.parametrize("url", PAGES)
def test_query_count_does_not_grow_with_the_data(client, seeded, url):
    _add_papers(2)
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    _add_papers(15, start=2)
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).status_code == 200
    assert len(few) > 0 or url == "/about"  # the capture saw the request's queries
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


def test_paper_page_shows_the_report_with_its_claim_and_every_sample(client, seeded):
    body = client.get("/paper/limits-to-depth-efficiencies-of-self").content.decode()
    assert "Per-sample execution status on synthesized fixtures" in body
    assert body.count("<tr><td>uf-hobi-informatics-lab/GatorTron") == 16
    assert "Ran, violates its contract" in body
    assert "Yoav Levine" in body.split("Noam Wies")[0]  # authors in order


def test_unknown_paper_is_a_404_in_the_site_look(client, db):
    response = client.get("/paper/no-such-paper")
    assert response.status_code == 404
    assert "Code with Papers" in response.content.decode()


def test_uncertain_dates_are_marked_and_kept_out_of_latest(client, seeded):
    Paper.objects.create(
        slug="from-the-future",
        title="From the future",
        published="2031-01-01",
        date_uncertain=True,
    )
    assert "From the future" not in client.get("/").content.decode()
    assert "(uncertain)" in client.get("/paper/from-the-future").content.decode()


def test_paper_json_is_the_seed_record_exactly(client, seeded, seed_record_path):
    import json

    response = client.get("/paper/limits-to-depth-efficiencies-of-self.json")
    assert response["Content-Type"] == "application/json"
    assert response.json() == json.loads(seed_record_path.read_text())


def test_status_chip_filters_the_sample_table_as_fragment_and_page(client, seeded):
    url = "/paper/limits-to-depth-efficiencies-of-self/samples"
    fragment = client.get(url, {"status": "ran_violates"}, headers={"HX-Request": "true"})
    body = fragment.content.decode()
    assert body.lstrip().startswith('<div id="samples">') and "<html" not in body
    assert body.count("<tr><td>uf-hobi") == 1 and "exact_match_score" in body
    page = client.get(url, {"status": "ran_draft_wrong", "language": "python"}).content.decode()
    assert "<html" in page and page.count("<tr><td>uf-hobi") == 4
    assert "Showing 4 of 16 samples" in page
    assert client.get(url, {"status": "x" * 300}).status_code == 400


def test_samples_page_filters_with_counts(client, seeded):
    body = client.get("/samples", {"contract_check": "OUTPUT_MISDECLARED"}).content.decode()
    assert body.count('<tr><td><a href="/paper/') == 4
    assert 'ran_draft_wrong <span class="n">4</span>' in body
    fragment = client.get("/samples", {"status": "ran"}, headers={"HX-Request": "true"})
    assert fragment.content.decode().lstrip().startswith('<div id="sample-list">')
    assert client.get("/samples", {"page": "abc"}).status_code == 400
    assert client.get("/samples", {"page": "9999"}).status_code == 400


@pytest.mark.parametrize(
    "url", ["/samples", "/search", "/paper/limits-to-depth-efficiencies-of-self/samples"]
)
def test_listing_pages_keep_constant_queries(client, seeded, url):
    _add_papers(2)
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    _add_papers(15, start=2)
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).status_code == 200
    assert len(few) > 0  # the capture saw the request's queries
    assert len(many) == len(few)


def test_task_page_ranks_leaderboard_rows_by_the_first_metric_in_its_direction(
    client, db, tmp_path
):
    from papers.models import LeaderboardMetric
    from tests.archive_helpers import run_import, write
    from tests.test_import_archive import EVALUATIONS

    run_import(write(tmp_path / "ev.json", EVALUATIONS))
    body = client.get("/task/machine-translation").content.decode()
    assert "higher is better" in body
    assert body.index("Unpublished") < body.index("Transformer Big")  # 29.1 beats 28.4
    metric = LeaderboardMetric.objects.get(name="BLEU score")
    metric.lower_is_better = True  # staff correct the direction
    metric.save()
    body = client.get("/task/machine-translation").content.decode()
    assert "lower is better" in body
    assert body.index("Transformer Big") < body.index("Unpublished")
    dataset_page = client.get("/dataset/wmt-2014").content.decode()
    assert "Transformer Big" in dataset_page and "Leaderboards" in dataset_page


HEAD_URLS = [
    *PAGES,
    "/search?q=depth",
    "/samples",
    "/paper/limits-to-depth-efficiencies-of-self/samples",
    "/paper/limits-to-depth-efficiencies-of-self.json",
    "/feeds/latest.atom",
    "/sitemap.xml",
    "/robots.txt",
    "/api/v1/papers/",
]


@pytest.mark.parametrize("url", HEAD_URLS)
def test_head_answers_wherever_get_does(client, seeded, url):
    """Monitors and link checkers send HEAD: the same status and headers as GET, no body."""
    _add_papers(1)
    got = client.get(url)
    head = client.head(url)
    assert head.status_code == got.status_code == 200
    assert head["Content-Type"] == got["Content-Type"]
    assert head.content == b""


def test_a_paper_whose_slug_ends_in_json_has_a_page(client, db):
    """`/paper/<slug>.json` is a paper's record, so a paper whose own slug ends in `.json`
    lives at `/paper/<slug>/`; its bare address leads there when no other paper has it."""
    paper = Paper.objects.create(slug="benchmark-results.json", title="Results as JSON")
    url = paper.get_absolute_url()
    assert url == "/paper/benchmark-results.json/"
    page = client.get(url)
    assert page.status_code == 200 and "Results as JSON" in page.content.decode()
    moved = client.get("/paper/benchmark-results.json")
    assert moved.status_code == 301 and moved["Location"] == url
    record = client.get("/paper/benchmark-results.json.json")
    assert record.status_code == 200 and record.json()["title"] == "Results as JSON"
    assert client.get("/paper/benchmark-results.json/samples").status_code == 200
    # A paper called "benchmark-results" keeps its record at the bare address.
    Paper.objects.create(slug="benchmark-results", title="Plain")
    assert client.get("/paper/benchmark-results.json").json()["title"] == "Plain"
