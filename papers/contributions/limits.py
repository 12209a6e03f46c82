"""Per-token write rates: API_WRITES_PER_MINUTE writes in each minute window, counted in
the cache (Redis in production, shared by every app server)."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

WINDOW = 60


def take(token) -> int:
    """Count one write for `token`; 0 when it may go ahead, else the seconds to wait."""
    allowed = settings.API_WRITES_PER_MINUTE
    if allowed <= 0:
        return 0
    now = time.time()
    window = int(now // WINDOW)
    key = f"api-writes.{token.pk}.{window}"
    try:
        cache.add(key, 0, WINDOW + 5)
        count = cache.incr(key)
    except Exception:
        return 0  # a failing cache does not stop writes
    if count > allowed:
        return max(1, int((window + 1) * WINDOW - now) + 1)
    return 0
