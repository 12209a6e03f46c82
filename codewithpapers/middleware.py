"""Site-wide middleware: request logging, rate limits, the page cache, replica routing.

Each one decides by path prefix, not by view, so a page added under a known prefix (the
JSON API under /api/) is logged, limited and cached without touching this file.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import logging
import math
import random
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from urllib.parse import unquote, urlencode

from django import forms
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import DisallowedHost
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.utils.cache import get_conditional_response, get_max_age, patch_vary_headers
from django.utils.encoding import escape_uri_path
from django.utils.http import parse_http_date_safe
from django_ratelimit.core import get_usage

from codewithpapers.cache import VERSION_KEY, bump_content_version, content_version
from codewithpapers.http import answers_json, json_error
from codewithpapers.routers import (
    healthy_replicas,
    mark_down,
    read_alias,
    reading_from,
    reading_from_replicas,
)
from codewithpapers.sessions import signed_in

request_log = logging.getLogger("codewithpapers.requests")
logger = logging.getLogger(__name__)

# The request headers a cached page's content can depend on: the htmx ones (fragment or
# whole page, and which element asked), so fragments and pages never mix, and Cookie
# (the signed-in user). Every cached response says it varies on them, for the caches
# between the site and its visitors.
CACHE_VARY = ("Cookie", "HX-Request", "HX-History-Restore-Request", "HX-Trigger")

# How a declared query parameter's value is keyed: None (as given), a form field (the
# value it cleans to), or a function of the value (what it returns).
Normaliser = forms.Field | Callable[[str], object] | None


@dataclass(frozen=True)
class PageReads:
    """What a page declared with `reads`: its query parameters, each with its
    normaliser, and the request headers it reads besides the htmx ones."""

    parameters: dict[str, Normaliser]
    headers: tuple[str, ...] = ()

    def __contains__(self, name: str) -> bool:
        return name in self.parameters


def reads(
    *parameters: str | type[forms.BaseForm] | Mapping[str, Normaliser],
    headers: tuple[str, ...] = (),
):
    """Declares what a page's content depends on beyond its path: query parameters and,
    besides the htmx ones, request headers. Each parameter is a name (keyed as given), a
    Form class (every field of it, each keyed by the value the field cleans it to, as the
    view reads it: `page=01`, `page=+1` and `page=1.0` are one page), or a mapping of
    names to a form field or a function of the value (`{"p": int}`).

    The page cache keys the page by them alone, and redirects a request naming any other
    parameter (`?utm_source=…`, `?junk=1`) to the URL without it, so each distinct page
    is rendered and stored once. Views that declare nothing (the API, which refuses
    unknown parameters with a 400) are keyed by their whole URL."""
    declared: dict[str, Normaliser] = {}
    for parameter in parameters:
        if isinstance(parameter, str):
            declared[parameter] = None
        elif isinstance(parameter, type) and issubclass(parameter, forms.BaseForm):
            declared.update(parameter.base_fields)
        else:
            declared.update(parameter)

    def mark(view):
        view.page_reads = PageReads(declared, tuple(headers))
        return view

    return mark


def page_reads(request: HttpRequest) -> PageReads | None:
    """What the view of this path declared with `reads`, or None."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return None
    return getattr(match.func, "page_reads", None)


class _QueryCounter:
    """An execute wrapper counting the SQL statements run through it."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        return execute(sql, params, many, context)


class RequestLogMiddleware:
    """One JSON line a request on stdout: method, path, status, duration_ms, queries
    (on every database alias), and whether the page cache answered."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        counter = _QueryCounter()
        started = time.perf_counter()
        with ExitStack() as stack:
            for alias in connections:
                stack.enter_context(connections[alias].execute_wrapper(counter))
            response = self.get_response(request)
        fields = {
            "method": request.method,
            "path": request.path,
            "status": response.status_code,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            "queries": counter.count,
        }
        if cached := response.get("X-Cache"):
            fields["cache"] = cached
        request_log.info("request", extra={"fields": fields})
        return response


class HeadWithoutBodyMiddleware:
    """A HEAD is answered with the headers a GET would get (Content-Length included) and
    no body. Django's WSGI handler sends the body anyway, and gunicorn drops it with a
    warning in the log: one a request, for what load balancers, link checkers and feed
    readers ask all the time."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method == "HEAD":
            if response.streaming:
                response.streaming_content = []  # its file is still closed with it
            else:
                if not response.has_header("Content-Length"):
                    response["Content-Length"] = str(len(response.content))
                response.content = b""
        return response


def refusal(
    request: HttpRequest, status: int, message: str, template: str, context: dict
) -> HttpResponse:
    """A request refused before any view: the API's JSON error under /api/ (what its
    clients parse) under /api/ and /mcp, the site's page everywhere else."""
    if answers_json(request.path):
        return json_error(status, message)
    return render(request, template, context, status=status)


# --- malformed requests -----------------------------------------------------------------


class RejectNulMiddleware:
    """A NUL character in the path (`/paper/%00`) is a 400. No page has one, and
    PostgreSQL refuses NUL in text parameters, so the lookup would be a 500. (Query
    parameters are validated by each page's form.)"""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path:
            message = "The address contains a NUL character."
            return refusal(request, 400, message, "400.html", {"exception": message})
        return self.get_response(request)


# --- rate limits ----------------------------------------------------------------------


def client_address(group: str, request: HttpRequest) -> str:
    """The client's address for rate limiting: CLIENT_IP_HEADER (set by the proxy in
    front) or the connection's own address. An IPv6 client counts by its /64, since one
    machine commonly holds a whole /64."""
    raw = ""
    if settings.CLIENT_IP_HEADER:
        header = request.headers.get(settings.CLIENT_IP_HEADER, "")
        # X-Forwarded-For style lists: the last entry is the one our proxy appended.
        raw = header.rsplit(",", 1)[-1].strip()
    raw = raw or request.META.get("REMOTE_ADDR", "") or "unknown"
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return raw[:64]
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False).network_address)
    return str(address)


def rate_for(path: str) -> tuple[str, str] | None:
    """(prefix, rate) of the first RATELIMITS prefix the path starts with."""
    for prefix, rate in settings.RATELIMITS.items():
        if path.startswith(prefix):
            return prefix, rate
    return None


def too_many_requests(request: HttpRequest, retry_after: int) -> HttpResponse:
    message = f"Too many requests from your address. Try again in {retry_after} s."
    response = refusal(request, 429, message, "429.html", {"retry_after": retry_after})
    response["Retry-After"] = str(retry_after)
    return response


class RateLimitMiddleware:
    """django-ratelimit's fixed-window counters, per client address and path prefix
    (RATELIMITS). Over the limit: 429 with Retry-After (seconds to the window's end).
    A cache that fails lets the request through: a Redis outage must not take the
    search down with it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = rate_for(request.path) if settings.RATELIMIT_ENABLE else None
        if limit is not None:
            prefix, rate = limit
            try:
                usage = get_usage(
                    request, group=prefix, key=client_address, rate=rate, increment=True
                )
            except Exception:
                logger.warning("rate limiter unavailable: letting the request through")
                usage = None
            if usage and usage["should_limit"] and usage["limit"]:
                return too_many_requests(request, max(1, math.ceil(usage["time_left"])))
        return self.get_response(request)


# --- the page cache -------------------------------------------------------------------


def _cacheable_request(request: HttpRequest) -> bool:
    """Anonymous GET/HEAD on a path the cache may hold. Signed in (never cached) means a
    valid session that is signed in, or a token that authenticates
    (codewithpapers.sessions): a made-up session cookie or an Authorization header alone
    is anonymous, and costs no database query."""
    if request.method not in ("GET", "HEAD"):
        return False
    if any(request.path.startswith(prefix) for prefix in settings.PAGE_CACHE_EXCLUDE):
        return False
    try:
        request.get_host()  # part of the key; a bad Host header is CommonMiddleware's 400
    except DisallowedHost:
        return False
    return not signed_in(request)


def _cacheable_response(response: HttpResponse) -> bool:
    if response.status_code != 200 or response.streaming or response.cookies:
        return False
    control = response.get("Cache-Control", "").lower()
    if any(word in control for word in ("private", "no-store", "no-cache")):
        return False
    return get_max_age(response) != 0


def _key_value(name: str, normaliser: Normaliser, request: HttpRequest) -> str:
    """How one given parameter is keyed: what the view will read from it. A value that
    does not clean is keyed as given (the view refuses it, and refusals are not cached);
    so is an empty one, which some pages read apart from a missing one."""
    if isinstance(normaliser, forms.Field):
        raw = normaliser.widget.value_from_datadict(request.GET, {}, name)
        read = normaliser.clean
    else:
        raw = request.GET.get(name)
        read = normaliser
    if read is None or raw in ("", None, [], ()):
        return f"={raw!r}"
    try:
        return f":{read(raw)!r}"
    except Exception:  # ValidationError, or whatever a function raises: as given
        return f"={raw!r}"


def _htmx_header(request: HttpRequest, name: str) -> str | None:
    """A header as django-htmx reads it (percent-decoded when htmx says it encoded it)."""
    value = request.headers.get(name) or None
    if value and request.headers.get(f"{name}-URI-AutoEncoded") == "true":
        value = unquote(value)
    return value


def page_key(request: HttpRequest, declared: PageReads | None) -> str:
    """The cache key of a page: scheme, host and path, the query parameters the page
    reads as it reads them (in a fixed order), whether it is an htmx request (only
    `HX-Request: true` is, as django-htmx reads it) or a history restore, and the other
    headers it declared: the htmx ones (HX-Trigger) only for htmx requests, the only ones
    whose views read them. A page that declares nothing is keyed by its full URL. Cookies
    are not part of it: only anonymous requests are cached, and no cookie but the
    session's changes a page. The key is computed, not learned (no per-URL header list
    to fetch first, as Django's own cache middleware does); a HEAD is answered from the
    GET's entry."""
    htmx = _htmx_header(request, "HX-Request") == "true"
    restore = _htmx_header(request, "HX-History-Restore-Request") == "true"
    if declared is None:
        parts = [request.build_absolute_uri()]
    else:
        # Only declared parameters are left (canonical_redirect sent the others away).
        parts = [f"{request.scheme}://{request.get_host().lower()}{escape_uri_path(request.path)}"]
        parts += [
            name + _key_value(name, declared.parameters[name], request)
            for name in sorted(request.GET)
        ]
        for header in declared.headers:
            if htmx or not header.lower().startswith("hx-"):
                parts.append(f"{header}: {_htmx_header(request, header)}")
    parts.append(f"htmx={htmx} restore={restore}")
    digest = hashlib.md5("\n".join(parts).encode(), usedforsecurity=False).hexdigest()
    return f"page.{digest}"


def canonical_redirect(request: HttpRequest, declared: PageReads | None) -> HttpResponse | None:
    """A 301 to the URL without the query parameters the page does not read, if any."""
    if declared is None or all(name in declared for name in request.GET):
        return None
    kept = [(name, values) for name, values in request.GET.lists() if name in declared]
    query = urlencode(kept, doseq=True)
    return HttpResponsePermanentRedirect(
        escape_uri_path(request.path) + (f"?{query}" if query else "")
    )


def render_limit(request: HttpRequest) -> HttpResponse | None:
    """A 429 when this client has rendered RATELIMIT_RENDERS' allowance of a heavy page
    that the cache did not hold (sitemaps: thousands of URLs each); None otherwise."""
    for prefix, rate in settings.RATELIMIT_RENDERS.items():
        if request.path.startswith(prefix):
            try:
                usage = get_usage(
                    request,
                    group=f"render:{prefix}",
                    key=client_address,
                    rate=rate,
                    increment=True,
                )
            except Exception:
                return None
            if usage and usage["should_limit"] and usage["limit"]:
                return too_many_requests(request, max(1, math.ceil(usage["time_left"])))
    return None


class PageCacheMiddleware:
    """Whole responses for anonymous GETs, through Django's cache framework.

    An entry is (content version, response) under page_key(request). A hit is one
    cache round trip: the version and the entry are read together, and the entry
    counts only when it was stored under the current version, so a bump (an import,
    an admin edit) retires every entry at once; a retired entry is overwritten by the
    next miss or lapses after CACHE_TTL. Responses vary on the htmx headers, so an
    htmx fragment is never served for a page or the reverse. `X-Cache: hit|miss` says
    which happened.

    Any write through the admin (a POST, PUT or DELETE under PAGE_CACHE_WRITE_PATHS:
    adds, edits, deletes, bulk actions, inlines) bumps the version once its response is
    ready, that is after the admin's transaction committed. A rejected form bumps it
    too, which costs only cache misses.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in ("GET", "HEAD", "OPTIONS") and any(
            request.path.startswith(prefix) for prefix in settings.PAGE_CACHE_WRITE_PATHS
        ):
            response = self.get_response(request)
            if response.status_code < 500:
                bump_content_version()
            return response
        if request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        declared = page_reads(request)
        if redirect := canonical_redirect(request, declared):
            return redirect
        if not _cacheable_request(request):
            return self.get_response(request)
        key = page_key(request, declared)
        try:
            found = cache.get_many([VERSION_KEY, key])
        except Exception:
            logger.warning("page cache unavailable: serving uncached")
            return self.get_response(request)
        version = found.get(VERSION_KEY) or content_version()
        if version is None:
            return self.get_response(request)
        entry = found.get(key)
        if entry is not None and entry[0] == version:
            cached = entry[1]
            cached["X-Cache"] = "hit"
            return self._conditional(request, cached)
        if refused := render_limit(request):
            return refused
        response = self.get_response(request)
        if request.method == "GET" and _cacheable_response(response):
            patch_vary_headers(response, CACHE_VARY)
            try:
                if hasattr(response, "render") and callable(response.render):
                    response.add_post_render_callback(
                        lambda r: cache.set(key, (version, r), settings.CACHE_TTL)
                    )
                else:
                    cache.set(key, (version, response), settings.CACHE_TTL)
            except Exception:
                logger.warning("page cache unavailable: response not stored")
            response["X-Cache"] = "miss"
        return response

    @staticmethod
    def _conditional(request: HttpRequest, response: HttpResponse) -> HttpResponse:
        """A cached page still answers If-None-Match / If-Modified-Since with a 304."""
        if not response.has_header("ETag") and not response.has_header("Last-Modified"):
            return response
        last_modified = parse_http_date_safe(response.get("Last-Modified", ""))
        return get_conditional_response(
            request, etag=response.get("ETag"), last_modified=last_modified, response=response
        )


# --- read replicas --------------------------------------------------------------------


# Errors of the database itself, not of the query: the server answered with one of
# these SQLSTATE classes, or (no SQLSTATE) never answered at all.
_SERVER_GONE = ("08", "57P")  # connection exception; shutdown, cannot connect now


def replica_is_gone(exception: Exception) -> bool:
    """Whether a database error says the replica itself is unusable (refused, dropped,
    silent, shutting down, starting up), rather than one query failing on it (a
    statement timeout, a conflict with recovery): only then is it left out for a while."""
    sqlstate = getattr(exception.__cause__, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith(_SERVER_GONE)


class ReplicaRoutingMiddleware:
    """Lets anonymous GET/HEAD requests outside the admin read from the replicas
    (codewithpapers.routers). Everything else reads the primary: the admin, any write,
    and anyone signed in (staff see their own edits at once; codewithpapers.sessions).

    A request whose replica fails (it cannot be reached, stops answering, or cancels the
    query) is run again on another replica, or on the primary when none is left; a
    replica that cannot be reached is left out of later requests for a while
    (routers.REPLICA_RETRY_S). So a dead replica costs readers nothing but the time it
    took to find out."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        allowed = (
            request.method in ("GET", "HEAD")
            and not request.path.startswith("/admin/")
            and not signed_in(request)
        )
        with reading_from_replicas(allowed):
            return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        failed = read_alias()
        if failed is None or not isinstance(exception, (OperationalError, InterfaceError)):
            return None  # not a replica's failure: the error handlers answer
        match, tried = request.resolver_match, set()
        while failed is not None:
            tried.add(failed)
            if replica_is_gone(exception):
                mark_down(failed)
                logger.warning("replica %s failed (%s): reading elsewhere", failed, exception)
            with contextlib.suppress(Exception):
                connections[failed].close()
            others = [alias for alias in healthy_replicas() if alias not in tried]
            alias = random.choice(others) if others else None
            with reading_from(alias):
                try:
                    response = match.func(request, *match.args, **match.kwargs)
                    if hasattr(response, "render") and not response.is_rendered:
                        response = response.render()
                    return response
                except (OperationalError, InterfaceError) as error:
                    if alias is None:
                        raise  # the primary failed too: the 503
                    failed, exception = alias, error
        return None
