"""How a page reports a failed action: never a traceback, always what is kept.

A ClausegraphError is the user's to act on (a bad playbook, a contract gone), so its own
message is shown; anything else is a defect, logged with its traceback under the page's
logger, and the user is told what was kept and to try again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import streamlit as st

from engine.errors import ClausegraphError


@dataclass
class Attempt:
    failed: bool = False


@contextmanager
def reported(log: logging.Logger, action: str, stopped: str, failed: str) -> Iterator[Attempt]:
    """Runs the block; on an error shows it and marks `attempt.failed`, so the page can return.

    `stopped` is formatted with the user error (`{error}`); `failed` is shown for a defect,
    logged as "`action` failed"."""
    attempt = Attempt()
    try:
        yield attempt
    except ClausegraphError as error:
        attempt.failed = True
        st.error(stopped.format(error=error))
    except Exception:  # never a traceback in the app; the log keeps the details
        attempt.failed = True
        log.exception("%s failed", action)
        st.error(failed)
