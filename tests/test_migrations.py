"""Guard: the models and the migrations agree."""

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_pending_migrations(capsys):
    try:
        call_command("makemigrations", "--check", "--dry-run", verbosity=1)
    except SystemExit:
        pytest.fail(f"models changed without a migration:\n{capsys.readouterr().out}")


@pytest.mark.django_db
def test_the_search_index_triggers_survive_every_migration():
    """SQLite rebuilds a table to add a NOT NULL column, and a rebuilt papers_paper would
    lose the full-text triggers: search would silently stop following edits."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                "SELECT name FROM sqlite_master "
                "WHERE type = 'trigger' AND tbl_name = 'papers_paper'"
            )
            expected = {
                "papers_paper_fts_insert",
                "papers_paper_fts_delete",
                "papers_paper_fts_update",
            }
        else:
            cursor.execute(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = 'papers_paper'::regclass "
                "AND NOT tgisinternal"
            )
            expected = {"papers_paper_search_vector"}
        assert {row[0] for row in cursor.fetchall()} >= expected


@pytest.mark.django_db(transaction=True)
def test_migrating_an_existing_archive_fills_each_papers_frameworks_and_statuses():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from papers.models import Paper

    before = [("papers", "0007_search_vector_given")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    paper = old.get_model("papers", "Paper").objects.create(slug="p", title="P")
    bare = old.get_model("papers", "Paper").objects.create(slug="bare", title="Bare")
    Repository = old.get_model("papers", "Repository")
    CodeLink = old.get_model("papers", "CodeLink")
    for i, framework in enumerate(["pytorch", "pytorch", "", 'we"ird']):
        repository = Repository.objects.create(url=f"https://github.com/o/r{i}")
        CodeLink.objects.create(paper=paper, repository=repository, framework=framework)
    Sample = old.get_model("papers", "Sample")
    for i, status in enumerate(["ran", "ran", "timed_out"]):
        Sample.objects.create(paper=paper, position=i, repo="o/r", status=status)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    paper = Paper.objects.get(slug="p")
    assert paper.frameworks == {"pytorch": 2, 'we"ird': 1}
    assert paper.sample_statuses == {"ran": 2, "timed_out": 1}
    bare = Paper.objects.get(pk=bare.pk)
    assert (bare.frameworks, bare.sample_statuses) == ({}, {})


@pytest.mark.django_db(transaction=True)
def test_migrating_an_sqlite_archive_merges_its_search_index():
    """An index built before imports merged it (papers.search.backends.sqlite.OPTIMIZE)
    is merged once by migration 0028, its matches the same."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from papers.models import Paper
    from papers.search import search

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's FTS5 index")

    def segments() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(DISTINCT segid) FROM papers_paper_fts_idx")
            return cursor.fetchone()[0]

    before = [("papers", "0027_search_window_sampled")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    Old = executor.loader.project_state(before).apps.get_model("papers", "Paper")
    for i in range(3):  # each commit writes a segment of its own
        Old.objects.create(slug=f"p{i}", title=f"Graph {i}", abstract="Merged segments.")
    assert segments() > 1

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert segments() == 1
    assert search("graph ", Paper.objects.all()).total == 3
