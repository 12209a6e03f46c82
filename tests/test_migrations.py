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
