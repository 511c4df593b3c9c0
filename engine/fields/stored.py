"""The fields of stored contracts, kept current: a contract stored before fields existed, or by
an older extractor, is read again from its clauses and the result kept, so an old store
upgrades itself as it is used."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Protocol

from engine.fields import EXTRACTOR_VERSION, extract_fields
from engine.fields.presence import presence_model_from
from engine.store.clause_store import ClauseStore
from engine.store.graphcache import DocGraph
from models.fields import ContractFields


def read_fields(graph: DocGraph) -> ContractFields:
    """A contract's fields read from its clauses by the presence model in use."""
    return extract_fields(graph.doc_id, graph.clauses, graph.document.title)


class StoredFields:
    """Read through a cache: a "which contracts..." question reads every contract's fields, and
    parsing 500 of them costs most of a second. The cache is dropped whenever the fields table
    changes (an ingest, a delete, another process's write), so it never answers from old rows."""

    def __init__(self, store: ClauseStore, graph: Callable[[str], DocGraph]) -> None:
        self.store = store
        self.graph = graph  # doc_id -> the contract's clause graph, for re-reading
        self._held: dict[str, ContractFields] = {}
        self._held_version: int | None = None  # the fields table's version the held fields were read at
        self._lock = threading.Lock()

    def _read_again(self, doc_id: str) -> ContractFields:
        """The contract's fields read from its clauses and stored (a new table version: the cache
        starts again next time). A contract another session deleted while a question about it
        was being answered has none, and nothing is written for it (a row of no contract)."""
        with self.store.writing():
            if self.store.document(doc_id) is None:
                return ContractFields(doc_id=doc_id)
            fields = read_fields(self.graph(doc_id))
            self.store.put_fields(fields, EXTRACTOR_VERSION)
        return fields

    def of(self, doc_ids: list[str]) -> list[ContractFields]:
        """Each contract's fields, in the order given."""
        with self._lock:
            version = self.store.table_version("fields")
            if version != self._held_version:
                self._held, self._held_version = {}, version
            held = dict(self._held)
        missing = [doc_id for doc_id in doc_ids if doc_id not in held]
        stored = self.store.fields(missing) if missing else {}
        for doc_id in missing:
            extractor, fields = stored.get(doc_id, ("", None))
            if fields is None or extractor != EXTRACTOR_VERSION:
                fields = self._read_again(doc_id)
            held[doc_id] = fields
        with self._lock:
            if self._held_version == version:
                self._held.update({doc_id: held[doc_id] for doc_id in missing})
        return [held[doc_id] for doc_id in doc_ids]


class FieldReader(Protocol):
    """Where the question pipeline gets contract fields."""

    def of(self, doc_ids: list[str]) -> list[ContractFields]: ...


class FieldsReadNow:
    """Each contract's fields read again from its clauses by the presence model in use, and
    kept in memory only. A benchmark scoring with a presence model that never saw its
    contracts (`engine eval --presence-model`) must not list them by flags stored by a model
    that did. `model_of` names, per doc id, another model file to read that contract with (the
    fold model that never read its labels, `engine eval --presence-folds`), or None."""

    def __init__(self, graph: Callable[[str], DocGraph], model_of: Callable[[str], Path | None] | None = None) -> None:
        self.graph = graph
        self.model_of = model_of
        self._read: dict[str, ContractFields] = {}

    def of(self, doc_ids: list[str]) -> list[ContractFields]:
        for doc_id in doc_ids:
            if doc_id not in self._read:
                self._read[doc_id] = self._read_now(doc_id)
        return [self._read[doc_id] for doc_id in doc_ids]

    def _read_now(self, doc_id: str) -> ContractFields:
        model = self.model_of(doc_id) if self.model_of else None
        with presence_model_from(model) if model is not None else nullcontext():
            return read_fields(self.graph(doc_id))
