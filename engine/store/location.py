"""Where a library is kept: a folder on this machine, or a prefix in an S3 bucket a team shares.

Everything else about a store follows from its location: the URI LanceDB opens its tables at
(LanceDB reads and writes object storage itself), the folder its other files live in (the
original PDFs and store.json, see folder.py), the lock its writers take (an flock on a local
folder; on a bucket a lease object taken with conditional writes, which holds across
machines, see lease.py), and the workspace on this machine for what belongs to one user's
copy of the app (a remote store's PDFs cached for the viewer, the chosen model, an edited
playbook).

A location the app cannot serve is refused before anything is written: taken as a path,
`gs://bucket/lib` would make a local folder named `gs:` and the user would believe the
library shared. S3 settings come from the standard AWS environment (AWS_ENDPOINT_URL,
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ALLOW_HTTP), never from the URL, so
a secret is never part of a name the app shows or logs.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, model_validator

from engine.errors import StoreLocationError

if TYPE_CHECKING:  # imported where used: a local store never loads boto3
    from engine.store.folder import LocalFolder, S3Folder
    from engine.store.lease import LeaseLock
    from engine.store.lock import WriterLock

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")  # S3's rule for bucket names


class StoreLocation(BaseModel):
    """A store's place: `url` is an absolute folder path, or `s3://BUCKET/PREFIX`.

    Given as a string or a Path (a folder, a `file://` URL or an `s3://` URL), it is checked
    and made canonical, so two spellings of one place are one location."""

    model_config = ConfigDict(frozen=True)

    url: str

    @model_validator(mode="before")
    @classmethod
    def _parse(cls, data: Any) -> Any:
        if isinstance(data, (str, Path)):
            return {"url": canonical(str(data))}
        if isinstance(data, dict) and isinstance(data.get("url"), str):
            return {**data, "url": canonical(data["url"])}
        return data

    def __str__(self) -> str:
        return self.url

    @property
    def is_remote(self) -> bool:
        return self.url.startswith("s3://")

    @property
    def local(self) -> Path:
        """The folder of a store on this machine."""
        if self.is_remote:
            raise ValueError(f"{self.url} is not a folder on this machine")
        return Path(self.url)

    @property
    def bucket(self) -> str:
        return urlsplit(self.url).netloc

    @property
    def prefix(self) -> str:
        """The key prefix of a remote store's objects, without slashes at either end."""
        return urlsplit(self.url).path.strip("/")

    @property
    def lance_uri(self) -> str:
        return f"{self.url}/lance" if self.is_remote else str(self.local / "lance")

    @property
    def workspace(self) -> Path:
        """This machine's folder for the store: the store's own folder when it is local; for a
        remote store, one under the user's cache, named after the bucket and prefix."""
        if not self.is_remote:
            return self.local
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        readable = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{self.bucket}_{self.prefix}")[:80]
        return cache / "clausegraph" / "stores" / f"{readable}-{hashlib.sha256(self.url.encode()).hexdigest()[:8]}"

    def folder(self) -> LocalFolder | S3Folder:
        """The store's files beside its tables (PDFs, store.json)."""
        from engine.store.folder import LocalFolder, S3Folder

        if self.is_remote:
            return S3Folder(self.bucket, self.prefix, cache=self.workspace, shown=self.url)
        return LocalFolder(self.local)

    def writer_lock(self, folder: LocalFolder | S3Folder, after_dead_writer: Callable[[], None]) -> WriterLock | LeaseLock:
        """The lock every writer of this store holds. `after_dead_writer` runs, lock held,
        when a remote writer takes over the lease of one that died (its half-written rows
        are then known leftovers); a local flock dies with its holder and says nothing."""
        if self.is_remote:
            from engine.store.lease import LeaseLock

            return LeaseLock(folder, after_dead_writer)
        from engine.store.lock import WriterLock

        return WriterLock(self.local)


def canonical(text: str) -> str:
    """The canonical form of a store location, or a StoreLocationError saying why it cannot be one."""
    if not _URL.match(text):
        return str(Path(text).expanduser().resolve())
    url = urlsplit(text)
    scheme = url.scheme.lower()
    if scheme == "file" and url.netloc in ("", "localhost"):
        return str(Path(unquote(url.path)).expanduser().resolve())
    shown = _without_credentials(url)
    if scheme != "s3":
        raise StoreLocationError(
            f"{shown} is not a folder on this machine or an S3 bucket. A library is kept in a local folder or "
            "on S3-compatible object storage (--db DIR, --db s3://BUCKET/PREFIX or $CLAUSEGRAPH_DB), and nothing was written there."
        )
    if url.username or url.password:
        raise StoreLocationError(
            f"{shown} has credentials written into it; give them in the AWS environment (AWS_ACCESS_KEY_ID, "
            "AWS_SECRET_ACCESS_KEY) instead, so they never appear in logs or on screen. Nothing was written."
        )
    if not _BUCKET.match(url.netloc):
        raise StoreLocationError(f"{shown} does not name a valid S3 bucket (s3://BUCKET/PREFIX); nothing was written.")
    prefix = unquote(url.path).strip("/")
    return f"s3://{url.netloc}/{prefix}" if prefix else f"s3://{url.netloc}"


def _without_credentials(url: SplitResult) -> str:
    """The URL as it may be shown: a user name or secret written into it stays out of messages."""
    host = url.hostname or ""
    if url.port:
        host = f"{host}:{url.port}"
    return urlunsplit((url.scheme, host, url.path, "", ""))
