"""Read replicas: DATABASE_REPLICA_URLS adds `replica_0`, `replica_1`… to DATABASES.

Reads go to a replica only inside `reading_from_replicas(True)`, which
ReplicaRoutingMiddleware opens for anonymous GET/HEAD requests outside the admin.
Everything else (writes, the admin, signed-in users, management commands such as
import_archive, the shell, tests) reads and writes the primary, so nothing that
writes ever reads a replica's possibly older rows first.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings

PRIMARY = "default"
# The replica this request reads from (one per request, so its pages are consistent
# with themselves), or None: the primary.
_read_alias: ContextVar[str | None] = ContextVar("read_alias", default=None)


def replica_aliases() -> list[str]:
    return [alias for alias in settings.DATABASES if alias.startswith("replica_")]


@contextmanager
def reading_from_replicas(allowed: bool = True) -> Iterator[None]:
    """Within the block reads go to one replica picked at random (when any is set)."""
    replicas = replica_aliases() if allowed else []
    token = _read_alias.set(random.choice(replicas) if replicas else None)
    try:
        yield
    finally:
        _read_alias.reset(token)


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
