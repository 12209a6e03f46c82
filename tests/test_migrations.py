"""Guard: the models and the migrations agree."""

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_pending_migrations(capsys):
    try:
        call_command("makemigrations", "--check", "--dry-run", verbosity=1)
    except SystemExit:
        pytest.fail(f"models changed without a migration:\n{capsys.readouterr().out}")
