"""manage.py import_archive: every kind and container, idempotence, order, edits, bad input.

What an import promises on every engine; what each engine does inside it is in
test_import_sqlite.py and test_import_postgresql.py."""

from __future__ import annotations

import copy
import gzip
import json
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connection

from papers.archive.engines.postgresql import session as postgres_session
from papers.models import (
    Author,
    CodeLink,
    Dataset,
    Leaderboard,
    LeaderboardRow,
    Method,
    Paper,
    Repository,
    Sample,
    Task,
    TaskEdge,
)
from tests.archive_helpers import db_state, run_import, write
from tests.conftest import realdata

pytestmark = pytest.mark.django_db(transaction=True)

PAPERS = [
    {
        "paper_url": "https://paperswithcode.com/paper/attention-is-all-you-need",
        "arxiv_id": "1706.03762",
        "title": "Attention Is All You Need",
        "abstract": "The dominant sequence transduction models\r\nare based on recurrence.",
        "url_abs": "https://arxiv.org/abs/1706.03762v5",
        "url_pdf": "https://arxiv.org/pdf/1706.03762v5.pdf",
        "proceeding": "NeurIPS 2017 12",
        "authors": ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"],
        "tasks": ["Machine Translation", "Constituency Parsing"],
        "date": "2017-06-12",
        "methods": [{"name": "Multi-Head Attention", "full_name": "Multi-Head Attention"}],
    },
    {
        "paper_url": "https://paperswithcode.com/paper/nystromformer",
        "arxiv_id": None,
        "title": "Nyströmformer: A Nyström-based Algorithm",
        "abstract": "",
        "authors": [],
        "tasks": [],
        "date": "2031-02-07",
        "methods": None,
    },
]
LINKS = [
    {
        "paper_url": "https://paperswithcode.com/paper/attention-is-all-you-need",
        "paper_title": "Attention is all you need (old title)",
        "paper_arxiv_id": "1706.03762",
        "paper_url_abs": "https://arxiv.org/abs/1706.03762",
        "paper_url_pdf": "",
        "repo_url": "https://github.com/tensorflow/tensor2tensor",
        "is_official": True,
        "mentioned_in_paper": True,
        "mentioned_in_github": False,
        "framework": "tf",
    },
    {
        "paper_url": "https://paperswithcode.com/paper/a-paper-only-links-know",
        "paper_title": "A Paper Only Links Know",
        "paper_arxiv_id": "2101.00001",
        "repo_url": "https://github.com/someone/thing",
        "is_official": False,
        "mentioned_in_paper": False,
        "mentioned_in_github": True,
        "framework": "pytorch",
    },
]
METHODS = [
    {
        "url": "https://paperswithcode.com/method/multi-head-attention",
        "name": "Multi-Head Attention",
        "full_name": "Multi-Head Attention",
        "description": (
            "Runs several attention heads.\r\n\r\n"
            "See [the paper](/paper/attention-is-all-you-need)."
        ),
        "paper": {
            "title": "Attention Is All You Need",
            "url": "https://paperswithcode.com/paper/attention-is-all-you-need",
        },
        "introduced_year": 2000,
        "source_url": None,
        "source_title": None,
        "code_snippet_url": None,
        "num_papers": 1200,
        "collections": [
            {"collection": "Attention Modules", "area_id": "general", "area": "General"}
        ],
    },
    {"url": "https://paperswithcode.com/method/dhf", "name": "dhf", "description": "dfhdfh"},
]
DATASETS = [
    {
        "url": "https://paperswithcode.com/dataset/wmt-2014",
        "name": "WMT 2014",
        "full_name": "Workshop on Statistical Machine Translation 2014",
        "description": "Translation pairs.",
        "introduced_date": "2014-06-01",
        "modalities": ["Texts"],
        "tasks": [{"task": "Machine Translation", "url": "https://paperswithcode.com/task/mt"}],
        "languages": ["English", "German"],
        "variants": ["WMT 2014 EN-DE"],
        "num_papers": 900,
    }
]
EVALUATIONS = [
    {
        "task": "Machine Translation",
        "categories": ["Natural Language Processing"],
        "description": "Translate text.",
        "source_link": None,
        "datasets": [
            {
                "dataset": "WMT 2014",
                "description": "",
                "dataset_citations": [],
                "dataset_links": [],
                "sota": {
                    "metrics": ["BLEU score"],
                    "rows": [
                        {
                            "model_name": "Transformer Big",
                            "metrics": {"BLEU score": "28.4"},
                            "paper_title": "Attention Is All You Need",
                            "paper_url": "http://arxiv.org/abs/1706.03762v5",
                            "paper_date": "2017-06-12",
                            "code_links": [],
                            "model_links": [],
                            "uses_additional_data": False,
                        },
                        {
                            "model_name": "Unpublished",
                            "metrics": {"BLEU score": "29.1 ± 0.2"},
                            "paper_title": "Some workshop paper",
                            "paper_url": "https://example.org/paper.pdf",
                            "paper_date": None,
                            "uses_additional_data": True,
                        },
                    ],
                },
                "subdatasets": [],
            }
        ],
        "subtasks": [
            {
                "task": "Unsupervised Machine Translation",
                "datasets": [],
                "subtasks": [],
            }
        ],
    },
    {
        "task": "Constituency Parsing",
        "datasets": [],
        "subtasks": [{"task": "Unsupervised Machine Translation", "datasets": [], "subtasks": []}],
    },
]


@pytest.fixture
def archive(tmp_path, seed_record_path):
    """The same small archive in every kind, as JSON files."""
    return {
        "records": seed_record_path,
        "papers": write(tmp_path / "papers.json", PAPERS),
        "links": write(tmp_path / "links.json", LINKS),
        "methods": write(tmp_path / "methods.json", METHODS),
        "datasets": write(tmp_path / "datasets.json", DATASETS),
        "evaluation-tables": write(tmp_path / "evaluation-tables.json", EVALUATIONS),
    }


def test_seed_record_imports_with_its_samples_links_and_ordered_authors(seed_record_path):
    status, _out, err = run_import(seed_record_path)
    assert status == 0, err
    paper = Paper.objects.get(slug="limits-to-depth-efficiencies-of-self")
    assert paper.title == "The Depth-to-Width Interplay in Self-Attention"
    assert [a.author.name for a in paper.authorships.order_by("position")] == [
        "Yoav Levine",
        "Noam Wies",
        "Or Sharir",
        "Hofit Bata",
        "Amnon Shashua",
    ]
    assert paper.samples.count() == 16
    assert paper.code_links.count() == 1
    seed = json.loads(seed_record_path.read_text())
    assert paper.samples.status_counts() == seed["syntology"]["summary"]
    assert paper.sample_count == 16 and paper.code_link_count == 1
    assert paper.sample_statuses == seed["syntology"]["summary"]
    assert paper.report_claim.startswith("Per-sample execution status")
    link = paper.code_links.get()
    assert paper.frameworks == {link.framework: 1}
    assert link.repository.licence == "MIT" and link.repository.reach_status == "ok"


@pytest.mark.parametrize("container", ["json", "json.gz", "jsonl", "jsonl.gz", "parquet"])
def test_every_container_imports_the_same_papers(tmp_path, container):
    path = write(tmp_path / f"papers.{container}", PAPERS, container)
    status, _, err = run_import(path)
    assert status == 0, err
    paper = Paper.objects.get(slug="attention-is-all-you-need")
    assert paper.arxiv_id == "1706.03762"
    assert paper.abstract == "The dominant sequence transduction models\nare based on recurrence."
    assert list(paper.authorships.values_list("author__name", flat=True)) == [
        "Ashish Vaswani",
        "Noam Shazeer",
        "Niki Parmar",
    ]
    assert [t.task.name for t in paper.task_links.all()] == [
        "Machine Translation",
        "Constituency Parsing",
    ]
    assert Paper.objects.get(slug="nystromformer").title.startswith("Nyström")


@pytest.mark.parametrize("container", ["json.gz", "jsonl", "parquet"])
def test_every_kind_imports_from_other_containers(tmp_path, container, seed_record_path):
    files = [
        write(tmp_path / f"{name}.{container}", records, container)
        for name, records in [
            ("links", LINKS),
            ("methods", METHODS),
            ("datasets", DATASETS),
            ("evaluation-tables", EVALUATIONS),
            ("records", [json.loads(seed_record_path.read_text())]),
        ]
    ]
    status, _out, err = run_import(*files)
    assert status == 0, err
    assert CodeLink.objects.count() == 3
    assert Method.objects.filter(slug="multi-head-attention").exists()
    assert Dataset.objects.get(slug="wmt-2014").languages == ["English", "German"]
    assert LeaderboardRow.objects.count() == 2
    assert Sample.objects.count() == 16


def test_each_kind_lands_in_its_models(archive):
    status, _out, err = run_import(*archive.values())
    assert status == 0, err
    # Links: the official flag, the stub paper a link names before any papers file does.
    link = CodeLink.objects.get(repository__url="https://github.com/tensorflow/tensor2tensor")
    assert link.is_official and link.mentioned_in_paper and link.framework == "tf"
    stub = Paper.objects.get(slug="a-paper-only-links-know")
    assert stub.title == "A Paper Only Links Know" and stub.arxiv_id == "2101.00001"
    # The papers dump outranks the link's older title.
    attention = Paper.objects.get(slug="attention-is-all-you-need")
    assert attention.title == "Attention Is All You Need"
    assert attention.code_link_count == 1 and attention.has_official_code
    # Methods: collections, the introducing paper, placeholder year and junk flagged.
    mha = Method.objects.get(slug="multi-head-attention")
    assert mha.introduced_by == attention
    assert mha.year_uncertain and mha.introduced_year == 2000
    assert list(mha.collections.values_list("name", flat=True)) == ["Attention Modules"]
    assert "\r" not in mha.description
    assert Method.objects.get(slug="dhf").hidden
    # Datasets and their tasks.
    wmt = Dataset.objects.get(slug="wmt-2014")
    assert list(wmt.tasks.values_list("name", flat=True)) == ["Machine Translation"]
    # Evaluation tables: a subtask under two parents, rows linked by versioned arXiv URL.
    unsup = Task.objects.get(slug="unsupervised-machine-translation")
    assert set(unsup.parents.values_list("slug", flat=True)) == {
        "machine-translation",
        "constituency-parsing",
    }
    assert TaskEdge.objects.count() == 2
    board = Leaderboard.objects.get(task__slug="machine-translation", dataset__slug="wmt-2014")
    rows = {r.model_name: r for r in board.rows.all()}
    assert rows["Transformer Big"].paper == attention
    assert rows["Transformer Big"].metric_values == {"BLEU score": 28.4}
    assert rows["Unpublished"].paper is None
    assert rows["Unpublished"].paper_url == "https://example.org/paper.pdf"
    assert rows["Unpublished"].metrics == {"BLEU score": "29.1 ± 0.2"}
    assert rows["Unpublished"].metric_values == {"BLEU score": 29.1}
    # Hygiene: a date after the snapshot is kept but flagged.
    future = Paper.objects.get(slug="nystromformer")
    assert str(future.published) == "2031-02-07" and future.date_uncertain
    assert future not in Paper.objects.latest()


def test_second_run_changes_nothing_and_says_so(archive):
    run_import(*archive.values())
    before = db_state()
    status, out, err = run_import(*archive.values())
    assert status == 0, err
    assert "Nothing changed" in out
    lines = {
        line.split()[0]: line.split()[1:] for line in out.splitlines()[2:] if line[:1].isupper()
    }
    assert lines["Paper"][:2] == ["0", "0"]
    assert int(lines["Paper"][2].replace(",", "")) >= 3
    assert db_state() == before


@pytest.mark.parametrize("order", [0, 1, 2])
def test_any_file_order_gives_the_same_database(archive, order, django_db_blocker):
    files = list(archive.values())
    orders = [files, files[::-1], files[2:] + files[:2]]
    run_import(*files)
    expected = db_state()
    call_command("flush", "--no-input", verbosity=0)
    for path in orders[order]:
        status, _, err = run_import(path)
        assert status == 0, err
    assert db_state() == expected


def test_staff_edit_survives_reimport_unless_overwrite_edits(archive):
    run_import(archive["papers"])
    paper = Paper.objects.get(slug="attention-is-all-you-need")
    paper.title = "Attention Is All You Need (corrected by staff)"
    paper.mark_edited()
    paper.save()
    changed = copy.deepcopy(PAPERS)
    changed[0]["title"] = "Attention Is All You Need, v2"
    path = write(archive["papers"].parent / "papers2.json", changed)
    status, out, _ = run_import(path)
    assert status == 0
    paper.refresh_from_db()
    assert paper.title == "Attention Is All You Need (corrected by staff)"
    assert "left alone" in out and " 1 " in out.splitlines()[2]
    run_import(path, overwrite_edits=True)
    paper.refresh_from_db()
    assert paper.title == "Attention Is All You Need, v2"


def test_bad_records_are_reported_precisely_and_the_rest_import(tmp_path):
    bad = [
        *copy.deepcopy(PAPERS),
        {"title": "No identity", "abstract": "x"},
        {
            "paper_url": "https://paperswithcode.com/paper/bad-date",
            "title": "T",
            "date": "2020-13-45",
        },
        {
            "paper_url": "https://paperswithcode.com/paper/bad-authors",
            "title": "T",
            "authors": "A B",
        },
    ]
    path = write(tmp_path / "papers.json", bad)
    errors = tmp_path / "rejects.jsonl"
    status, _out, err = run_import(path, errors=str(errors))
    assert status == 1
    assert (
        f"{path}: record 3: field paper_url: missing, and no arxiv_id or arXiv url_abs to key "
        "the paper by" in err
    )
    assert f"{path}: record 4: field date: not a date (YYYY-MM-DD): '2020-13-45'" in err
    assert f"{path}: record 5: field authors: expected a list, got text" in err
    assert Paper.objects.count() == 2
    rejected = [json.loads(line) for line in errors.read_text().splitlines()]
    assert [r["title"] for r in rejected] == ["No identity", "T", "T"]


def test_json_lines_errors_name_the_line(tmp_path):
    path = tmp_path / "links.jsonl"
    lines = [
        json.dumps(LINKS[0]),
        "",
        "{not json",
        json.dumps({**LINKS[1], "is_official": "maybe"}),
    ]
    path.write_text("\n".join(lines) + "\n")
    status, _, err = run_import(path)
    assert status == 1
    assert f"{path}: record 2 (line 3): field (line): not valid JSON" in err
    assert (
        f"{path}: record 3 (line 4): field is_official: expected true or false, got 'maybe'" in err
    )
    assert CodeLink.objects.count() == 1


def test_record_whose_summary_disagrees_with_its_samples_is_rejected(tmp_path, seed_record_path):
    record = json.loads(seed_record_path.read_text())
    record["syntology"]["summary"]["ran"] = 11
    status, _, err = run_import(write(tmp_path / "r.json", [record]))
    assert status == 1
    assert "field syntology.summary:" in err and "disagrees with the samples" in err
    assert not Paper.objects.exists()


def test_unknown_status_is_kept_verbatim(tmp_path, seed_record_path):
    record = json.loads(seed_record_path.read_text())
    record["syntology"]["samples"][0]["status"] = "timed_out"
    record["syntology"]["summary"] = {
        "timed_out": 1,
        "ran": 9,
        "ran_violates": 1,
        "ran_honours": 1,
        "ran_draft_wrong": 4,
    }
    record["syntology"]["by_repo_kind"]["listed"]["ran"] = 15
    status, _, err = run_import(write(tmp_path / "r.json", [record]))
    assert status == 0, err
    sample = Sample.objects.get(position=0)
    assert sample.status == "timed_out" and sample.status_label == "Timed out"


def test_strict_stops_at_first_bad_record_and_rolls_the_file_back(tmp_path):
    bad = [*copy.deepcopy(PAPERS), {"title": "No identity"}]
    status, _, err = run_import(write(tmp_path / "p.json", bad), strict=True, batch_size=1)
    assert status == 1
    assert "record 3: field paper_url" in err and "--strict" in err
    assert not Paper.objects.exists()


def _bad_deflate_block() -> bytes:
    """A gzip file whose first deflate block has the reserved block type 3."""
    data = bytearray(gzip.compress(json.dumps(PAPERS).encode()))
    data[10] = 0x07  # BFINAL=1, BTYPE=11 (the header is 10 bytes: no name, no extra)
    return bytes(data)


def _bad_gzip_checksum() -> bytes:
    """A gzip file that decompresses whole but whose CRC-32 does not match."""
    data = bytearray(gzip.compress(json.dumps(PAPERS).encode()))
    data[-8] ^= 0xFF
    return bytes(data)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"this is not json", "not JSON"),
        (
            b'[{"paper_url": "https://paperswithcode.com/paper/a", "title": "A"}, {"paper_u',
            "not valid JSON near byte",
        ),
        (
            gzip.compress(
                b'[{"paper_url": "https://paperswithcode.com/paper/a", "title": "A"}]' * 50
            )[:60],
            "cannot decompress",
        ),
        (_bad_deflate_block(), "cannot decompress"),
        (_bad_gzip_checksum(), "cannot decompress"),
        (b'[{"colour": "red"}]', "cannot tell which archive file this is"),
        (b"PAR1garbage", "not a readable Parquet file"),
    ],
)
def test_unreadable_file_exits_2_naming_the_file_and_keeps_nothing(tmp_path, content, message):
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    status, _out, err = run_import(path, batch_size=1000)
    assert status == 2
    assert str(path) in err and message in err
    assert not Paper.objects.exists()


def test_truncated_file_keeps_committed_batches_but_not_the_unfinished_one(tmp_path):
    many = [
        {"paper_url": f"https://paperswithcode.com/paper/p{i}", "title": f"Paper {i}"}
        for i in range(10)
    ]
    text = json.dumps(many)
    path = tmp_path / "p.json"
    path.write_text(text[: text.index("paper/p7")])
    status, _, err = run_import(path, batch_size=3)
    assert status == 2 and "near byte" in err
    assert Paper.objects.count() == 6  # two full batches of three; p6 was unfinished


def test_dry_run_validates_and_counts_but_writes_nothing(archive):
    status, out, err = run_import(*archive.values(), dry_run=True)
    assert status == 0, err
    assert "Dry run: nothing was written." in out
    assert Paper.objects.count() == 0 and Repository.objects.count() == 0


def test_kind_can_be_forced(tmp_path):
    path = write(
        tmp_path / "x.json", [{"paper_url": "https://paperswithcode.com/paper/x", "colour": 1}]
    )
    status, _, _ = run_import(path)
    assert status == 2
    status, _, err = run_import(path, kind="papers")
    assert status == 0, err
    assert Paper.objects.filter(slug="x").exists()


def test_quiet_mode_prints_only_errors(archive, tmp_path):
    status, out, err = run_import(archive["papers"], verbosity=0)
    assert status == 0 and out == "" and err == ""


def test_archive_to_fixture_then_loaddata_equals_import(archive, tmp_path):
    fixture = tmp_path / "archive.json"
    call_command(
        "archive_to_fixture", *map(str, archive.values()), output=str(fixture), verbosity=0
    )
    call_command("loaddata", str(fixture), verbosity=0)
    loaded = db_state()
    call_command("flush", "--no-input", verbosity=0)
    run_import(*archive.values())
    assert db_state() == loaded
    # Into an already loaded database: same end state, no duplicates.
    call_command("loaddata", str(fixture), verbosity=0)
    assert db_state() == loaded


@pytest.mark.realdata
def test_real_methods_dumps_import(django_db_blocker):
    files = [
        realdata("mariaayuso__topic-modeling-on-software/methods.json.gz"),
        realdata("kuefmz__pow_categories/data/pwc/methods.json"),
    ]
    status, _out, err = run_import(*files)
    assert status == 0, err
    assert Method.objects.count() > 2000
    assert (
        Method.objects.filter(name="Nyströmformer").exists()
        or Method.objects.filter(name__contains="ö").exists()
    )


@pytest.mark.realdata
def test_real_evaluation_tables_import_with_rejects_explained():
    files = sorted(realdata("paperswithcode__sota-extractor/data/tasks").glob("*.json"))
    status, _out, err = run_import(*files)
    assert status in (0, 1), err
    for line in err.splitlines():
        assert ": record " in line and ": field " in line, line
    assert LeaderboardRow.objects.count() > 3000
    assert TaskEdge.objects.exists()


@pytest.mark.realdata
def test_real_api_pages_and_derived_datasets_import():
    status, _, err = run_import(
        realdata("codingpot__paperswithcode-go/dummy/paper_list_response.json"),
        realdata("viswavi__datafinder/data/dataset_search_collection.jsonl"),
        realdata("1pha__BayesianActiveLearning/converted/test_dataset.jsonl"),
        kind=None,
    )
    assert status == 0, err
    # The 1pha papers carry no paper URL: each is keyed by its arXiv id.
    assert Paper.objects.count() == 50 + 2625
    assert Dataset.objects.count() > 3000
    assert Author.objects.exists()


def test_a_task_named_twice_is_one_link_and_reimports_unchanged(tmp_path):
    rows = [{**PAPERS[0], "tasks": ["Machine Translation", "Parsing", "machine translation"]}]
    path = write(tmp_path / "p.json", rows)
    run_import(path)
    paper = Paper.objects.get(slug="attention-is-all-you-need")
    assert [t.task.name for t in paper.task_links.all()] == ["Machine Translation", "Parsing"]
    _status, out, _ = run_import(path)
    assert "Nothing changed" in out


def test_demo_data_loads_and_loads_again_without_changes():
    call_command("load_demo", papers=60, verbosity=0)
    assert Sample.objects.values("status").distinct().count() >= 4
    assert LeaderboardRow.objects.exists() and Method.objects.exists()
    before = db_state()
    call_command("load_demo", papers=60, verbosity=0)
    assert db_state() == before


def test_search_index_follows_imported_changes(tmp_path):
    from papers.search import search

    def found(text):
        return search(text, Paper.objects.all()).total

    run_import(write(tmp_path / "p.json", PAPERS))
    assert found("attention ") == 1 and found("vaswani ") == 1
    changed = copy.deepcopy(PAPERS)
    changed[0]["title"] = "Transformers Without Recurrence"
    changed[0]["authors"] = ["Someone Else"]
    run_import(write(tmp_path / "p2.json", changed))
    assert found("attention ") == 0 and found("recurrence transformers ") == 1
    assert found("vaswani ") == 0 and found("someone ") == 1
    # Edits outside an import (the admin) still reach the index.
    paper = Paper.objects.get(slug="attention-is-all-you-need")
    paper.title = "Edited by staff"
    paper.save()
    assert found("staff ") == 1 and found("transformers ") == 0


def test_parsing_in_a_second_process_gives_the_same_messages_and_database(tmp_path):
    """--workers 1 (the default) reads and parses in a forked child: the same rejections,
    in the same order, the same file error at the same place, the same database."""
    many = [
        {"paper_url": f"https://paperswithcode.com/paper/p{i}", "title": f"Paper {i}"}
        for i in range(900)
    ]
    many[10]["date"] = "2020-13-45"
    many[500] = {"title": "No identity"}
    many[700]["paper_url"] = many[3]["paper_url"]  # last one wins, across batches
    text = json.dumps([*copy.deepcopy(PAPERS), *many])
    truncated = tmp_path / "truncated.json"
    truncated.write_text(text[: text.index("paper/p880")])
    links = tmp_path / "links.jsonl"
    links.write_text("\n".join([json.dumps(LINKS[0]), "{not json", json.dumps(LINKS[1])]) + "\n")
    outcomes = []
    for workers in (0, 1):
        call_command("flush", "--no-input", verbosity=0)
        status, out, err = run_import(links, truncated, workers=workers, batch_size=100)
        outcomes.append((status, err, out.split("\n", 1)[1], db_state()))
    assert outcomes[0] == outcomes[1]
    status, err = outcomes[1][:2]
    assert status == 2
    assert f"{links}: record 2 (line 2): field (line): not valid JSON" in err
    assert f"{truncated}: record 13: field date: not a date (YYYY-MM-DD): '2020-13-45'" in err
    assert f"{truncated}: record 503: field paper_url: missing" in err
    assert "not valid JSON near byte" in err
    assert Paper.objects.get(slug="p3").title == "Paper 700"
    # Committed: 2 + 798 valid records of 8 batches (p700 is p3), and the links file's stub;
    # the unfinished batch (p800…p879) is not kept.
    assert Paper.objects.count() == 2 + 797 + 1


def test_an_import_killed_before_its_index_build_leaves_the_build_to_the_next_run(
    tmp_path, monkeypatch
):
    """Into an empty database the full-text index is built once, at the end. An import
    that dies before that leaves the index deferred (committed with its first batch);
    the next import, even of another file, builds it before it returns."""
    from papers.search import index, search

    def found(text):
        return search(text, Paper.objects.all()).total

    def killed():
        raise KeyboardInterrupt("killed before the index build")

    monkeypatch.setattr(index, "build", killed)
    with pytest.raises(KeyboardInterrupt):
        run_import(write(tmp_path / "p.json", PAPERS))
    assert Paper.objects.count() == 2 and index.deferred()
    monkeypatch.undo()

    status, _, err = run_import(write(tmp_path / "links.json", LINKS[1:]))
    assert status == 0, err
    assert not index.deferred()
    assert found("attention ") == 1 and found("vaswani ") == 1
    assert found("nyströmformer ") == 1 and found("only links know ") == 1
    # Kept per batch again: a later change reaches the index at once.
    changed = copy.deepcopy(PAPERS)
    changed[0]["title"] = "Transformers Without Recurrence"
    run_import(write(tmp_path / "p2.json", changed))
    assert found("attention ") == 0 and found("recurrence ") == 1


def test_an_import_into_an_empty_database_defers_the_index_and_builds_it_at_the_end(tmp_path):
    from papers.search import index, search

    seen = []
    real_build = index.build

    def build():
        seen.append((index.deferred(), Paper.objects.count()))
        real_build()

    real_beside = postgres_session.GinBeside

    def beside():  # PostgreSQL: built beside the links file (test_import_postgresql.py)
        seen.append((index.deferred(), Paper.objects.count()))
        return real_beside()

    papers, links = write(tmp_path / "p.json", PAPERS), write(tmp_path / "l.json", LINKS)
    with (
        mock.patch.object(index, "build", build),
        mock.patch.object(postgres_session, "GinBeside", beside),
    ):
        status, _, err = run_import(papers, links)
    assert status == 0, err
    # Once: on SQLite after both files, on PostgreSQL (built beside the links file) after
    # the papers file's two papers, before the links file's stub.
    assert seen == [(True, 2 if connection.vendor == "postgresql" else 3)]
    assert not index.deferred() and search("attention ", Paper.objects.all()).total == 1


@pytest.mark.parametrize("workers", [0, 1])
def test_strict_stop_in_one_file_still_imports_the_next(tmp_path, workers):
    """One parser reads every file in turn: when --strict stops a file early, what it
    had parsed ahead of that file is dropped and the next file imports whole."""
    many = [
        {"paper_url": f"https://paperswithcode.com/paper/p{i}", "title": f"Paper {i}"}
        for i in range(3000)
    ]
    many[20] = {"title": "No identity"}
    first, second = write(tmp_path / "first.json", many), write(tmp_path / "second.json", PAPERS)
    status, _, err = run_import(first, second, strict=True, batch_size=10, workers=workers)
    assert status == 1 and f"{first}: record 21: field paper_url" in err
    assert sorted(Paper.objects.values_list("slug", flat=True)) == [
        "attention-is-all-you-need",
        "nystromformer",
    ]


def _index_definitions() -> dict[str, str]:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'")
        else:
            cursor.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
            )
        return dict(cursor.fetchall())


def test_a_bulk_import_rebuilds_each_index_as_the_migrations_made_it(tmp_path):
    """The deferred indexes come back with the migrations' definitions, not only their
    names: built from the model alone, the newest-first index lost NULLS LAST and every
    "newest first" list sorted the whole papers table."""
    from papers.archive.engines import index_plan

    indexes = index_plan(connection)
    before = _index_definitions()
    status, _, err = run_import(write(tmp_path / "p.json", PAPERS))
    assert status == 0, err
    after = _index_definitions()
    assert after == before
    assert set(indexes.statements()) <= set(after)
    if connection.vendor == "postgresql":
        assert "NULLS LAST" in after["paper_published_idx"]


def test_secondary_indexes_wait_for_the_end_of_a_bulk_import_and_survive_a_kill(
    tmp_path, monkeypatch
):
    """Into an empty database the list tables' secondary indexes are dropped and built
    once at the end; an import killed before that leaves them to the next import."""
    from papers.archive.engines import index_plan

    indexes = index_plan(connection)
    plan = type(indexes)
    seen = []

    def killed(self):
        seen.append(sorted(self.missing()))
        raise KeyboardInterrupt("killed before the index build")

    monkeypatch.setattr(plan, "build", killed)
    with pytest.raises(KeyboardInterrupt):
        run_import(write(tmp_path / "p.json", PAPERS))
    # Every one of them was deferred (and, on PostgreSQL, the list tables' foreign keys).
    assert seen == [sorted([*indexes.statements(), *indexes.foreign_keys()])]
    assert "paperauthor_author_idx" in seen[0] and "paper_arxiv_idx" not in seen[0]
    if connection.vendor == "postgresql":
        assert "papers_paperauthor_paper_id_9a9a2a22_fk_papers_paper_id" in seen[0]
    assert sorted(indexes.missing()) == seen[0]
    monkeypatch.undo()

    status, _, err = run_import(write(tmp_path / "links.json", LINKS))
    assert status == 0, err
    assert indexes.missing() == []
    # A re-import keeps them per batch: nothing is dropped.
    monkeypatch.setattr(plan, "drop", lambda self: seen.append("dropped"))
    run_import(write(tmp_path / "p.json", PAPERS))
    assert seen[1:] == [] and indexes.missing() == []


def test_json_values_go_in_as_the_orm_reads_them_back():
    """papers.db writes JSON columns itself (empty ones without json.dumps)."""
    from papers.db import insert_rows

    values = {"a": {}, "b": [], "c": {"k": [1, "é", None]}, "d": [{}], "e": 0, "f": ""}
    insert_rows(Paper, ["slug", "title", "extra"], [(s, s.upper(), v) for s, v in values.items()])
    stored = dict(Paper.objects.values_list("slug", "extra"))
    assert stored == values
    assert {type(v) for v in stored.values()} == {dict, list, int, str}


def test_the_papers_an_import_touched_come_back_once_each_in_ascending_order():
    """The loader remembers the papers it wrote (for their counts at the end) in a bitmap:
    576,000 ids in 72 KB where a set of ints holds ~33 MB."""
    from papers.archive.write.core import IdSet

    touched = IdSet()
    touched.update([5, 3, 900_000, 3, 0])
    touched.update(range(10, 20))
    assert list(touched) == [0, 3, 5, *range(10, 20), 900_000]
    everything = IdSet()
    everything.update(range(1, 576_001))
    assert len(everything.bits) <= 576_001 // 8 * 2  # grown by doubling at most
    assert sum(1 for _ in everything) == 576_000
