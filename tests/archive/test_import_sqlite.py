"""SQLite's bulk session (papers.archive.engines.sqlite): a bulk import's full-text index
built beside it (fts_side), its session settings, and no links counted ahead."""

from __future__ import annotations

import shutil
import sqlite3

import pytest
from django.db import connection, transaction

from papers.archive.engines.postgresql import session as postgres_session
from papers.archive.engines.sqlite import fts_side
from papers.models import Paper
from papers.search import search
from tests.archive.test_import_archive import PAPERS
from tests.archive.test_import_postgresql import _counts, _files, _true_counts
from tests.archive_helpers import fts_searches, run_import, write
from tests.servers import manage, production_env

pytestmark = [
    pytest.mark.servers,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="the FTS5 index is SQLite's"),
]


def test_a_bulk_import_builds_the_search_index_beside_it_as_a_rebuild_would(
    tmp_path, small_archive, migrated_sqlite
):
    """Into an empty file database the index is built by a helper process while the
    import writes, and ends up exactly the index a rebuild gives; no scratch file stays."""
    beside, rebuilt = tmp_path / "beside.sqlite3", tmp_path / "rebuilt.sqlite3"
    for path in (beside, rebuilt):
        shutil.copy(migrated_sqlite, path)
    args = ("import_archive", *map(str, small_archive), "--batch-size", "200")
    done = manage(*args, env=production_env(DATABASE_URL=f"sqlite:///{beside}"))
    assert done.returncode == 0, done.stderr
    assert "Search index: built beside the import (0 papers re-indexed at the end)." in done.stdout
    env = production_env(DATABASE_URL=f"sqlite:///{rebuilt}", IMPORT_SIDE_INDEX="false")
    done = manage(*args, env=env)
    assert done.returncode == 0, done.stderr
    assert "Search index: built at the end." in done.stdout

    found = fts_searches(beside)
    assert found == fts_searches(rebuilt)
    assert _segments(beside) == _segments(rebuilt) == 1  # merged: one lookup a word
    assert sum(map(len, found.values())) > 100  # the searches find things
    assert [p.name for p in tmp_path.iterdir() if fts_side.SIDE_SUFFIX in p.name] == []

    # A re-import keeps the index batch by batch, as before.
    done = manage(*args, env=production_env(DATABASE_URL=f"sqlite:///{beside}"))
    assert "Search index: kept up to date batch by batch." in done.stdout


def _segments(path) -> int:
    """How many segments the FTS5 index is kept in (a query reads each)."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(DISTINCT segid) FROM papers_paper_fts_idx").fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_papers_changed_behind_the_helper_are_reindexed_before_its_index_is_copied(tmp_path):
    """Staff edits while the triggers stood aside, a paper deleted, one never sent: the
    writer compares the helper's text with the papers and re-indexes what differs."""
    run_import(write(tmp_path / "p.json", PAPERS))
    first, second = Paper.objects.order_by("id")
    with connection.cursor() as cursor:
        cursor.execute("SELECT sql FROM sqlite_master WHERE name = 'papers_paper_fts'")
        ddl = cursor.fetchone()[0]
    side = tmp_path / "side.sqlite3"
    with sqlite3.connect(side) as db:
        db.execute(fts_side.side_ddl(ddl))
        db.execute(  # the first paper as it was before a staff edit
            "INSERT INTO papers_paper_fts (rowid, title, abstract, author_names) "
            "VALUES (?, 'An old title', ?, ?)",
            [first.id, first.abstract, first.author_names],
        )
        db.execute(  # a paper deleted since
            "INSERT INTO papers_paper_fts (rowid, title, abstract, author_names) "
            "VALUES (99999, 'Deleted paper', '', '')"
        )  # and the second paper was never sent
    with connection.cursor() as cursor:
        cursor.execute("ATTACH DATABASE %s AS fts_side", [str(side)])
    try:
        with transaction.atomic():
            assert fts_side.correct_and_copy(connection, "fts_side") == 3
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DETACH DATABASE fts_side")
    connection.close()

    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO papers_paper_fts(papers_paper_fts) VALUES ('integrity-check')")

    def found(text):
        return search(text, Paper.objects.all()).total

    assert found("attention ") == 1 and found(second.title.split()[0] + " ") >= 1
    assert found("old title ") == 0 and found("deleted ") == 0


def test_a_failing_helper_leaves_the_deferral_for_the_rebuild(tmp_path):
    """If the helper fails, finish() says so and copies nothing; close() cleans up."""
    main = tmp_path / "main.sqlite3"
    sqlite3.connect(main).close()
    side = fts_side.SideIndex(str(main), "CREATE VIRTUAL TABLE broken USING no_such_module()")
    ended = []
    assert side.finish(None, lambda: ended.append(True)) is False
    assert "no such module" in side.failed and ended == []
    side.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["main.sqlite3"]


@pytest.mark.django_db(transaction=True)
def test_the_import_rebuilds_the_index_when_the_helper_fails(tmp_path, monkeypatch):
    from papers.archive.engines.sqlite import session as sqlite_session

    def broken_helper(connection):
        return fts_side.SideIndex(str(tmp_path / "x.sqlite3"), "CREATE TABLE (")

    monkeypatch.setattr(sqlite_session.SideIndex, "start", broken_helper)
    status, out, err = run_import(write(tmp_path / "p.json", PAPERS))
    assert status == 0
    assert "the full-text index built beside the import failed" in err
    assert "Search index: built at the end." in out
    assert search("attention ", Paper.objects.all()).total == 1


@pytest.mark.parametrize(
    "ddl, expected",
    [
        (
            "CREATE VIRTUAL TABLE t USING fts5(\n a, b,\n content='papers_paper', "
            "content_rowid='id',\n tokenize='porter unicode61', prefix='2 3'\n)",
            "CREATE VIRTUAL TABLE t USING fts5(\n a, b,\n tokenize='porter unicode61', "
            "prefix='2 3'\n)",
        ),
        (
            "CREATE VIRTUAL TABLE t USING fts5(a, b, content='c', content_rowid='id')",
            "CREATE VIRTUAL TABLE t USING fts5(a, b)",
        ),
    ],
)
def test_the_helpers_table_is_the_main_one_storing_its_own_text(ddl, expected):
    assert fts_side.side_ddl(ddl) == expected


@pytest.mark.django_db(transaction=True)
def test_sqlite_imports_count_no_links_ahead(tmp_path, monkeypatch):
    started = []
    monkeypatch.setattr(postgres_session, "LinkCounts", lambda *args: started.append(args))
    run_import(*_files(tmp_path))
    assert started == [] and _counts() == _true_counts()


def test_the_helpers_id_lists_are_as_long_as_the_writers():
    """The helper imports only the standard library, so it keeps its own copy of the
    IN (...) list length: the one papers.db gives every other writer."""
    from papers.db import CHUNK

    assert fts_side.CHUNK == CHUNK


@pytest.mark.django_db(transaction=True)
def test_an_import_checkpoints_rarely_and_gives_the_connection_back_as_it_was(
    tmp_path, monkeypatch
):
    from papers.archive.engines import session_for
    from papers.archive.engines.sqlite.session import IMPORT_CHECKPOINT_PAGES, SQLiteBulkSession
    from papers.archive.write.loader import Loader

    assert type(session_for(connection, Loader(), dry_run=False, report=print)) is (
        SQLiteBulkSession
    )
    seen = []
    real = SQLiteBulkSession.begin

    def begin(self, *args):
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_autocheckpoint")
            seen.append(cursor.fetchone()[0])
        real(self, *args)

    monkeypatch.setattr(SQLiteBulkSession, "begin", begin)
    status, _, err = run_import(write(tmp_path / "p.json", PAPERS))
    assert status == 0, err
    assert seen == [IMPORT_CHECKPOINT_PAGES]
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        assert cursor.fetchone()[0] == 1000  # SQLite's default


def _planner_statistics() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if cursor.fetchone() is None:
            return set()
        cursor.execute("SELECT DISTINCT tbl FROM sqlite_stat1")
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.django_db(transaction=True)
def test_an_import_that_grows_the_archive_leaves_the_planner_its_statistics(tmp_path):
    """Search at archive scale reads its matches about twice as fast with the planner's
    statistics: an import that grew the papers table by more than a tenth analyzes; one
    that changes a few papers of a large table leaves the statistics as they were."""
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS sqlite_stat1")
    assert run_import(write(tmp_path / "papers.json", PAPERS))[0] == 0
    assert "papers_paper" in _planner_statistics()
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE sqlite_stat1")
    changed = [{**PAPERS[0], "title": "A new title"}]
    assert run_import(write(tmp_path / "again.json", changed))[0] == 0
    assert _planner_statistics() == set()


@pytest.mark.django_db(transaction=True)
def test_the_imports_last_steps_run_with_a_small_page_cache_and_give_memory_back(
    tmp_path, monkeypatch
):
    """The batches' large page cache is shrunk before the loader's last steps (counts and
    rankings read whole tables), and the freed pages are handed back to the system: an
    import's resident size peaked there."""
    from papers.archive import memory
    from papers.archive.engines.sqlite import session
    from papers.archive.engines.sqlite.indexes import BUILD_CACHE_KIB

    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        before = cursor.fetchone()[0]
    seen = []
    finish = session.SQLiteBulkSession.before_finish

    def spy(self):
        finish(self)
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA cache_size")
            seen.append(cursor.fetchone()[0])

    released = []
    monkeypatch.setattr(session.SQLiteBulkSession, "before_finish", spy)
    monkeypatch.setattr(memory, "_MALLOC_TRIM", lambda pad: released.append(pad))
    status, _, err = run_import(write(tmp_path / "p.json", PAPERS))
    assert status == 0, err
    assert seen == [-BUILD_CACHE_KIB]
    assert released == [0]
    with connection.cursor() as cursor:  # and the connection is left as it was found
        cursor.execute("PRAGMA cache_size")
        assert cursor.fetchone()[0] == before
