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


class ReentrantLock:
    """A lock re-entrant within a thread (a write may call another) and exclusive between
    holders; `_exclusive` says how the first hold of a thread takes it."""

    def __init__(self) -> None:
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
        with self._exclusive(wait, on_wait) as held:
            if not held:
                yield False
                return
            self._held.depth = 1
            try:
                self._taken()
                yield True
            finally:
                self._held.depth = 0

    def _exclusive(self, wait: bool, on_wait: Callable[[], None] | None):
        raise NotImplementedError

    def _taken(self) -> None:
        """Runs once the lock is held, before the block (the hold is re-entrant by then)."""


class WriterLock(ReentrantLock):
    """The writer lock of a store in a local folder: an flock."""

    def __init__(self, store_dir: Path) -> None:
        super().__init__()
        self.path = Path(store_dir) / LOCK_FILE

    @contextmanager
    def _exclusive(self, wait: bool, on_wait: Callable[[], None] | None) -> Iterator[bool]:
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            locked = _try_lock(descriptor)
            if not locked and wait:
                if on_wait is not None:
                    on_wait()
                fcntl.flock(descriptor, fcntl.LOCK_EX)
                locked = True
            yield locked
        finally:
            os.close(descriptor)  # the only descriptor of this open: closing it releases the lock


def _try_lock(descriptor: int) -> bool:
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
