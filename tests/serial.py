"""One request at a time through the browser tests' live server on SQLite.

The test database there is in memory, and pytest-django's live server hands its one
connection to every request thread: two requests at once (a page and its htmx search
while typing) would interleave their rows on one cursor. A site on a database file has a
connection per thread and needs none of this.
"""

from __future__ import annotations

import threading

_LOCK = threading.Lock()


class OneRequestAtATime:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with _LOCK:
            return self.get_response(request)
