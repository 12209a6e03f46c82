"""fidelity_report: the real archive files against the database they were imported into."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from papers.models import Dataset, Task
from tests.archive.test_fidelity import (
    API,
    DATAFINDER,
    METHODS_2022,
    METHODS_2023,
    METHODS_2025,
    ONEPHA,
    TASKS,
    imported,
)
from tests.archive_helpers import run_import
from tests.conftest import realdata

pytestmark = [pytest.mark.realdata, pytest.mark.django_db]


def archive_files() -> list:
    """Every archive-shaped real file (the API's results and task pages and the notebook
    excerpt are not files the archive publishes), in an order that exercises replacement."""
    tasks = sorted(realdata(TASKS).glob("*.json"))
    return [
        realdata(DATAFINDER),
        realdata(ONEPHA),
        realdata("1pha__BayesianActiveLearning/converted/valid_dataset.jsonl"),
        *tasks,
        realdata(METHODS_2022),
        realdata(METHODS_2023),
        realdata(METHODS_2025),
        realdata(f"{API}/paper_get_response.json"),
        realdata(f"{API}/paper_list_response.json"),
        realdata(f"{API}/paper_method_list_response.json"),
    ]


def test_the_fidelity_report_finds_nothing_merged_or_lost_in_the_real_files():
    files = archive_files()
    status, _, err = run_import(*files)
    assert status == 0, err
    out, status = io.StringIO(), 0
    try:
        call_command("fidelity_report", *map(str, files), stdout=out)
    except SystemExit as exc:
        status = exc.code
    text = out.getvalue()
    assert status == 0, text
    assert text.count("  lost: 0") == text.count("  merged: 0") == len(files)
    assert "Nothing lost, merged or dropped." in text
    assert "hidden: 1 (dhf (dhf))" in text
    assert "given again by a later file" in text
    assert "not kept by design: area (2,625" in text


def test_the_fidelity_report_names_what_a_database_lost(tmp_path):
    path = realdata(f"{TASKS}/nlpprogress.json")
    imported(path)
    Dataset.objects.filter(name="Smaller Datasets (Example) #3").delete()
    Task.objects.filter(slug="relation-prediction-task").delete()
    out = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("fidelity_report", str(path), stdout=out)
    text = out.getvalue()
    assert "task Relation Prediction / Task" in text
    assert "board Semantic parsing / SQL parsing on Smaller Datasets (Example) #3" in text


def test_the_fidelity_report_names_read_values_the_database_does_not_hold():
    from papers.archive.fidelity import reports
    from papers.models import Method, Paper

    papers, methods = realdata(ONEPHA), realdata(METHODS_2025)
    imported(papers, methods)
    assert all(report.ok for report in reports([papers, methods]))
    Paper.objects.filter(pk=Paper.objects.order_by("id").first().pk).update(abstract="")
    method = Method.objects.exclude(source_url="").order_by("id").first()
    Method.objects.filter(pk=method.pk).update(source_url="")
    paper_report, method_report = reports([papers, methods])
    assert paper_report.not_stored == {"abstract": 1} and not paper_report.ok
    assert method_report.not_stored == {"source_url": 1}
    assert "read but not stored: abstract (1)" in "\n".join(paper_report.lines())
