"""Django's SQLite backend, with the site's statement timeout (codewithpapers.backends):
SQLite's progress handler interrupts a statement that has run for longer. And the bulk
writes papers.db asks of it (operations.py)."""

from __future__ import annotations

import math
import time

from django.db.backends.sqlite3 import base

from codewithpapers.backends import statement_timeout_ms
from codewithpapers.backends.sqlite3.operations import DatabaseOperations

PROGRESS_STEPS = 10_000  # virtual-machine steps between two looks at the clock (~1 ms)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._deadline = math.inf  # when the running statement must stop
        self.execute_wrappers.append(self._start_clock)

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        if statement_timeout_ms(self.settings_dict):
            # A non-zero answer interrupts the statement ("interrupted", an OperationalError).
            connection.set_progress_handler(self._past_deadline, PROGRESS_STEPS)
        return connection

    def _past_deadline(self) -> bool:
        return time.monotonic() > self._deadline

    def _start_clock(self, execute, sql, params, many, context):
        if timeout := statement_timeout_ms(self.settings_dict):
            self._deadline = time.monotonic() + timeout / 1000
        return execute(sql, params, many, context)
