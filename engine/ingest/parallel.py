"""Ingest a batch of files with parsing spread over worker processes.

With quick vectors, parsing and structuring are most of ingest time, and they are pure Python
and PyMuPDF work that one process cannot spread over cores. Here worker processes parse and
structure the next files while this process embeds and stores each one whose parse is done;
outcomes come back in the order the files were given, each the one `ingest_bytes` gives for a
single file (a bad file fails alone, the same bytes twice are stored once).

Workers come from a fork server, a clean process that has imported only the parsing modules
(engine/ingest/parse.py): this process may hold a loaded torch, LanceDB's runtime and threads
(the full-vector worker), which a plain fork would copy mid-flight. Progress events from the
workers (OCR page by page) come back through a queue and are passed on in the caller's thread,
so a Streamlit page can draw them.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import tempfile
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from functools import partial

from engine.embed import Embedder
from engine.errors import IngestError
from engine.memory import release_freed_memory
from engine.ingest import parse
from engine.ingest.pipeline import ProgressCallback, already_stored, document_id, ingest_bytes, no_progress
from engine.static_embed import StaticEmbedder
from engine.store.clause_store import ClauseStore
from models.document import IngestOutcome, IngestStatus

_POLL_SECONDS = 0.1


class ParserPool:
    """Worker processes that parse and structure contracts; started on first use, kept for the next batch."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or max(1, min(os.cpu_count() or 1, 4))
        self._executor: ProcessPoolExecutor | None = None
        self._events = None
        self._spool: tempfile.TemporaryDirectory | None = None

    def start(self) -> None:
        """Make the pool; its workers start as work arrives (`warm` starts them now)."""
        if self._executor is None:
            context = multiprocessing.get_context("forkserver")
            # "__main__" too: each worker would otherwise import the program's main module anew
            # (the app's, a script's), once per worker instead of once in the server.
            context.set_forkserver_preload(["__main__", "engine.ingest.parse"])
            self._events = context.Queue()
            # removed by close(), or when the process ends with the pool still open
            self._spool = tempfile.TemporaryDirectory(prefix="clausegraph-parses-")
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=parse.start_worker, initargs=(self._events, self._spool.name)
            )

    def warm(self) -> None:
        """Start the workers and wait until each is up (a second or two, once)."""
        self.start()
        try:
            started = [self._executor.submit(int) for _ in range(self.workers)]
        except RuntimeError:  # the process is exiting (or the pool was closed) meanwhile: nothing to warm
            return
        for future in started:
            future.result()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)
            self._events.close()
            self._spool.cleanup()  # with any parse no one read: a batch cut short
            self._executor = self._events = self._spool = None

    def ingest(
        self,
        store: ClauseStore,
        embedder: Embedder | StaticEmbedder,
        files: Iterable[tuple[str, bytes | IngestOutcome]],
        progress: ProgressCallback = no_progress,
        max_pages: int | None = None,
    ) -> Iterator[IngestOutcome]:
        """Each file's outcome, in the order given. Files are embedded and stored as their parses
        finish, so a long contract does not hold up the short ones behind it. A file given as an
        outcome (the caller could not read it) keeps its place in the order. The same bytes
        twice in a batch are parsed once: the second waits for the first and is "unchanged"."""
        self.start()
        remaining = enumerate(files)
        parsing: dict[Future, tuple[int, str, bytes]] = {}
        finished: dict[int, IngestOutcome] = {}
        outcomes: dict[int, IngestOutcome] = {}  # every outcome so far, for the twins waiting on one
        first_of: dict[str, int] = {}  # doc_id -> the index of its first file in this batch
        twins: dict[int, tuple[int, str, bytes]] = {}  # index -> (its first's index, name, bytes)
        broken: list[tuple[int, str, bytes]] = []
        exhausted = False
        shown = 0

        def stored(index: int, name: str, data: bytes, parsed=None) -> IngestOutcome:
            """The file at `index` embedded and stored, its progress told as that file's;
            `parsed` hands over a parse made elsewhere (a worker's, or a lone retry)."""
            return ingest_bytes(store, embedder, data, name, parse.for_item(progress, index), max_pages, parse=parsed)

        def settle_twins() -> None:
            for index, (first, name, data) in list(twins.items()):
                if first in outcomes:
                    del twins[index]
                    if outcomes[first].status is IngestStatus.FAILED:  # failed the same way, not parsed again
                        finished[index] = outcomes[first].model_copy(update={"file_name": name})
                    else:
                        finished[index] = stored(index, name, data)

        def fill() -> None:
            nonlocal exhausted
            while not broken and len(parsing) < 2 * self.workers:
                item = next(remaining, None)
                if item is None:
                    exhausted = True
                    return
                index, (name, data) = item
                if isinstance(data, IngestOutcome):
                    finished[index] = data
                    continue
                doc_id = document_id(data)
                if (unchanged := already_stored(store, name, doc_id)) is not None:  # nothing to parse
                    finished[index] = unchanged
                elif doc_id in first_of:
                    twins[index] = (first_of[doc_id], name, data)
                else:
                    first_of[doc_id] = index
                    parsing[self._executor.submit(parse.parse_in_worker, data, name, max_pages, index)] = (index, name, data)

        while True:
            fill()
            outcomes.update(finished)
            settle_twins()
            while shown in finished:
                yield finished.pop(shown)
                shown += 1
            if not parsing and not broken and not twins:
                if exhausted:
                    break
                continue
            done, _ = wait(parsing, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
            self._relay(progress)
            for future in done:
                index, name, data = parsing.pop(future)
                if isinstance(future.exception(), BrokenProcessPool):
                    broken.append((index, name, data))
                else:
                    finished[index] = stored(index, name, data, parsed=lambda *_: parse.read_parse(future.result()))
                    release_freed_memory()
            if broken and not parsing:  # a dead worker takes every parse in flight with it
                for index, name, data in broken:
                    finished[index] = stored(index, name, data, parsed=partial(self._parse_alone, item=index))
                broken.clear()
        self._relay(progress)

    def _parse_alone(self, data: bytes, name: str, progress: ProgressCallback, max_pages: int | None, item: int) -> parse.ParsedContract:
        """Parse one file in a fresh pool, nothing else beside it: after a worker died (a PDF that
        crashes MuPDF, memory), only the file that kills it again fails, and never this process."""
        self.close()
        self.start()
        future = self._executor.submit(parse.parse_in_worker, data, name, max_pages, item)
        while not wait([future], timeout=_POLL_SECONDS).done:
            self._relay(progress)
        self._relay(progress)
        if isinstance(future.exception(), BrokenProcessPool):
            self.close()
            raise IngestError("reading this PDF stopped the parser process twice; nothing was stored")
        return parse.read_parse(future.result())

    def _relay(self, progress: ProgressCallback) -> None:
        while True:
            try:
                progress(self._events.get_nowait())
            except queue.Empty:
                return
