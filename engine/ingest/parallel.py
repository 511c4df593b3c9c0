"""Ingest a batch of files with parsing spread over worker processes.

With quick vectors, parsing and structuring are most of ingest time, and they are pure Python
and PyMuPDF work that one process cannot spread over cores. Here worker processes parse and
structure the next files while this process embeds and stores the current one, in the order
the files were given; every outcome is the one `ingest_bytes` gives for a single file (a bad
file fails alone, the same bytes twice are stored once).

Workers are started with "spawn": this process may hold a loaded torch and threads (the
full-vector worker), which a forked child must not inherit. Progress events from the workers
(OCR page by page) come back through a queue and are passed on in the caller's thread, so a
Streamlit page can draw them.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool

from engine.embed import Embedder
from engine.ingest.pipeline import PARSER_VERSION, ParsedContract, ProgressCallback, document_id, ingest_bytes, no_progress, parse_contract
from engine.static_embed import StaticEmbedder
from engine.store.clause_store import ClauseStore
from models.document import IngestOutcome

_POLL_SECONDS = 0.1


def _parse_in_worker(data: bytes, file_name: str, max_pages: int | None, events) -> ParsedContract:
    return parse_contract(data, file_name, events.put, max_pages)


class ParserPool:
    """Worker processes that parse and structure contracts; started on first use, kept for the next batch."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or max(1, min(os.cpu_count() or 1, 4))
        self._executor: ProcessPoolExecutor | None = None
        self._manager = None
        self._events = None

    def _start(self) -> None:
        if self._executor is None:
            context = multiprocessing.get_context("spawn")
            self._manager = context.Manager()
            self._events = self._manager.Queue()
            self._executor = ProcessPoolExecutor(self.workers, mp_context=context)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)
            self._manager.shutdown()
            self._executor = self._manager = self._events = None

    def ingest(
        self,
        store: ClauseStore,
        embedder: Embedder | StaticEmbedder,
        files: Iterable[tuple[str, bytes | IngestOutcome]],
        progress: ProgressCallback = no_progress,
        max_pages: int | None = None,
    ) -> Iterator[IngestOutcome]:
        """Each file's outcome in the order given, the next files parsed ahead meanwhile. A file
        given as an outcome (the caller could not read it) keeps its place in the order."""
        self._start()
        remaining = iter(files)
        ahead: deque[tuple[str, bytes | IngestOutcome, Future | None]] = deque()

        def submit_next() -> None:
            for name, data in remaining:
                if isinstance(data, IngestOutcome):
                    ahead.append((name, data, None))
                    continue
                stored = store.document(document_id(data)) if data else None
                if stored is not None and stored.parser_version == PARSER_VERSION:
                    ahead.append((name, data, None))  # unchanged: nothing to parse, ingest_bytes says so
                    continue
                try:
                    parsing = self._executor.submit(_parse_in_worker, data, name, max_pages, self._events)
                except BrokenProcessPool:  # a worker died (out of memory?): parse here, as for one file
                    parsing = None
                ahead.append((name, data, parsing))
                return

        for _ in range(self.workers + 1):  # the workers busy, and one file parsed ahead of the store
            submit_next()
        while ahead:
            name, data, future = ahead.popleft()
            submit_next()
            if isinstance(data, IngestOutcome):
                yield data
            elif future is None:  # unchanged, or parsed here after a worker died
                yield ingest_bytes(store, embedder, data, name, progress, max_pages)
            else:
                self._wait(future, progress)
                yield ingest_bytes(store, embedder, data, name, progress, max_pages, parse=lambda *_: future.result())
        self._relay(progress)

    def _wait(self, future: Future, progress: ProgressCallback) -> None:
        while True:
            try:
                future.exception(timeout=_POLL_SECONDS)
                break
            except FutureTimeout:
                self._relay(progress)
        self._relay(progress)

    def _relay(self, progress: ProgressCallback) -> None:
        while True:
            try:
                progress(self._events.get_nowait())
            except queue.Empty:
                return
