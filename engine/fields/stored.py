"""The fields of stored contracts, kept current: a contract stored before fields existed, or by
an older extractor, is read again from its clauses and the result kept, so an old store
upgrades itself as it is used."""

from __future__ import annotations

from collections.abc import Callable

from engine.fields import EXTRACTOR_VERSION, extract_fields
from engine.store.clause_store import ClauseStore
from engine.store.graphcache import DocGraph
from models.fields import ContractFields


class StoredFields:
    def __init__(self, store: ClauseStore, graph: Callable[[str], DocGraph]) -> None:
        self.store = store
        self.graph = graph  # doc_id -> the contract's clause graph, for re-reading

    def of(self, doc_ids: list[str]) -> list[ContractFields]:
        """Each contract's fields, in the order given."""
        stored = self.store.fields(doc_ids)
        result = []
        for doc_id in doc_ids:
            version, fields = stored.get(doc_id, ("", None))
            if fields is None or version != EXTRACTOR_VERSION:
                graph = self.graph(doc_id)
                fields = extract_fields(doc_id, graph.clauses, graph.document.title)
                self.store.put_fields(fields, EXTRACTOR_VERSION)
            result.append(fields)
        return result
