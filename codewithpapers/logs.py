"""JSON log lines for machines: one object a line, the record's `fields` at top level."""

from __future__ import annotations

import datetime as dt
import json
import logging


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": dt.datetime.fromtimestamp(record.created, tz=dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
            **getattr(record, "fields", {}),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class WithoutTraceback(logging.Filter):
    """Drops a record's traceback: for refusals that are routine, such as a Host header
    the site does not serve (every scanner sends one), one line says all there is."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        return True


class DatabaseDownBrief(logging.Filter):
    """A request that failed because a database did not answer (a 503) is logged as one
    line naming the error, not a traceback: during an outage every such request would
    repeat the same one (codewithpapers.breaker logs the outage itself)."""

    def filter(self, record: logging.LogRecord) -> bool:
        from django.db import InterfaceError, OperationalError

        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, OperationalError | InterfaceError):
            record.msg = f"{record.getMessage()} ({type(error).__name__}: {str(error).strip()})"
            record.args = None
            record.exc_info = record.exc_text = None
        return True
