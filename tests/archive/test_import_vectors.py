"""PostgreSQL: search vectors computed on a second connection ahead of the writer
(papers.archive.engines.postgresql.vectors) are exactly the ones the papers table's
trigger computes."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from papers import db as sql
from papers.archive.engines.postgresql import vectors
from papers.archive.write import papers as papers_writer
from papers.models import Paper
from tests.archive_helpers import run_import, write

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only"),
]

# Text that tokenises differently: accents, quotes and backslashes (escaped in the
# vector's text form and again in COPY), LaTeX, line breaks, digits, empty fields.
TEXTS = [
    ("Nyströmformer: a Nyström-based algorithm", "Self-attention's cost is O(n^2)."),
    ("It's \\emph{all} you need", "Uses $\\alpha$-divergence\r\nand 'quoted' words \\\\ here"),
    ("Ünïcödé tïtle 日本語", ""),
    ("", "An abstract with no title, version 2.0, 3,000 samples"),
]


def _papers(n: int) -> list[dict]:
    out = []
    for i in range(n):
        title, abstract = TEXTS[i % len(TEXTS)]
        out.append(
            {
                "paper_url": f"https://paperswithcode.com/paper/p{i}",
                "title": f"{title} {i}" if title else None,
                "abstract": f"{abstract} learning {i}",
                "authors": [f"Author {i % 7}", "Zoë O'Brien"] if i % 3 else [],
            }
        )
    return out


def _mismatched_vectors() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM papers_paper WHERE search_vector IS DISTINCT FROM "
            "papers_search_vector(title, abstract, author_names)"
        )
        return cursor.fetchone()[0]


@pytest.fixture
def given(monkeypatch) -> list[str | None]:
    """Every search vector the loader inserted with a paper's row (None: the trigger's)."""
    seen: list[str | None] = []
    insert = papers_writer.insert_rows

    def spy(model, names, rows, **options):
        rows = list(rows)
        if model is Paper:
            given = bool(options.get("raw"))
            seen.extend(row[-1] if given else None for row in rows)
        return insert(model, names, rows, **options)

    monkeypatch.setattr(papers_writer, "insert_rows", spy)
    return seen


def test_vectors_computed_beside_the_import_are_the_triggers_own(tmp_path, given):
    papers = _papers(1_300)
    # The same paper twice in one batch: the merged row's text is neither record's, so
    # its vector is left to the trigger.
    papers.insert(6, {**papers[5], "title": "A later title", "abstract": None})
    status, _, err = run_import(write(tmp_path / "p.json", papers), batch_size=400)
    assert status == 0, err
    assert Paper.objects.count() == 1_300
    assert _mismatched_vectors() == 0
    assert sum(v is not None for v in given) == 1_299  # all but the merged paper
    assert Paper.objects.get(slug="p5").title == "A later title"
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('cwp.search_vectors_given', true)")
        assert cursor.fetchone()[0] in ("", None)  # reset for the rest of the session


def test_the_trigger_keeps_a_given_vector_only_in_a_session_that_asks(transactional_db):
    rows = [("kept", "Deep nets", "'bogus':1")]
    sql.insert_rows(Paper, ["slug", "title"], rows, raw=("search_vector",))
    assert _mismatched_vectors() == 0  # computed: this session did not ask
    with connection.cursor() as cursor:
        cursor.execute("SET cwp.search_vectors_given = on")
        try:
            sql.insert_rows(Paper, ["slug", "title"], [("given", "Deep nets", "'bogus':1")],
                            raw=("search_vector",))  # fmt: skip
            cursor.execute("SELECT search_vector::text FROM papers_paper WHERE slug = 'given'")
            assert cursor.fetchone()[0] == "'bogus':1"
            cursor.execute("UPDATE papers_paper SET title = 'Shallow nets' WHERE slug = 'given'")
        finally:
            cursor.execute("RESET cwp.search_vectors_given")
    assert _mismatched_vectors() == 0  # an UPDATE of the text always recomputes


def test_an_import_without_its_second_connection_leaves_vectors_to_the_trigger(
    tmp_path, given, monkeypatch
):
    monkeypatch.setattr(vectors, "VECTORS_SQL", "SELECT no_such_function(%s, %s, %s)")
    status, _, err = run_import(write(tmp_path / "p.json", _papers(600)), batch_size=200)
    assert status == 0, err
    assert Paper.objects.count() == 600
    assert given == [None] * 600
    assert _mismatched_vectors() == 0


def test_a_reimport_of_unchanged_papers_computes_no_vectors(tmp_path, monkeypatch):
    path = write(tmp_path / "p.json", _papers(600))
    assert run_import(path, batch_size=200)[0] == 0
    asked: list[int] = []
    compute = vectors._Ahead._vectors

    def spy(self, papers):
        compute(self, papers)
        asked.extend(1 for paper in papers if paper.search is not None)

    monkeypatch.setattr(vectors._Ahead, "_vectors", spy)
    status, _, err = run_import(path, batch_size=200)
    assert status == 0, err
    assert asked == []
    assert _mismatched_vectors() == 0


def test_strict_stop_in_one_file_lets_the_next_file_import_with_its_vectors(tmp_path, given):
    bad = [*_papers(900), {"title": "No identity"}]
    good = [{**paper, "paper_url": paper["paper_url"] + "-b"} for paper in _papers(700)]
    first, second = write(tmp_path / "bad.json", bad), write(tmp_path / "good.json", good)
    status, _, err = run_import(first, second, strict=True, batch_size=200)
    assert status == 1
    assert f"{first}: record 901: field paper_url: missing" in err
    assert Paper.objects.count() == 700
    assert Paper.objects.filter(slug__endswith="-b").count() == 700
    assert _mismatched_vectors() == 0
    assert sum(v is not None for v in given[-700:]) == 700


def test_records_of_other_kinds_are_read_only_a_few_ahead_of_the_writer(monkeypatch):
    """Code links, evaluation tables and execution records carry no vector: the thread
    hands them on in small chunks, so a heavy file is never held far ahead in memory."""
    from papers.archive.read.pipeline import OK

    monkeypatch.setattr(vectors, "QUEUE_CHUNKS", 2)
    read = []

    def events():
        for n in range(1000):
            read.append(n)
            yield (OK, {"record": n})

    stream = vectors.ahead(events(), {"title": "", "abstract": ""}, lambda: False)
    first = next(stream)
    assert first == (OK, {"record": 0})
    # Ahead of the writer at most: the chunk it holds, the queue's, the one being read.
    bound = (vectors.QUEUE_CHUNKS + 2) * vectors.OTHERS
    time.sleep(0.5)  # time enough for the thread to read as far as it may
    assert len(read) <= bound
    assert [e[1]["record"] for e in [first, *stream]] == list(range(1000))
