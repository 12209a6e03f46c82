"""API tokens: issued once, stored as their SHA-256, checked without a query for keys
this site never made.

A key is 32 random characters and an HMAC of them under SECRET_KEY (like the session
keys, codewithpapers.sessions): a random or forged `Authorization: Token …` costs one HMAC
and no database query, so a flood of them does not reach the database and the page
cache still serves it. A key the site made is looked up by its hash once per request.
Refusals are logged with the reason and the client's address, never the key.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging

from django.conf import settings
from django.utils import timezone
from django.utils.crypto import constant_time_compare, get_random_string, salted_hmac

from papers.models import ApiToken, Level

logger = logging.getLogger("papers.api.auth")

_SALT = "papers.contributions.tokens"
_RANDOM = 32
_MAC = 16
PREFIX = 8
LAST_USED_EVERY = dt.timedelta(minutes=1)  # last_used_at is written at most this often


def _mac(random_part: str, secret: str) -> str:
    return salted_hmac(_SALT, random_part, secret=secret, algorithm="sha256").hexdigest()[:_MAC]


def is_signed(key: str) -> bool:
    if len(key) != _RANDOM + _MAC:
        return False
    random_part, mac = key[:_RANDOM], key[_RANDOM:]
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return any(constant_time_compare(mac, _mac(random_part, s)) for s in secrets)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def issue(user, level: str = Level.CONTRIBUTOR, name: str = "") -> tuple[ApiToken, str]:
    """A new token for `user` and its key (shown once: only its hash is kept)."""
    if level not in Level.values:
        raise ValueError(f"unknown level {level!r}; one of {', '.join(Level.values)}")
    if level == Level.STAFF and not user.is_staff:
        raise ValueError(f"{user.get_username()} is not staff: a staff token needs a staff user")
    random_part = get_random_string(_RANDOM)
    key = random_part + _mac(random_part, settings.SECRET_KEY)
    token = ApiToken.objects.create(
        user=user, level=level, name=name, key_hash=hash_key(key), prefix=key[:PREFIX]
    )
    return token, key


def key_of(header: str) -> str | None:
    """The key of an `Authorization: Token <key>` header, or None for another scheme."""
    scheme, _, key = header.strip().partition(" ")
    if scheme.lower() != "token":
        return None
    return key.strip()


def authenticate(header: str, address: str = "") -> ApiToken | None:
    """The live token this header carries, or None (the refusal logged, without the key)."""
    key = key_of(header)
    if key is None:
        return None
    if not key:
        return _refuse("empty token", address)
    if not is_signed(key):
        return _refuse("not a token this site issued", address)
    token = ApiToken.objects.select_related("user").filter(key_hash=hash_key(key)).first()
    if token is None:
        return _refuse("unknown token", address)
    if token.revoked_at is not None:
        return _refuse(f"revoked token {token.pk}", address)
    if not token.user.is_active:
        return _refuse(f"token {token.pk} of an inactive user", address)
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def _refuse(reason: str, address: str) -> None:
    logger.warning("API token refused: %s (from %s)", reason, address or "unknown address")
    return None
