"""The record format round-trips: import a record, export it, get the same document."""

from __future__ import annotations

import json

import pytest

import synthetic
from papers.archive.export.records import export_record, records_queryset
from papers.models import Paper
from tests.archive_helpers import run_import, write

pytestmark = pytest.mark.django_db(transaction=True)


def test_seed_record_exports_to_exactly_itself(seed_record_path):
    run_import(seed_record_path)
    exported = export_record(records_queryset().get(slug="limits-to-depth-efficiencies-of-self"))
    assert exported == json.loads(seed_record_path.read_text())


def test_generated_records_with_every_optional_field_round_trip(tmp_path):
    records = list(synthetic.record_rows(5, 1500, share=0.12))
    assert any(r["results"] for r in records) and any(r["arxiv_metadata"] for r in records)
    assert any(s["licence"] is None for r in records for s in r["syntology"]["samples"])
    sizes = synthetic.archive_sizes(1500)
    # The methods and datasets files come first, as in a real deployment: a record names
    # what it introduces, and only those files tell case-variant names apart.
    methods = list(synthetic.method_rows(5, sizes.methods, papers=1500))
    datasets = list(synthetic.dataset_rows(5, sizes.datasets, papers=1500))
    run_import(write(tmp_path / "m.json", methods), write(tmp_path / "d.json", datasets))
    status, _, err = run_import(write(tmp_path / "records.jsonl", records, "jsonl"))
    assert status == 0, err
    exported = {
        p.slug: export_record(p) for p in records_queryset(Paper.objects.filter(has_report=True))
    }
    for record in records:
        assert exported[record["url"].removeprefix("/paper/")] == record


def test_record_names_keep_their_own_spelling(tmp_path, seed_record_path):
    first = json.loads(seed_record_path.read_text())
    first["methods"] = ["ReLU"]
    second = {**first, "url": "/paper/another-paper", "methods": ["Relu"], "code_links": []}
    run_import(write(tmp_path / "r.json", [first, second]))
    by_slug = {p.slug: export_record(p) for p in records_queryset()}
    assert by_slug["limits-to-depth-efficiencies-of-self"]["methods"] == ["ReLU"]
    assert by_slug["another-paper"]["methods"] == ["Relu"]
