"""Venues: the papers' proceedings ("NeurIPS 2020 12") shown as venue and year, linked
to the venue's page; /conferences lists every venue with its years and papers, and
/conference/<slug> a year's proceedings or a venue over its years, newest first."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import synthetic
from papers.kept import after_write, linked_records
from papers.models import Paper, Venue
from papers.venues import parse
from tests.archive_helpers import run_import, write

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("proceeding", "label", "slug"),
    [
        ("NeurIPS 2020 12", "NeurIPS 2020", "neurips-2020"),
        ("NeurIPS 2020", "NeurIPS 2020", "neurips-2020"),
        ("NeurIPS-2020", "NeurIPS 2020", "neurips-2020"),
        ("ICLR2018", "ICLR 2018", "iclr-2018"),
        ("ICLR 2018 workshop", "ICLR workshop 2018", "iclr-workshop-2018"),
        ("3DV 2020 11", "3DV 2020", "3dv-2020"),
        ("W-NUT 2017 9", "W-NUT 2017", "w-nut-2017"),
        ("CVPR 2021 1 2", "CVPR 2021", "cvpr-2021"),
        ("SIGGRAPH Asia 2019 11", "SIGGRAPH Asia 2019", "siggraph-asia-2019"),
        ("CoRL", "CoRL", "corl"),
        ("CoRL 11", "CoRL", "corl"),
        ("  ACL   2019  7 ", "ACL 2019", "acl-2019"),
    ],
)
def test_proceedings_read_as_venue_and_year(proceeding, label, slug):
    venue = parse(proceeding)
    assert (venue.label, venue.slug) == (label, slug)


@pytest.mark.parametrize("proceeding", ["", "   ", "2020 12", "12", "&& 2020", None])
def test_a_proceeding_without_a_venue_name_names_no_venue(proceeding):
    assert parse(proceeding) is None


def test_every_synthetic_proceeding_names_a_venue_and_year():
    rows = [r for r in synthetic.paper_rows(7, 2000) if r["proceeding"]]
    assert len(rows) > 300
    for row in rows:
        venue = parse(row["proceeding"])
        assert venue is not None and venue.year and venue.name in row["proceeding"]


# Imported in this order (ids ascend): newest first reads 2020-12, 2020-06, then the
# paper with a placeholder date and the undated one.
PAPERS = [
    ("dated-june", "2020-06-01", "NeurIPS 2020 12"),
    ("placeholder", "2099-12-15", "NeurIPS 2020 12"),
    ("dated-december", "2020-12-01", "NeurIPS 2020"),
    ("undated", None, "NeurIPS 2020 12"),
    ("older", "2019-09-01", "NeurIPS 2019 12"),
    ("neurips-no-year", "2018-01-01", "NeurIPS"),
    ("workshop", "2018-04-01", "ICLR 2018 workshop"),
    ("three-d", "2020-10-01", "3DV 2020 11"),
    ("no-venue", "2020-01-01", "2020 12"),
    ("no-proceeding", "2020-01-01", None),
]


@pytest.fixture
def imported(tmp_path):
    records = [
        {
            "paper_url": f"https://paperswithcode.com/paper/{slug}",
            "title": f"Paper {slug}",
            "abstract": "",
            "authors": ["Grace Hopper"],
            "date": date,
            "proceeding": proceeding,
        }
        for slug, date, proceeding in PAPERS
    ]
    status, _, err = run_import(write(tmp_path / "papers-with-abstracts.json", records))
    assert status == 0, err


def _papers(body: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r'href="/paper/([\w-]+)"', body)))


def test_the_import_fills_the_venues(imported):
    venues = {v.slug: (v.name, v.year, v.paper_count) for v in Venue.objects.all()}
    assert venues == {
        "neurips-2020": ("NeurIPS", 2020, 4),
        "neurips-2019": ("NeurIPS", 2019, 1),
        "neurips": ("NeurIPS", None, 1),
        "iclr-workshop-2018": ("ICLR workshop", 2018, 1),
        "3dv-2020": ("3DV", 2020, 1),
    }
    assert Venue.objects.get(slug="neurips-2020").proceedings == [
        "NeurIPS 2020",
        "NeurIPS 2020 12",
    ]


def test_a_papers_proceedings_show_as_venue_and_year_linked_to_its_page(client, imported):
    body = client.get("/paper/dated-june").content.decode()
    assert '<a href="/conference/neurips-2020" class="venue">NeurIPS 2020</a>' in body
    assert "NeurIPS 2020 12" not in body
    listed = client.get("/author/grace-hopper").content.decode()
    assert '<a href="/conference/3dv-2020" class="venue">3DV 2020</a>' in listed
    assert (
        '<a href="/conference/iclr-workshop-2018" class="venue">ICLR workshop 2018</a>' in listed
    )
    # A value that names no venue is shown as given, unlinked.
    assert "· 2020 12" in client.get("/paper/no-venue").content.decode()


def test_conferences_lists_every_venue_with_its_years_and_papers(client, imported):
    body = client.get("/conferences").content.decode()
    assert "1\u20133 of 3 venues" in body
    rows = re.findall(r'<th scope="row"><a href="/conference/([\w-]+)">([^<]+)</a>', body)
    assert rows == [("3dv", "3DV"), ("iclr-workshop", "ICLR workshop"), ("neurips", "NeurIPS")]
    neurips = body[body.index('href="/conference/neurips">') :]
    neurips = neurips[: neurips.index("</tr>")]
    years = re.findall(
        r'href="/conference/(neurips[\w-]*)">([^<]+)</a> <span class="meta">(\d+)', neurips
    )
    assert years == [
        ("neurips-2020", "2020", "4"),
        ("neurips-2019", "2019", "1"),
        ("neurips", "no year", "1"),
    ]
    assert '<td class="num">6</td>' in neurips
    by_papers = client.get("/conferences", {"sort": "papers"}).content.decode()
    assert by_papers.index(">NeurIPS<") < by_papers.index(">3DV<")


def test_conferences_filters_venues_by_name(client, imported):
    body = client.get("/conferences", {"q": "iclr"}).content.decode()
    assert "ICLR workshop" in body and ">NeurIPS<" not in body and 'value="iclr"' in body
    assert "No venue matches." in client.get("/conferences", {"q": "zzz"}).content.decode()


def test_a_years_proceedings_list_their_papers_newest_first(client, imported):
    body = client.get("/conference/neurips-2020").content.decode()
    assert "<h1>NeurIPS 2020</h1>" in body and "4 papers" in body
    assert _papers(body) == ["dated-december", "dated-june", "undated", "placeholder"]
    assert 'href="/conference/neurips">All years</a>' in body


def test_a_venue_page_lists_its_papers_over_its_years(client, imported):
    body = client.get("/conference/neurips").content.decode()
    assert "<h1>NeurIPS</h1>" in body and "6 papers" in body
    expected = [
        "dated-december",
        "dated-june",
        "older",
        "neurips-no-year",
        "undated",
        "placeholder",
    ]
    assert _papers(body) == expected
    for year in ("neurips-2020", "neurips-2019"):
        assert f'href="/conference/{year}"' in body


def test_papers_with_codes_address_of_a_years_proceedings_redirects(client, imported):
    response = client.get("/conference/neurips-2020-12", {"page": 1})
    assert response.status_code == 301
    assert response["Location"] == "/conference/neurips-2020?page=1"
    assert client.get("/conference/nowhere-2020").status_code == 404
    assert client.get("/conference/nowhere-2020-12").status_code == 404


@pytest.mark.parametrize(
    "url",
    [
        "/conferences?page=0",
        "/conferences?page=x",
        "/conferences?per_page=7",
        "/conferences?sort=stars",
        "/conferences?q=" + "x" * 300,
        "/conference/neurips-2020?page=-1",
        "/conference/neurips?per_page=1000",
        "/conference/neurips?page=99999999999999999999",
    ],
)
def test_odd_parameters_are_a_400_page(client, imported, url):
    assert client.get(url).status_code == 400


@pytest.mark.parametrize(
    "url", ["/conferences", "/conference/neurips-2020", "/conference/neurips"]
)
def test_venue_pages_run_the_same_queries_however_many_papers(client, imported, url, tmp_path):
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    more = [
        {
            "paper_url": f"https://paperswithcode.com/paper/more-{i}",
            "title": f"More {i}",
            "abstract": "",
            "authors": [f"Author {i}", "Grace Hopper"],
            "date": "2020-11-01",
            "proceeding": ["NeurIPS 2020 12", f"Venue{i} 2021"][i % 2],
        }
        for i in range(60)
    ]
    assert run_import(write(tmp_path / "more.json", more))[0] == 0
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).status_code == 200
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


def test_venue_pages_read_their_queries(client, imported, django_assert_num_queries):
    with django_assert_num_queries(1):
        client.get("/conferences")
    with django_assert_num_queries(3):  # the venue's rows, a page of papers, their authors
        client.get("/conference/neurips-2020")


def test_an_edited_proceeding_moves_the_paper_to_its_venue(imported):
    paper = Paper.objects.get(slug="older")
    before = linked_records({paper.pk})
    Paper.objects.filter(pk=paper.pk).update(proceeding="NeurIPS 2020 12")
    after_write(papers={paper.pk}, records=before)
    assert not Venue.objects.filter(slug="neurips-2019").exists()
    assert Venue.objects.get(slug="neurips-2020").paper_count == 5
    before = linked_records({paper.pk})
    Paper.objects.filter(pk=paper.pk).update(proceeding="ICML 2021 7")
    after_write(papers={paper.pk}, records=before)
    assert Venue.objects.get(slug="icml-2021").paper_count == 1
    assert Venue.objects.get(slug="neurips-2020").paper_count == 4
