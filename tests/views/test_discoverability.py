"""Search engines and feed readers: sitemaps, robots.txt, canonical URLs, page meta, feeds."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from papers import sitemaps
from papers.models import Paper, Repository, Task

pytestmark = pytest.mark.django_db

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ATOM = "{http://www.w3.org/2005/Atom}"


def _locs(client, url: str) -> list[str]:
    response = client.get(url)
    assert response.status_code == 200, url
    return [loc.text for loc in ET.fromstring(response.content).iter(f"{SM}loc")]


def test_sitemap_index_pages_every_kind_of_page(client, make_paper, monkeypatch):
    monkeypatch.setattr(sitemaps.ArchiveSitemap, "limit", 2)
    for _ in range(3):
        make_paper()
    Paper.objects.create(slug="hidden-paper", title="Hidden", hidden=True)
    index = _locs(client, "/sitemap.xml")
    sections = {re.search(r"/sitemap-(\w+)\.xml", url).group(1) for url in index}
    assert sections == {
        "browse", "leaderboards", "papers", "tasks", "methods", "datasets", "authors",
        "repositories",
    }  # fmt: skip
    # 6 visible papers (3 with 3 related papers) at 2 a page: 3 pages.
    paper_pages = [url for url in index if "sitemap-papers" in url]
    assert len(paper_pages) == 3 and paper_pages[-1].endswith("?p=3")
    listed = []
    for url in paper_pages:
        listed += _locs(client, url.removeprefix("http://testserver"))
    expected = [f"http://testserver{p.get_absolute_url()}" for p in Paper.objects.visible()]
    assert sorted(listed) == sorted(expected)
    assert "http://testserver/paper/hidden-paper" not in listed
    authors = _locs(client, "/sitemap-authors.xml")
    assert "http://testserver/author/first-author1" in authors
    repositories = _locs(client, "/sitemap-repositories.xml")
    assert "http://testserver/repo/github.com/lab1/model1" in repositories
    boards = _locs(client, "/sitemap-leaderboards.xml")
    assert "http://testserver/sota/task-1-on-dataset-1" in boards
    assert client.get("/sota/task-1-on-dataset-1").status_code == 200
    browse = _locs(client, "/sitemap-browse.xml")
    assert "http://testserver/sota" in browse and "http://testserver/area/other" in browse
    assert client.get("/sitemap-papers.xml?p=4").status_code == 404


def test_repositories_without_a_page_stay_out_of_the_sitemap(client, make_paper):
    make_paper()
    Repository.objects.create(url="https://example.org/")  # no owner or name: no page
    assert len(_locs(client, "/sitemap-repositories.xml")) == 1


@pytest.mark.parametrize(
    "section", ["papers", "authors", "repositories", "tasks", "leaderboards", "browse"]
)
def test_sitemap_pages_run_the_same_queries_however_many_items(client, make_paper, section):
    make_paper()
    with CaptureQueriesContext(connection) as few:
        client.get(f"/sitemap-{section}.xml")
    few_count = len(few)
    for _ in range(4):
        make_paper()
    with CaptureQueriesContext(connection) as many:
        client.get(f"/sitemap-{section}.xml")
    assert len(many) == few_count <= 3


@override_settings(SITE_URL="https://codewithpapers.app")
def test_sitemaps_robots_and_canonical_links_use_the_site_url(client, make_paper):
    make_paper()
    assert _locs(client, "/sitemap.xml")[0].startswith("https://codewithpapers.app/sitemap-")
    assert _locs(client, "/sitemap-papers.xml")[0].startswith("https://codewithpapers.app/paper/")
    robots = client.get("/robots.txt").content.decode()
    assert "Sitemap: https://codewithpapers.app/sitemap.xml" in robots
    body = client.get("/paper/paper-1", {"status": "ran_honours"}).content.decode()
    assert '<link rel="canonical" href="https://codewithpapers.app/paper/paper-1">' in body


def test_robots_txt_keeps_crawlers_out_of_search_and_the_api(client):
    response = client.get("/robots.txt")
    assert response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *"
    assert {"Disallow: /search", "Disallow: /api/", "Disallow: /admin/"} <= set(lines)
    assert "Sitemap: http://testserver/sitemap.xml" in lines


PAGES = [
    "/",
    "/about",
    "/search",
    "/search?q=attention",
    "/search/names/task?task=task",
    "/samples",
    "/paper/paper-1",
    "/paper/paper-1/samples",
    "/author/first-author1",
    "/repo/github.com/lab1/model1",
    "/task/task-1",
    "/method/method-1",
    "/dataset/dataset-1",
    "/sota",
    "/area/other",
    "/tasks",
    "/datasets",
    "/methods",
    "/sota/task-1-on-dataset-1",
]
DEFAULT_DESCRIPTION = "The Papers with Code archive, searchable, with execution reports"


def _meta(body: str, attribute: str, name: str) -> str:
    match = re.search(rf'<meta {attribute}="{re.escape(name)}" content="([^"]*)">', body)
    assert match, f"no {name} meta"
    return match.group(1)


@pytest.mark.parametrize("url", PAGES)
def test_every_page_has_a_title_description_canonical_link_and_cards(client, make_paper, url):
    make_paper()
    body = client.get(url).content.decode()
    title = re.search(r"<title>(.*?) · Code with Papers</title>", body).group(1)
    assert title and title != "Code with Papers"
    description = _meta(body, "name", "description")
    assert len(description) > 30
    if url not in ("/", "/about"):
        assert not description.startswith(DEFAULT_DESCRIPTION)
    canonical = re.search(r'<link rel="canonical" href="([^"]+)">', body).group(1)
    assert canonical == "http://testserver" + url.split("?")[0]
    assert _meta(body, "property", "og:title") == title
    assert _meta(body, "property", "og:description") == description
    assert _meta(body, "property", "og:url") == canonical
    assert _meta(body, "name", "twitter:card") == "summary"
    assert _meta(body, "property", "og:type") == (
        "article" if url == "/paper/paper-1" else "website"
    )


def test_paper_page_describes_itself_by_its_abstract(client, make_paper):
    make_paper(abstract="We show that attention " + "needs depth " * 40)
    body = client.get("/paper/paper-1").content.decode()
    description = _meta(body, "name", "description")
    assert description.startswith("We show that attention needs depth") and len(description) <= 200


def _feed(client, url: str) -> ET.Element:
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    return ET.fromstring(response.content)


def test_latest_feed_lists_newest_papers_and_leaves_out_uncertain_dates(client, make_paper):
    make_paper(title="Older paper", published=dt.date(2019, 1, 1))
    make_paper(title="Newer paper", published=dt.date(2021, 1, 1))
    make_paper(title="From the future", published=dt.date(2031, 1, 1), date_uncertain=True)
    feed = _feed(client, "/feeds/latest.atom")
    titles = [entry.find(f"{ATOM}title").text for entry in feed.iter(f"{ATOM}entry")]
    assert titles[:2] == ["Newer paper", "Older paper"]
    assert "From the future" not in titles
    entry = next(feed.iter(f"{ATOM}entry"))
    assert entry.find(f"{ATOM}link").get("href") == "http://testserver/paper/paper-2"
    assert entry.find(f"{ATOM}author/{ATOM}name").text == "First Author2, Second Author2"


def test_task_feed_lists_only_that_tasks_papers(client, make_paper):
    make_paper(title="On task one")
    make_paper(title="On task two")
    feed = _feed(client, "/task/task-1/feed.atom")
    titles = [entry.find(f"{ATOM}title").text for entry in feed.iter(f"{ATOM}entry")]
    assert titles == ["On task one"]
    assert "Task 1" in feed.find(f"{ATOM}title").text
    assert client.get("/task/no-such-task/feed.atom").status_code == 404
    page = client.get("/task/task-1").content.decode()
    assert 'type="application/atom+xml"' in page and "/task/task-1/feed.atom" in page


def test_feeds_run_one_query_however_many_papers(client, make_paper):
    make_paper()
    with CaptureQueriesContext(connection) as few:
        client.get("/feeds/latest.atom")
    few_count = len(few)
    for _ in range(4):
        make_paper()
    with CaptureQueriesContext(connection) as many:
        client.get("/feeds/latest.atom")
    assert len(many) == few_count == 1


def test_public_links_ignore_a_port_the_host_header_makes_up(client, make_paper):
    """Without SITE_URL the public address is the request's host, but not any port a
    client writes after it (Host: testserver:8443 on a server listening on 80): canonical
    links, sitemaps, robots.txt and feeds name the port the server listens on."""
    paper = make_paper()
    Paper.objects.filter(pk=paper.pk).update(slug="results.json")
    forged = {"HTTP_HOST": "testserver:8443"}
    urls = [
        "/paper/results.json/",
        "/sitemap.xml",
        "/sitemap-papers.xml",
        "/robots.txt",
        "/feeds/latest.atom",
        "/task/task-1/feed.atom",
    ]
    for url in urls:
        body = client.get(url, **forged).content.decode()
        assert "http://testserver/" in body, url
        assert ":8443" not in body, url
    body = client.get("/paper/results.json/", **forged).content.decode()
    assert '<link rel="canonical" href="http://testserver/paper/results.json/">' in body
    assert "http://testserver/paper/results.json/" in _locs(client, "/sitemap-papers.xml")
    # The port the server does listen on is kept (a development server on :8000).
    own = client.get("/robots.txt", HTTP_HOST="testserver:8000", SERVER_PORT="8000")
    assert "Sitemap: http://testserver:8000/sitemap.xml" in own.content.decode()


# Characters XML 1.0 cannot carry that are not control characters: the last two of the
# Basic Multilingual Plane, the noncharacters (which no reader should see either), and
# one of each plane's last two.
NOT_XML = "\ufffe\uffff\ufdd0\ufdef\U0001fffe\U0010ffff"


def test_feeds_parse_whatever_text_is_stored(client, make_paper):
    """Rows written before imports cleaned text (or by hand) may hold characters XML has
    no place for: every feed still parses, with the text around them."""
    from xml.dom import minidom

    paper = make_paper()
    Paper.objects.filter(pk=paper.pk).update(
        title=f"Title{NOT_XML} kept",
        abstract=f"Abstract{NOT_XML}\x01 kept",
        author_names=f"Author{NOT_XML} kept",
        slug=f"paper{NOT_XML}",
    )
    Task.objects.filter(slug="task-1").update(name=f"Task{NOT_XML} kept")
    for url in ("/feeds/latest.atom", "/task/task-1/feed.atom"):
        response = client.get(url)
        assert response.status_code == 200, url
        minidom.parseString(response.content)
        feed = ET.fromstring(response.content)
        entry = next(feed.iter(f"{ATOM}entry"))
        assert entry.find(f"{ATOM}title").text == "Title kept"
        assert entry.find(f"{ATOM}summary").text == "Abstract kept"
        assert entry.find(f"{ATOM}author/{ATOM}name").text == "Author kept"
    assert "Task kept" in _feed(client, "/task/task-1/feed.atom").find(f"{ATOM}title").text
