"""An S3-compatible server on 127.0.0.1 for the tests of stores on object storage: moto in
server mode, a real HTTP server speaking S3's protocol (conditional writes included), so the
store's own clients (LanceDB's Rust object store, boto3) are exercised as against a bucket.

    with S3Server() as s3:
        s3.create_bucket("bucket")
        subprocess.run([...], env={**os.environ, **s3.environment})
"""

from __future__ import annotations

import logging

from moto.server import ThreadedMotoServer

ACCESS_KEY = "AKIATESTCLAUSEGRAPH"
SECRET_KEY = "test-secret-never-shown-3f9c"


class S3Server:
    def __init__(self) -> None:
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)

    def __enter__(self) -> S3Server:
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
        self._server.start()
        host, port = self._server.get_host_and_port()
        self.address = f"{host}:{port}"
        return self

    def __exit__(self, *exc) -> None:
        self._server.stop()

    @property
    def endpoint(self) -> str:
        return f"http://{self.address}"

    @property
    def environment(self) -> dict[str, str]:
        """The standard AWS variables that point a client at this server."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true",
        }

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY, region_name="us-east-1")

    def create_bucket(self, name: str) -> None:
        self.client().create_bucket(Bucket=name)

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        return sorted(o["Key"] for page in pages for o in page.get("Contents", []))
