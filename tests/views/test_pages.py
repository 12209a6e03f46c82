"""Every page answers, with one <h1>, at a query count that does not grow with the data."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.kept.papers import refresh_counts
from papers.models import Author, Dataset, Method, Paper, Repository, Task

pytestmark = pytest.mark.django_db


@pytest.fixture
def seeded(seed_paper):
    return seed_paper


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
    refresh_counts(Paper.objects.values_list("id", flat=True))


PAGES = [
    "/",
    "/about",
    "/search/names/task?task=de",
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
    assert not re.search(r"\{[#%]", response.content.decode())  # no template syntax leaks
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
    assert body.count('<tr class="sample">') == 16
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
    assert body.count('<tr class="sample">') == 1 and "exact_match_score" in body
    page = client.get(url, {"status": "ran_draft_wrong", "language": "python"}).content.decode()
    assert "<html" in page and page.count('<tr class="sample">') == 4
    assert "Showing 4 of 16 samples" in page
    assert client.get(url, {"status": "x" * 300}).status_code == 400


def test_samples_page_filters_with_counts(client, seeded):
    body = client.get("/samples", {"contract_check": "OUTPUT_MISDECLARED"}).content.decode()
    assert body.count('<tr class="sample">') == 4
    assert 'Ran, drafted contract wrong <span class="n">4</span>' in body
    fragment = client.get("/samples", {"status": "ran"}, headers={"HX-Request": "true"})
    assert fragment.content.decode().lstrip().startswith('<div id="samples"')
    assert client.get("/samples", {"page": "abc"}).status_code == 400
    assert client.get("/samples", {"page": "9999"}).status_code == 400


@pytest.mark.parametrize(
    "url",
    [
        "/samples",
        "/samples?status=ran&repository=github.com/uf-hobi-informatics-lab/GatorTron",
        "/search",
        "/search?task=Depth&method=ATTENTION&dataset=wiki&framework=PyTorch",
        "/search?q=extra&task=dpeth",
        "/search/names/task?task=de",
        "/paper/limits-to-depth-efficiencies-of-self/samples",
        "/paper/limits-to-depth-efficiencies-of-self?status=ran&language=python",
        "/repo/github.com/uf-hobi-informatics-lab/GatorTron?status=ran&contract_check=x",
    ],
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


def test_leaderboard_ranks_rows_by_the_first_metric_in_its_direction(client, db, tmp_path):
    from papers.models import LeaderboardMetric
    from tests.archive.test_import_archive import EVALUATIONS
    from tests.archive_helpers import run_import, write

    run_import(write(tmp_path / "ev.json", EVALUATIONS))
    board = "/sota/machine-translation-on-wmt-2014"
    body = client.get(board).content.decode()
    assert "higher is better" in body
    body = body[body.index('class="leaderboard-table"') :]
    assert body.index("Unpublished") < body.index("Transformer Big")  # 29.1 beats 28.4
    assert "Unpublished" in client.get("/task/machine-translation").content.decode()  # best
    metric = LeaderboardMetric.objects.get(name="BLEU score")
    metric.lower_is_better = True  # staff correct the direction
    metric.save()
    body = client.get(board).content.decode()
    assert "lower is better" in body
    body = body[body.index('class="leaderboard-table"') :]
    assert body.index("Transformer Big") < body.index("Unpublished")
    dataset_page = client.get("/dataset/wmt-2014").content.decode()
    assert "Transformer Big" in dataset_page and "Benchmarks" in dataset_page


def test_chip_counts_are_for_the_other_filters_chosen(client, seeded):
    body = client.get("/paper/limits-to-depth-efficiencies-of-self?status=ran_violates")
    text = " ".join(re.sub(r"<[^>]+>", " ", body.content.decode()).split())
    assert "Violates 1" in text and "Output misdeclared 0" in text
    assert "Ran, drafted contract wrong 4" in text  # other statuses: as if none were chosen
    assert "aria-pressed" not in body.content.decode()


def test_repository_page_lists_its_samples_filtered(client, seeded):
    url = "/repo/github.com/uf-hobi-informatics-lab/GatorTron"
    body = client.get(url, {"status": "ran_draft_wrong"}).content.decode()
    assert body.count('<tr class="sample">') == 4
    assert f'href="{url}?status=ran_draft_wrong#samples"' in body  # the count links here
    fragment = client.get(url, {"status": "ran"}, headers={"HX-Request": "true"}).content
    assert fragment.decode().lstrip().startswith('<div id="samples"')
    assert fragment.decode().count('<tr class="sample">') == 10
    assert client.get(url, {"page": "0"}).status_code == 400
    assert client.get(url, {"samples_page": "0"}).status_code == 400


def test_samples_filter_by_repository(client, seeded):
    repository = "github.com/uf-hobi-informatics-lab/GatorTron"
    body = client.get("/samples", {"repository": repository}).content.decode()
    assert body.count('<tr class="sample">') == 16
    assert client.get("/samples", {"repository": f"https://{repository}/"}).status_code == 200
    other = client.get("/samples", {"repository": "github.com/someone/else"}).content.decode()
    assert other.count('<tr class="sample">') == 0
    assert client.get("/samples", {"repository": "nothing"}).status_code == 400


def test_a_bad_filter_asked_for_by_htmx_answers_with_the_region(client, seeded):
    response = client.get(
        "/paper/limits-to-depth-efficiencies-of-self/samples",
        {"status": "x" * 300},
        headers={"HX-Request": "true", "HX-Target": "samples"},
    )
    body = response.content.decode()
    assert response.status_code == 400
    assert body.startswith('<div id="samples" class="notice" role="alert">')
    assert "<html" not in body and "Invalid sample filter" in body


def test_a_missing_page_names_the_address_and_offers_a_search(client, db):
    body = client.get("/paper/deep-residual-nets").content.decode()
    assert "No Paper matches" not in body and "/paper/deep-residual-nets" in body
    assert 'href="/search?q=deep%20residual%20nets"' in body


def test_the_favicon_is_served_at_the_root(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    assert b"".join(response.streaming_content)[:4] == b"\x00\x00\x01\x00"  # an icon file


def test_counts_have_thousands_separators(client, seeded):
    from papers.kept import refresh_all
    from papers.models import Paper

    Paper.objects.bulk_create(Paper(slug=f"bulk-{i}", title=f"Bulk {i}") for i in range(1500))
    refresh_all()  # as an import of them would
    body = client.get("/").content.decode()
    assert "<strong>1,501</strong>papers" in body


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
