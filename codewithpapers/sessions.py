"""Who is signed in, known before the page cache, with no database query for anyone else.

The page cache and the replica routing run before Django's session and authentication
middleware, and both ask one question: is this request signed in (render it for them,
on the primary) or anonymous (the cache, a replica)? `signed_in()` answers it.

A cookie proves nothing by itself: anyone can send `Cookie: sessionid=x`, and a flood of
random ones must not reach the database. So session keys are signed: `SessionStore`
makes each key 24 random characters and an HMAC of them under SECRET_KEY, and takes a
key without a valid HMAC for no session at all, without looking it up. A forged or
random cookie costs one HMAC (microseconds) and is served as anonymous, from the cache.
A key the site did make (a live session, or one that has ended) is looked up once on
the primary; when it is not signed in, that is remembered in the cache for CACHE_TTL, so
replaying it costs a cache read. A signed-in request's session, loaded here, is handed
to SessionMiddleware instead of being loaded twice.

Weighed against: Django's signed-cookie sessions (no lookup at all, but a session could
not be ended on the server: a stolen cookie would work until it expired); `cached_db`
sessions or a remembered "not signed in" alone (a random key misses the cache every time,
so a flood of them still reaches the database at full rate).

Keys made by Django's own store (unsigned) are not recognised: their users sign in again.

API tokens (`Authorization: Token <key>`) are checked in `token_user()`, the one place
that does: keys are signed the same way (papers.contributions.tokens), so a header the
site never issued costs an HMAC and no query, and its request stays anonymous (cached).
"""

from __future__ import annotations

import contextlib
import hashlib
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends import db
from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessionMiddleware
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.crypto import constant_time_compare, get_random_string, salted_hmac

_SALT = "codewithpapers.sessions.SessionStore"
_RANDOM = 24  # characters of a key drawn at random (about 124 bits)
_MAC = 16  # hex characters of its HMAC (64 bits): 40 in all, the column's length
_SIGNED_IN = "_codewithpapers_signed_in"
_SESSION = "_codewithpapers_session"


def _mac(random_part: str, secret: str) -> str:
    return salted_hmac(_SALT, random_part, secret=secret, algorithm="sha256").hexdigest()[:_MAC]


def is_signed(key: object) -> bool:
    """Whether a session key is one this site made (under SECRET_KEY or a fallback)."""
    if not isinstance(key, str) or len(key) != _RANDOM + _MAC:
        return False
    random_part, mac = key[:_RANDOM], key[_RANDOM:]
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return any(constant_time_compare(mac, _mac(random_part, secret)) for secret in secrets)


class SessionStore(db.SessionStore):
    """Django's database sessions, with signed keys: a key that is not signed is no
    session, and is never looked up."""

    def _get_new_session_key(self) -> str:
        while True:
            random_part = get_random_string(_RANDOM, VALID_KEY_CHARS)
            key = random_part + _mac(random_part, settings.SECRET_KEY)
            if not self.exists(key):
                return key

    def _validate_session_key(self, key: object) -> bool:
        return is_signed(key)


class SessionMiddleware(DjangoSessionMiddleware):
    """Django's, taking over the session `signed_in()` has already loaded."""

    def process_request(self, request: HttpRequest) -> None:
        session = getattr(request, _SESSION, None)
        if session is None:
            super().process_request(request)
        else:
            request.session = session


_TOKEN = "_codewithpapers_token"


def api_token(request: HttpRequest):
    """The live API token the Authorization header carries, or None (worked out once per
    request; a refusal is logged without the key)."""
    if _TOKEN not in request.__dict__:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        token = None
        if header:
            from papers.contributions.tokens import authenticate

            try:
                token = authenticate(header, request.META.get("REMOTE_ADDR", ""))
            except Exception:
                token = None  # the database is not answering: anonymous, cached pages
        setattr(request, _TOKEN, token)
    return getattr(request, _TOKEN)


def token_user(request: HttpRequest):
    """The user an API token in the Authorization header authenticates, or None;
    `signed_in()` treats them like signed-in sessions (never the page cache)."""
    token = api_token(request)
    return token.user if token is not None else None


def signed_in(request: HttpRequest) -> bool:
    """Whether the request carries a valid, signed-in session or a token that
    authenticates (worked out once per request)."""
    found = getattr(request, _SIGNED_IN, None)
    if found is None:
        found = token_user(request) is not None or _session_signed_in(request)
        setattr(request, _SIGNED_IN, found)
    return found


def _session_signed_in(request: HttpRequest) -> bool:
    key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if not key:
        return False
    session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    if session.session_key is None:
        return False  # not a key this site made: nothing to look up
    remembered = "session-not-signed-in." + hashlib.sha256(key.encode()).hexdigest()[:32]
    try:
        if cache.get(remembered):
            return False
    except Exception:
        pass  # a failing cache costs the lookup
    try:
        user_id = session.get(SESSION_KEY)
    except Exception:
        # The database is not answering (its circuit breaker says so in the log):
        # anonymous, so that cached pages are still served.
        return False
    if user_id is None:
        with contextlib.suppress(Exception):
            cache.set(remembered, True, settings.CACHE_TTL)
        return False
    setattr(request, _SESSION, session)
    return True
