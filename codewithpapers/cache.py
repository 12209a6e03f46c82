"""The content version: one number that every cached page and every ETag depends on.

Every import (papers.archive.importer) and every admin write (PageCacheMiddleware)
bumps it, which makes every page cached before the change unreachable at once: nothing
has to know which pages a change touched. Other code that changes what pages show calls
`bump_content_version()`; `content_version()` reads it. The version is a timestamp in
milliseconds, so it only ever moves forward, even when the cache loses it (it comes back
as "now"), and it doubles as the pages' Last-Modified.

Writes that do not go through the site cannot bump it: SQL typed by hand, a script on
another machine. For those each app process looks at a stamp of the database at most
every CONTENT_CHECK_SECONDS, after it has sent a response (`check_database()`), and
bumps the version when the stamp has moved since the last look: such an edit reaches
every cached page within that time, and a page cached before it can no longer be
served beside one rendered after it. The stamp (`database_stamp()`, which each engine's
operations take: codewithpapers.backends) costs no scan:
- PostgreSQL: the statistics' counts of rows inserted, updated and deleted in the
  site's tables (`papers_*`), and their files (a TRUNCATE makes new ones): one catalog
  query on the primary, about a millisecond. The counts are published when the writing
  session commits and idles (within a second or so);
- SQLite: the size and time of the database and WAL files and the WAL index's header,
  which counts every committed write: no query at all. Any write counts, the sessions'
  too (a sign-in retires the cache; it is rare).
While something writes all the time (an import), pages are retired at most every
CONTENT_CHECK_SECONDS (the import also bumps the version itself).

It lives in the cache itself. With Redis (CACHE_URL=redis://…) every app server and
every import sees the same version. With the default local-memory cache each process
has its own, which lapses after CACHE_TTL: a bump reaches the process that made it at
once, and the others (other workers, a running server when an import ran beside it)
within CACHE_TTL.

A cache that fails (Redis down) never fails a request: RedisCache's circuit breaker
answers its calls as misses, these functions answer None, and callers serve uncached.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import logging
import re
import threading
import time
from collections.abc import Callable

from django.apps import apps
from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends import redis as redis_backend
from django.core.signals import request_finished
from django.db import connections
from django.http import HttpRequest
from django.views.decorators.http import condition
from redis.exceptions import RedisError

from codewithpapers.breaker import CircuitBreaker

VERSION_KEY = "content-version"
logger = logging.getLogger(__name__)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _lifetime() -> int | None:
    """A shared cache keeps the version until the next bump. A process-local one lets it
    lapse after CACHE_TTL, so a bump made in another process (an import) reaches this
    one's pages and ETags within CACHE_TTL at the latest."""
    backend = settings.CACHES["default"]["BACKEND"]
    return None if backend.endswith("RedisCache") else settings.CACHE_TTL


def content_version() -> int | None:
    """The current version, creating it on first use; None when the cache fails."""
    try:
        version = cache.get(VERSION_KEY)
        if version is None:
            cache.add(VERSION_KEY, _now_ms(), timeout=_lifetime())
            version = cache.get(VERSION_KEY)
    except Exception:
        logger.warning("cache unavailable: serving uncached", exc_info=True)
        return None
    return version


def bump_content_version() -> int | None:
    """Invalidate every cached page; the new version, or None when the cache fails."""
    try:
        current = cache.get(VERSION_KEY) or 0
        version = max(_now_ms(), current + 1)
        cache.set(VERSION_KEY, version, timeout=_lifetime())
    except Exception:
        logger.warning("cache unavailable: could not bump the content version", exc_info=True)
        return None
    return version


# --- writes that do not go through the site -----------------------------------------

STAMP_KEY = "content-stamp"
_check_lock = threading.Lock()
_checked_at = -float("inf")  # when this process last looked (time.monotonic())


def check_database(*, force: bool = False) -> bool:
    """Bump the content version when the database's stamp has moved since the last look
    (by this process or another sharing the cache); at most every CONTENT_CHECK_SECONDS
    per process unless `force`. Whether it bumped. A database or cache that fails makes
    it look again next time."""
    global _checked_at
    interval = settings.CONTENT_CHECK_SECONDS
    if not force:
        if not interval or time.monotonic() < _checked_at + interval:
            return False
        with _check_lock:
            now = time.monotonic()
            if now < _checked_at + interval:
                return False  # another thread is looking
            _checked_at = now
    if content_version() is None:
        return False  # no cache that holds anything (dummy://, Redis out): nothing to retire
    try:
        stamp = database_stamp("default")
    except Exception:
        return False
    if stamp is None:
        return False
    try:
        if cache.get(STAMP_KEY) == stamp:
            return False
        # Unknown (the first look, or the cache lost it) counts as moved: a bump costs
        # only cache misses, a missed edit would cost stale pages. Kept until replaced
        # (even in a process's own memory): a stamp that lapsed would be unknown again.
        cache.set(STAMP_KEY, stamp, timeout=None)
    except Exception:
        return False
    return bump_content_version() is not None


def _check_after_response(**kwargs) -> None:
    check_database()


# After the response has gone: the reader never waits for the look, even while the
# database is not answering.
request_finished.connect(_check_after_response, dispatch_uid="codewithpapers.cache.check")


@functools.cache
def _site_tables() -> tuple[str, ...]:
    models = apps.get_app_config("papers").get_models(include_auto_created=True)
    return tuple(sorted({model._meta.db_table for model in models}))


def database_stamp(alias: str = "default") -> str | None:
    """A value that changes whenever the database's content does (see the module's
    docstring), as the engine's operations take it (codewithpapers.backends); None where
    there is none to take (an in-memory SQLite database)."""
    return connections[alias].ops.content_stamp(_site_tables())


def version_time(version: int) -> dt.datetime:
    """The moment a version was made (for Last-Modified)."""
    return dt.datetime.fromtimestamp(version / 1000, tz=dt.UTC)


# While Redis is out: aggregates kept in this process's memory for this long (name ->
# (expiry, value)), a bound on how stale they get that a visitor would hardly notice.
OUTAGE_MEMO_S = 60.0
_outage_memo: dict[str, tuple[float, object]] = {}


def redis_skipped() -> bool:
    """Whether the cache is Redis and its circuit breaker is skipping it right now."""
    backend = caches["default"]
    return isinstance(backend, RedisCache) and backend.skipping


def by_version[T](name: str, compute: Callable[[], T]) -> T:
    """`compute()`, kept in the cache until the content version moves on.

    For aggregates over the whole archive that every visitor sees the same way (the
    home page's counts, the unfiltered sample facets): each is computed once per import
    or admin edit instead of once per page miss, signed-in users included. While Redis
    is out (its circuit breaker skipping it) each process keeps them for OUTAGE_MEMO_S,
    so the outage does not add an archive scan to every such page; with no cache at all
    they are computed every time.
    """
    version = content_version()
    if version is None:
        if not redis_skipped():
            return compute()
        expires, value = _outage_memo.get(name, (0.0, None))
        if time.monotonic() >= expires:
            value = compute()
            _outage_memo[name] = (time.monotonic() + OUTAGE_MEMO_S, value)
        return value
    key = f"agg.{version}.{name}"
    try:
        value = cache.get(key)
    except Exception:
        return compute()
    if value is None:
        value = compute()
        try:
            cache.set(key, value, timeout=settings.CACHE_TTL)
        except Exception:
            logger.warning("cache unavailable: aggregate not stored", exc_info=True)
    return value


def conditional_on_version(row_of: Callable[..., tuple[object, dt.datetime] | None]):
    """Django's @condition for a page built around one row: an ETag and Last-Modified
    from one indexed lookup, before rendering, so a client's current copy gets a 304.

    `row_of(*view_args, **view_kwargs)` gives the row's (key, updated_at), or None. The
    page shows rows of other tables too, so the row's updated_at is not enough: the
    content version, bumped by every import and admin edit, is part of the ETag and
    bounds Last-Modified from below. The query string, the host (canonical URL), staff
    status (admin links) and who is signed in (their name, their claim on a paper) change
    the page, so they are in the ETag as well. No validators
    when the cache cannot give a version: then no conditional answer is risked. Worked
    out once per request (@condition asks for the ETag and Last-Modified separately)."""
    memo = "_version_validators"

    def validators(request: HttpRequest, *args, **kwargs) -> tuple[str, dt.datetime] | None:
        if not hasattr(request, memo):
            setattr(request, memo, None)
            version = content_version()
            row = row_of(*args, **kwargs)
            if version is not None and row is not None:
                key, updated_at = row
                user = getattr(request, "user", None)
                staff = bool(user and user.is_staff)
                text = f"{key}|{updated_at.isoformat()}|{version}|{request.get_full_path()}|"
                text += f"{request.get_host()}|{staff}"
                # A signed-in reader's page is theirs (its forms, the messages waiting for
                # them): another reader's copy, or their own before a message, is stale.
                if user is not None and user.is_authenticated:
                    text += f"|{user.pk}|{request.COOKIES.get('messages', '')}"
                etag = 'W/"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'
                setattr(request, memo, (etag, max(updated_at, version_time(version))))
        return getattr(request, memo)

    def etag(request: HttpRequest, *args, **kwargs) -> str | None:
        found = validators(request, *args, **kwargs)
        return found[0] if found else None

    def last_modified(request: HttpRequest, *args, **kwargs) -> dt.datetime | None:
        found = validators(request, *args, **kwargs)
        return found[1] if found else None

    return condition(etag_func=etag, last_modified_func=last_modified)


def _guarded(fallback: Callable[..., object]):
    """A client method that answers `fallback(*args)` instead of waiting for, or failing
    on, a Redis that the breaker says is out."""

    def decorate(method):
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            if not self.breaker.allow():
                return fallback(*args)
            try:
                result = method(self, *args, **kwargs)
            except RedisError as exc:
                self.breaker.failed(exc)
                return fallback(*args)
            self.breaker.succeeded()
            return result

        return guarded

    return decorate


def _false(*args) -> bool:
    return False


def _none(*args) -> None:
    return None


class _SharedClientRedisCacheClient(redis_backend.RedisCacheClient):
    """Django's Redis client, reusing one redis.Redis per connection pool. Django builds
    a new redis.Redis for every cache call, and its constructor (the command-callback
    tables) costs more than a cached page's GET itself; a redis.Redis is thread-safe,
    taking a connection from its pool only while a command runs.

    Every call goes through the location's CircuitBreaker (codewithpapers.breaker): after
    a failed call (Redis down, frozen, or cut off), for CACHE_RETRY_SECONDS, it answers
    as a miss (get: the default, add/touch/delete/has_key: False, get_many: {}, incr:
    None, which django-ratelimit takes as "cannot count" and lets the request through)."""

    def __init__(self, servers, **options):
        super().__init__(servers, **options)
        where = ",".join(re.sub(r"//[^@/]*@", "//", server) for server in servers)  # no password
        self.breaker = CircuitBreaker.named(
            f"cache ({where})", "serving uncached", settings.CACHE_RETRY_SECONDS
        )

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        clients = self.__dict__.setdefault("_clients", {})
        client = clients.get(id(pool))
        if client is None:
            client = clients[id(pool)] = self._client(connection_pool=pool)
        return client

    get = _guarded(lambda key, default: default)(redis_backend.RedisCacheClient.get)
    get_many = _guarded(lambda keys: {})(redis_backend.RedisCacheClient.get_many)
    add = _guarded(_false)(redis_backend.RedisCacheClient.add)
    set = _guarded(_none)(redis_backend.RedisCacheClient.set)
    set_many = _guarded(lambda data, timeout: [])(redis_backend.RedisCacheClient.set_many)
    touch = _guarded(_false)(redis_backend.RedisCacheClient.touch)
    delete = _guarded(_false)(redis_backend.RedisCacheClient.delete)
    delete_many = _guarded(_none)(redis_backend.RedisCacheClient.delete_many)
    has_key = _guarded(_false)(redis_backend.RedisCacheClient.has_key)
    incr = _guarded(_none)(redis_backend.RedisCacheClient.incr)
    clear = _guarded(_false)(redis_backend.RedisCacheClient.clear)


class RedisCache(redis_backend.RedisCache):
    """Django's built-in RedisCache, with one redis.Redis per pool and a circuit breaker
    (see above)."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _SharedClientRedisCacheClient

    @property
    def skipping(self) -> bool:
        """Whether calls are answered as misses now, Redis being out."""
        return self._cache.breaker.skipping
