"""`python -m engine ingest` as a real process that a test can pause between two writes and
kill -9, and what a store holds of one document afterwards (used by bench/crash.py too)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

from engine.settings import PROJECT_ROOT
from engine.store.clause_store import ClauseStore
from engine.store.pause_points import PAUSE_ENV

TABLES = ("documents", "clauses", "windows", "edges", "pages", "fields")


class IngestProcess:
    """One ingest process; with `pause_before` (store.WRITE_STEPS names, comma-separated) it
    stops before those writes, holding the writer lock, until resumed or killed."""

    def __init__(self, db: Path, pdf: Path, pause_before: str | None = None) -> None:
        self.db = db
        env = {key: value for key, value in os.environ.items() if key != PAUSE_ENV}
        if pause_before:
            env[PAUSE_ENV] = pause_before
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engine", "ingest", "--db", str(db), str(pdf)], cwd=PROJECT_ROOT, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.stderr: list[str] = []
        self._pauses: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self) -> None:
        for line in self.process.stderr:
            self.stderr.append(line)
            if line.startswith("paused before "):
                self._pauses.put(line.removeprefix("paused before ").strip())

    def wait_for_pause(self, timeout: float = 300) -> str:
        """The step it paused before; an AssertionError with its stderr if it ended instead."""
        try:
            return self._pauses.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the ingest did not pause within {timeout} s: {''.join(self.stderr)[-2000:]}") from None

    def resume(self) -> None:
        self.process.stdin.write("\n")
        self.process.stdin.flush()

    def kill(self) -> None:
        """kill -9: no handler runs, nothing is flushed or closed by the process itself."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self._reader.join(timeout=30)

    def finish(self, timeout: float = 300) -> tuple[int, str, str]:
        """Let it run to the end: (exit code, stdout, stderr)."""
        self.process.stdin.close()
        stdout = self.process.stdout.read()
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout=30)
        return code, stdout, "".join(self.stderr)


def rows_of(store: ClauseStore, doc_id: str) -> dict[str, int]:
    """How many rows each table holds for one document, and whether its PDF is kept ("file")."""
    counts = {name: store.table(name).count_rows(f"doc_id = '{doc_id}'") for name in TABLES}
    counts["file"] = int(store.file_path(doc_id).exists())
    return counts


def state_of(store: ClauseStore, doc_id: str, complete: dict[str, int]) -> str:
    """'complete' (every row a clean ingest writes), 'absent' (not a row, not the file) or
    'partial: ...' with the counts, which must never happen."""
    counts = rows_of(store, doc_id)
    if counts == complete:
        return "complete"
    if not any(counts.values()):
        return "absent"
    return f"partial: {counts}"
