"""Django's database backends with the site's request limits.

`bound_requests()` (called by wsgi.py and asgi.py, so by gunicorn and runserver, never by
management commands or scripts) gives every database the statement timeout
DATABASE_STATEMENT_TIMEOUT_MS. A statement that runs longer is stopped: by the server
itself on PostgreSQL (`statement_timeout`), by SQLite's progress handler on SQLite.
PostgreSQL gets a second bound for a server that does not answer at all (frozen, or
behind a network partition, where `statement_timeout` never fires): the client gives up
on a connection that has said nothing for the timeout plus ANSWER_GRACE_S, and closes
it. Either way the request ends in a 503 (codewithpapers.views.server_error) instead of
holding its thread for as long as the database stays silent. And once a connection to a
PostgreSQL database has failed (refused, timed out, silent), the process's requests
skip that database for OUTAGE_RETRY_S (codewithpapers.breaker): they fail at once,
sparing the threads that would each wait out a timeout, and one of them tries again
after the window.
"""

from __future__ import annotations

from django.conf import settings

TIMEOUT_KEY = "STATEMENT_TIMEOUT_MS"  # set in each DATABASES entry by bound_requests()
ANSWER_GRACE_S = 1.0  # beyond the statement timeout: the server has gone quiet
HEALTH_CHECK_S = 1.0  # a pooled connection's SELECT 1 before reuse (CONN_HEALTH_CHECKS)
OUTAGE_RETRY_S = 2.0  # after a failed connection, how long requests skip the database


def bound_requests() -> None:
    """Give every database the site's statement timeout (before any connection opens)."""
    for database in settings.DATABASES.values():
        database[TIMEOUT_KEY] = settings.DATABASE_STATEMENT_TIMEOUT_MS


def statement_timeout_ms(settings_dict: dict) -> int:
    """This database's statement timeout in milliseconds; 0: none (commands, scripts)."""
    return settings_dict.get(TIMEOUT_KEY) or 0
