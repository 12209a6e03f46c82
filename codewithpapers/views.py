"""Operational endpoints and error pages: /healthz, /robots.txt, the 500/503 handler."""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from codewithpapers.routers import PRIMARY, replica_aliases

# Health probes run here, so a database that hangs holds these threads (for at most
# its connect timeout), never a request's.
_probes = ThreadPoolExecutor(max_workers=4, thread_name_prefix="healthz")
DATABASE_DOWN = (OperationalError, InterfaceError)
RETRY_AFTER_S = 10


def _probe(alias: str) -> None:
    """Open a fresh connection to `alias` and run SELECT 1 (a pooled connection could
    answer from a socket the server already dropped)."""
    connection = connections.create_connection(alias)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()


@require_safe
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """200 when every database answers within HEALTHZ_TIMEOUT_MS, else 503."""
    started = time.perf_counter()
    deadline = started + settings.HEALTHZ_TIMEOUT_MS / 1000
    aliases = [PRIMARY, *replica_aliases()]
    futures = {alias: _probes.submit(_probe, alias) for alias in aliases}
    checks = {}
    for alias, future in futures.items():
        try:
            future.result(timeout=max(0.0, deadline - time.perf_counter()))
            checks[alias] = "ok"
        except FutureTimeout:
            checks[alias] = f"no answer within {settings.HEALTHZ_TIMEOUT_MS} ms"
        except Exception as exc:
            checks[alias] = f"error: {type(exc).__name__}"
    healthy = all(state == "ok" for state in checks.values())
    body = {
        "status": "ok" if healthy else "unavailable",
        "databases": checks,
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }
    response = JsonResponse(body, status=200 if healthy else 503)
    if not healthy:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response


@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    """Crawlers get the pages; search results and the API are for people and programs."""
    base = settings.SITE_URL or f"{request.scheme}://{request.get_host()}"
    lines = [
        "User-agent: *",
        "Disallow: /search",
        "Disallow: /api/",
        "Disallow: /admin/",
        "",
        f"Sitemap: {base}/sitemap.xml",
        "",
    ]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")


def _site_context() -> dict:
    # Rendered without the request: its context processors could touch the database
    # (the signed-in user), and the database may be what failed.
    return {"ARCHIVE_ABOUT": settings.ARCHIVE_ABOUT, "ARCHIVE_SNAPSHOT": settings.ARCHIVE_SNAPSHOT}


def database_unavailable() -> HttpResponse:
    """The 503 page in the site's look: the database did not answer."""
    body = render_to_string("503.html", _site_context())
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a database that cannot be reached is a 503 (temporary, retry soon);
    anything else is a 500."""
    if isinstance(sys.exc_info()[1], DATABASE_DOWN):
        return database_unavailable()
    return HttpResponse(render_to_string("500.html", _site_context()), status=500)
