"""Handing freed memory back to the system during a long import.

glibc keeps the heap pages a process frees resident, for its next allocations; Python's
own objects come from separate arenas and never reuse them. So memory an import stops
using (SQLite's page cache shrunk for the import's last steps, say) would still count
in its resident size until `release()` asks glibc to give back every free page.
"""

from __future__ import annotations

import ctypes
import ctypes.util


def _trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to ask
        return None


_MALLOC_TRIM = _trim()


def release() -> None:
    """Give the system back the heap's free pages (glibc; elsewhere nothing)."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
