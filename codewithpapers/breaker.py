"""Circuit breakers: after a dependency fails, stop asking it for a while.

A dependency that has gone silent (Redis or PostgreSQL frozen, or cut off behind a
network partition) makes every call wait its timeout, and a dead one fails every call
with a traceback in the log. After a failure a breaker answers "do not try" at once for
`retry_seconds`; then it lets one call try again while the others keep skipping, until
that call has answered. One warning a window says what is skipped and why. Breakers are
per process and shared by its threads (Django keeps a cache and a database connection
per thread).
"""

from __future__ import annotations

import logging
import threading
import time

logger = logging.getLogger(__name__)


class CircuitBreaker:
    _registry: dict[str, CircuitBreaker] = {}
    _registry_lock = threading.Lock()

    def __init__(self, name: str, consequence: str, retry_seconds: float) -> None:
        self.name = name  # what is skipped: "cache", "database default"
        self.consequence = consequence  # what the site does meanwhile
        self.retry_seconds = retry_seconds
        self.lock = threading.Lock()
        self.tripped = False
        self.probing = False  # a call is trying again after a window
        self.retry_at = 0.0

    @classmethod
    def named(cls, name: str, consequence: str, retry_seconds: float) -> CircuitBreaker:
        """This process's breaker of that name (made on first use)."""
        with cls._registry_lock:
            breaker = cls._registry.get(name)
            if breaker is None:
                breaker = cls._registry[name] = cls(name, consequence, retry_seconds)
            breaker.retry_seconds = retry_seconds
            return breaker

    @property
    def skipping(self) -> bool:
        """Whether calls are being skipped now (without claiming the retry)."""
        return self.tripped and time.monotonic() < self.retry_at

    def allow(self) -> bool:
        if not self.tripped:
            return True
        with self.lock:
            now = time.monotonic()
            if now < self.retry_at:
                return False
            # This call tries again; the others skip until it has answered.
            self.retry_at = now + self.retry_seconds
            self.probing = True
            return True

    def failed(self, exc: Exception) -> None:
        with self.lock:
            # A new window: the first failure, or the retry after a window failed. (Calls
            # that were already waiting when the failure began fail too, unannounced.)
            announce = not self.tripped or self.probing
            self.tripped, self.probing = True, False
            self.retry_at = time.monotonic() + self.retry_seconds
        if announce:
            logger.warning(
                "%s unavailable (%s: %s): %s, trying again in %g s",
                self.name,
                type(exc).__name__,
                str(exc).strip(),
                self.consequence,
                self.retry_seconds,
            )

    def succeeded(self) -> None:
        if self.tripped:
            with self.lock:
                self.tripped = self.probing = False
            logger.info("%s available again", self.name)
