"""Starting a real server for a test: a free localhost port, and waiting until it says it is up."""

from __future__ import annotations

import socket
import time
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_healthy(health_url: str, seconds: float) -> bool:
    """Poll a health endpoint until it answers 200; False if it never did within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(health_url, timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(0.5)
    return False
