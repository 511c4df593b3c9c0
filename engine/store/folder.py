"""The files a store keeps beside its LanceDB tables (each contract's PDF under `files/`,
store.json), in a local folder or under an S3 prefix, behind one small interface.

LanceDB talks to object storage itself; these few files go through boto3, the AWS SDK, which
reads the same standard environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...). A PDF is
written under its content's hash and never changes, so a remote store's PDFs are fetched once
into this machine's workspace and opened there by the viewer and the citation check.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from engine.errors import StoreLocationError


class LocalFolder:
    """A store's files in a folder on this machine."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def read(self, name: str) -> bytes | None:
        try:
            return (self.root / name).read_bytes()
        except FileNotFoundError:
            return None

    def write(self, name: str, data: bytes) -> None:
        """Whole or not at all: written beside, flushed, then renamed over (a kill leaves the old file)."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, path)

    def delete(self, name: str) -> None:
        (self.root / name).unlink(missing_ok=True)

    def names(self, under: str) -> list[str]:
        """The names of the files directly under a subfolder (`files`)."""
        return sorted(p.name for p in (self.root / under).glob("*") if p.is_file() and not p.name.startswith("."))

    def local_copy(self, name: str) -> Path:
        return self.root / name

    def total_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.root.rglob("*") if f.is_file())

    def remove_all(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class S3Folder:
    """A store's files under a prefix of an S3 bucket (any S3-compatible server)."""

    def __init__(self, bucket: str, prefix: str, cache: Path, shown: str) -> None:
        import boto3  # only a remote store needs the AWS SDK
        from botocore.config import Config

        self.bucket, self.prefix, self.cache, self.shown = bucket, prefix, Path(cache), shown
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        self.client = boto3.client("s3", region_name=region, config=Config(retries={"max_attempts": 5, "mode": "standard"}))
        self.errors = self.client.exceptions
        self._check_bucket()

    def _check_bucket(self) -> None:
        """A clear refusal, before anything is written, when the bucket cannot serve the store."""
        from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

        try:
            self.client.head_bucket(Bucket=self.bucket)
        except NoCredentialsError:
            reason = "no AWS credentials were found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and AWS_ENDPOINT_URL for a server other than AWS)"
        except ClientError as error:
            code = error_code(error)
            if code in ("404", "NoSuchBucket"):
                reason = f"the bucket {self.bucket} does not exist at {self.endpoint}; create it first"
            elif code in ("403", "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
                reason = f"{self.endpoint} refused these AWS credentials ({code})"
            else:
                reason = f"{self.endpoint} answered {code or error}"
        except BotoCoreError as error:
            reason = f"the object store at {self.endpoint} cannot be reached ({type(error).__name__}); check AWS_ENDPOINT_URL"
        else:
            return
        raise StoreLocationError(f"{self.shown} cannot be opened: {reason}. Nothing was written.")

    @property
    def endpoint(self) -> str:
        return self.client.meta.endpoint_url

    def key(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else name

    def read(self, name: str) -> bytes | None:
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self.key(name))["Body"].read()
        except self.errors.NoSuchKey:
            return None

    def write(self, name: str, data: bytes) -> None:
        """One PUT: an object appears whole or not at all."""
        self.client.put_object(Bucket=self.bucket, Key=self.key(name), Body=data)

    def delete(self, name: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self.key(name))
        (self.cache / name).unlink(missing_ok=True)

    def _objects(self, under: str):
        paginator = self.client.get_paginator("list_objects_v2")
        prefix = self.key(under).rstrip("/") + "/" if under else (f"{self.prefix}/" if self.prefix else "")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix):
            yield from page.get("Contents", [])

    def names(self, under: str) -> list[str]:
        start = len(self.key(under).rstrip("/")) + 1
        return sorted(o["Key"][start:] for o in self._objects(under) if "/" not in o["Key"][start:])

    def local_copy(self, name: str) -> Path:
        """The file in this machine's cache, fetched the first time it is asked for."""
        path = self.cache / name
        if not path.exists():
            data = self.read(name)
            if data is None:
                return path  # the caller finds it missing, as with a local store
            LocalFolder(self.cache).write(name, data)
        return path

    def total_bytes(self) -> int:
        return sum(o["Size"] for o in self._objects(""))

    def remove_all(self) -> None:
        keys = [{"Key": o["Key"]} for o in self._objects("")]
        for start in range(0, len(keys), 1000):
            self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": keys[start:start + 1000]})
        shutil.rmtree(self.cache, ignore_errors=True)


def error_code(error) -> str:
    """The S3 error code of a botocore ClientError ("NoSuchKey", "412", ...)."""
    return str(error.response.get("Error", {}).get("Code", ""))
