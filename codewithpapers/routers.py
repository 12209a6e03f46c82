"""Read replicas: DATABASE_REPLICA_URLS adds `replica_0`, `replica_1`… to DATABASES.

Reads go to a replica only inside `reading_from_replicas(True)`, which
ReplicaRoutingMiddleware opens for anonymous GET/HEAD requests outside the admin.
Everything else (writes, the admin, signed-in users, management commands such as
import_archive, the shell, tests) reads and writes the primary, so nothing that
writes ever reads a replica's possibly older rows first.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings

PRIMARY = "default"
# How long a replica that failed is left out before requests try it again (per process;
# /healthz, which load balancers call every few seconds, brings it back sooner).
REPLICA_RETRY_S = 15.0
# The replica this request reads from (one per request, so its pages are consistent
# with themselves), or None: the primary.
_read_alias: ContextVar[str | None] = ContextVar("read_alias", default=None)
_down_until: dict[str, float] = {}
_down_lock = threading.Lock()


def replica_aliases() -> list[str]:
    return [alias for alias in settings.DATABASES if alias.startswith("replica_")]


def healthy_replicas() -> list[str]:
    now = time.monotonic()
    return [alias for alias in replica_aliases() if _down_until.get(alias, 0.0) <= now]


def mark_down(alias: str) -> None:
    """Leave this replica out of new requests for REPLICA_RETRY_S."""
    with _down_lock:
        _down_until[alias] = time.monotonic() + REPLICA_RETRY_S


def mark_up(alias: str) -> None:
    with _down_lock:
        _down_until.pop(alias, None)


def read_alias() -> str | None:
    """The replica this request reads from, or None (the primary)."""
    return _read_alias.get()


@contextmanager
def reading_from(alias: str | None) -> Iterator[None]:
    """Within the block reads go to `alias` (None: the primary)."""
    token = _read_alias.set(alias)
    try:
        yield
    finally:
        _read_alias.reset(token)


@contextmanager
def reading_from_replicas(allowed: bool = True) -> Iterator[None]:
    """Within the block reads go to one replica picked at random among those not left
    out after a failure (the primary when none is set or all are out)."""
    replicas = healthy_replicas() if allowed else []
    with reading_from(random.choice(replicas) if replicas else None):
        yield


class ReplicaRouter:
    """Reads to the request's replica when allowed and configured; all else to the primary."""

    def db_for_read(self, model, **hints) -> str:
        return _read_alias.get() or PRIMARY

    def db_for_write(self, model, **hints) -> str:
        return PRIMARY

    def allow_relation(self, obj1, obj2, **hints) -> bool:
        # Replicas hold the primary's rows: objects from any alias may be related.
        return True

    def allow_migrate(self, db, app_label, model_name=None, **hints) -> bool:
        # Replicas are copies made by the database's own replication: never migrated.
        return db == PRIMARY
