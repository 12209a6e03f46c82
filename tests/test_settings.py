"""Settings come from the environment, and a bad value stops start-up with a message
naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from codewithpapers.env import parse_database_url
from tests.servers import manage, production_env

pytestmark = pytest.mark.servers

ROOT = Path(__file__).resolve().parent.parent
KNOBS = ("DEBUG", "SECRET_KEY", "DATABASE_URL", "CSRF_TRUSTED_ORIGINS", "ALLOWED_HOSTS")


SECRET = {"SECRET_KEY": "a-test-secret-key-that-is-long-enough-0123456789"}
BAD = {
    "debug": ({"DEBUG": "maybe", **SECRET}, "DEBUG"),
    "database-scheme": ({"DATABASE_URL": "mysql://x", **SECRET}, "DATABASE_URL"),
    "database-port": ({"DATABASE_URL": "postgres://h:notaport/db", **SECRET}, "DATABASE_URL"),
    "secret-key": ({"DEBUG": "false"}, "SECRET_KEY"),
    "csrf-origins": ({"CSRF_TRUSTED_ORIGINS": "example.com", **SECRET}, "CSRF_TRUSTED_ORIGINS"),
}
GOOD = {"DEBUG": "false", **SECRET}


@pytest.fixture(scope="module")
def start_ups() -> dict[str, tuple[int, str]]:
    """Each case's `django.setup()` in a fresh interpreter with the site's own settings
    (not the suite's), all started at once: case -> (exit status, stderr)."""
    base = {k: v for k, v in os.environ.items() if k not in KNOBS}
    base["DJANGO_SETTINGS_MODULE"] = "codewithpapers.settings"
    cases = {"good": GOOD} | {name: env for name, (env, _) in BAD.items()}
    running = {
        name: subprocess.Popen(
            [sys.executable, "-c", "import django; django.setup()"],
            cwd=ROOT,
            env=base | env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, env in cases.items()
    }
    results = {}
    for name, process in running.items():
        _, stderr = process.communicate(timeout=60)
        results[name] = (process.returncode, stderr)
    return results


def test_django_starts_with_good_settings(start_ups):
    status, stderr = start_ups["good"]
    assert status == 0, stderr


@pytest.mark.parametrize("case", BAD)
def test_a_bad_setting_stops_start_up_naming_the_variable(start_ups, case):
    status, stderr = start_ups[case]
    variable = BAD[case][1]
    assert status != 0
    # The last line is the error itself; the traceback above it quotes settings.py,
    # which names every variable.
    error = stderr.strip().splitlines()[-1]
    assert error.startswith("django.core.exceptions.ImproperlyConfigured:"), stderr
    assert variable in error


def test_sqlite_url_with_a_relative_path_is_under_the_project(tmp_path):
    db = parse_database_url("sqlite:///data/db.sqlite3", base_dir=tmp_path)
    assert db["ENGINE"] == "codewithpapers.backends.sqlite3"
    assert db["NAME"] == str((tmp_path / "data" / "db.sqlite3").resolve())
    assert db["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in db["OPTIONS"]["init_command"]


def test_sqlite_url_with_an_absolute_path_keeps_it(tmp_path):
    db = parse_database_url("sqlite:////var/lib/cwp/db.sqlite3", base_dir=tmp_path)
    assert db["NAME"] == "/var/lib/cwp/db.sqlite3"


def test_postgres_url_with_credentials_port_and_options(tmp_path):
    db = parse_database_url(
        "postgres://cwp:s%40cret@db.example.org:6543/codewithpapers?sslmode=require",
        base_dir=tmp_path,
    )
    assert db["ENGINE"] == "codewithpapers.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"]) == ("codewithpapers", "cwp", "s@cret")
    assert (db["HOST"], db["PORT"]) == ("db.example.org", "6543")
    assert db["OPTIONS"]["sslmode"] == "require"


def test_postgres_sessions_set_the_planner_unless_the_url_says_otherwise(tmp_path):
    """JIT compiling costs a search page's query more than it saves, and at
    random_page_cost 4 a phrase search sorts every match: our sessions set both."""
    db = parse_database_url("postgres://h/db", base_dir=tmp_path)
    assert db["OPTIONS"]["options"] == "-c jit=off -c random_page_cost=1.1"
    custom = parse_database_url("postgres://h/db?options=-c%20work_mem%3D64MB", base_dir=tmp_path)
    assert custom["OPTIONS"]["options"] == "-c work_mem=64MB"


@pytest.mark.django_db
def test_the_postgresql_connection_has_our_planner_settings():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL setting")
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"
        cursor.execute("SHOW random_page_cost")
        assert cursor.fetchone()[0] == "1.1"


@pytest.mark.parametrize(
    "url", ["mysql://x", "postgres://h:notaport/db", "postgres://h:5432/", "sqlite://"]
)
def test_unusable_database_urls_are_refused_by_name(tmp_path, url):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        parse_database_url(url, base_dir=tmp_path)


def test_the_site_has_a_statement_timeout_and_commands_have_none(tmp_path):
    """gunicorn and runserver load codewithpapers.wsgi, which bounds every statement;
    imports, migrations and scripts may run as long as they need."""
    show = "from django.db import connection; print(connection.settings_dict.get('{key}'))"
    show = show.format(key="STATEMENT_TIMEOUT_MS")
    env = production_env(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", DATABASE_STATEMENT_TIMEOUT_MS="1234"
    )
    site = subprocess.run(
        [sys.executable, "-c", f"import codewithpapers.wsgi; {show}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert site.stdout.strip() == "1234", site.stderr
    command = manage("shell", "-c", show, env=env)
    assert command.stdout.strip().splitlines()[-1] == "None", command.stderr


def test_the_site_loads_its_views_before_the_first_request(tmp_path):
    """With gunicorn's preload_app the master imports the WSGI module once and workers
    fork from it: the views must already be loaded then, or every new worker's first
    request (a 503 page while the database is away, say) pays for importing them. What
    start-up made is frozen out of the garbage collector's reach (codewithpapers.startup)."""
    check = (
        "import gc, sys; from django.urls import get_resolver; "
        "print(get_resolver()._populated, 'papers.api.views' in sys.modules, "
        "gc.get_freeze_count() > 10_000)"
    )
    env = production_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    site = subprocess.run(
        [sys.executable, "-c", f"import codewithpapers.wsgi; {check}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert site.stdout.split() == ["True", "True", "True"], site.stderr


def _setup(env: dict[str, str], code: str = "") -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in KNOBS and k != "DOTENV"}
    base["DJANGO_SETTINGS_MODULE"] = "codewithpapers.settings"
    script = "import django; django.setup(); from django.conf import settings; " + code
    return subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=base | env, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip


def test_a_local_env_file_sets_what_the_environment_leaves_unset(tmp_path):
    """`make run` writes .env so that manage.py works in a plain shell on a developer's
    machine; the environment still wins, and production names no file."""
    dotenv = tmp_path / ".env"
    dotenv.write_text("# development\nDEBUG=true\n\nSECRET_KEY='from-the-file'\n")
    show = "print(settings.DEBUG, settings.SECRET_KEY)"
    assert _setup({"DOTENV": str(dotenv)}, show).stdout.split() == ["True", "from-the-file"]
    told = _setup({"DOTENV": str(dotenv), "SECRET_KEY": "told", "DEBUG": "false"}, show)
    assert told.stdout.split() == ["False", "told"]
    ignored = _setup({"DOTENV": ""}, show)  # no file: a production start needs a secret
    assert ignored.returncode != 0 and "SECRET_KEY must be set" in ignored.stderr


def test_a_bad_line_of_the_env_file_names_the_file_and_the_line(tmp_path):
    dotenv = tmp_path / ".env"
    dotenv.write_text("DEBUG=true\nexport SECRET KEY\n")
    result = _setup({"DOTENV": str(dotenv)})
    assert result.returncode != 0 and f"{dotenv}:2: expected NAME=value" in result.stderr
