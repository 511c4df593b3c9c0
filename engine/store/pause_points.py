"""The crash-test hook of the store's writes: pause a writer between two of its steps.

With CLAUSEGRAPH_PAUSE_BEFORE set to write steps of ClauseStore.add_contract (WRITE_STEPS,
comma-separated) or to "*" for all, the writing process prints "paused before STEP" on
stderr and waits for a line on stdin there, so a test can kill it exactly between two
writes and check that the next open of the store removes what the writer left.
"""

from __future__ import annotations

import os
import sys

#: add_contract's writes in order; the documents row last.
WRITE_STEPS = ("file", "fields", "pages", "edges", "windows", "clauses", "documents", "written")
PAUSE_ENV = "CLAUSEGRAPH_PAUSE_BEFORE"


def pause_point(step: str) -> None:
    """The test hook of the module docstring: nothing unless CLAUSEGRAPH_PAUSE_BEFORE names this step."""
    wanted = os.environ.get(PAUSE_ENV, "")
    if wanted == "*" or step in wanted.split(","):
        print(f"paused before {step}", file=sys.stderr, flush=True)
        sys.stdin.readline()
