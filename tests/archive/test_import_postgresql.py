"""PostgreSQL's bulk session (papers.archive.engines.postgresql): an import into an empty
database counts the code links ahead (link_counts) and inserts papers with their counts,
and builds the GIN index beside the files that come after the papers (gin_side); neither
may change the end state. The planner's statistics kept in step (statistics), LZ4 for
long values, and the list tables' foreign keys set aside and restored. The vectors
computed ahead are in test_import_vectors.py."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from django.db import connection

from papers.archive.engines import index_plan
from papers.archive.engines.postgresql import session as postgres_session
from papers.archive.engines.postgresql.link_counts import LinkCounts
from papers.archive.write import loader as loader_module
from papers.archive.write.papers import pack, unpack
from papers.models import CodeLink, Paper, PaperAuthor
from papers.search import index as search_index
from papers.search import search
from papers.search.backends.postgresql import GIN_INDEX
from tests.archive.test_import_archive import LINKS as ARCHIVE_LINKS
from tests.archive.test_import_archive import PAPERS as ARCHIVE_PAPERS
from tests.archive_helpers import db_state, run_import, write

pytestmark = pytest.mark.django_db(transaction=True)
# The counts ahead are PostgreSQL's: on SQLite the rewrite they spare costs less.
postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only")

PAPERS = [
    {"paper_url": f"https://paperswithcode.com/paper/p{i}", "title": f"Graph paper {i}"}
    for i in range(40)
]
LINKS = [
    # p0: two repositories, one official, in two frameworks
    {"paper_url": "https://paperswithcode.com/paper/p0", "repo_url": "https://github.com/a/x",
     "is_official": True, "framework": "pytorch"},
    {"paper_url": "https://paperswithcode.com/paper/p0", "repo_url": "https://github.com/a/y",
     "is_official": False, "framework": "tf"},
    # p1: one repository named twice, official only in the first record (the last wins)
    {"paper_url": "https://paperswithcode.com/paper/p1", "repo_url": "https://github.com/b/x",
     "is_official": True},
    {"paper_url": "https://paperswithcode.com/paper/p1", "repo_url": "https://github.com/b/x",
     "is_official": False},
    # a paper only the links file names: a stub
    {"paper_url": "https://paperswithcode.com/paper/stub-only", "paper_title": "Stub graph",
     "repo_url": "https://github.com/c/x", "is_official": "true"},
    # rejected: not an http(s) repository
    {"paper_url": "https://paperswithcode.com/paper/p2", "repo_url": "ftp://example.org/x"},
    *(
        {"paper_url": f"https://paperswithcode.com/paper/p{i}",
         "repo_url": f"https://github.com/many/r{i}", "is_official": i % 2 == 0,
         "framework": ["pytorch", "jax", ""][i % 3]}
        for i in range(3, 30)
    ),
]  # fmt: skip


def _counts() -> dict[str, tuple[int, bool, dict[str, int]]]:
    return {
        p.slug: (p.code_link_count, p.has_official_code, p.frameworks)
        for p in Paper.objects.order_by("slug")
    }


def _true_counts() -> dict[str, tuple[int, bool, dict[str, int]]]:
    out = {}
    for paper in Paper.objects.order_by("slug"):
        links = CodeLink.objects.filter(paper=paper)
        frameworks = Counter(links.exclude(framework="").values_list("framework", flat=True))
        out[paper.slug] = (links.count(), links.filter(is_official=True).exists(), frameworks)
    return out


@pytest.fixture
def rewritten(monkeypatch) -> list[int]:
    """How many papers' counts refresh_counts() rewrote at the end of each import."""
    seen: list[int] = []
    refresh = loader_module.refresh_counts

    def spy(paper_ids):
        seen.append(refresh(paper_ids))
        return seen[-1]

    monkeypatch.setattr(loader_module, "refresh_counts", spy)
    return seen


@pytest.fixture
def forecast_first(monkeypatch):
    """The forecast arrives before the first paper is written (at full scale it arrives
    a few seconds into the papers file)."""

    class Waiting(LinkCounts):
        def __init__(self, *args):
            super().__init__(*args)
            assert self.wait() is not None

    monkeypatch.setattr(postgres_session, "LinkCounts", Waiting)


def _files(tmp_path):
    return write(tmp_path / "papers.json", PAPERS), write(tmp_path / "links.json", LINKS)


@postgresql
def test_papers_are_inserted_with_the_counts_of_the_links_file_that_follows(
    tmp_path, rewritten, forecast_first
):
    status, _, err = run_import(*_files(tmp_path))
    assert status == 1 and "ftp://example.org/x" in err  # the one rejected link
    counts = _counts()
    assert counts == _true_counts()
    assert counts["p0"] == (2, True, {"pytorch": 1, "tf": 1}) and counts["p1"] == (1, False, {})
    assert counts["stub-only"] == (1, True, {}) and counts["p2"] == (0, False, {})
    assert counts["p3"] == (1, False, {"pytorch": 1})
    assert rewritten == [0]  # every paper went in with its final counts


@postgresql
def test_counts_are_right_whatever_the_forecast_said(tmp_path, monkeypatch, rewritten):
    class Wrong(LinkCounts):
        def counts(self):
            return dict.fromkeys((p["paper_url"].rsplit("/", 1)[1] for p in PAPERS), pack(7, True))

    monkeypatch.setattr(postgres_session, "LinkCounts", Wrong)
    run_import(*_files(tmp_path))
    assert _counts() == _true_counts()
    assert rewritten == [41]  # the 40 it got wrong and the stub it did not name


@postgresql
def test_an_import_without_the_forecast_ends_in_the_same_state(tmp_path, monkeypatch):
    run_import(*_files(tmp_path))
    with_forecast = db_state()
    Paper.objects.all().delete()

    class Failed(LinkCounts):
        def __init__(self, paths, kind):
            super().__init__([tmp_path / "missing.json"], kind)  # the child finds nothing

        def counts(self):
            return None

    monkeypatch.setattr(postgres_session, "LinkCounts", Failed)
    run_import(*_files(tmp_path))
    assert db_state() == with_forecast


@postgresql
def test_the_links_are_counted_ahead_only_when_the_database_has_no_papers(tmp_path, monkeypatch):
    started = []

    class Counting(LinkCounts):
        def __init__(self, *args):
            started.append(args)
            super().__init__(*args)

    monkeypatch.setattr(postgres_session, "LinkCounts", Counting)
    files = _files(tmp_path)
    run_import(*files)
    run_import(*files)  # a re-import: papers exist, nothing to forecast
    assert len(started) == 1
    assert _counts() == _true_counts()


def test_the_forecast_counts_each_repository_of_a_paper_once_and_the_last_official_flag(
    tmp_path,
):
    counts = LinkCounts([tmp_path / "missing.json", _files(tmp_path)[1]], None)
    try:
        forecast = counts.wait()
        assert counts.kinds() == [None, "links"]
    finally:
        counts.close()
    assert forecast is not None
    assert unpack(forecast["p0"], counts.shapes) == (2, True, {"pytorch": 1, "tf": 1})
    assert unpack(forecast["p1"], counts.shapes) == (1, False, {})
    assert unpack(forecast["p4"], counts.shapes) == (1, True, {"jax": 1})
    assert forecast["stub-only"] == pack(1, True) and "p2" not in forecast


# --- PostgreSQL: the GIN index built beside the links file ---------------------------


def _gin_valid() -> bool | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%s)",
            [GIN_INDEX],
        )
        row = cursor.fetchone()
    return None if row is None else row[0]


@postgresql
def test_the_gin_index_is_built_beside_the_links_file_and_finds_its_stubs(
    tmp_path, forecast_first
):
    status, out, _ = run_import(*_files(tmp_path))
    assert status == 1
    assert "Search index: built beside the import's last files" in out
    assert _gin_valid() is True and not search_index.deferred()
    # The stub the links file wrote (waiting for the build to end) is in the index.
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        try:
            assert search("stub graph", Paper.objects.all()).total == 1
        finally:
            cursor.execute("RESET enable_seqscan")


@postgresql
def test_no_gin_index_is_built_beside_a_file_before_more_papers(tmp_path, forecast_first):
    papers, links = _files(tmp_path)
    more = write(
        tmp_path / "more.json", [{**PAPERS[0], "paper_url": "https://paperswithcode.com/paper/z"}]
    )
    status, out, _ = run_import(papers, links, more)
    assert status == 1
    assert "Search index: built at the end" in out
    assert _gin_valid() is True


@postgresql
def test_a_failed_build_beside_the_import_is_reported_and_done_again_at_the_end(
    tmp_path, forecast_first, monkeypatch
):
    from papers.archive.engines.postgresql import gin_side

    monkeypatch.setattr(gin_side, "create_gin", lambda cursor: cursor.execute("CREATE INDEX oops"))
    status, out, err = run_import(*_files(tmp_path))
    assert status == 1
    assert "the full-text index built beside the import failed" in err
    assert "Search index: built at the end" in out
    assert _gin_valid() is True
    assert search("stub graph", Paper.objects.all()).total == 1


@postgresql
def test_an_import_stopped_early_stops_the_build_beside_it(tmp_path, forecast_first, monkeypatch):
    """A build still running when the import stops is cancelled, not waited for."""
    from papers.archive.engines.postgresql import gin_side

    # A build that would outlast the assertion below, were it not cancelled.
    sleep = "SELECT pg_sleep(90)"
    monkeypatch.setattr(gin_side, "create_gin", lambda cursor: cursor.execute(sleep))
    builds = []

    class Recorded(gin_side.GinBeside):
        def __init__(self):
            super().__init__()
            builds.append(self)

    class Stop(Exception):
        pass

    def interrupted(self):
        for _ in range(1000):  # until the build has started on its connection
            if builds[0].backend is not None:
                break
            time.sleep(0.01)
        raise Stop

    monkeypatch.setattr(postgres_session, "GinBeside", Recorded)
    monkeypatch.setattr(loader_module.Loader, "finish", interrupted)
    started = time.monotonic()
    with pytest.raises(Stop):
        run_import(*_files(tmp_path))
    assert time.monotonic() - started < 60  # not the 90 s of the build
    assert not builds[0].thread.is_alive()
    assert "cancel" in builds[0].failed
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE query = %s", [sleep])
        assert cursor.fetchone()[0] == 0
    monkeypatch.undo()
    run_import(*_files(tmp_path))  # the next import builds whatever is missing
    assert _gin_valid() is True


def _analyzed(monkeypatch) -> list[tuple[str, bool]]:
    """Record each ANALYZE the importer runs: (table, whole table or key columns only)."""
    from papers.archive.engines.postgresql import statistics

    seen: list[tuple[str, bool]] = []
    real = statistics.Statistics._analyze

    def spy(self, tables, whole):
        seen.extend((table, whole) for table in tables)
        real(self, tables, whole)

    monkeypatch.setattr(statistics.Statistics, "_analyze", spy)
    return seen


def _has_statistics(table: str, column: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_stats WHERE tablename = %s AND attname = %s", [table, column]
        )
        return cursor.fetchone() is not None


@postgresql
def test_an_import_leaves_planner_statistics_of_the_tables_it_filled(tmp_path, monkeypatch):
    """PostgreSQL: without statistics every `paper_id IN (…)` read of a re-import is
    planned as a sequential scan (slower than the first import at full scale)."""
    seen = _analyzed(monkeypatch)
    papers = write(tmp_path / "p.json", ARCHIVE_PAPERS)
    links = write(tmp_path / "l.json", ARCHIVE_LINKS)
    status, _, err = run_import(papers, links)
    assert status == 0, err
    for table in ("papers_paper", "papers_paperauthor", "papers_codelink", "papers_author"):
        assert (table, True) in seen
    assert _has_statistics("papers_paperauthor", "paper_id")
    assert _has_statistics("papers_paper", "search_vector")  # the site's searches too
    seen.clear()
    status, _, _ = run_import(papers, links)
    # No archive table grew, so their statistics stand; the run's own revision row doubles
    # a one-row table, which is analyzed at no cost.
    assert status == 0 and [t for t in seen if t[0] != "papers_revision"] == []


@postgresql
def test_tables_that_double_during_an_import_get_key_statistics_on_the_way(tmp_path, monkeypatch):
    from papers.archive.engines.postgresql import statistics

    monkeypatch.setattr(statistics, "MIN_PAGES", 0)
    seen = _analyzed(monkeypatch)
    many = [
        {"paper_url": f"https://paperswithcode.com/paper/p{i}", "title": f"Paper {i}",
         "abstract": "words " * 200, "authors": [f"Author {i}", f"Author {i + 1}"]}
        for i in range(400)
    ]  # fmt: skip
    status, _, err = run_import(write(tmp_path / "p.json", many), batch_size=50)
    assert status == 0, err
    running = [table for table, whole in seen if not whole]
    # Each table once per doubling of its size (a handful), key columns only.
    assert "papers_paper" in running and "papers_paperauthor" in running
    assert 1 < running.count("papers_paper") <= 6
    assert ("papers_paper", True) in seen[len(running) :]  # and the whole table at the end


@postgresql
def test_an_import_compresses_long_abstracts_with_lz4_and_resets_the_setting(tmp_path):
    """PostgreSQL: the import's own session writes its TOAST values with LZ4 (half the
    CPU of pglz at archive scale); the connection goes back to the server's default."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 'lz4' = ANY(enumvals) FROM pg_settings "
            "WHERE name = 'default_toast_compression'"
        )
        if not cursor.fetchone()[0]:
            pytest.skip("this PostgreSQL was built without LZ4 (the import keeps pglz)")
        cursor.execute("SHOW default_toast_compression")
        default = cursor.fetchone()[0]
    paper = {"paper_url": "https://paperswithcode.com/paper/long", "title": "Long",
             "abstract": "attention transformers scale " * 400}  # fmt: skip
    status, _, err = run_import(write(tmp_path / "p.json", [paper]))
    assert status == 0, err
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_column_compression(abstract) FROM papers_paper")
        assert cursor.fetchone()[0] == "lz4"
        cursor.execute("SHOW default_toast_compression")
        assert cursor.fetchone()[0] == default
    assert Paper.objects.get().abstract == paper["abstract"].strip()


def _foreign_key_definitions() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) || (CASE WHEN convalidated "
            "THEN '' ELSE ' NOT VALID' END) FROM pg_constraint WHERE contype = 'f' "
            "AND connamespace = current_schema()::regnamespace"
        )
        return dict(cursor.fetchall())


@postgresql
def test_a_bulk_import_adds_the_foreign_keys_back_as_the_migrations_made_them(tmp_path):
    """PostgreSQL checks the list tables' foreign keys once at the end of a bulk import
    (not one deferred check per row at every COMMIT) and leaves them as they were."""
    indexes = index_plan(connection)
    before = _foreign_key_definitions()
    assert set(indexes.foreign_keys()) <= set(before)
    status, _, err = run_import(
        write(tmp_path / "p.json", ARCHIVE_PAPERS), write(tmp_path / "l.json", ARCHIVE_LINKS)
    )
    assert status == 0, err
    assert _foreign_key_definitions() == before
    assert (
        "DEFERRABLE INITIALLY DEFERRED"
        in before["papers_codelink_paper_id_3059f648_fk_papers_paper_id"]
    )


@postgresql
def test_rows_orphaned_while_the_foreign_keys_were_away_are_dropped_when_they_return(
    tmp_path,
):
    """A paper deleted while an import had the keys down leaves its author rows pointing
    at nothing; the key would have refused them, so they go, and the key comes back."""
    indexes = index_plan(connection)
    status, _, err = run_import(write(tmp_path / "p.json", ARCHIVE_PAPERS))
    assert status == 0, err
    indexes.drop()
    paper = Paper.objects.get(slug="attention-is-all-you-need")
    authors = PaperAuthor.objects.filter(paper=paper).count()
    total = PaperAuthor.objects.count()
    with connection.cursor() as cursor:  # what a delete racing the import leaves behind
        cursor.execute("DELETE FROM papers_paper WHERE id = %s", [paper.id])
    assert authors and PaperAuthor.objects.count() == total
    indexes.build()
    assert indexes.missing() == []
    assert PaperAuthor.objects.count() == total - authors
    assert not PaperAuthor.objects.filter(paper_id=paper.id).exists()


@postgresql
def test_an_import_writes_without_waiting_for_commits_and_resets_its_settings(
    tmp_path, monkeypatch
):
    """The import's session commits without waiting for the WAL flush and has the trigger
    keep the vectors it gives; the connection goes back to the server's defaults."""
    from papers.archive.engines import session_for

    assert type(session_for(connection, loader_module.Loader(), dry_run=False, report=print)) is (
        postgres_session.PostgresBulkSession
    )
    names = ("synchronous_commit", "cwp.search_vectors_given")

    def settings() -> list[str | None]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT " + ", ".join(["current_setting(%s, true)"] * 2), names)
            return list(cursor.fetchone())

    before, during = settings(), []
    real = postgres_session.PostgresBulkSession.begin

    def begin(self, *args):
        during.append(settings())
        real(self, *args)

    monkeypatch.setattr(postgres_session.PostgresBulkSession, "begin", begin)
    status, _, err = run_import(write(tmp_path / "p.json", ARCHIVE_PAPERS))
    assert status == 0, err
    assert during == [["off", "on"]]
    after = settings()
    # RESET leaves a custom setting defined but empty: the trigger reads it as not "on".
    assert after[0] == before[0] and after[1] != "on"
