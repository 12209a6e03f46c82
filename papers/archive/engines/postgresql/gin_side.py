"""PostgreSQL: build the full-text GIN index beside the import's last files.

An import into an empty database builds the papers' GIN index once, when it ends
(papers.search.index.defer()): about a minute for the full archive, with one core
idle. Once the import has written the papers (the files still to come
write code links, methods, datasets or leaderboards), `GinBeside` builds the index on a
second connection while the writer goes on with them. Those files read papers (which
the build allows) and write few: a stub for a link's paper that the papers file lacked,
a fill-in of a stub's field. Such a write waits for the build to end, as every write to
the papers table did while the import built the index at its end; so does the
importer's own end (the foreign keys, whose locks conflict with the build's).

CREATE INDEX CONCURRENTLY would let those writes through, but it scans the table twice
and checks the index against it: over half as long again as the plain build, more
than it could overlap with the links file.

The build is one transaction: if it fails, or the import is killed or stops early
(`cancel()`), no index is left, papers.search.index.deferred() still says so and the
importer builds it at the end (or the next import does). So the end state does not
depend on this build; only the time does.
"""

from __future__ import annotations

import threading
import time

from django.db import DatabaseError, connection, connections

from papers.search.backends.postgresql import create_gin


class GinBeside:
    def __init__(self) -> None:
        self.failed: str | None = None
        self.seconds = 0.0
        self.backend: int | None = None  # the building connection's server process
        self.thread = threading.Thread(target=self._run, name="import-gin", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        started = time.monotonic()
        side = None
        try:
            side = connections.create_connection(connection.alias)
            side.ensure_connection()
            self.backend = side.connection.info.backend_pid
            side.set_autocommit(False)  # one transaction: the build's memory setting is local
            with side.cursor() as cursor:
                create_gin(cursor)
            side.commit()
        except DatabaseError as exc:
            self.failed = str(exc).strip() or type(exc).__name__
        finally:
            if side is not None:
                side.close()
            self.seconds = time.monotonic() - started

    def wait(self) -> None:
        self.thread.join()

    def cancel(self) -> None:
        """The import stopped early: stop the build (it leaves no index) and wait."""
        cancelled = False
        while self.thread.is_alive():
            if self.backend is not None and not cancelled:
                cancelled = True
                try:
                    with connection.cursor() as cursor:
                        cursor.execute("SELECT pg_cancel_backend(%s)", [self.backend])
                except DatabaseError:
                    pass  # then it finishes; an index built is as good as one built later
            self.thread.join(0.1)
