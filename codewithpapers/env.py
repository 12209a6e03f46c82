"""Typed readers for environment variables.

Every setting that can change between machines comes through one of these, and a
bad value raises ImproperlyConfigured naming the variable, so an operator sees
which knob is wrong instead of a stack trace from deep inside Django.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def load_env_file(path: Path) -> None:
    """Set the variables a KEY=VALUE file names (blank lines and `#` comments aside),
    leaving those the environment already sets alone: the development machine's local
    `.env`, which `make run` writes. A line of another shape names the file and line."""
    if not path.is_file():
        return
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        name = name.strip()
        if not sep or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", name):
            raise ImproperlyConfigured(f"{path}:{number}: expected NAME=value, got {line!r}")
        os.environ.setdefault(name, value.strip().strip("'\""))


def env_str(name: str, default: str | None = None) -> str:
    value = os.environ.get(name)
    if value is None:
        if default is None:
            raise ImproperlyConfigured(f"{name} must be set")
        return default
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false, 1/0, yes/no), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


SESSION_OPTIONS = "-c jit=off -c random_page_cost=1.1"  # PostgreSQL, see parse_database_url
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 3,
    "keepalives_count": 3,
    "tcp_user_timeout": 20_000,  # ms an unacknowledged write may wait
}


def parse_database_url(url: str, *, name: str = "DATABASE_URL", base_dir: Path) -> dict:
    """`sqlite:///path` or `postgres://user:pass@host:port/db?opt=v` as a DATABASES entry."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "sqlite":
        return _sqlite_database(parts, url, name, base_dir)
    if scheme in {"postgres", "postgresql", "pgsql"}:
        return _postgresql_database(parts, url, name)
    raise ImproperlyConfigured(
        f"{name} must start with sqlite:// or postgres://, got {scheme or 'no scheme'!r}"
    )


def _sqlite_database(parts, url: str, name: str, base_dir: Path) -> dict:
    # sqlite:///relative.sqlite3 and sqlite:////absolute/path.sqlite3, as in dj-database-url.
    raw_path = unquote(parts.path[1:] if parts.path.startswith("/") else parts.path)
    if not raw_path:
        raise ImproperlyConfigured(f"{name} names no SQLite file: {url!r}")
    path = raw_path if raw_path == ":memory:" else str((base_dir / raw_path).resolve())
    return {
        # Django's, with the site's statement timeout (codewithpapers.backends).
        "ENGINE": "codewithpapers.backends.sqlite3",
        "NAME": path,
        "OPTIONS": {
            # IMMEDIATE takes the write lock at BEGIN, so two writers queue on
            # busy_timeout instead of failing with "database is locked" mid-transaction.
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": (
                "PRAGMA journal_mode=WAL;"
                "PRAGMA synchronous=NORMAL;"
                "PRAGMA busy_timeout=20000;"
                "PRAGMA foreign_keys=ON;"
            ),
        },
        "TEST": {"NAME": None},
    }


def _postgresql_database(parts, url: str, name: str) -> dict:
    database = unquote(parts.path.lstrip("/"))
    if not database:
        raise ImproperlyConfigured(f"{name} names no PostgreSQL database: {url!r}")
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured(f"{name} has an invalid port: {url!r}") from None
    options = dict(parse_qsl(parts.query))
    return {
        # Django's, with the site's statement timeout and a bound on waiting for a
        # server that has gone silent (codewithpapers.backends).
        "ENGINE": "codewithpapers.backends.postgresql",
        "NAME": database,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(port or ""),
        "CONN_MAX_AGE": 60,
        "CONN_HEALTH_CHECKS": True,
        # Planner settings for our sessions (docs/deploy.md); `?options=…` in the URL
        # replaces them. JIT off: a search over a common word is costed above
        # jit_above_cost and compiling takes longer than the query runs.
        # random_page_cost 1.1 (the data is in memory or on SSD): at the default 4
        # the search window (the first matches by id) of a phrase is planned as a
        # sort of all 190k matches, 0.6 s, instead of a walk of the primary key.
        # TCP keepalives and tcp_user_timeout: a server behind a network partition
        # is given up on within about 20 s instead of the kernel's ~2 hours (a
        # request gives up sooner still, see codewithpapers.backends).
        "OPTIONS": {
            "connect_timeout": 2,
            "options": SESSION_OPTIONS,
            **KEEPALIVES,
            **options,
        },
    }


def parse_cache_url(
    url: str, *, name: str = "CACHE_URL", timeout: int, key_prefix: str = "cwp"
) -> dict:
    """`locmem://` (one process's memory) or `redis://host:6379/0` as a CACHES entry.

    Redis is Django's built-in RedisCache (codewithpapers.cache.RedisCache reuses its
    client object); its socket timeouts are short so that a
    Redis outage slows no request by more than a fraction of a second (the page cache
    and the rate limiter treat a failing cache as absent, see codewithpapers.cache).
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "locmem":
        return {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": parts.netloc or "codewithpapers",
            "TIMEOUT": timeout,
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    if scheme in {"redis", "rediss"}:
        try:
            parts.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError:
            raise ImproperlyConfigured(f"{name} has an invalid port: {url!r}") from None
        if not parts.hostname:
            raise ImproperlyConfigured(f"{name} names no Redis host: {url!r}")
        return {
            "BACKEND": "codewithpapers.cache.RedisCache",
            "LOCATION": url,
            "TIMEOUT": timeout,
            "KEY_PREFIX": key_prefix,
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.5},
        }
    if scheme == "dummy":
        return {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    raise ImproperlyConfigured(
        f"{name} must start with locmem://, redis://, rediss:// or dummy://, "
        f"got {scheme or 'no scheme'!r}"
    )


_RATE = re.compile(r"^\d+/\d*[smhd]$")


def env_rate(name: str, default: str) -> str | None:
    """A rate limit like `30/m` or `100/10s` (django-ratelimit's syntax); `off` disables."""
    raw = os.environ.get(name, default).strip()
    if raw.lower() in {"off", "none", "0"}:
        return None
    if not _RATE.match(raw):
        raise ImproperlyConfigured(
            f"{name} must be a rate like 30/m, 100/10s or 1000/h (or off), got {raw!r}"
        )
    return raw
