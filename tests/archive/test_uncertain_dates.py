"""Placeholder dates (2099, 2030: past the archive's snapshot) are uncertain: every
newest-first list shows them as such and sorts those papers with the undated ones, last."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from papers.kept import refresh_all as refresh_browse_counts
from papers.models import NEWEST_FIRST, Dataset, Paper, PaperDataset
from tests.archive_helpers import run_import, write

pytestmark = pytest.mark.django_db

# Imported in this order, so ids ascend down the list. Newest first reads: the dated
# papers by date, then every other paper (placeholder date or none) by id, newest first.
PAPERS = [
    ("placeholder-2099", "2099-12-15"),
    ("real-2021", "2021-05-01"),
    ("undated", None),
    ("placeholder-2030", "2030-01-01"),
    ("real-2019", "2019-03-01"),
]
NEWEST_FIRST_SLUGS = ["real-2021", "real-2019", "placeholder-2030", "undated", "placeholder-2099"]


@pytest.fixture
def dumps(tmp_path):
    """The papers as the dumps give them: each with an author, a task, a method, a code
    link, and (through its record) a dataset; the importer flags the placeholders."""
    papers = [
        {
            "paper_url": f"https://paperswithcode.com/paper/{slug}",
            "title": f"Robust sparse transforms ({slug})",
            "abstract": "Sparse Fourier transforms that survive adversaries.",
            "authors": ["Ada Lovelace"],
            "tasks": ["Sparse Recovery"],
            "methods": [{"name": "Sparse FFT", "full_name": "Sparse Fast Fourier Transform"}],
            "date": date,
        }
        for slug, date in PAPERS
    ]
    links = [
        {
            "paper_url": f"https://paperswithcode.com/paper/{slug}",
            "repo_url": "https://github.com/lab/sparse",
            "is_official": True,
            "framework": "pytorch",
        }
        for slug, _ in PAPERS
    ]
    status, _, err = run_import(
        write(tmp_path / "papers-with-abstracts.json", papers),
        write(tmp_path / "links-between-papers-and-code.json", links),
    )
    assert status == 0, err
    dataset = Dataset.objects.create(slug="sparse-signals", name="Sparse Signals")
    for paper in Paper.objects.order_by("id"):
        PaperDataset.objects.create(paper=paper, dataset=dataset)
    refresh_browse_counts()


def _slugs_in_order(body: str) -> list[str]:
    found = re.findall(r'href="/paper/((?:real|placeholder|undated)[\w-]*)"', body)
    return list(dict.fromkeys(found))


def test_the_importer_flags_the_placeholder_dates(dumps):
    flagged = set(Paper.objects.filter(date_uncertain=True).values_list("slug", flat=True))
    assert flagged == {"placeholder-2099", "placeholder-2030"}


def test_a_paper_dated_2099_sorts_as_undated_on_the_method_page(client, dumps):
    body = client.get("/method/sparse-fft").content.decode()
    assert _slugs_in_order(body) == NEWEST_FIRST_SLUGS


@pytest.mark.parametrize(
    "url",
    [
        "/task/sparse-recovery",
        "/dataset/sparse-signals",
        "/author/ada-lovelace",
        "/repo/github.com/lab/sparse",
        "/search?sort=newest",
        "/search?q=sparse&sort=newest",
        "/search?q=sparse&sort=implementations",
        "/search?task=sparse-recovery",
    ],
)
def test_placeholder_dates_sort_as_undated_in_every_newest_first_list(client, dumps, url):
    body = client.get(url).content.decode()
    assert _slugs_in_order(body) == NEWEST_FIRST_SLUGS


def test_the_api_lists_placeholder_dates_as_undated(client, dumps):
    results = client.get("/api/v1/papers/").json()["results"]
    assert [p["id"] for p in results] == NEWEST_FIRST_SLUGS


def test_an_uncertain_date_says_so_in_lists(client, dumps):
    body = client.get("/method/sparse-fft").content.decode()
    item = body[body.index('href="/paper/placeholder-2099"') :]
    item = item[: item.index("</li>")]
    assert "15 Dec 2099" in item and "(uncertain)" in item
    certain = body[body.index('href="/paper/real-2021"') :]
    assert "(uncertain)" not in certain[: certain.index("</li>")]


def test_newest_first_is_read_from_an_index_not_sorted(dumps):
    """The lists stop after a page: paper_newest_idx yields their order, so a page is
    read from it and no query sorts every paper (at 576k papers, ~0.5 s a page). Five
    papers make either planner prefer a sort, so the index is asked for: a plan that
    still sorts would mean the index cannot give the order."""
    newest = Paper.objects.visible().order_by(*NEWEST_FIRST).values("id")[:20]
    sql, params = newest.query.sql_with_params()
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            table = 'FROM "papers_paper"'
            sql = sql.replace(table, f"{table} INDEXED BY paper_newest_idx", 1)
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
            plan = " ".join(row[-1] for row in cursor.fetchall())
            assert "paper_newest_idx" in plan and "TEMP B-TREE" not in plan, plan
        else:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_sort = off")
            cursor.execute(f"EXPLAIN {sql}", params)
            plan = " ".join(row[0] for row in cursor.fetchall())
            assert "paper_newest_idx" in plan and "Sort" not in plan, plan
