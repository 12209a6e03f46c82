"""arXiv's metadata snapshot as one more kind of import_archive."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from papers.models import Author, CodeLink, Paper
from tests.archive_helpers import run_import
from tests.conftest import realdata

SNAPSHOT = (
    "arxiv/kaggle_arxiv-metadata-oai-snapshot_lines-1-150__wanng-ide-arxivSpider_mnbvc.jsonl"
)


@pytest.mark.django_db(transaction=True)
def test_snapshot_imports_every_real_line_once_and_again_changes_nothing():
    path = realdata(SNAPSHOT)
    status, out, err = run_import(path)
    assert status == 0, err
    assert "arxiv, 150 records" in out
    assert Paper.objects.count() == 150
    paper = Paper.objects.get(arxiv_id="0704.0001")
    assert paper.slug == "arxiv-0704.0001"
    assert paper.title.startswith("Calculation of prompt diphoton production cross sections")
    assert "\n" not in paper.title
    assert paper.published == dt.date(2007, 4, 2)
    assert paper.arxiv_primary_category == "hep-ph"
    assert paper.arxiv_metadata["journal_ref"] == "Phys.Rev.D76:013009,2007"
    assert paper.arxiv_metadata["doi"] == "10.1103/PhysRevD.76.013009"
    assert [v["version"] for v in paper.arxiv_metadata["versions"]] == ["v1", "v2"]
    # authors_parsed is Unicode where `authors` is TeX: the archive's identity rule.
    assert paper.author_names.startswith("C. Balázs, E. L. Berger")
    assert Author.objects.filter(slug=Author.slug_for("C. Balázs")).exists()
    assert not paper.date_uncertain

    status, out, err = run_import(path)
    assert status == 0, err
    assert "Nothing changed" in out
    assert Paper.objects.count() == 150


@pytest.mark.django_db(transaction=True)
def test_snapshot_line_matches_the_archive_paper_by_arxiv_id(make_paper, tmp_path):
    existing = make_paper(arxiv_id="2301.00001", title="Old title")
    line = {
        "id": "2301.00001",
        "authors": "A. Person",
        "title": "A  new\n  title with $\\alpha$",
        "comments": "Code: https://github.com/Lab/Repo/tree/main.",
        "journal-ref": None,
        "doi": None,
        "categories": "cs.LG cs.CV",
        "license": "http://creativecommons.org/licenses/by/4.0/",
        "abstract": "We do things. Project page: https://lab.github.io/thing/.",
        "versions": [{"version": "v1", "created": "Mon, 2 Jan 2023 10:00:00 GMT"}],
        "update_date": "2023-01-03",
        "authors_parsed": [["Person", "A.", ""]],
    }
    path = tmp_path / "arxiv-metadata-oai-snapshot.json"
    path.write_text(json.dumps(line) + "\n")
    status, _out, err = run_import(path)
    assert status == 0, err
    assert Paper.objects.filter(arxiv_id="2301.00001").count() == 1
    paper = Paper.objects.get(pk=existing.pk)
    assert paper.slug == existing.slug
    assert paper.arxiv_categories == "cs.LG cs.CV"
    assert paper.arxiv_metadata["project_links"] == ["https://lab.github.io/thing"]
    assert paper.arxiv_metadata["licence"] == "http://creativecommons.org/licenses/by/4.0/"
    mentioned = CodeLink.objects.get(paper=paper, repository__url="https://github.com/Lab/Repo")
    assert mentioned.mentioned_in_paper
    assert paper.code_link_count == 2  # its archive link and the one in its comments


@pytest.mark.django_db(transaction=True)
def test_bad_snapshot_line_is_rejected_naming_line_and_field(tmp_path):
    good = {"id": "2301.00002", "title": "T", "abstract": "", "categories": "cs.AI",
            "versions": [], "authors_parsed": []}  # fmt: skip
    bad = dict(good, id="2301.00003", versions=[{"version": "v1", "created": "yesterday"}])
    path = tmp_path / "snap.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    status, _out, err = run_import(path)
    assert status == 1
    assert "record 2 (line 2): field versions[0]: not a date" in err
    assert Paper.objects.filter(arxiv_id="2301.00002").exists()


@pytest.mark.django_db(transaction=True)
def test_fidelity_report_reads_the_snapshot_and_finds_nothing_lost_or_dropped():
    from django.core.management import call_command

    path = realdata(SNAPSHOT)
    assert run_import(path)[0] == 0
    import io

    out = io.StringIO()
    call_command("fidelity_report", str(path), stdout=out)
    assert "lost: 0" in out.getvalue()
    assert "dropped fields: none" in out.getvalue()
