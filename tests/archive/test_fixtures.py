"""Fixtures with natural keys: the seed loads (twice), and dumpdata → flush → loaddata is exact."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from papers.models import Author, CodeLink, Paper, PaperAuthor, Sample
from tests.archive_helpers import db_state, run_import

pytestmark = pytest.mark.django_db(transaction=True)


def test_seed_fixture_loads_into_an_empty_database_and_again_without_duplicates():
    call_command("loaddata", "seed", verbosity=0)
    first = db_state()
    assert Paper.objects.count() == 1
    assert Sample.objects.count() == 16
    assert PaperAuthor.objects.count() == 5 and Author.objects.count() == 5
    assert CodeLink.objects.count() == 1
    call_command("loaddata", "seed", verbosity=0)
    assert db_state() == first


def test_seed_fixture_equals_importing_the_seed_record(seed_record_path):
    call_command("loaddata", "seed", verbosity=0)
    loaded = db_state()
    call_command("flush", "--no-input", verbosity=0)
    run_import(seed_record_path)
    assert db_state() == loaded


def test_dumpdata_flush_loaddata_gives_the_same_database(tmp_path, seed_record_path):
    from tests.archive.test_import_archive import DATASETS, EVALUATIONS, LINKS, METHODS, PAPERS
    from tests.archive_helpers import write

    files = [
        write(tmp_path / f"{name}.json", records)
        for name, records in [
            ("papers", PAPERS),
            ("links", LINKS),
            ("methods", METHODS),
            ("datasets", DATASETS),
            ("evaluation-tables", EVALUATIONS),
        ]
    ]
    run_import(seed_record_path, *files)
    before = db_state()
    dump = tmp_path / "dump.json"
    call_command(
        "dumpdata",
        "papers",
        natural_foreign=True,
        natural_primary=True,
        output=str(dump),
        verbosity=0,
    )
    call_command("flush", "--no-input", verbosity=0)
    assert not Paper.objects.exists()
    call_command("loaddata", str(dump), verbosity=0)
    assert db_state() == before
