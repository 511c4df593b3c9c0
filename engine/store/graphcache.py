"""Each document's clause graph held in memory, for walking it at query time.

Retrieval walks edges and compares the query with every clause of the documents in scope;
reading those from LanceDB for every question would cost more than the search itself. A
document's graph is loaded once and kept; it is keyed by doc_id and ingest time, so a
re-ingested document is loaded afresh.
"""

from __future__ import annotations

import math
import threading
from bisect import bisect_right
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from engine.embed import DIMENSION
from engine.ingest.references import ReferenceResolver
from engine.store.clause_store import ClauseStore, GraphParts
from models.clause import Clause, ClauseKind, ClauseType
from models.document import Document
from models.edge import Edge, EdgeType


@dataclass(frozen=True, slots=True)
class Window:
    start: int  # offsets within the clause text
    end: int
    vector: np.ndarray


@dataclass
class DocGraph:
    document: Document
    clauses: list[Clause]
    vectors: np.ndarray  # one row per clause, in the order of `clauses`
    windows: dict[str, list[Window]]
    page_starts: list[int]
    out_edges: dict[str, list[Edge]] = field(default_factory=lambda: defaultdict(list))
    in_edges: dict[str, list[Edge]] = field(default_factory=lambda: defaultdict(list))

    def __post_init__(self) -> None:
        self.by_id = {c.clause_id: c for c in self.clauses}
        self.row = {c.clause_id: i for i, c in enumerate(self.clauses)}
        self.by_ref: dict[str, list[Clause]] = defaultdict(list)
        for clause in self.clauses:
            self.by_ref[clause.ref.lower()].append(clause)
        self.definitions = {term: c for c in self.clauses for term in c.defines}
        users: dict[str, int] = defaultdict(int)
        for clause in self.clauses:
            for term in clause.terms_used:
                users[term] += 1
        self.term_users = dict(users)

    @property
    def doc_id(self) -> str:
        return self.document.doc_id

    def page_at(self, offset: int) -> int:
        return max(1, bisect_right(self.page_starts, offset))

    @cached_property
    def resolver(self) -> ReferenceResolver:
        """Resolves section numbers a question names to this document's clause refs."""
        return ReferenceResolver([(c.ref, c.path.split("/")[0] if "/" in c.path else None) for c in self.clauses])

    @cached_property
    def clause_types(self) -> set[ClauseType]:
        """Every clause type some clause of this document has, as its type or one of its topics."""
        return {c.clause_type for c in self.clauses} | {t for c in self.clauses for t in c.topics}

    @cached_property
    def stem_frequency(self) -> dict[str, int]:
        """Stem -> number of clauses using it ("" -> number of clauses), for word rarity."""
        frequency: dict[str, int] = defaultdict(int)
        for found in self.clause_stems.values():
            for key in found:
                frequency[key] += 1
        frequency[""] = len(self.clauses)
        return dict(frequency)

    @cached_property
    def clause_stems(self) -> dict[str, set[str]]:
        """Clause id -> the stems of its heading and text."""
        from engine.text.matching import stems

        return {c.clause_id: stems(f"{c.heading} {c.text}") for c in self.clauses}

    @property
    def category_scores(self) -> np.ndarray:
        """Clause (rows, in `clauses` order) x presence-model category: how likely each clause
        is of each kind, read once per document when a question first needs it (tens of ms).
        Kept with the model that scored it, so a benchmark that swaps the model in
        (`use_presence_model`) is never answered from another model's scores."""
        from engine.fields.presence import clause_scores, presence_model

        model = presence_model()
        scored = self.__dict__.get("_category_scores")
        if scored is None or scored[0] is not model:
            scored = self.__dict__["_category_scores"] = (model, clause_scores(self.clauses, model))
        return scored[1]

    @cached_property
    def contract_type(self) -> str:
        """The agreement family ("Non-Disclosure", "License"), as the contract's fields report it."""
        from engine.fields.doctype import contract_type

        return contract_type(self.document.title, self.clauses)

    @cached_property
    def party_names(self) -> list[set[str]]:
        """Each party's name words, as the opening sentence introduces it (lower case)."""
        from engine.fields.parties import name_words, parties_in

        return [words for *_, party in parties_in(self.clauses) if (words := name_words(party))]

    @cached_property
    def party_terms(self) -> set[str]:
        """The terms that name a party: those the preamble defines ("Supplier", "Parties") and
        those made of a party's name words ("NCM" for National CineMedia, LLC (“NCM”)). Nearly
        every clause uses them, and their definitions say who signs or point back to the opening."""
        from engine.fields.parties import name_tokens

        opening = [self.by_id[i] for c in self.clauses if c.kind is ClauseKind.PREAMBLE for i in self.descendants(c.clause_id)]
        defined = {term for c in opening for term in c.defines}
        named = {term for term in self.term_users if any(set(name_tokens(term)) <= party for party in self.party_names)}
        return defined | named

    def term_weight(self, term: str) -> float:
        """How telling a term is: 1 for a term few clauses use, near 0 for "Agreement"."""
        return self._term_weights.get(term, 1.0)

    @cached_property
    def _term_weights(self) -> dict[str, float]:
        """Every used term's weight, worked out once: the walk asks for it at each DEFINES edge
        it meets, thousands of times a question. A term no clause uses weighs 1."""
        total = math.log1p(max(len(self.clauses), 2))
        return {term: max(0.05, 1.0 - math.log1p(users) / total) for term, users in self.term_users.items()}

    def parts(self, clause_id: str) -> list[str]:
        """The ids of a clause's parts (its PARENT_OF edges), as stored."""
        return [e.dst for e in self.out_edges.get(clause_id, []) if e.type is EdgeType.PARENT_OF and e.dst]

    def descendants(self, clause_id: str) -> list[str]:
        found, stack = [], [clause_id]
        while stack:
            current = stack.pop()
            found.append(current)
            stack.extend(self.parts(current))
        return found


_LOAD_BATCH = 200  # documents read per scan: a bounded filter, a bounded batch of rows in memory


class GraphCache:
    """Loads DocGraphs from the store on first use and keeps the most recent ones."""

    def __init__(self, store: ClauseStore, capacity: int = 600) -> None:
        self.store = store
        self.capacity = capacity
        self._graphs: OrderedDict[tuple[str, str, str], DocGraph] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, document: Document) -> DocGraph:
        return self.get_many([document])[0]

    def held(self, document: Document) -> DocGraph | None:
        """This document's graph if it is in memory; never loads it."""
        with self._lock:
            return self._graphs.get(_key(document))

    def get_many(self, documents: list[Document]) -> list[DocGraph]:
        """These documents' graphs, loading those not held yet in bulk (graph_parts)."""
        keys = [_key(d) for d in documents]
        with self._lock:
            held = {key: self._graphs[key] for key in keys if key in self._graphs}
            for key in held:
                self._graphs.move_to_end(key)
        missing = [d for d, key in zip(documents, keys) if key not in held]
        for first in range(0, len(missing), _LOAD_BATCH):
            batch = missing[first : first + _LOAD_BATCH]
            parts = self.store.graph_parts([d.doc_id for d in batch])
            for document in batch:
                held[_key(document)] = _build(document, parts[document.doc_id])
        with self._lock:
            for key in keys:
                self._graphs[key] = held[key]
                self._graphs.move_to_end(key)
            while len(self._graphs) > self.capacity:
                self._graphs.popitem(last=False)
        return [held[key] for key in keys]


def _key(document: Document) -> tuple[str, str, str]:
    # A contract's vectors change when its quick ones are replaced: then it is loaded again.
    return document.doc_id, document.ingested_at.isoformat(), document.embedding_model


def _build(document: Document, parts: GraphParts) -> DocGraph:
    order = sorted(range(len(parts.clauses)), key=lambda i: parts.clauses[i].order)
    clauses = [parts.clauses[i] for i in order]
    vectors = np.stack([parts.vectors[i] for i in order]) if clauses else np.zeros((0, DIMENSION), np.float32)
    windows: dict[str, list[Window]] = defaultdict(list)
    for row in sorted(parts.windows, key=lambda r: (r["clause_id"], r["window"])):
        windows[row["clause_id"]].append(Window(row["char_start"], row["char_end"], np.asarray(row["vector"], np.float32)))
    graph = DocGraph(document, clauses, vectors, dict(windows), [start for _, start in sorted(parts.page_starts)])
    for edge in parts.edges:
        if edge.dst is None:
            continue
        graph.out_edges[edge.src].append(edge)
        graph.in_edges[edge.dst].append(edge)
    return graph
