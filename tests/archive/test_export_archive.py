"""export_archive writes the archive back out: importing every kind it writes into an
empty database gives the same database."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.archive import export
from papers.archive.read.parsers import RANK_RECORD
from papers.kept import refresh_all as refresh_browse_counts
from papers.models import (
    CONTRIBUTIONS,
    KEPT_FACTS,
    Author,
    Collection,
    Dataset,
    KeptFact,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    Repository,
    Task,
    TaskEdge,
    Venue,
)
from tests.archive_helpers import run_import, write
from tests.conftest import REALDATA

pytestmark = pytest.mark.django_db

# A file of each kind, in each container: the kinds and containers are independent.
FILES = {
    "methods": "methods.json",
    "datasets": "datasets.jsonl.gz",
    "papers": "papers.json.gz",
    "links": "links.jsonl",
    "evaluation-tables": "evaluation-tables.json",
    "records": "records.jsonl",
}


def export_all(folder: Path) -> list[Path]:
    paths = []
    for kind, name in FILES.items():
        out = io.StringIO()
        call_command("export_archive", kind=kind, output=str(folder / name), stdout=out)
        assert f"to {folder / name}" in out.getvalue()
        paths.append(folder / name)
    return paths


def empty_the_database() -> None:
    """Delete every archive row through the ORM (which keeps SQLite's full-text index)."""
    # Venues and kept facts are worked out from the papers (an import's refresh): nothing
    # points at them.
    for model in (Paper, Task, Dataset, Method, Collection, Author, Repository, Venue, KeptFact):
        model.objects.all().delete()
    archive = [m for m in apps.get_app_config("papers").get_models() if m not in CONTRIBUTIONS]
    assert not any(m.objects.exists() for m in archive)


# Natural keys of the rows other rows point at.
KEYS = {
    Paper: ("slug",),
    Author: ("slug",),
    Repository: ("url",),
    Task: ("slug",),
    Dataset: ("slug",),
    Method: ("slug",),
    Collection: ("slug",),
    Leaderboard: ("task__slug", "dataset__slug"),
}
# Bookkeeping, not archive values. `Paper.source_rank` says which kind of file wrote a
# paper: the export writes every paper to the papers file, so a paper that a links row
# created comes back as a papers-file row. `Task.content_key` digests the layout of the
# file that gave the task (its boards as listed there), which an export rewrites.
# Not archive data: bookkeeping, and who contributed a record through the API (an export
# does not carry it).
SKIP = {
    "id", "created_at", "updated_at", "edited_at", "source_rank", "content_key",
    "contributed_by", "contributed_at",
}  # fmt: skip


def archive_state() -> dict[str, list[str]]:
    """Every row of every model, foreign keys as natural keys, ids and timestamps left out
    (what tests.archive_helpers.db_state compares, read in a few queries per model)."""
    keys = {
        model: {row[0]: row[1:] for row in model.objects.values_list("id", *fields)}
        for model, fields in KEYS.items()
    }
    state = {}
    for model in apps.get_app_config("papers").get_models():
        if model in KEPT_FACTS or model in CONTRIBUTIONS:  # worked out, or who wrote what
            continue
        fields = [f for f in model._meta.concrete_fields if f.name not in SKIP]
        many = {}  # row id → {m2m field name: [natural keys]}, for auto-created through tables
        for m2m in model._meta.many_to_many:
            through = m2m.remote_field.through
            if through._meta.auto_created:
                source, target = m2m.m2m_field_name(), m2m.m2m_reverse_field_name()
                for a, b in through.objects.values_list(f"{source}_id", f"{target}_id"):
                    many.setdefault(a, {}).setdefault(m2m.name, []).append(
                        keys[m2m.related_model][b]
                    )
        rows = []
        for values in model.objects.values("id", *(f.attname for f in fields)):
            row = {
                f.name: keys[f.related_model].get(values[f.attname])
                if f.is_relation
                else values[f.attname]
                for f in fields
            }
            row.update({k: sorted(v) for k, v in many.get(values["id"], {}).items()})
            rows.append(json.dumps(row, sort_keys=True, default=str))
        state[model.__name__] = sorted(rows)
    return state


def _row(model: str, metric: str, value) -> dict:
    return {
        "model_name": model,
        "paper_title": f"{model}: a paper",
        "paper_url": f"https://paperswithcode.com/paper/{model.lower()}-paper",
        "paper_date": "2021-04-01",
        "metrics": {metric: value},
        "code_links": [],
        "model_links": [],
        "uses_additional_data": False,
    }


# What the synthetic archive lacks: a dataset's split with its own leaderboard, a subtask
# under two parents, two identical rows, and a leaderboard on a dataset whose page slug is
# not its name's.
NESTED = [
    {
        "task": "Question Answering",
        "categories": ["Natural Language Processing"],
        "datasets": [
            {
                "dataset": "SQuAD",
                "sota": {"metrics": ["EM", "F1"], "rows": [_row("Reader", "EM", "81.2")] * 2},
                "subdatasets": [
                    {
                        "subdataset": "Dev",
                        "sota": {"metrics": ["EM"], "rows": [_row("Dev", "EM", 1)]},
                    }
                ],
            },
            {"dataset": "MS COCO", "sota": {"metrics": ["Acc"], "rows": [_row("V", "Acc", 2)]}},
        ],
        "subtasks": [{"task": "Open-Domain QA", "subtasks": [{"task": "Multi-hop QA"}]}],
    },
    {"task": "Reading Comprehension", "subtasks": [{"task": "Open-Domain QA"}]},
]


@pytest.fixture
def demo_archive(seed_record_path, tmp_path):
    """The demo archive (all six kinds, through the importer), the seed record, and
    the nested leaderboards the synthetic archive lacks."""
    call_command("load_demo", papers=300, verbosity=0)
    coco = {"url": "https://paperswithcode.com/dataset/coco", "name": "MS COCO"}
    (tmp_path / "in").mkdir()
    assert run_import(write(tmp_path / "in" / "d.json", [coco]))[0] == 0
    assert run_import(write(tmp_path / "in" / "e.json", NESTED))[0] == 0
    assert Paper.objects.filter(source_rank=0).exists()  # stubs, from links and leaderboards
    assert Leaderboard.objects.filter(parent__isnull=False).exists()
    assert TaskEdge.objects.filter(child__slug="open-domain-qa").count() == 2
    assert LeaderboardRow.objects.filter(model_name="Reader").count() == 2


@pytest.mark.parametrize("order", ["as listed", "reversed"])
def test_every_kind_exported_imports_back_to_the_same_database(tmp_path, demo_archive, order):
    # The browse pages' counts are derived: recomputed on both sides (an import's end is
    # where they are refreshed, refresh_browse_counts()).
    refresh_browse_counts()
    before = archive_state()
    paths = export_all(tmp_path)
    empty_the_database()
    status, _, err = run_import(*(paths if order == "as listed" else reversed(paths)))
    assert status == 0, err
    refresh_browse_counts()
    after = archive_state()
    for model in before:
        assert after[model] == before[model], model


def test_the_seed_record_exports_to_itself(tmp_path, seed_record_path):
    run_import(seed_record_path)
    call_command("export_archive", kind="records", output=str(tmp_path / "r.json"), verbosity=0)
    assert json.loads((tmp_path / "r.json").read_text()) == [
        json.loads(seed_record_path.read_text())
    ]


def _in_order(model, group: tuple[str, ...], key: tuple[str, ...]) -> dict:
    """Each group's members in the order the site lists them (position, then id)."""
    ordered: dict = {}
    for row in model.objects.order_by(*group, "position", "id").values_list(*group, *key):
        ordered.setdefault(row[: len(group)], []).append(row[len(group) :])
    return ordered


ORDERED = [
    (TaskEdge, ("parent__slug",), ("child__slug",)),
    (Leaderboard, ("task__slug", "parent__dataset__slug"), ("dataset__slug",)),
    (LeaderboardMetric, ("leaderboard__task__slug", "leaderboard__dataset__slug"), ("name",)),
    (LeaderboardRow, ("leaderboard__task__slug", "leaderboard__dataset__slug"), ("row_key",)),
]


def test_real_archive_files_come_back_in_the_same_order(tmp_path, seed_record_path):
    """Real files that each list the same tasks: the leaderboards, metrics, rows and
    subtasks come back in the same order. Where the files gave one task's lists
    different orders, the importer's positions tie or skip numbers; the export writes
    each list once, in the database's order, so they come back numbered 0, 1, 2…"""
    files = [
        *sorted((REALDATA / "paperswithcode__sota-extractor" / "data" / "tasks").glob("*.json")),
        REALDATA / "kuefmz__pow_categories" / "data" / "pwc" / "methods.json",
        REALDATA / "mariaayuso__topic-modeling-on-software" / "methods.json.gz",
        REALDATA / "viswavi__datafinder" / "data" / "dataset_search_collection.jsonl",
        REALDATA / "codingpot__paperswithcode-go" / "dummy" / "paper_list_response.json",
    ]
    if not all(f.exists() for f in files):
        pytest.skip(f"{REALDATA} not present")
    assert run_import(*files, seed_record_path)[0] == 0
    orders = {model: _in_order(model, group, key) for model, group, key in ORDERED}
    without_positions = {
        model: sorted(
            json.dumps({k: v for k, v in json.loads(row).items() if k != "position"})
            for row in rows
        )
        for model, rows in archive_state().items()
    }
    paths = export_all(tmp_path)
    empty_the_database()
    assert run_import(*paths)[0] == 0
    for model, group, key in ORDERED:
        assert _in_order(model, group, key) == orders[model], model.__name__
    after = archive_state()
    for model, rows in without_positions.items():
        assert (
            sorted(
                json.dumps({k: v for k, v in json.loads(row).items() if k != "position"})
                for row in after[model]
            )
            == rows
        ), model


def test_files_are_valid_in_every_container(tmp_path, make_paper):
    make_paper(title="Ünïcode — title")
    for name in ("p.json", "p.jsonl", "p.json.gz", "p.jsonl.gz"):
        call_command("export_archive", kind="papers", output=str(tmp_path / name), verbosity=0)
        raw = (tmp_path / name).read_bytes()
        text = (gzip.decompress(raw) if name.endswith(".gz") else raw).decode()
        rows = (
            json.loads(text)
            if ".jsonl" not in name
            else list(map(json.loads, text.split("\n")[:-1]))
        )
        assert {r["title"] for r in rows} == {"Ünïcode — title", "Related paper 1"}
        assert not list(tmp_path.glob("*.partial"))


def test_an_empty_database_exports_empty_files_that_import(tmp_path):
    for kind in FILES:
        call_command(
            "export_archive", kind=kind, output=str(tmp_path / f"{kind}.json"), verbosity=0
        )
        assert json.loads((tmp_path / f"{kind}.json").read_text()) == []


def test_a_bad_output_name_is_refused(tmp_path):
    with pytest.raises(CommandError, match=r"\.jsonl"):
        call_command("export_archive", kind="papers", output=str(tmp_path / "papers.csv"))
    with pytest.raises(CommandError, match="no such directory"):
        call_command("export_archive", kind="papers", output=str(tmp_path / "x" / "p.json"))


def test_a_failed_export_leaves_no_file(tmp_path, make_paper, monkeypatch):
    make_paper()

    def broken():
        yield {"paper_url": "https://paperswithcode.com/paper/one"}
        raise RuntimeError("the database went away")

    monkeypatch.setitem(export.WRITERS, "papers", broken)
    with pytest.raises(RuntimeError):
        call_command("export_archive", kind="papers", output=str(tmp_path / "p.json"), verbosity=0)
    assert list(tmp_path.iterdir()) == []


# The tables that grow with the archive, which each kind reads.
BIG_TABLES = {
    "papers": ("paper", "paperauthor", "papertask", "papermethod"),
    "links": ("codelink",),
    "records": ("paper", "codelink", "sample", "paperauthor"),
    "methods": ("method",),
    "datasets": ("dataset",),
    "evaluation-tables": ("leaderboardrow",),
}


def test_exports_read_big_tables_in_chunks_never_whole(tmp_path, make_paper, monkeypatch):
    """Memory stays bounded: every read of a table that grows with the archive is one
    chunk (LIMIT), or the rows of one chunk's ids (IN, or the range of its ids)."""
    for _ in range(5):
        make_paper()
    Paper.objects.update(source_rank=RANK_RECORD, has_report=True)
    monkeypatch.setattr(export, "CHUNK", 3)
    for kind, tables in BIG_TABLES.items():
        with CaptureQueriesContext(connection) as queries:
            call_command(
                "export_archive", kind=kind, output=str(tmp_path / "o.jsonl"), verbosity=0
            )
        reads = [
            q["sql"]
            for q in queries.captured_queries
            if any(f'FROM "papers_{table}"' in q["sql"] for table in tables)
        ]
        assert len(reads) >= 3, kind  # several chunks
        for sql in reads:
            bounded = re.search(r'"paper_id" >= \S+ AND "papers_\w+"\."paper_id" <= ', sql)
            assert " LIMIT " in sql or " IN (" in sql or bounded, (kind, sql)


def test_a_full_disk_while_compressing_fails_the_export_and_leaves_no_file(
    tmp_path, make_paper, monkeypatch
):
    make_paper()

    class FullDisk(io.BytesIO):
        def write(self, data):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(export.gzip, "open", lambda *args, **kwargs: FullDisk())
    with pytest.raises(OSError, match="No space left"):
        call_command("export_archive", kind="papers", output=str(tmp_path / "p.json.gz"))
    assert list(tmp_path.iterdir()) == []


# --- empty files and staff edits, through an export and back ----------------------------------


def test_datasets_that_all_come_from_leaderboards_export_and_import_back(tmp_path):
    """Every dataset here is a name a leaderboard gives: the datasets export holds no
    row, and its empty file imports (nothing) with the five others, exit status 0."""
    assert run_import(write(tmp_path / "e.json", NESTED))[0] == 0
    assert Dataset.objects.exists() and not Dataset.objects.filter(in_dump=True).exists()
    refresh_browse_counts()
    before = archive_state()
    out = tmp_path / "out"
    out.mkdir()
    paths = export_all(out)
    datasets = out / FILES["datasets"]
    assert gzip.decompress(datasets.read_bytes()) == b""
    empty_the_database()
    status, stdout, err = run_import(*paths)
    assert status == 0, err
    assert f"{datasets}: the file is empty (no datasets records): nothing to import" in err
    assert f"{datasets}: datasets, 0 records (an empty file)" in stdout
    refresh_browse_counts()
    assert archive_state() == before


@pytest.mark.parametrize("name", ["datasets.jsonl", "datasets.jsonl.gz", "methods.json"])
def test_an_empty_file_of_a_kind_its_name_tells_imports_nothing(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(b"") if name.endswith(".gz") else b"\n")
    status, stdout, err = run_import(path)
    assert status == 0, err
    kind = name.split(".")[0]
    assert f"the file is empty (no {kind} records): nothing to import" in err
    assert "Nothing changed" in stdout


def test_an_empty_file_of_a_kind_kind_tells_imports_nothing(tmp_path):
    path = tmp_path / "shard-00001.jsonl"
    path.write_bytes(b"")
    status, _, err = run_import(path, kind="evaluation-tables")
    assert status == 0, err
    assert "no evaluation-tables records" in err


def test_an_empty_file_whose_kind_nothing_tells_imports_nothing_and_says_so(tmp_path):
    path = tmp_path / "shard-00001.jsonl"
    path.write_bytes(b"  \n")
    status, stdout, err = run_import(path)
    assert status == 0, err
    assert f"{path}: the file is empty (no records of a kind it names): nothing to import" in err
    assert f"{path}: unknown kind, 0 records (an empty file)" in stdout
    assert not Paper.objects.exists()


def test_records_staff_edited_come_back_edited_and_later_imports_leave_them_alone(
    tmp_path, demo_archive
):
    """An export says which records staff edited; importing it marks them edited again,
    so a later import of the original dumps leaves the edits alone."""
    edited = {
        Paper: Paper.objects.filter(source_rank=RANK_RECORD).order_by("id").first(),
        Method: Method.objects.order_by("id").first(),
        Collection: Collection.objects.order_by("id").first(),
        Dataset: Dataset.objects.filter(in_dump=True).order_by("id").first(),
        Task: Task.objects.order_by("id").first(),
        Leaderboard: Leaderboard.objects.order_by("id").first(),
        LeaderboardRow: LeaderboardRow.objects.order_by("id").first(),
    }
    link = edited[Paper].code_links.order_by("id").first()
    edited[type(link)] = link
    paper = Paper.objects.filter(source_rank=1).order_by("id").first()  # a papers-file paper
    edited["papers-file paper"] = paper
    for record in edited.values():
        type(record).objects.filter(pk=record.pk).update(edited_in_admin=True)
    Paper.objects.filter(pk=paper.pk).update(title="A title staff corrected")
    refresh_browse_counts()
    before = archive_state()
    paths = export_all(tmp_path)
    empty_the_database()
    status, _, err = run_import(*paths)
    assert status == 0, err
    refresh_browse_counts()
    assert archive_state() == before  # every flag among every other value
    # The key is read, not counted among the fields an import drops.
    report = io.StringIO()
    with contextlib.suppress(SystemExit):  # other findings about the demo: not this test's
        call_command("fidelity_report", *map(str, paths), stdout=report)
    assert "dropped fields" in report.getvalue()
    assert "edited_in_admin" not in report.getvalue()
    for name, record in edited.items():
        model = type(record)
        assert model.objects.filter(edited_in_admin=True).count() == sum(
            type(r) is model for r in edited.values()
        ), name
    # The original dump says another title: the edit stands.
    again = write(
        tmp_path / "papers-with-abstracts.json",
        [{"paper_url": f"https://paperswithcode.com/paper/{paper.slug}", "title": "Original"}],
    )
    assert run_import(again)[0] == 0
    assert Paper.objects.get(slug=paper.slug).title == "A title staff corrected"
