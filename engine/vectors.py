"""Full vectors after quick ones: MiniLM re-reads contracts ingested with the static model.

A new contract is stored with quick vectors (engine/static_embed.py) so it can be asked about
within seconds; its MiniLM vectors follow, contract by contract, from the text already stored
(no PDF is read again). Both kinds live in MiniLM's space, so the contract stays searchable
throughout and only ranking quality changes when the swap lands. The work runs on a thread
that the app starts and the command line waits for; the store's documents say which contracts
still have quick vectors, so work cut short by a closed app is picked up on the next start.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Callable

import numpy as np
from pydantic import BaseModel

from engine.embed import Embedder
from engine.memory import release_freed_memory
from engine.store.clause_store import ClauseStore
from models.document import Document

logger = logging.getLogger(__name__)


class VectorStatus(BaseModel):
    """How far the library's full vectors are, for the app to show."""

    ready: int  # contracts with full vectors
    pending: list[str]  # file names still searched with quick vectors
    working_on: str | None = None
    fraction: float = 0.0  # of the contract being worked on
    error: str | None = None  # why the last attempt stopped, if it failed

    @property
    def complete(self) -> bool:
        return not self.pending


VectorProgress = Callable[[Document, float], None]


class _Stopped(Exception):
    """Raised between batches when the process is exiting."""


def _no_progress(document: Document, fraction: float) -> None:
    return None


def quick_documents(store: ClauseStore, full_model: str) -> list[Document]:
    """Contracts whose vectors another model than `full_model` made, oldest first."""
    return sorted((d for d in store.documents() if d.embedding_model != full_model), key=lambda d: d.ingested_at)


def embed_fully(store: ClauseStore, embedder: Embedder, document: Document, progress: VectorProgress = _no_progress) -> bool:
    """Replace one contract's quick vectors with `embedder`'s; False if it was deleted meanwhile.

    The texts are those the quick vectors were made from: a clause's own text, or for a clause
    longer than one window, each window as stored (the first also stands for the clause)."""
    doc_id = document.doc_id
    windows = store.windows(doc_id)
    split = {row["clause_id"] for row in windows}
    whole = [clause for clause in store.clauses(doc_id) if clause.clause_id not in split]
    texts = [clause.text for clause in whole] + [row["text"] for row in windows]
    vectors = embedder.encode(texts, lambda done, total: progress(document, done / total))
    clause_vectors: dict[str, np.ndarray] = {clause.clause_id: vector for clause, vector in zip(whole, vectors)}
    window_vectors: dict[tuple[str, int], np.ndarray] = {}
    for row, vector in zip(windows, vectors[len(whole) :]):
        window_vectors[(row["clause_id"], row["window"])] = vector
        if row["window"] == 0:
            clause_vectors[row["clause_id"]] = vector
    return store.replace_vectors(doc_id, embedder.model_name, clause_vectors, window_vectors)


_workers: weakref.WeakSet[VectorWorker] = weakref.WeakSet()  # held weakly: a library let go is not kept for exit


@atexit.register
def _stop_workers() -> None:
    for worker in list(_workers):
        worker.stop()


class VectorWorker:
    """Gives every contract with quick vectors its full ones, one at a time, on one thread.

    `wake()` after an ingest: the thread starts if it is not running and looks for work again
    before it stops, so a contract added while it works is not left behind."""

    def __init__(self, store: ClauseStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._again = False
        self._working_on: Document | None = None
        self._fraction = 0.0
        self._error: str | None = None
        self._stopping = threading.Event()
        _workers.add(self)

    def stop(self) -> None:
        """Stop after the batch being embedded (the contract keeps its quick vectors, for the next
        start to finish). At exit: a thread still inside the model when the interpreter ends aborts it."""
        self._stopping.set()
        thread = self._thread
        if thread is not None:
            thread.join()

    def wake(self) -> None:
        with self._lock:
            self._again = True
            if not self._stopping.is_set() and (self._thread is None or not self._thread.is_alive()):
                self._thread = threading.Thread(target=self._run, name="full-vectors", daemon=True)
                self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Until the thread has no more work (True) or `timeout` seconds pass (False)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def status(self) -> VectorStatus:
        documents = self.store.documents()
        pending = [d.file_name for d in documents if d.embedding_model != self.embedder.model_name]
        working_on = self._working_on
        return VectorStatus(
            ready=len(documents) - len(pending), pending=pending,
            working_on=working_on.file_name if working_on is not None else None, fraction=self._fraction, error=self._error,
        )

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._again or self._stopping.is_set():
                    self._thread = None
                    return
                self._again = False
            swapped = False
            for document in quick_documents(self.store, self.embedder.model_name):
                self._working_on, self._fraction = document, 0.0
                try:
                    swapped |= embed_fully(self.store, self.embedder, document, self._progress)
                    self._error = None
                    release_freed_memory()
                except _Stopped:
                    break
                except Exception as error:  # the contract keeps its quick vectors and stays searchable
                    logger.exception("full vectors for %s failed", document.file_name)
                    self._error = f"{document.file_name}: {type(error).__name__}: {error}"
                finally:
                    self._working_on = None
            if swapped and not self._stopping.is_set():  # rewritten rows are searched unindexed until the indexes take them in
                self.store.optimize()

    def _progress(self, document: Document, fraction: float) -> None:
        if self._stopping.is_set():
            raise _Stopped
        self._fraction = fraction
