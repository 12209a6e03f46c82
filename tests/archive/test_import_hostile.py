"""import_archive on hostile files: whatever a file holds, a bad record is one reject
naming it and the rest import; memory stays bounded by the record limits."""

from __future__ import annotations

import gzip
import json
import re
import tracemalloc
import xml.etree.ElementTree as ET

import pytest

from papers.archive.read import readers
from papers.models import Author, Method, Paper
from tests.archive_helpers import run_import, write

pytestmark = pytest.mark.django_db(transaction=True)


def _paper(slug: str, **fields) -> dict:
    return {"paper_url": f"https://paperswithcode.com/paper/{slug}", "title": slug, **fields}


CONTAINERS = ["json", "json.gz", "jsonl", "jsonl.gz", "parquet"]


@pytest.mark.parametrize("container", CONTAINERS)
def test_a_lone_surrogate_rejects_its_record_in_every_container(tmp_path, container):
    """`"\\ud800"` is valid JSON but not Unicode: it aborted a JSON Lines import with a
    traceback (and every file after it) and became "?" in a JSON array. It is a reject
    of that record, naming the field, whatever the container."""
    records = [  # the same keys in each (a Parquet table's columns are the first row's)
        _paper("before", authors=["Alan Turing"]),
        _paper("broken", authors=["Ada \ud800 Lovelace"]),
        _paper("after", authors=["Grace Hopper"]),
    ]
    path = write(tmp_path / f"papers.{container}", records, container)
    rejects = tmp_path / "rejects.jsonl"
    status, _, err = run_import(path, errors=str(rejects))
    assert status == 1, err
    line = " (line 2)" if container.startswith("jsonl") else ""
    assert f"{path}: record 2{line}: field authors[0]: a lone surrogate" in err, err
    assert sorted(Paper.objects.values_list("slug", flat=True)) == ["after", "before"]
    assert not Author.objects.filter(name__contains="?").exists()
    assert "broken" in rejects.read_text()


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("container", ["json", "jsonl"])
def test_deep_nesting_is_rejected_with_its_record_number(tmp_path, container):
    """A record nested deeper than MAX_DEPTH levels is a reject; the reader never builds
    it (10,000 levels of one-character arrays grew the reader by a quarter gigabyte)."""
    good = [json.dumps(_paper("before")), json.dumps(_paper("after"))]
    deep = '{"paper_url": "https://paperswithcode.com/paper/deep", "extra": ' + _nested(10_000)
    records = [good[0], deep + "}", good[1]]
    path = tmp_path / f"papers.{container}"
    if container == "json":
        path.write_text("[" + ",\n".join(records) + "]")
    else:
        path.write_text("\n".join(records) + "\n")
    tracemalloc.start()
    status, _, err = run_import(path, workers=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert status == 1, err
    assert f"record 2{' (line 2)' if container == 'jsonl' else ''}: field (record): " in err
    assert f"nested deeper than {readers.MAX_DEPTH} levels" in err
    assert sorted(Paper.objects.values_list("slug", flat=True)) == ["after", "before"]
    assert peak < 30 * 2**20, f"{peak / 2**20:.0f} MB"


def test_a_file_that_is_all_brackets_is_rejected_in_constant_memory(tmp_path):
    path = tmp_path / "nested.json"
    path.write_text("[" + _nested(200_000) + "]")  # 400 KB that a naive reader grows to gigabytes
    tracemalloc.start()
    items = list(readers.ArchiveReader(path).items())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(items) == 1 and readers.unparseable(items[0].data) is not None
    assert "nested deeper than" in readers.unparseable(items[0].data).reason
    assert peak < 30 * 2**20, f"{peak / 2**20:.0f} MB"


@pytest.mark.parametrize("container", ["json", "json.gz", "jsonl"])
def test_a_record_past_the_size_limit_is_rejected_without_being_read_whole(tmp_path, container):
    """A 100 MB abstract: the reader skips the record (MAX_RECORD_BYTES, 16 MB) in
    constant memory and goes on with the next."""
    huge = json.dumps(_paper("huge", abstract="x" * (100 * 2**20)))
    lines = [json.dumps(_paper("before")), huge, json.dumps(_paper("after"))]
    body = (
        ("[" + ",".join(lines) + "]")
        if container.startswith("json.") or container == "json"
        else "\n".join(lines)
    )
    data = body.encode()
    path = tmp_path / f"papers.{container}"
    path.write_bytes(gzip.compress(data, 1) if container.endswith(".gz") else data)
    del body, data, huge, lines
    tracemalloc.start()
    items = list(readers.ArchiveReader(path).items())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [item.number for item in items] == [1, 2, 3]
    rejected = readers.unparseable(items[1].data)
    assert rejected is not None and "larger than 16 MB" in rejected.reason
    assert [items[0].data["title"], items[2].data["title"]] == ["before", "after"]
    assert peak < 60 * 2**20, f"{peak / 2**20:.0f} MB"


def test_text_past_its_cap_is_a_reject_and_real_texts_fit(tmp_path):
    """Each text field is capped (TEXT_MAX_CHARS, far above the longest real abstract
    and description): a 100 MB abstract breaks PostgreSQL's search vector and SQLite's
    snippets."""
    from papers.archive.read.normalise import TEXT_MAX_CHARS

    records = [
        _paper("long-enough", abstract="word " * (TEXT_MAX_CHARS // 5)),
        _paper("too-long", abstract="x" * (TEXT_MAX_CHARS + 1)),
    ]
    status, _, err = run_import(write(tmp_path / "papers.json", records))
    assert status == 1
    assert f"record 2: field abstract: longer than {TEXT_MAX_CHARS:,} characters" in err
    assert list(Paper.objects.values_list("slug", flat=True)) == ["long-enough"]
    methods = [{"name": "Long", "description": "d" * (TEXT_MAX_CHARS + 5)}]
    status, _, err = run_import(write(tmp_path / "methods.json", methods), kind="methods")
    assert status == 1 and "field description: longer than" in err
    assert not Method.objects.exists()


def test_control_characters_are_stripped_at_import_except_tab_and_newline(tmp_path):
    records = [
        _paper(
            "controls",
            title="Bell\x07 and\x01 escape\x1b[31m",
            abstract="line one\nline\ttwo\x0b\x0c end\x1f",
            authors=["Ada\x00 Lovelace\x02"],
        )
    ]
    status, _, err = run_import(write(tmp_path / "papers.json", records))
    assert status == 0, err
    paper = Paper.objects.get()
    assert paper.title == "Bell and escape[31m"
    assert paper.abstract == "line one\nline\ttwo end"
    assert paper.author_names == "Ada Lovelace"


def test_feeds_survive_control_characters_already_stored(client):
    """Rows written before imports cleaned text: a control character in a title made
    every feed that listed it a 500 (XML 1.0 has no way to write it)."""
    Paper.objects.create(
        slug="stored", title="Stored\x01 title", abstract="Abs\x1ftract", published="2020-01-01"
    )
    response = client.get("/feeds/latest.atom")
    assert response.status_code == 200
    feed = ET.fromstring(response.content)
    titles = [e.text for e in feed.iter("{http://www.w3.org/2005/Atom}title")]
    assert "Stored title" in titles


def test_a_nul_anywhere_in_a_record_is_dropped_and_the_import_goes_on(tmp_path, seed_record_path):
    """PostgreSQL stores no NUL character, in text or in JSON: one in a record's metadata
    stopped the whole run. It is dropped, as from text fields."""
    record = json.loads(seed_record_path.read_text())
    record["arxiv_metadata"] = {"comment": "12 pages\u0000", "a\u0000b": 1}
    evaluations = [
        {
            "task": "Nul Task",
            "datasets": [
                {
                    "dataset": "Nul Set",
                    "sota": {
                        "metrics": ["Top-1"],
                        "rows": [{"model_name": "M", "metrics": {"Top-1\u0000": "1.0"}}],
                    },
                }
            ],
        }
    ]
    files = [
        write(tmp_path / "records.json", [record]),
        write(tmp_path / "evaluation-tables.jsonl", evaluations, "jsonl"),
    ]
    status, _, err = run_import(*files)
    assert status == 0, err
    paper = Paper.objects.get()
    assert paper.arxiv_metadata == {"comment": "12 pages", "ab": 1}
    from papers.models import LeaderboardRow

    assert LeaderboardRow.objects.get().metrics == {"Top-1": "1.0"}


def test_an_api_page_rejects_only_its_bad_result(tmp_path):
    """A page of the API's shape ({"count", "results"}) is checked once, each result on
    its own: the bad one is a reject, the others import."""
    page = {
        "count": 3,
        "results": [
            {"id": "good-one", "title": "Good one", "abstract": "", "published": None},
            {"id": "bad-one", "title": "Bad \ud800 one", "abstract": "", "published": None},
            {"id": "good-two", "title": "Good two", "abstract": "", "published": None},
        ],
    }
    path = tmp_path / "page.json"
    path.write_text(json.dumps(page, indent=2))
    status, _, err = run_import(path, kind="papers")
    assert status == 1, err
    assert f"{path}: record 2: field title: a lone surrogate" in err
    assert sorted(Paper.objects.values_list("slug", flat=True)) == ["good-one", "good-two"]


# --- numbers JSON cannot hold, bytes that are not UTF-8, keys that are not keys -------------


def _board(dataset: str, values: list) -> dict:
    return {
        "dataset": dataset,
        "sota": {
            "metrics": ["Accuracy"],
            "rows": [
                {"model_name": f"Net-{i}", "paper_date": f"{2015 + i}-01-01",
                 "metrics": {"Accuracy": value}}
                for i, value in enumerate(values)
            ],
        },
    }  # fmt: skip


HUGE = "9" * 401  # digits: a JSON integer past every float, and past Python's own limit


@pytest.mark.parametrize("container", ["json", "jsonl"])
def test_numbers_json_cannot_hold_are_kept_as_text_and_cost_no_board(tmp_path, container):
    """NaN, Infinity, 1e400 and a 401-digit integer ended the import with a traceback and
    lost the good boards around them and the next file. They are values kept as written,
    unranked; the boards around them and the next file import."""
    from papers.models import Leaderboard, LeaderboardRow

    boards = [
        _board("Before", ["70.1"]),
        _board("Odd", ["71.0", "@NAN@", "@INF@", "1e400", "9" * 400, "@HUGE@", "72.5"]),
        _board("After", ["69.0"]),
    ]
    text = json.dumps([{"task": "Image Classification", "datasets": boards}])
    text = text.replace('"@NAN@"', "NaN").replace('"@INF@"', "-Infinity")
    text = text.replace('"@HUGE@"', HUGE)
    first = tmp_path / f"tables.{container}"
    first.write_text(text if container == "json" else text[1:-1] + "\n")  # one line
    second = write(tmp_path / "next.json", [{"task": "Speech", "datasets": [_board("X", [1])]}])
    status, out, err = run_import(first, second, kind="evaluation-tables")
    assert status == 0, err
    assert set(Leaderboard.objects.values_list("dataset__name", flat=True)) == {
        "Before", "Odd", "After", "X"
    }  # fmt: skip
    odd = {
        r.model_name: r for r in LeaderboardRow.objects.filter(leaderboard__dataset__name="Odd")
    }
    given = [odd[f"Net-{i}"].metrics["Accuracy"] for i in range(7)]
    assert given == ["71.0", "NaN", "-Infinity", "1e400", "9" * 400, HUGE, "72.5"]
    values = [odd[f"Net-{i}"].metric_values["Accuracy"] for i in range(7)]
    assert values == [71.0, None, None, None, None, None, 72.5]
    assert "5 values unranked" in out


def test_a_poison_board_ranks_charts_and_lets_every_later_import_run(tmp_path, client):
    """A dated board holding 1e308 and -1e308 drew NaN coordinates, crashed the ranking
    refresh at the end of the import, and every import and refresh after it."""
    from django.core.management import call_command

    from papers.models import Leaderboard, MetricRanking

    path = write(
        tmp_path / "poison.json",
        [{"task": "Image Classification", "datasets": [_board("Poison", ["1e308", "-1e308", 5])]}],
    )
    status, _, err = run_import(path, kind="evaluation-tables")
    assert status == 0, err
    board = Leaderboard.objects.get()
    chart = MetricRanking.objects.get(leaderboard=board).chart
    assert chart is not None and "nan" not in json.dumps(chart).lower()
    page = client.get(board.get_absolute_url()).content.decode()
    assert not re.search(r"(?<![a-z])nan(?![a-z])", page.lower())  # "M79.7,nanH79.7" before
    call_command("refresh_browse_counts", verbosity=0)
    again = write(tmp_path / "again.json", [{"task": "Speech", "datasets": [_board("X", [1])]}])
    assert run_import(again, kind="evaluation-tables")[0] == 0
    assert MetricRanking.objects.count() == 2


@pytest.mark.parametrize("bad", [b"\xff", b"\xed\xa0\x80"], ids=["0xff", "encoded-surrogate"])
def test_bytes_that_are_not_utf8_reject_their_line_and_the_rest_imports(tmp_path, bad):
    """A raw 0xFF or an encoded surrogate at line 5,001 of a 10,001-line file failed the
    whole file (exit 2) after 4,000 records. In JSON Lines a line is a record."""
    lines = [json.dumps(_paper(f"p{i}")).encode() for i in range(10_001)]
    lines[5_000] = lines[5_000].replace(b'"p5000"', b'"p5000' + bad + b'"')
    path = tmp_path / "papers.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    rejects = tmp_path / "rejects.jsonl"
    status, _, err = run_import(path, errors=str(rejects))
    assert status == 1, err
    assert f"{path}: record 5001 (line 5001): field (record): not UTF-8 text: the byte 0x" in err
    assert Paper.objects.count() == 10_000
    assert bad in rejects.read_bytes()  # the line as it came


def test_a_json_array_with_bytes_that_are_not_utf8_rejects_that_record(tmp_path):
    body = json.dumps([_paper("before"), _paper("broken"), _paper("after")]).encode()
    path = tmp_path / "papers.json"
    path.write_bytes(body.replace(b'"broken"', b'"bro\xffken"'))
    status, _, err = run_import(path)
    assert status == 1 and "record 2: field (record): not UTF-8 text" in err, err
    assert sorted(Paper.objects.values_list("slug", flat=True)) == ["after", "before"]


def test_noncharacters_are_dropped_at_import_as_control_characters_are(tmp_path):
    title = "Deep\ufffe Nets\uffff for \U0001fffeall\ufdd0"
    path = write(tmp_path / "papers.json", [_paper("nonchar", title=title)])
    assert run_import(path)[0] == 0
    assert Paper.objects.get().title == "Deep Nets for all"


@pytest.mark.parametrize("url", ["javascript:alert(1)", "N/A", "see the paper", "TBD"])
def test_a_paper_url_that_is_no_paper_url_makes_no_paper(tmp_path, url):
    """A row whose paper_url was javascript:alert(…) became a paper with that id in the
    API; 17 rows sharing a paper_url that was no URL became one stub paper."""
    from papers.models import LeaderboardRow

    rows = [
        {"model_name": f"Net-{i}", "paper_title": f"Title {i}", "paper_url": url,
         "metrics": {"Accuracy": 70 + i}}
        for i in range(17)
    ]  # fmt: skip
    board = {"dataset": "ImageNet", "sota": {"metrics": ["Accuracy"], "rows": rows}}
    path = write(tmp_path / "tables.json", [{"task": "Image Classification", "datasets": [board]}])
    assert run_import(path, kind="evaluation-tables")[0] == 0
    assert not Paper.objects.exists()
    assert LeaderboardRow.objects.filter(paper_url=url, paper__isnull=True).count() == 17
