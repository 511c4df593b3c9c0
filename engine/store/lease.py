"""One writer at a time for a store on object storage, across processes and machines.

A local store's flock (lock.py) cannot reach other machines. Here the lock is an object,
`writer.lock` under the store's prefix, taken with a conditional write: a PUT with
`If-None-Match: *` succeeds only if no such object exists, so of two writers exactly one gets
it. The holder renews it every few seconds (a PUT with `If-Match` its last ETag) and deletes
it when done (a DELETE with `If-Match`, so it never deletes a lock another writer has since
taken). A holder killed with -9 stops renewing; once the object is older than the lease, by
the object store's own clock (its Last-Modified against the Date of its reply), so machines'
clocks do not matter, the next writer replaces it with `If-Match` the ETag it saw, and runs
the store's cleanup of the half-written contract it left (ClauseStore.remove_incomplete).

A holder that cannot renew in time (paused longer than the lease) has lost the lock: its
block ends with StoreLockLost, so its caller reports a failure rather than a success.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.utils import parsedate_to_datetime

from engine.errors import ClausegraphError
from engine.store.folder import S3Folder, error_code
from engine.store.lock import ReentrantLock

log = logging.getLogger(__name__)

LOCK_OBJECT = "writer.lock"
LEASE_SECONDS = 20.0  # a lock object older than this, unrenewed, belongs to a dead writer
RENEW_SECONDS = 5.0  # how often a holder renews; several renewals fit in one lease
_POLL_SECONDS = (0.05, 1.0)  # a waiting writer retries from the first to the second, doubling


class StoreLockLost(ClausegraphError):
    """This writer's lease ran out while it wrote, so another writer may have taken the store."""


class LeaseLock(ReentrantLock):
    """The writer lock of a remote store, exclusive between threads, processes and machines."""

    def __init__(self, folder: S3Folder, after_dead_writer: Callable[[], None]) -> None:
        super().__init__()
        self.folder = folder
        self.key = folder.key(LOCK_OBJECT)
        self.after_dead_writer = after_dead_writer

    @contextmanager
    def _exclusive(self, wait: bool, on_wait: Callable[[], None] | None) -> Iterator[bool]:
        lease = self._take()
        if lease is None and wait:
            if on_wait is not None:
                on_wait()
            delay = _POLL_SECONDS[0]
            while lease is None:
                time.sleep(delay)
                delay = min(delay * 2, _POLL_SECONDS[1])
                lease = self._take()
        if lease is None:
            yield False
            return
        self._held.took_over = lease.took_over
        renewal = _Renewal(self, lease)
        renewal.start()
        try:
            yield True
        finally:
            renewal.stop()
            self._release(renewal.etag)
        if renewal.lost:
            raise StoreLockLost(
                f"the writer lock of {self.folder.bucket}/{self.folder.prefix} was lost while writing (this process "
                f"could not renew it within {LEASE_SECONDS:.0f} s); what it wrote may be undone by the next writer: run it again"
            )

    def _taken(self) -> None:
        if self._held.took_over:
            self.after_dead_writer()

    def _take(self) -> _Lease | None:
        """The lease if it was free or its holder is dead, else None."""
        body = json.dumps({"holder": uuid.uuid4().hex, "host": socket.gethostname(), "pid": os.getpid()}).encode()
        try:
            reply = self.folder.client.put_object(Bucket=self.folder.bucket, Key=self.key, Body=body, IfNoneMatch="*")
            return _Lease(reply["ETag"], took_over=False)
        except self.folder.client.exceptions.ClientError as error:
            if not _conflict(error):
                raise
        try:
            current = self.folder.client.head_object(Bucket=self.folder.bucket, Key=self.key)
        except self.folder.client.exceptions.ClientError as error:
            if _missing(error):
                return None  # released meanwhile: the next try may get it
            raise
        now = parsedate_to_datetime(current["ResponseMetadata"]["HTTPHeaders"]["date"])
        if (now - current["LastModified"]).total_seconds() <= LEASE_SECONDS:
            return None
        try:
            reply = self.folder.client.put_object(Bucket=self.folder.bucket, Key=self.key, Body=body, IfMatch=current["ETag"])
        except self.folder.client.exceptions.ClientError as error:
            if _conflict(error):
                return None  # another writer took it over first
            raise
        log.warning("took over the writer lock of a writer that stopped renewing it (%s)", self.key)
        return _Lease(reply["ETag"], took_over=True)

    def _renew(self, etag: str) -> str | None:
        """The lock's new ETag, or None if it is no longer this holder's."""
        body = json.dumps({"renewed": time.time(), "host": socket.gethostname(), "pid": os.getpid()}).encode()
        try:
            return self.folder.client.put_object(Bucket=self.folder.bucket, Key=self.key, Body=body, IfMatch=etag)["ETag"]
        except self.folder.client.exceptions.ClientError as error:
            if _conflict(error) or _missing(error):
                return None
            raise

    def _release(self, etag: str) -> None:
        try:
            self.folder.client.delete_object(Bucket=self.folder.bucket, Key=self.key, IfMatch=etag)
        except self.folder.client.exceptions.ClientError as error:
            if not (_conflict(error) or _missing(error)):
                raise


class _Lease:
    def __init__(self, etag: str, took_over: bool) -> None:
        self.etag, self.took_over = etag, took_over


class _Renewal(threading.Thread):
    """Renews a held lease until stopped; notes if it was lost."""

    def __init__(self, lock: LeaseLock, lease: _Lease) -> None:
        super().__init__(name="store-lease", daemon=True)
        self.lock, self.etag, self.lost = lock, lease.etag, False
        self.renewed_at = time.monotonic()
        self._stopped = threading.Event()
        self._guard = threading.Lock()  # the last renewal finishes before the lease is released

    def run(self) -> None:
        while not self._stopped.wait(RENEW_SECONDS):
            with self._guard:
                if self._stopped.is_set():
                    return
                try:
                    renewed = self.lock._renew(self.etag)
                except Exception:  # a network hiccup: the next renewal may succeed within the lease
                    log.warning("could not renew the store's writer lock; retrying", exc_info=True)
                    continue
                if renewed is None:
                    self.lost = True
                    log.error("the store's writer lock was taken by another writer while this one held it")
                    return
                self.etag, self.renewed_at = renewed, time.monotonic()

    def stop(self) -> None:
        with self._guard:
            self._stopped.set()
            if time.monotonic() - self.renewed_at > LEASE_SECONDS:  # unrenewed past the lease: another may have it
                self.lost = True
        self.join(timeout=RENEW_SECONDS)


def _conflict(error) -> bool:
    """A conditional write or delete refused: the object is not as the condition said."""
    return error_code(error) in ("PreconditionFailed", "412", "ConditionalRequestConflict", "409")


def _missing(error) -> bool:
    """No lock object: released (or never taken) meanwhile."""
    return error_code(error) in ("404", "NoSuchKey", "NotFound")
