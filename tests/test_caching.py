"""The page cache (local memory and Redis), its invalidation by imports, admin edits and
writes from outside the site, what it is keyed by, who skips it, and conditional GETs on
paper pages."""

from __future__ import annotations

import contextlib
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import uuid

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

from codewithpapers.cache import bump_content_version
from tests.admin.test_admin import change_form_data, post_change
from tests.archive_helpers import run_import
from tests.servers import ROOT, fetch, gunicorn, production_env, require

pytestmark = pytest.mark.django_db

LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture
def page_cache():
    with override_settings(CACHES=LOCMEM):
        cache.clear()
        yield
        cache.clear()


def test_an_anonymous_page_is_served_from_the_cache_without_queries(
    client, make_paper, page_cache, django_assert_num_queries
):
    make_paper()
    first = client.get("/paper/paper-1")
    assert first["X-Cache"] == "miss"
    with django_assert_num_queries(0):
        second = client.get("/paper/paper-1")
    assert second["X-Cache"] == "hit"
    assert second.content == first.content


def test_htmx_fragments_and_pages_never_mix_in_the_cache(client, make_paper, page_cache):
    make_paper()
    page = client.get("/samples", {"status": "timed_out"})
    fragment = client.get("/samples", {"status": "timed_out"}, headers={"HX-Request": "true"})
    again = client.get("/samples", {"status": "timed_out"})
    assert "HX-Request" in page["Vary"]
    assert page.content.decode().lstrip().startswith("<!doctype html>")
    assert fragment.content.decode().lstrip().startswith('<div id="samples"')
    assert again["X-Cache"] == "hit" and again.content == page.content
    history = client.get(
        "/samples",
        {"status": "timed_out"},
        headers={"HX-Request": "true", "HX-History-Restore-Request": "true"},
    )
    assert history.content.decode().lstrip().startswith("<!doctype html>")


def test_an_import_retires_cached_pages(client, make_paper, page_cache, seed_record_path):
    make_paper()
    assert "Depth-to-Width" not in client.get("/").content.decode()
    assert client.get("/")["X-Cache"] == "hit"
    status, _, err = run_import(seed_record_path, verbosity=0)
    assert status == 0, err
    response = client.get("/")
    assert response["X-Cache"] == "miss"
    assert "Depth-to-Width" in response.content.decode()


def test_a_dry_run_import_keeps_cached_pages(client, make_paper, page_cache, seed_record_path):
    make_paper()
    client.get("/")
    run_import(seed_record_path, verbosity=0, dry_run=True)
    assert client.get("/")["X-Cache"] == "hit"


def test_an_admin_edit_retires_cached_pages(client, admin_client, make_paper, page_cache):
    paper = make_paper()
    assert "Corrected title" not in client.get("/paper/paper-1").content.decode()
    assert client.get("/paper/paper-1")["X-Cache"] == "hit"
    data = change_form_data(admin_client, paper)
    data["title"] = ["Corrected title"]
    post_change(admin_client, paper, data)
    response = client.get("/paper/paper-1")
    assert response["X-Cache"] == "miss"
    assert "Corrected title" in response.content.decode()


def test_an_admin_delete_retires_cached_pages(client, admin_client, make_paper, page_cache):
    from papers.models import Paper

    paper = make_paper()
    assert client.get("/").status_code == 200
    url = f"/admin/papers/paper/{paper.pk}/delete/"
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not Paper.objects.filter(pk=paper.pk).exists()
    response = client.get("/")
    assert (
        response["X-Cache"] == "miss"
        and "Paper 1 about attention" not in response.content.decode()
    )


def test_signed_in_users_and_the_admin_are_never_cached(admin_client, make_paper, page_cache):
    make_paper()
    for _ in range(2):
        assert "X-Cache" not in admin_client.get("/paper/paper-1")
    staff_page = admin_client.get("/paper/paper-1").content.decode()
    assert 'href="/admin/"' in staff_page
    anonymous = Client()
    for _ in range(2):
        assert 'href="/admin/"' not in anonymous.get("/paper/paper-1").content.decode()


def test_errors_and_health_checks_are_not_cached(client, page_cache):
    for _ in range(2):
        assert "X-Cache" not in client.get("/no-such-page")
        assert "X-Cache" not in client.get("/healthz")


# --- conditional GETs on paper pages --------------------------------------------------


def test_paper_page_answers_304_to_its_etag_and_last_modified(
    client, make_paper, page_cache, django_user_model
):
    make_paper()
    first = client.get("/paper/paper-1")
    etag, modified = first["ETag"], first["Last-Modified"]
    assert client.get("/paper/paper-1", headers={"If-None-Match": etag}).status_code == 304
    assert client.get("/paper/paper-1", headers={"If-Modified-Since": modified}).status_code == 304
    # Past the page cache too (a signed-in reader bypasses it): the view answers the
    # condition itself, before rendering.
    reader = Client()
    reader.force_login(django_user_model.objects.create_user("reader", password="pw-123-long"))
    mine = reader.get("/paper/paper-1")
    assert mine.status_code == 200 and "X-Cache" not in mine
    uncached = reader.get("/paper/paper-1", headers={"If-None-Match": mine["ETag"]})
    assert uncached.status_code == 304 and "X-Cache" not in uncached


def test_paper_page_etag_changes_with_any_change_and_with_filters(client, make_paper, page_cache):
    make_paper()
    etag = client.get("/paper/paper-1")["ETag"]
    filtered = client.get("/paper/paper-1", {"status": "timed_out"})["ETag"]
    assert filtered != etag
    bump_content_version()  # what an import or an admin edit does
    fresh = client.get("/paper/paper-1", headers={"If-None-Match": etag})
    assert fresh.status_code == 200 and fresh["ETag"] != etag


def test_paper_page_without_a_cache_sends_no_validators(client, make_paper):
    # Tests run on the dummy cache, which cannot hold the content version: no 304 is risked.
    make_paper()
    response = client.get("/paper/paper-1")
    assert "ETag" not in response and "Last-Modified" not in response


# --- Redis ------------------------------------------------------------------------------


def _redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture
def redis_cache():
    require(_redis_answers(), "Redis is not answering on 127.0.0.1:6379")
    prefix = f"cwp-test-{uuid.uuid4().hex[:8]}"
    config = {
        "default": {
            "BACKEND": "codewithpapers.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:6379/0",
            "KEY_PREFIX": prefix,
        }
    }
    with override_settings(CACHES=config):
        yield prefix
        client = cache._cache.get_client()  # raw keys: cache.delete_many would re-prefix them
        if keys := list(client.scan_iter(f"{prefix}:*")):
            client.delete(*keys)


def test_redis_cache_serves_pages_and_sees_a_bump_from_another_process(
    client, make_paper, redis_cache
):
    make_paper()
    assert client.get("/paper/paper-1")["X-Cache"] == "miss"
    assert client.get("/paper/paper-1")["X-Cache"] == "hit"
    # Another process (an import on another machine) bumps the shared version.
    script = (
        "import django; django.setup()\n"
        "from codewithpapers.cache import bump_content_version\n"
        "assert bump_content_version()\n"
    )
    env = production_env(
        CACHE_URL="redis://127.0.0.1:6379/0", DJANGO_SETTINGS_MODULE="codewithpapers.settings"
    )
    subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env | {"CACHE_KEY_PREFIX": redis_cache},
        check=True,
        timeout=60,
    )
    assert client.get("/paper/paper-1")["X-Cache"] == "miss"


def test_a_redis_outage_serves_pages_uncached(client, make_paper):
    make_paper()
    down = {
        "default": {
            "BACKEND": "codewithpapers.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.2},
        }
    }
    with override_settings(CACHES=down):
        for _ in range(2):
            response = client.get("/paper/paper-1")
            assert response.status_code == 200 and "X-Cache" not in response


# --- what a cache hit costs, and aggregates kept per content version --------------------


class CountingCache:
    """Wraps the cache and counts the calls that go to it."""

    def __init__(self, wrapped):
        self.wrapped, self.calls = wrapped, []

    def __getattr__(self, name):
        attribute = getattr(self.wrapped, name)
        if name in {"get", "get_many", "set", "add", "set_many"}:

            def counted(*args, **kwargs):
                self.calls.append(name)
                return attribute(*args, **kwargs)

            return counted
        return attribute


def test_a_page_cache_hit_is_one_cache_read(client, make_paper, page_cache, monkeypatch):
    from codewithpapers import middleware

    make_paper()
    assert client.get("/paper/paper-1")["X-Cache"] == "miss"
    counting = CountingCache(middleware.cache)
    monkeypatch.setattr(middleware, "cache", counting)
    assert client.get("/paper/paper-1")["X-Cache"] == "hit"
    assert counting.calls == ["get_many"]


def test_home_counts_are_computed_once_per_content_version(
    admin_client, make_paper, page_cache, seed_record_path
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from papers.kept.counts import refresh_archive_counts, refresh_paper_count

    make_paper()
    refresh_paper_count()  # as an import leaves them
    refresh_archive_counts()
    # Signed in, so the page cache stays out of the way: only the counts are kept.
    with CaptureQueriesContext(connection) as first:
        page = admin_client.get("/").content.decode()
    with CaptureQueriesContext(connection) as second:
        again = admin_client.get("/").content.decode()
    # The counts (the kept number of papers, the kept repositories and statuses, the
    # index) and the discovery lists' most implemented papers and areas.
    assert len(second) == len(first) - 3 - 2
    assert again == page
    assert "Depth-to-Width" not in page and "<strong>2</strong>samples run" in page
    status, _, err = run_import(seed_record_path, verbosity=0)
    assert status == 0, err
    with CaptureQueriesContext(connection) as after_import:
        fresh = admin_client.get("/").content.decode()
    assert len(after_import) == len(first)
    assert "Depth-to-Width" in fresh  # the seed paper is the newest
    assert "<strong>18</strong>samples run" in fresh  # its 16 samples counted


def test_sample_facets_follow_an_import(client, make_paper, page_cache, seed_record_path):
    make_paper()
    before = client.get("/samples", {"language": "python"}).content.decode()
    assert "ran_violates" not in before
    status, _, err = run_import(seed_record_path, verbosity=0)
    assert status == 0, err
    after = client.get("/samples", {"language": "python"}).content.decode()
    assert "ran_violates" in after  # the seed's statuses are counted in the chips


def test_redis_cache_reuses_one_client_object(redis_cache):
    cache.set("probe", 1)
    assert cache.get("probe") == 1
    assert cache._cache.get_client() is cache._cache.get_client()


# --- what a cached page is keyed by ------------------------------------------------------


def test_parameters_a_page_does_not_read_redirect_to_its_canonical_url(
    client, make_paper, page_cache
):
    """`?junk=N` on every request would make a new cache entry and a full render each
    time: a parameter the page does not read is dropped by a redirect, and the page is
    rendered once."""
    make_paper()
    for url, canonical in [
        ("/paper/paper-1?junk=1", "/paper/paper-1"),
        ("/paper/paper-1?status=ran_honours&junk=2", "/paper/paper-1?status=ran_honours"),
        ("/search?q=attention&utm_source=feed", "/search?q=attention"),
        ("/?fbclid=abc", "/"),
        ("/sitemap-papers.xml?p=1&x=2", "/sitemap-papers.xml?p=1"),
    ]:
        response = client.get(url)
        assert response.status_code == 301, url
        assert response["Location"] == canonical
    assert client.get("/paper/paper-1")["X-Cache"] == "miss"
    for junk in range(3):
        assert client.get(f"/paper/paper-1?junk={junk}", follow=True).status_code == 200
    assert client.get("/paper/paper-1")["X-Cache"] == "hit"


def test_cookies_htmx_triggers_and_parameter_order_share_one_cache_entry(
    client, make_paper, page_cache
):
    make_paper()
    assert client.get("/paper/paper-1", headers={"Cookie": "tracking=1"})["X-Cache"] == "miss"
    for headers in ({"Cookie": "tracking=2"}, {"HX-Trigger": "anything"}, {}):
        assert client.get("/paper/paper-1", headers=headers)["X-Cache"] == "hit", headers
    assert client.get("/search?q=attention&sort=newest")["X-Cache"] == "miss"
    assert client.get("/search?sort=newest&q=attention")["X-Cache"] == "hit"
    # The search reads HX-Trigger (the search form's own submit may jump to a paper).
    triggered = client.get(
        "/search?q=attention&sort=newest",
        headers={"HX-Request": "true", "HX-Trigger": "search-form"},
    )
    assert triggered["X-Cache"] == "miss"


def test_uncached_sitemap_renders_are_rate_limited_per_address(
    client, make_paper, page_cache, settings, monkeypatch
):
    from papers import sitemaps

    monkeypatch.setattr(sitemaps.ArchiveSitemap, "limit", 1)
    for _ in range(2):
        make_paper()
    settings.RATELIMIT_RENDERS = {"/sitemap": "2/m"}
    assert client.get("/sitemap-papers.xml")["X-Cache"] == "miss"
    assert client.get("/sitemap-papers.xml?p=2")["X-Cache"] == "miss"
    refused = client.get("/sitemap-papers.xml?p=3")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    # Rendered pages are still served from the cache, and other addresses render.
    assert client.get("/sitemap-papers.xml")["X-Cache"] == "hit"
    assert client.get("/sitemap-papers.xml?p=3", REMOTE_ADDR="10.0.0.9").status_code == 200


def test_htmx_header_values_other_than_true_share_the_whole_page_entry(
    client, make_paper, page_cache
):
    """Only `HX-Request: true` asks for a fragment (as django-htmx reads it): any other
    value is the whole page, from one entry, and cannot fill the cache with copies."""
    make_paper()
    assert client.get("/samples")["X-Cache"] == "miss"
    for number in range(50):
        value = ["false", "1", "TRUE", "", f"x{number}"][number % 5]
        response = client.get("/samples", headers={"HX-Request": value})
        assert response["X-Cache"] == "hit", value
    fragment = client.get("/samples", headers={"HX-Request": "true"})
    assert fragment["X-Cache"] == "miss"
    assert fragment.content.decode().lstrip().startswith('<div id="samples"')
    # The trigger counts for htmx requests only (the search reads it to tell typing from
    # a submitted query).
    assert client.get("/search?q=attention")["X-Cache"] == "miss"
    assert client.get("/search?q=attention", headers={"HX-Trigger": "a"})["X-Cache"] == "hit"


@pytest.mark.parametrize(
    ("first", "alike", "apart"),
    [
        ("/samples?page=1", ["/samples?page=01", "/samples?page=%2B1", "/samples?page=1.0",
                             "/samples?page=%201"], ["/samples?page=2"]),
        ("/search?q=attention&has_code=1", ["/search?q=attention&has_code=true",
                                            "/search?has_code=on&q=attention"],
         ["/search?q=attention", "/search?q=attention&has_code=0"]),
        ("/search?q=1", [], ["/search?q=01", "/search?q=1%20"]),  # text is read as given
        ("/task/task-1?page=1&per_page=20", ["/task/task-1?per_page=20&page=1.0"],
         ["/task/task-1?page=1&per_page=50"]),
        ("/samples?status=ran", ["/samples?status=%20ran%20"], ["/samples?status=Ran"]),
        ("/sitemap-papers.xml?p=1", ["/sitemap-papers.xml?p=01"], []),
    ],
)  # fmt: skip
def test_values_a_page_reads_alike_share_one_cache_entry(
    client, make_paper, page_cache, first, alike, apart
):
    make_paper()
    assert client.get(first)["X-Cache"] == "miss"
    for url in alike:
        response = client.get(url)
        assert response.status_code == 200 and response["X-Cache"] == "hit", url
    for url in apart:
        assert client.get(url).get("X-Cache") == "miss", url


def test_an_empty_parameter_is_keyed_apart_from_a_missing_one(client, make_paper, page_cache):
    make_paper()
    assert client.get("/search?q=attention")["X-Cache"] == "miss"
    # Without htmx the search sends a form's empty fields away (to the cached URL).
    empty = client.get("/search?q=attention&task=")
    assert empty.status_code == 302 and empty["Location"] == "/search?q=attention"
    assert client.get("/search?q=attention&page=abc").status_code == 400


# --- who skips the cache ------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"Cookie": "sessionid=x"},
        {"Cookie": "sessionid=" + "a" * 40},  # a key's length, not one of ours
        {"Cookie": "tracking=1; sessionid=0123456789abcdefghijklmnopqrstuvwxyz0123"},
        {"Authorization": "Basic c3RhZmY6cGFzc3dvcmQ="},
        {"Authorization": "Token 0123456789abcdef"},
    ],
    ids=["short", "key-length", "with-others", "basic", "token"],
)
def test_forged_session_cookies_and_authorization_headers_are_served_from_the_cache(
    client, make_paper, page_cache, django_assert_num_queries, headers
):
    """Made-up credentials cannot turn the page cache off: they are anonymous, answered
    from the cache without a database query, however many different ones arrive."""
    make_paper()
    page = client.get("/paper/paper-1")
    assert page["X-Cache"] == "miss"
    with django_assert_num_queries(0):
        forged = Client().get("/paper/paper-1", headers=headers)
    assert forged["X-Cache"] == "hit" and forged.content == page.content


def test_a_session_that_is_not_signed_in_is_looked_up_once(
    client, make_paper, page_cache, django_assert_num_queries
):
    """A key the site made (a session that has since ended, or one never signed in)
    is looked up on its first request; after that the cache remembers it."""
    from django.contrib.sessions.backends.db import SessionStore as DatabaseStore

    from codewithpapers.sessions import SessionStore

    make_paper()
    client.get("/paper/paper-1")
    session = SessionStore()
    session["theme"] = "dark"
    session.save()
    ended = SessionStore()
    ended.create()
    ended.delete()
    for key in (session.session_key, ended.session_key):
        visitor = Client(headers={"Cookie": f"sessionid={key}"})
        with django_assert_num_queries(1):
            assert visitor.get("/paper/paper-1")["X-Cache"] == "hit"
        with django_assert_num_queries(0):
            assert visitor.get("/paper/paper-1")["X-Cache"] == "hit"
    # A key the old, unsigned store made is no session at all.
    old = DatabaseStore()
    old.create()
    with django_assert_num_queries(0):
        assert (
            Client().get("/paper/paper-1", headers={"Cookie": f"sessionid={old.session_key}"})[
                "X-Cache"
            ]
            == "hit"
        )


def test_a_signed_in_reader_skips_the_cache_at_the_cost_of_no_extra_query(
    admin_client, make_paper, page_cache
):
    """The session the page cache loads to see who is signed in is the one the page
    uses: a signed-in page runs the queries it ran when any session cookie skipped the
    cache."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    make_paper()
    with CaptureQueriesContext(connection) as cached_off:
        assert "X-Cache" not in admin_client.get("/paper/paper-1")
    session_reads = [q for q in cached_off if "django_session" in q["sql"]]
    assert len(session_reads) == 1


# --- writes from outside the site ----------------------------------------------------------

SEED = """
import datetime as dt
import django
django.setup()
from papers.models import Paper
Paper.objects.create(slug="edited", title="Title before the edit", published=dt.date(2020, 1, 1))
"""


def test_a_direct_database_edit_reaches_cached_pages_within_the_check_interval(
    tmp_path, collected_static, migrated_sqlite, transactional_db
):
    """SQL typed by hand cannot bump the content version: the server notices the
    database's stamp has moved (CONTENT_CHECK_SECONDS) and retires what it had cached,
    instead of serving the old page for CACHE_TTL beside new ones."""
    from django.db import connection

    if connection.vendor == "sqlite":
        database = tmp_path / "db.sqlite3"
        shutil.copy(migrated_sqlite, database)
        url = f"sqlite:///{database}"

        def edit(sql: str) -> None:
            with contextlib.closing(sqlite3.connect(database)) as db, db:
                db.execute(sql)

    else:
        import psycopg

        db = connection.settings_dict
        url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"

        def edit(sql: str) -> None:
            with psycopg.connect(url.replace("postgres://", "postgresql://")) as session:
                session.execute(sql)

    env = production_env(
        DATABASE_URL=url,
        STATIC_ROOT=str(collected_static),
        CONTENT_CHECK_SECONDS="1",
        DJANGO_SETTINGS_MODULE="codewithpapers.settings",
    )
    subprocess.run([sys.executable, "-c", SEED], cwd=ROOT, env=env, check=True, timeout=60)
    with gunicorn(env, tmp_path / "gunicorn.log") as base:
        page = f"{base}/paper/edited"
        assert fetch(page).headers["X-Cache"] == "miss"
        time.sleep(1.5)  # the server's first look at the database retires what it had
        assert fetch(page).headers["X-Cache"] == "miss"
        time.sleep(1.5)
        unchanged = fetch(page)  # reading does not move the stamp
        assert unchanged.headers["X-Cache"] == "hit" and "before the edit" in unchanged.body
        edit("UPDATE papers_paper SET title = 'Title after the edit' WHERE slug = 'edited'")
        deadline = time.monotonic() + 15
        while "after the edit" not in fetch(page).body:
            assert time.monotonic() < deadline, "the edit never reached the cached page"
            time.sleep(0.25)
