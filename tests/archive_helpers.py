"""Helpers for tests that import archive files: write them, run the command, compare databases."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import sqlite3
from pathlib import Path

from django.apps import apps
from django.core import serializers
from django.core.management import call_command

VOLATILE = {"created_at", "updated_at", "edited_at"}


def write(path: Path, records: list, container: str = "json") -> Path:
    """Write records as a JSON array, JSON Lines, gzip of either, or Parquet."""
    if container == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = [
            {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in r.items()}
            for r in records
        ]
        pq.write_table(pa.Table.from_pylist(rows), path)
        return path
    if container.startswith("jsonl"):
        body = "".join(json.dumps(r) + "\n" for r in records)
    else:
        body = json.dumps(records)
    data = body.encode()
    path.write_bytes(gzip.compress(data) if container.endswith(".gz") else data)
    return path


def run_import(*args, **options) -> tuple[int, str, str]:
    """call_command("import_archive"), returning (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_archive", *map(str, args), stdout=out, stderr=err, **options)
        status = 0
    except SystemExit as exc:
        status = exc.code
    return status, out.getvalue(), err.getvalue()


def _foreign_keys(model, depth: int = 2, prefix: str = "") -> list[str]:
    """Foreign-key paths two levels deep: what a natural key of a related row reads."""
    paths = []
    for field in model._meta.concrete_fields:
        if field.many_to_one or field.one_to_one:
            path = prefix + field.name
            paths.append(path)
            if depth > 1:
                paths += _foreign_keys(field.related_model, depth - 1, path + "__")
    return paths


def db_state() -> dict[str, list]:
    """Every papers row by natural keys, without ids and timestamps: equal states compare equal."""
    # Worked out from the rows compared here, or who wrote them (an import's revision).
    from papers.models import CONTRIBUTIONS, KEPT_FACTS

    state = {}
    for model in apps.get_app_config("papers").get_models():
        if model in KEPT_FACTS or model in CONTRIBUTIONS:
            continue
        # Related rows joined and many-to-many rows prefetched: natural keys without a
        # query per row, so a database of thousands of papers compares in seconds.
        many = [
            f.name for f in model._meta.many_to_many if f.remote_field.through._meta.auto_created
        ]
        rows = model.objects.prefetch_related(*many)
        if joins := _foreign_keys(model):
            rows = rows.select_related(*joins)
        rows = serializers.serialize(
            "python",
            rows,
            use_natural_foreign_keys=True,
            use_natural_primary_keys=True,
        )
        cleaned = []
        for row in rows:
            fields = {k: v for k, v in row["fields"].items() if k not in VOLATILE}
            cleaned.append(json.dumps(fields, sort_keys=True, default=str))
        state[model.__name__] = sorted(cleaned)
    return state


def fts_searches(path) -> dict[str, list[int]]:
    """SQLite: what a set of searches finds in the database file, after FTS5's own
    consistency check (which raises if the index and the papers disagree)."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("INSERT INTO papers_paper_fts(papers_paper_fts) VALUES ('integrity-check')")
        titles = [row[0] for row in db.execute("SELECT title FROM papers_paper ORDER BY id")]
        words = sorted({w.strip(".,:;()").lower() for t in titles[::25] for w in t.split()})
        terms = [w for w in words if w.isalpha()][:40]
        terms += [w[:3] + "*" for w in terms[:10]]
        return {
            term: [
                row[0]
                for row in db.execute(
                    "SELECT rowid FROM papers_paper_fts WHERE papers_paper_fts MATCH ? "
                    "ORDER BY rowid",
                    [f'"{term[:-1]}"*' if term.endswith("*") else f'"{term}"'],
                )
            ]
            for term in terms
        }
