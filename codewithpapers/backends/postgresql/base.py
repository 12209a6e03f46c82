"""Django's PostgreSQL backend, with the site's statement timeout and a client-side bound
on how long a silent server is waited for (codewithpapers.backends), and the bulk writes
papers.db asks of it (operations.py)."""

from __future__ import annotations

from contextlib import contextmanager

import psycopg
from django.db.backends.postgresql import base
from psycopg import errors

from codewithpapers.backends import (
    ANSWER_GRACE_S,
    HEALTH_CHECK_S,
    OUTAGE_RETRY_S,
    statement_timeout_ms,
)
from codewithpapers.backends.postgresql.operations import DatabaseOperations
from codewithpapers.breaker import CircuitBreaker


class BoundedConnection(psycopg.Connection):
    """A psycopg connection that waits at most `answer_timeout` seconds for the server at
    each step (a statement's result, a commit, a fetch), then closes itself and raises
    OperationalError: a frozen server keeps the socket open and answers nothing, which
    neither `statement_timeout` (the server's own) nor TCP keepalives (the server's
    kernel still answers them) would end."""

    answer_timeout: float | None = None
    outage: CircuitBreaker | None = None  # the database's breaker (the site's connections)

    def wait(self, gen, *args, timeout: float | None = None, **kwargs):
        limit = self.answer_timeout if timeout is None else timeout
        try:
            return super().wait(gen, *args, timeout=limit, **kwargs)
        except errors._WaitTimeout:  # psycopg's own (documented on Connection.wait)
            # Halfway through the protocol: the connection cannot be used again.
            self.close()
            error = psycopg.OperationalError(f"the database did not answer within {limit:g} s")
            if self.outage is not None:
                self.outage.failed(error)
            raise error from None

    @contextmanager
    def answering_within(self, seconds: float):
        saved, self.answer_timeout = self.answer_timeout, seconds
        try:
            yield
        finally:
            self.answer_timeout = saved


class _Psycopg:
    """psycopg, as Django's backend uses it, connecting with BoundedConnection."""

    connect = BoundedConnection.connect

    def __getattr__(self, name: str):
        return getattr(psycopg, name)


class DatabaseWrapper(base.DatabaseWrapper):
    Database = _Psycopg()
    ops_class = DatabaseOperations

    def get_connection_params(self):
        params = super().get_connection_params()
        if timeout := statement_timeout_ms(self.settings_dict):
            params["options"] = f"{params.get('options', '')} -c statement_timeout={timeout}"
        return params

    @property
    def outage(self) -> CircuitBreaker | None:
        """This database's breaker, for the site's connections (None for commands)."""
        if not statement_timeout_ms(self.settings_dict):
            return None
        name = f"database {self.alias}"
        return CircuitBreaker.named(name, "answering 503", OUTAGE_RETRY_S)

    def get_new_connection(self, conn_params):
        outage = self.outage
        if outage is not None and not outage.allow():
            raise psycopg.OperationalError(
                f"database {self.alias} skipped for {OUTAGE_RETRY_S:g} s after a failure"
            )
        try:
            connection = super().get_new_connection(conn_params)
        except psycopg.OperationalError as exc:
            if outage is not None:
                outage.failed(exc)
            raise
        if outage is not None:
            outage.succeeded()
            connection.outage = outage
            connection.answer_timeout = (
                statement_timeout_ms(self.settings_dict) / 1000 + ANSWER_GRACE_S
            )
        return connection

    def is_usable(self):
        # The health check of a pooled connection before a request reuses it: a server
        # that has not answered a SELECT 1 within a second is not waited for any longer,
        # and none is asked while the database is being skipped.
        if self.connection is None or self.connection.answer_timeout is None:
            return super().is_usable()
        if self.connection.outage is not None and self.connection.outage.skipping:
            return False
        with self.connection.answering_within(HEALTH_CHECK_S):
            return super().is_usable()
