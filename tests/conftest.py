"""Shared fixtures. The suite runs on whichever engine DATABASE_URL names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.db import connection

REALDATA = Path(__file__).resolve().parent.parent.parent / "shared" / "realdata"
SEEDS = Path(__file__).resolve().parent.parent.parent / "shared" / "seeds"
SEED_RECORD = SEEDS / "000_4232d225b0289023.txt"


def pytest_report_header(config):
    from django.conf import settings

    db = settings.DATABASES["default"]
    return f"database: {db['ENGINE'].rsplit('.', 1)[-1]} {db.get('HOST') or ''} {db['NAME']}"


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Fail loudly (not skip) when the configured database cannot be reached."""
    with django_db_blocker.unblock():
        connection.ensure_connection()


def pytest_sessionstart(session):
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("postgresql"):
        import psycopg

        try:
            psycopg.connect(
                dbname=db["NAME"],
                user=db["USER"],
                password=db["PASSWORD"],
                host=db["HOST"],
                port=db["PORT"] or None,
                connect_timeout=3,
            ).close()
        except psycopg.OperationalError as exc:
            pytest.exit(
                f"DATABASE_URL names PostgreSQL at {db['HOST']}:{db['PORT']}, "
                f"which cannot be reached: {exc}",
                returncode=3,
            )


def realdata(path: str) -> Path:
    """A file under ../shared/realdata; the test is skipped where the folder is absent
    (a fresh clone), but never in CI, where shared/ is always laid beside the checkout."""
    full = REALDATA / path
    if not full.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{full} is missing in CI")
        pytest.skip(f"{full} not present")
    return full


@pytest.fixture
def seed_record_path() -> Path:
    if not SEED_RECORD.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{SEED_RECORD} is missing in CI")
        pytest.skip(f"{SEED_RECORD} not present")
    return SEED_RECORD
