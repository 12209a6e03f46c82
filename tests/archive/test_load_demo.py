"""manage.py load_demo: the demo archive loads into an empty database or over itself, and
never into an archive someone imported unless asked to."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from papers.models import Paper
from tests.archive_helpers import run_import, write

pytestmark = pytest.mark.django_db(transaction=True)

IMPORTED = [
    {"paper_url": "https://paperswithcode.com/paper/a-real-paper", "title": "A real paper"},
    {"paper_url": "https://paperswithcode.com/paper/another-one", "title": "Another one"},
]


def test_the_demo_is_refused_into_a_database_that_holds_imported_papers(tmp_path):
    assert run_import(write(tmp_path / "papers.json", IMPORTED))[0] == 0
    with pytest.raises(CommandError) as refused:
        call_command("load_demo", papers=60, verbosity=0)
    message = str(refused.value)
    assert "2 papers the demo did not make" in message and "a-real-paper" in message
    assert "--force" in message and refused.value.returncode == 3  # `make run` serves on
    assert sorted(Paper.objects.values_list("slug", flat=True)) == ["a-real-paper", "another-one"]


def test_force_loads_the_demo_beside_imported_papers(tmp_path):
    assert run_import(write(tmp_path / "papers.json", IMPORTED))[0] == 0
    call_command("load_demo", papers=60, force=True, verbosity=0)
    assert Paper.objects.count() > 60
    assert Paper.objects.filter(slug="a-real-paper").exists()
    assert Paper.objects.filter(slug="limits-to-depth-efficiencies-of-self").exists()  # the seed


def test_the_demo_loads_over_itself_and_its_seed_record(tmp_path):
    call_command("load_demo", papers=60, verbosity=0)
    before = Paper.objects.count()
    call_command("load_demo", papers=60, verbosity=0)  # its own papers are no reason to stop
    assert Paper.objects.count() == before
    # A paper added since is one it did not make.
    Paper.objects.create(slug="added-in-the-admin", title="Added in the admin")
    with pytest.raises(CommandError, match="1 paper the demo did not make"):
        call_command("load_demo", papers=60, verbosity=0)
