"""Keep a long-running process's memory near what it uses.

Swapping a contract's vectors (engine/vectors.py) and storing contracts make LanceDB and
torch allocate and free hundreds of megabytes from several threads. glibc keeps freed memory
in per-thread arenas and rarely returns it: measured on the 510-contract library, the app's
resident memory grew about 60 MB per contract given full vectors, to 3.5 GB. Two arenas and
a trim after each such step keep it flat. Elsewhere than glibc both are no-ops.
"""

from __future__ import annotations

import ctypes
import ctypes.util

_M_ARENA_MAX = -8  # mallopt parameter, from glibc's malloc.h


def _glibc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
    except OSError:
        return None


_LIBC = _glibc()


def limit_arenas(count: int = 2) -> None:
    """At most `count` malloc arenas from now on (threads share them instead of each keeping its own)."""
    if _LIBC is not None:
        _LIBC.mallopt(_M_ARENA_MAX, count)


def release_freed_memory() -> None:
    """Give memory that is free but held by malloc back to the system."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
