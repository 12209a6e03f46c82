"""/latest, /greatest, the category feeds, /paper/<arXiv id>, the home page's new papers
with code, a paper's arXiv details and /healthz's last harvest."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from papers.models import Harvest, Paper

pytestmark = pytest.mark.django_db


@pytest.fixture
def arxiv_papers(make_paper):
    today = dt.date.today()
    vision = make_paper(
        title="Seeing things", arxiv_id="2611.00001", published=today,
        arxiv_primary_category="cs.CV", arxiv_categories="cs.CV cs.LG",
        arxiv_metadata={"comments": "Code: https://github.com/a/b", "doi": "10.1/x",
                        "licence": "http://creativecommons.org/licenses/by/4.0/",
                        "journal_ref": "J. Vis. 1 (2026)", "version": "v2",
                        "project_links": ["https://a.github.io/b"],
                        "versions": [{"version": "v1", "date": "2026-11-01"},
                                     {"version": "v2", "date": "2026-11-20"}]},
    )  # fmt: skip
    learning = make_paper(
        title="Learning things", arxiv_id="2611.00002", published=today - dt.timedelta(days=1),
        arxiv_primary_category="cs.LG", arxiv_categories="cs.LG",
    )  # fmt: skip
    Paper.objects.filter(pk=learning.pk).update(code_link_count=0)
    return vision, learning


def test_latest_filters_by_category_including_cross_lists_and_by_code(client, arxiv_papers):
    page = client.get("/latest?category=cs.LG").content.decode()
    assert "Seeing things" in page and "Learning things" in page
    page = client.get("/latest?category=cs.CV").content.decode()
    assert "Seeing things" in page and "Learning things" not in page
    page = client.get("/latest?category=cs.LG&has_code=1").content.decode()
    assert "Seeing things" in page and "Learning things" not in page
    assert '<span class="badge" title="arXiv primary category">cs.CV</span>' in page


@pytest.mark.parametrize(
    "query",
    ["category=../../etc", "category=" + "x" * 40, "page=0", "page=abc",
     "per_page=7", "category=cs.CV%00"],
)  # fmt: skip
def test_latest_and_greatest_answer_bad_parameters_with_400(client, query, arxiv_papers):
    assert client.get(f"/latest?{query}").status_code == 400
    assert client.get(f"/greatest?{query}").status_code == 400


def test_latest_answers_a_bad_has_code_with_400(client):
    assert client.get("/latest?has_code=yes").status_code == 400


def test_greatest_ranks_by_code_links_within_the_period(client, arxiv_papers, make_paper):
    make_paper(title="Old and much linked", published=dt.date(2019, 1, 1))
    page = client.get("/greatest").content.decode()
    assert "Seeing things" in page and "Old and much linked" not in page
    assert "Old and much linked" in client.get("/greatest?period=all").content.decode()
    assert client.get("/greatest?period=trending").status_code == 400


def test_latest_pages_take_a_constant_number_of_queries(
    client, arxiv_papers, make_paper, django_assert_num_queries
):
    with django_assert_num_queries(3):
        client.get("/latest?category=cs.LG")
    for i in range(5):
        make_paper(title=f"More {i}", arxiv_primary_category="cs.LG", arxiv_categories="cs.LG")
    with django_assert_num_queries(3):
        client.get("/latest?category=cs.LG")
    with django_assert_num_queries(3):
        client.get("/greatest?category=cs.LG")


def test_category_feed_lists_the_category(client, arxiv_papers):
    response = client.get("/latest/cs.CV.atom")
    assert response.status_code == 200
    body = response.content.decode()
    assert "Seeing things" in body and "Learning things" not in body
    assert client.get("/latest/not a category.atom").status_code == 404


@pytest.mark.parametrize("address", ["/paper/2611.00001", "/paper/2611.00001v2"])
def test_paper_by_arxiv_id_with_or_without_version_redirects_to_the_paper(
    client, arxiv_papers, address
):
    vision, _ = arxiv_papers
    response = client.get(address)
    assert response.status_code == 302
    assert response["Location"] == vision.get_absolute_url()


def test_paper_by_old_style_arxiv_id_redirects(client, make_paper):
    paper = make_paper(arxiv_id="hep-th/9504118")
    for address in ("/paper/hep-th/9504118", "/paper/hep-th/9504118v3"):
        assert client.get(address)["Location"] == paper.get_absolute_url()
    assert client.get("/paper/hep-th/9999999").status_code == 404
    assert client.get("/paper/2612.99999v1").status_code == 404


def test_paper_page_shows_what_arxiv_says(client, arxiv_papers):
    vision, _ = arxiv_papers
    page = client.get(vision.get_absolute_url()).content.decode()
    for shown in ("cs.CV</a> (primary)", "J. Vis. 1 (2026)", "https://doi.org/10.1/x",
                  "creativecommons.org/licenses/by/4.0", "v2 (2026-11-20)",
                  "https://a.github.io/b", "arXiv 2611.00001v2"):  # fmt: skip
        assert shown in page, shown


def test_home_page_shows_the_newest_papers_with_code(client, arxiv_papers):
    page = client.get("/").content.decode()
    section = page.split('id="new-with-code"', 1)[1].split("</section>", 1)[0]
    assert "Seeing things" in section and "Learning things" not in section


@pytest.mark.django_db(transaction=True)  # the probe reads on a connection of its own
def test_healthz_reports_the_last_harvest_and_stays_200(client):
    assert client.get("/healthz").json()["harvest"] is None
    Harvest.objects.create(source="oai", endpoint="x", outcome="failed", error="HTTP 500",
                           finished_at=timezone.now())  # fmt: skip
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["harvest"]["outcome"] == "failed"


def test_search_filters_by_arxiv_category(client, arxiv_papers):
    page = client.get("/search?category=cs.CV").content.decode()
    assert "Seeing things" in page and "Learning things" not in page
    assert client.get("/search?category=no%20such").status_code == 400
