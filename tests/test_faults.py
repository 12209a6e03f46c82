"""Faults: the database goes away and comes back, an import is killed halfway, a client
asks too often or too much."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from tests.archive_helpers import fts_searches
from tests.servers import (
    ROOT,
    PrivateCluster,
    fetch,
    free_port,
    gunicorn,
    manage,
    production_env,
)

pytestmark = pytest.mark.servers

LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


def _assert_503_page(response, limit_s: float = 2.0) -> None:
    assert response.status == 503, response.body[:500]
    assert response.seconds < limit_s, f"took {response.seconds:.2f} s"
    assert response.headers.get("Retry-After")
    body = response.body
    # The site's look: its stylesheet, header and footer notices, one <h1>.
    assert "Temporarily unavailable" in body and body.count("<h1>") == 1
    assert '<link rel="stylesheet" href="/static/css/site.' in body
    assert "CC BY-SA 4.0" in body and "not affiliated with" in body


@pytest.mark.parametrize(
    "database_url",
    [
        "postgres://postgres@127.0.0.1:1/cwp_nowhere",  # nothing listens on port 1
        "sqlite:////nonexistent-directory/db.sqlite3",
    ],
    ids=["postgresql", "sqlite"],
)
def test_unreachable_database_answers_a_503_page_within_two_seconds(
    tmp_path, collected_static, database_url
):
    env = production_env(
        DATABASE_URL=database_url, STATIC_ROOT=str(collected_static), CACHE_URL="dummy://"
    )
    with gunicorn(env, tmp_path / "gunicorn.log") as base:
        for path in ("/", "/paper/anything", "/search?q=attention"):
            _assert_503_page(fetch(base + path))
        api = fetch(f"{base}/api/v1/papers/")
        assert api.status == 503 and api.headers["Content-Type"] == "application/json"
        assert json.loads(api.body)["status"] == 503 and api.headers["Retry-After"]
        health = fetch(f"{base}/healthz")
        assert health.status == 503 and health.seconds < 2
        assert json.loads(health.body)["status"] == "unavailable"


def test_site_answers_503_while_postgresql_is_stopped_and_recovers_by_itself(
    tmp_path, collected_static, private_cluster
):
    migrated = manage(
        "migrate", "--no-input", "-v", "0", env=production_env(DATABASE_URL=private_cluster.url)
    )
    assert migrated.returncode == 0, migrated.stderr
    env = production_env(
        DATABASE_URL=private_cluster.url,
        STATIC_ROOT=str(collected_static),
        CACHE_URL="dummy://",
    )
    with gunicorn(env, tmp_path / "gunicorn.log") as base:
        assert fetch(f"{base}/").status == 200
        assert fetch(f"{base}/healthz").status == 200

        private_cluster.stop()
        _assert_503_page(fetch(f"{base}/"))
        assert fetch(f"{base}/healthz").status == 503

        private_cluster.start()
        deadline = time.monotonic() + 10
        statuses = []
        while time.monotonic() < deadline:
            statuses.append(fetch(f"{base}/").status)
            if statuses[-1] == 200:
                break
            time.sleep(0.2)
        assert statuses[-1] == 200, statuses
        assert fetch(f"{base}/healthz").status == 200


def _postgres_processes(cluster: PrivateCluster) -> list[int]:
    """The cluster's postmaster and every process it started (backends, background)."""
    postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
    children = Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split()
    return [postmaster, *map(int, children)]


def _fetch_all(base: str, paths: list[str]) -> dict:
    """Every path fetched at once (one request per gunicorn thread)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(paths)) as pool:
        return dict(
            zip(paths, pool.map(lambda p: fetch(base + p, timeout=30), paths), strict=True)
        )


def _recovers(base: str, path: str, within: float) -> list[int]:
    deadline, statuses = time.monotonic() + within, []
    while time.monotonic() < deadline:
        statuses.append(fetch(base + path).status)
        if statuses[-1] == 200:
            break
        time.sleep(0.2)
    return statuses


def test_a_stuck_or_frozen_postgresql_bounds_every_request_and_recovers(
    tmp_path, collected_static, private_cluster
):
    """A statement waiting on a lock is stopped at the statement timeout; a server that
    answers nothing at all (SIGSTOP: the sockets stay open, the kernel still ACKs) is
    given up on a second later. Either way every request is a 503 in the site's look
    (JSON for the API) instead of a thread held until the database comes back."""
    import psycopg

    env = production_env(DATABASE_URL=private_cluster.url)
    migrated = manage("migrate", "--no-input", "-v", "0", env=env)
    assert migrated.returncode == 0, migrated.stderr
    timeout_s = 2.0
    env |= {
        "STATIC_ROOT": str(collected_static),
        "CACHE_URL": "dummy://",
        "DATABASE_STATEMENT_TIMEOUT_MS": str(int(timeout_s * 1000)),
    }
    paths = ["/", "/paper/anything", "/search?q=attention", "/api/v1/papers/"]
    with gunicorn(env, tmp_path / "gunicorn.log") as base:
        for answer in _fetch_all(base, paths).values():  # every thread holds a connection
            assert answer.status in (200, 404)

        with psycopg.connect(private_cluster.url.replace("postgres://", "postgresql://")) as lock:
            lock.execute("LOCK TABLE papers_paper IN ACCESS EXCLUSIVE MODE")
            stuck = _fetch_all(base, paths)
        for path, answer in stuck.items():
            assert answer.status == 503, (path, answer.status)
            assert timeout_s - 0.2 < answer.seconds < timeout_s + 1, (path, answer.seconds)
        _assert_503_page(stuck["/"], limit_s=timeout_s + 1)
        assert json.loads(stuck["/api/v1/papers/"].body)["status"] == 503
        assert _recovers(base, "/", within=5)[-1] == 200

        processes = _postgres_processes(private_cluster)
        for pid in processes:
            os.kill(pid, signal.SIGSTOP)
        try:
            frozen = _fetch_all(base, paths)
            again = _fetch_all(base, paths)
            health = fetch(f"{base}/healthz")
        finally:
            for pid in processes:
                os.kill(pid, signal.SIGCONT)
        for path, answer in frozen.items():
            assert answer.status == 503, (path, answer.status)
            assert answer.seconds < timeout_s + 1.3, (path, answer.seconds)
        assert all(a.status == 503 and a.seconds < 0.5 for a in again.values()), {
            p: (a.status, a.seconds) for p, a in again.items()
        }  # once found silent, the database is not waited for again meanwhile
        assert frozen["/api/v1/papers/"].headers["Content-Type"] == "application/json"
        assert health.status == 503 and health.seconds < 2
        thawed = time.monotonic()
        assert _recovers(base, "/", within=5)[-1] == 200
        assert time.monotonic() - thawed < 5
        assert all(a.status in (200, 404) for a in _fetch_all(base, paths).values())
    log = (tmp_path / "gunicorn.log").read_text()
    assert "Traceback" not in log  # each 503 is one line; the outage is logged once a window
    assert "database default unavailable" in log


@pytest.mark.django_db
def test_a_runaway_query_is_stopped_at_the_statement_timeout():
    """Whatever makes a statement slow (a huge value, a bad plan), the site's statement
    timeout stops it: PostgreSQL's statement_timeout, SQLite's progress handler."""
    from django.db import OperationalError, connections

    from codewithpapers.backends import TIMEOUT_KEY

    site = connections["default"]
    bounded = type(site)({**site.settings_dict, TIMEOUT_KEY: 300}, "default")
    endless = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    )
    try:
        with bounded.cursor() as cursor:
            started = time.monotonic()
            with pytest.raises(OperationalError):
                cursor.execute(endless)
            assert time.monotonic() - started < 1.5
        with bounded.cursor() as cursor:  # the connection is still good for the next one
            cursor.execute("SELECT 1")
            assert cursor.fetchone() == (1,)
    finally:
        bounded.close()


# --- an import killed halfway ------------------------------------------------------


class _Databases:
    """Two empty, migrated databases of the suite's engine, and how to count papers."""

    def __init__(self, tmp_path: Path, migrated_sqlite: Path):
        self.migrated_sqlite = migrated_sqlite
        self.engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        self.created: list[str] = []
        self.tmp_path = tmp_path

    def make(self, count: int) -> list[str]:
        if self.engine == "sqlite3":
            urls = []
            for number in range(count):
                copy = self.tmp_path / f"db{number}.sqlite3"
                copy.write_bytes(self.migrated_sqlite.read_bytes())
                urls.append(f"sqlite:///{copy}")
            return urls
        first = f"cwp_kill_{uuid.uuid4().hex[:8]}"
        self._admin(f'CREATE DATABASE "{first}"')
        self.created.append(first)
        result = manage(
            "migrate", "--no-input", "-v", "0", env=production_env(DATABASE_URL=self._url(first))
        )
        assert result.returncode == 0, result.stderr
        for number in range(1, count):
            self._admin(f'CREATE DATABASE "{first}_{number}" TEMPLATE "{first}"')
            self.created.append(f"{first}_{number}")
        return [self._url(name) for name in self.created]

    def _url(self, name: str) -> str:
        db = settings.DATABASES["default"]
        auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
        return f"postgres://{auth}@{db['HOST']}:{db['PORT'] or 5432}/{name}"

    def _admin(self, sql: str) -> None:
        import psycopg

        db = settings.DATABASES["default"]
        with psycopg.connect(
            dbname="postgres",
            user=db["USER"],
            password=db["PASSWORD"],
            host=db["HOST"],
            port=db["PORT"] or None,
            autocommit=True,
        ) as conn:
            conn.execute(sql)

    def papers(self, url: str) -> int:
        sql = "SELECT count(*) FROM papers_paper"
        if self.engine == "sqlite3":
            with sqlite3.connect(url.removeprefix("sqlite:///"), timeout=1) as conn:
                return conn.execute(sql).fetchone()[0]
        import psycopg

        with psycopg.connect(url.replace("postgres://", "postgresql://")) as conn:
            return conn.execute(sql).fetchone()[0]

    def drop(self) -> None:
        for name in reversed(self.created):
            self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _states(*urls: str) -> list[dict]:
    """Every papers row of each database by natural keys, without ids or timestamps
    (tests.archive_helpers.db_state), computed side by side in subprocesses."""
    script = (
        "import django, json; django.setup()\n"
        "from tests.archive_helpers import db_state\n"
        "print(json.dumps(db_state()))\n"
    )
    running = [
        subprocess.Popen(
            [sys.executable, "-c", script],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=production_env(DATABASE_URL=url, DJANGO_SETTINGS_MODULE="codewithpapers.settings"),
        )
        for url in urls
    ]
    states = []
    for process in running:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        states.append(json.loads(out))
    return states


def _healthz(url: str) -> dict:
    """What /healthz of a site on that database answers."""
    script = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "print(Client().get('/healthz', headers={'Host': '127.0.0.1'}).content.decode())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=production_env(DATABASE_URL=url, DJANGO_SETTINGS_MODULE="codewithpapers.settings"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_killed_halfway_then_run_again_gives_the_uninterrupted_database(
    tmp_path, small_archive, migrated_sqlite
):
    databases = _Databases(tmp_path, migrated_sqlite)
    try:
        whole, killed = databases.make(2)
        command = [
            sys.executable,
            "manage.py",
            "import_archive",
            *map(str, small_archive),
            "--batch-size",
            "40",
            "-v",
            "0",
        ]
        done = subprocess.run(
            command,
            cwd=ROOT,
            env=production_env(DATABASE_URL=whole),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        total = databases.papers(whole)

        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=production_env(DATABASE_URL=killed),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 300
        while databases.papers(killed) < total // 3 and time.monotonic() < deadline:
            assert process.poll() is None, "the import finished before it could be killed"
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert process.returncode == -signal.SIGKILL
        assert databases.papers(killed) < total, "the import finished before it was killed"
        assert _healthz(killed)["search"] == "rebuilding"

        again = subprocess.run(
            command,
            cwd=ROOT,
            env=production_env(DATABASE_URL=killed),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert again.returncode == 0, again.stderr
        assert _healthz(killed)["search"] == "ok"
        expected, repaired = _states(whole, killed)
        assert sum(len(rows) for rows in expected.values()) > total
        assert repaired == expected
        if databases.engine == "sqlite3":  # and the search index is the uninterrupted one's
            assert fts_searches(killed.removeprefix("sqlite:///")) == fts_searches(
                whole.removeprefix("sqlite:///")
            )
            # The killed import's scratch full-text database went with the next run.
            assert [p.name for p in tmp_path.iterdir() if "-fts-build-" in p.name] == []
    finally:
        databases.drop()


# --- abuse: rate limits, page depth, request size ------------------------------------


@pytest.mark.django_db
@override_settings(CACHES=LOCMEM, RATELIMITS={"/search": "3/m", "/api/": "2/m"})
def test_search_over_the_rate_limit_is_a_429_with_retry_after(client):
    for _ in range(3):
        assert client.get("/search", {"q": "attention"}).status_code == 200
    refused = client.get("/search", {"q": "other words"})
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert "Too many requests" in refused.content.decode()
    # Another address is counted apart, and other pages are not limited.
    assert client.get("/search", REMOTE_ADDR="10.0.0.2").status_code == 200
    assert client.get("/about").status_code == 200


@pytest.mark.django_db
@override_settings(CACHES=LOCMEM, RATELIMITS={"/api/": "2/m"})
def test_api_paths_are_rate_limited_with_a_json_429(client):
    statuses = [client.get("/api/v1/papers/").status_code for _ in range(3)]
    assert 429 not in statuses[:2] and statuses[2] == 429
    refused = client.get("/api/v1/papers/")
    assert refused.json()["error"].startswith("Too many requests")
    assert int(refused["Retry-After"]) >= 1


@pytest.mark.django_db
@override_settings(CACHES=LOCMEM, RATELIMITS={"/search": "2/m"}, CLIENT_IP_HEADER="X-Real-IP")
def test_rate_limit_counts_the_address_the_proxy_names(client):
    for _ in range(2):
        assert client.get("/search", headers={"X-Real-IP": "203.0.113.5"}).status_code == 200
    assert client.get("/search", headers={"X-Real-IP": "203.0.113.5"}).status_code == 429
    assert client.get("/search", headers={"X-Real-IP": "203.0.113.6"}).status_code == 200
    # IPv6 clients count by their /64.
    for suffix in ("1", "2"):
        client.get("/search", headers={"X-Real-IP": f"2001:db8::{suffix}"})
    assert client.get("/search", headers={"X-Real-IP": "2001:db8::3"}).status_code == 429


@pytest.mark.django_db
@override_settings(RATELIMITS={"/search": "1/m"})
def test_a_failing_rate_limit_cache_lets_requests_through(client):
    broken = {
        "default": {
            "BACKEND": "codewithpapers.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.2},
        }
    }
    with override_settings(CACHES=broken):
        for _ in range(3):
            assert client.get("/search", {"q": "attention"}).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/search?page=51", 200),  # past the last page: a notice, no query of results
        ("/search?page=100000000000000000000000", 200),
        ("/samples?page=51", 400),
        ("/samples?page=100000000000000000000000", 400),
        ("/search?page=-1", 400),
    ],
)
def test_pages_stop_at_a_fixed_depth(client, url, status):
    response = client.get(url)
    assert response.status_code == status
    if status == 200:
        assert "Results stop at page 50" in response.content.decode()


@pytest.mark.django_db
def test_request_bodies_and_field_counts_are_capped(client):
    too_big = client.post(
        "/admin/login/",
        data="x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1),
        content_type="application/x-www-form-urlencoded",
    )
    assert too_big.status_code == 400
    many_fields = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    assert client.get(f"/search?{many_fields}").status_code == 400


# --- the search index while an import rebuilds it --------------------------------------


@pytest.mark.django_db(transaction=True)
def test_healthz_and_the_home_page_say_when_search_is_being_rebuilt(client):
    """Between a killed import and its re-run the index is deferred (empty on SQLite, no
    GIN index on PostgreSQL): search answers little or slowly. /healthz says so (still
    200: the site works) and the home page carries a short notice."""
    from papers.search import index as search_index

    assert client.get("/healthz").json()["search"] == "ok"
    assert "being rebuilt" not in client.get("/").content.decode()
    search_index.defer()
    try:
        health = client.get("/healthz")
        assert health.status_code == 200 and health.json()["search"] == "rebuilding"
        home = client.get("/").content.decode()
        assert "Search is being rebuilt" in home
    finally:
        search_index.build()
    assert client.get("/healthz").json()["search"] == "ok"


# --- a cache that fails -----------------------------------------------------------------


def _redis_cache(url: str) -> dict:
    from codewithpapers.env import parse_cache_url

    return {"default": parse_cache_url(url, timeout=600, key_prefix=uuid.uuid4().hex[:8])}


@pytest.mark.django_db
def test_a_frozen_redis_costs_one_socket_timeout_not_one_per_request(
    client, make_paper, private_redis, settings
):
    """Redis stopped mid-flight (SIGSTOP, or a partition) answers nothing: each cache
    call would wait its socket timeout (0.5 s), several times a request. After the first
    failure the site skips Redis for CACHE_RETRY_SECONDS, then tries it again."""
    make_paper()
    settings.CACHES = _redis_cache(private_redis.url)
    settings.CACHE_RETRY_SECONDS = 2
    assert client.get("/paper/paper-1")["X-Cache"] == "miss"
    assert client.get("/paper/paper-1")["X-Cache"] == "hit"
    private_redis.freeze()
    try:
        started = time.monotonic()
        for _ in range(10):
            assert client.get("/paper/paper-1").status_code == 200
        assert time.monotonic() - started < 1.5  # one socket timeout, then no waiting
    finally:
        private_redis.thaw()
    time.sleep(2.1)
    statuses = [client.get("/paper/paper-1").get("X-Cache") for _ in range(2)]
    assert statuses[-1] == "hit", statuses  # the cache is used again after the window


@pytest.mark.django_db
def test_redis_down_logs_one_warning_per_window_and_no_tracebacks(
    client, make_paper, settings, caplog
):
    from papers.kept.counts import refresh_paper_count

    make_paper()
    refresh_paper_count()  # as an import leaves it
    settings.CACHES = _redis_cache(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens
    settings.CACHE_RETRY_SECONDS = 60
    with caplog.at_level("WARNING"):
        for _ in range(20):
            assert client.get("/paper/paper-1").status_code == 200
            assert client.get("/search", {"q": "attention"}).status_code == 200
    warnings = [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    message = warnings[0].getMessage()
    assert warnings[0].exc_info is None and "cache" in message and "serving uncached" in message


@pytest.mark.django_db
def test_while_redis_is_out_the_home_counts_are_not_recomputed_on_every_page(
    client, make_paper, settings
):
    """The home page's counts scan the whole archive; they are kept per content version
    in the cache. While Redis is out each process keeps them a minute itself, so an
    outage does not put an archive scan on every page."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from papers.kept.counts import refresh_paper_count

    make_paper()
    refresh_paper_count()  # as an import leaves it
    settings.CACHES = _redis_cache(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens
    with CaptureQueriesContext(connection) as first:
        assert client.get("/").status_code == 200
    with CaptureQueriesContext(connection) as second:
        assert client.get("/").status_code == 200
    counts = [q["sql"] for q in first.captured_queries if "COUNT(" in q["sql"].upper()]
    # Kept too: the kept number of papers, the index's state, and the discovery lists'
    # year, ids and areas.
    kept = len(counts) + 1 + 1 + 3
    assert counts and len(second) == len(first) - kept, second.captured_queries
