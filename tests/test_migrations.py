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
