"""Operational endpoints and error pages: /healthz, /robots.txt, the admin's throttled
login, the error handlers.

The handlers answer under /api/ in the API's JSON error shape (codewithpapers.http.json_error),
whatever raised: a view, a middleware, or Django itself before any view (a Host header
the site does not serve, too many query parameters); elsewhere in the site's look."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from django.conf import settings
from django.contrib import admin
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.module_loading import import_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django_ratelimit.core import get_usage

from codewithpapers.http import json_error
from codewithpapers.middleware import client_address, reads, too_many_requests
from codewithpapers.public import public_base_url
from codewithpapers.routers import PRIMARY, mark_down, mark_up, replica_aliases

# Health probes run here, so a database that hangs holds these threads (for at most
# its connect timeout), never a request's; one probe a database at a time (see _probe_of),
# so a silent replica cannot take the threads the primary's probe needs.
_probes = ThreadPoolExecutor(max_workers=len(settings.DATABASES) + 1, thread_name_prefix="healthz")
_running: dict[str, Future] = {}
_running_lock = threading.Lock()
DATABASE_DOWN = (OperationalError, InterfaceError)
RETRY_AFTER_S = 10


def _probe(alias: str, *, search: bool = False) -> tuple[str, dict | None] | None:
    """Open a fresh connection to `alias` and run SELECT 1 (a pooled connection could
    answer from a socket the server already dropped); with `search`, say whether the
    full-text index is there ("ok") or deferred until an import builds it ("rebuilding"),
    and what the last arXiv harvest did (its time and outcome, or None)."""
    connection = connections.create_connection(alias)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        if search:
            deferred = import_string(settings.SEARCH_INDEX_DEFERRED)
            harvest = import_string(settings.ARXIV_LAST_HARVEST)(connection)
            return ("rebuilding" if deferred(connection) else "ok"), harvest
        return None
    finally:
        connection.close()


def _probe_of(alias: str) -> Future:
    """The probe of `alias` still running from an earlier call, or a new one: probes of a
    silent database do not pile up however often the load balancer asks."""
    with _running_lock:
        future = _running.get(alias)
        if future is None or future.done():
            future = _running[alias] = _probes.submit(_probe, alias, search=alias == PRIMARY)
        return future


@require_safe
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """200 when the primary database answers within HEALTHZ_TIMEOUT_MS, else 503: a load
    balancer takes an app server out only when it cannot serve, and a dead replica does
    not stop one (its readers go to another replica or the primary), so replicas are
    reported but leave the status "degraded" and the answer a 200. What the probes find
    also tells this process's router which replicas to use (codewithpapers.routers).
    `search` says whether the full-text index is being rebuilt (after a killed import, or
    during a big one), `harvest` what the last arXiv harvest did: the site works
    meanwhile, so either is still a 200."""
    started = time.perf_counter()
    deadline = started + settings.HEALTHZ_TIMEOUT_MS / 1000
    aliases = [PRIMARY, *replica_aliases()]
    futures = {alias: _probe_of(alias) for alias in aliases}
    checks, search, harvest = {}, "unknown", None
    for alias, future in futures.items():
        try:
            state = future.result(timeout=max(0.0, deadline - time.perf_counter()))
            checks[alias] = "ok"
            if alias == PRIMARY:
                search, harvest = state
        except FutureTimeout:
            checks[alias] = f"no answer within {settings.HEALTHZ_TIMEOUT_MS} ms"
        except Exception as exc:
            checks[alias] = f"error: {type(exc).__name__}"
        if alias != PRIMARY:
            (mark_up if checks[alias] == "ok" else mark_down)(alias)
    serving = checks[PRIMARY] == "ok"
    status = "unavailable" if not serving else "ok"
    if serving and any(state != "ok" for state in checks.values()):
        status = "degraded"
    body = {
        "status": status,
        "databases": checks,
        "search": search,
        # The last arXiv harvest (time and outcome): a failed one leaves the site serving.
        "harvest": harvest,
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }
    response = JsonResponse(body, status=200 if serving else 503)
    if not serving:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response


@reads()
@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    """Crawlers get the pages; search results and the API are for people and programs."""
    base = public_base_url(request)
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


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def database_unavailable(request: HttpRequest) -> HttpResponse:
    """The 503: the database did not answer (JSON under /api/, else the site's page)."""
    if is_api(request):
        response = json_error(503, "The database is not answering; try again in a few seconds.")
    else:
        response = HttpResponse(render_to_string("503.html", _site_context()), status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a database that cannot be reached is a 503 (temporary, retry soon);
    anything else is a 500."""
    if isinstance(sys.exc_info()[1], DATABASE_DOWN):
        return database_unavailable(request)
    if is_api(request):
        return json_error(500, "Internal server error.")
    return HttpResponse(render_to_string("500.html", _site_context()), status=500)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400: what Django refuses before a view runs (a Host header the site does not
    serve, too many parameters, a body over REQUEST_MAX_BYTES). Rendered without the
    request's context processors, which would ask for the refused Host again."""
    if is_api(request):
        return json_error(400, "Bad request: the request could not be understood.")
    body = render_to_string("400.html", _site_context())
    return HttpResponse(body, status=400)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: a JSON 404 under /api/, the site's page elsewhere."""
    if is_api(request):
        return json_error(404, "Not found.")
    return render(request, "404.html", status=404)


# --- the admin's login, throttled ----------------------------------------------------


def _login_username(group: str, request: HttpRequest) -> str:
    return request.POST.get("username", "").strip().lower()[:150]


LOGIN_ADDRESS, LOGIN_USER = "admin-login-address", "admin-login-user"
LOGIN_LIMITS = ((LOGIN_ADDRESS, client_address), (LOGIN_USER, _login_username))


def _login_usages(request: HttpRequest, *, increment: bool) -> dict[str, dict]:
    """django-ratelimit's counts of failed sign-ins, per address and per user name, by
    group; none when the limit is off or the cache cannot count (fail open, as the other
    limits)."""
    if not settings.RATELIMIT_LOGIN:
        return {}
    usages = {}
    for group, key in LOGIN_LIMITS:
        try:
            usage = get_usage(
                request, group=group, key=key, rate=settings.RATELIMIT_LOGIN, increment=increment
            )
        except Exception:
            usage = None
        if usage:
            usages[group] = usage
    return usages


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's login, throttled. An address that has failed RATELIMIT_LOGIN times in
    the window is refused (429), whatever the password, until the window ends. A user
    name that has failed that often (from anywhere) is refused only to addresses that
    have failed in the window: failures from other addresses cannot lock its owner out,
    and a guesser gets at most one try from each fresh address while the name is over
    its limit (the try counts against that address)."""
    if request.method != "POST":
        return admin.site.login(request)
    usages = _login_usages(request, increment=False)
    address, user = usages.get(LOGIN_ADDRESS), usages.get(LOGIN_USER)
    full = []
    if address and address["count"] >= address["limit"]:
        full.append(address)
    if user and user["count"] >= user["limit"] and (address is None or address["count"] > 0):
        full.append(user)
    if full:
        return too_many_requests(request, max(1, max(u["time_left"] for u in full)))
    response = admin.site.login(request)
    if response.status_code == 200:  # the form again, with its error: a failed attempt
        _login_usages(request, increment=True)
    return response
