"""One writer at a time per store, whether the writers are threads, app sessions or processes.

LanceDB commits each table write atomically, but a contract is written to six tables, and
its documents row goes last so that it appears whole or not at all. Rows written before that
row look exactly like the leftovers of an ingest that was killed, so leftovers may only be
removed while no writer is between its first write and its documents row: every writer holds
this lock for its whole write, and cleanup runs only when it can take the lock.

The lock is an flock on `writer.lock` in the store folder. Each holder opens the file anew,
and flock treats separate opens as separate owners, so two threads of one process exclude
each other as two processes do. The kernel releases it when its holder dies, so a writer
killed with -9 never leaves the store locked.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = "writer.lock"


class WriterLock:
    """The store's writer lock; re-entrant within a thread (a write may call another)."""

    def __init__(self, store_dir: Path) -> None:
        self.path = Path(store_dir) / LOCK_FILE
        self._held = threading.local()

    @contextmanager
    def hold(self, wait: bool = True, on_wait: Callable[[], None] | None = None) -> Iterator[bool]:
        """Hold the lock for the block; yields whether it is held. If another writer has it,
        wait for it (calling `on_wait` first, so a caller can say why nothing moves), or with
        `wait=False` go on without it."""
        if getattr(self._held, "depth", 0):
            self._held.depth += 1
            try:
                yield True
            finally:
                self._held.depth -= 1
            return
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            locked = _try_lock(descriptor)
            if not locked and wait:
                if on_wait is not None:
                    on_wait()
                fcntl.flock(descriptor, fcntl.LOCK_EX)
                locked = True
            if not locked:
                yield False
                return
            self._held.depth = 1
            try:
                yield True
            finally:
                self._held.depth = 0
        finally:
            os.close(descriptor)  # the only descriptor of this open: closing it releases the lock


def _try_lock(descriptor: int) -> bool:
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
