"""What every retrieval stage shares: the contracts in scope, the clauses the hard filters let
through, and the question's vector with its similarity to every clause.

Hard filters are applied here, once, so no stage can search outside them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from engine.fields.presence import presence_model
from engine.store.clause_store import in_list
from engine.store.graphcache import DocGraph
from models.clause import Clause, ClauseKind
from models.plan import QueryPlan


@dataclass
class SearchScope:
    plan: QueryPlan
    graphs: list[DocGraph]
    vector: np.ndarray  # the question's embedding (unit length)
    similarity: dict[str, float]  # clause id -> cosine with the question (its best window)
    allowed: set[str] | None  # clause ids passing the hard filters; None: no hard filter
    by_id: dict[str, tuple[Clause, DocGraph]]
    search_vector: np.ndarray  # what the vector arm searches with: `vector`, or it moved by the query adapter
    # clause id -> cosine with each of the question's parts (`plan.parts`), one dict per part; none
    # when it asks one thing
    part_similarities: list[dict[str, float]] = field(default_factory=list)

    @classmethod
    def of(
        cls, plan: QueryPlan, graphs: list[DocGraph], vector: np.ndarray, search_vector: np.ndarray | None = None,
        part_vectors: list[np.ndarray] | None = None,
    ) -> SearchScope:
        by_id = {c.clause_id: (c, g) for g in graphs for c in g.clauses}
        searched = vector if search_vector is None else search_vector
        parts = [similarities(graphs, part) for part in part_vectors or []]
        return cls(plan, graphs, vector, similarities(graphs, vector), allowed(plan, graphs), by_id, searched, parts)

    @cached_property
    def category_likelihood(self) -> dict[str, np.ndarray]:
        """Doc id -> each clause's (in `clauses` order) presence-model probability of the
        question's guessed categories, weighted by their shares; empty when none has a column.
        The category arm ranks by it and the ranker reads it."""
        weights = category_weights(self.plan)
        if not weights:
            return {}
        columns, shares = list(weights), np.array(list(weights.values()), dtype=np.float32)
        return {g.doc_id: g.category_scores[:, columns] @ shares if g.clauses else np.zeros(0, np.float32) for g in self.graphs}

    @cached_property
    def category_order(self) -> dict[str, np.ndarray]:
        """Doc id -> its clause rows, likeliest of the guessed categories first: the category
        arm reads the head of it, the ranker every clause's place in it."""
        return {doc_id: np.argsort(-likelihood) for doc_id, likelihood in self.category_likelihood.items()}

    def admits(self, clause_id: str) -> bool:
        return self.allowed is None or clause_id in self.allowed

    def searchable(self, clause_id: str) -> bool:
        """What an arm that ranks every clause itself may return: admitted, and not a table of
        contents, whose lines name every topic and hold none."""
        return self.admits(clause_id) and self.by_id[clause_id][0].kind is not ClauseKind.TOC

    def where(self) -> str:
        """The same scope as a LanceDB pre-filter, for the search arms."""
        where = in_list("doc_id", [g.doc_id for g in self.graphs])
        if self.allowed is not None:
            where += " AND " + in_list("clause_id", sorted(self.allowed) or ["-"])
        return where


def category_weights(plan: QueryPlan) -> dict[int, float]:
    """Presence-model column -> the share of the question model's guesses that category has.
    Shares, not probabilities: a question in an unfamiliar style spreads its probability (a
    scenario's right category often has 0.3 of it), and the ranker that reads these learnt on
    confident ones. A guess the presence model has no column for (the title, the parties)
    keeps its share, so a question about those weighs every clause category down."""
    known = presence_model().categories
    total = sum(g.probability for g in plan.categories)
    if total <= 0:
        return {}
    return {known.index(g.category): g.probability / total for g in plan.categories if g.category in known}


def similarities(graphs: list[DocGraph], vector: np.ndarray) -> dict[str, float]:
    """Cosine of the question with every clause in scope: its best window."""
    result: dict[str, float] = {}
    for graph in graphs:
        if not graph.clauses:
            continue
        scores = graph.vectors @ vector
        for clause, value in zip(graph.clauses, scores):
            result[clause.clause_id] = float(value)
        for clause_id, windows in graph.windows.items():
            best = max(float(w.vector @ vector) for w in windows)
            result[clause_id] = max(result.get(clause_id, -1.0), best)
    return result


def allowed(plan: QueryPlan, graphs: list[DocGraph]) -> set[str] | None:
    """Clause ids that pass the hard filters, or None when there are none."""
    filters = plan.filters
    if not (filters.clause_types or filters.section_refs or filters.pages):
        return None
    result: set[str] = set()
    for graph in graphs:
        candidates = {c.clause_id for c in graph.clauses}
        if filters.section_refs:
            wanted = {r.lower() for r in filters.section_refs}
            roots = [c.clause_id for c in graph.clauses if c.ref.lower() in wanted]
            candidates &= {d for root in roots for d in graph.descendants(root)}
        if filters.clause_types:
            candidates &= {c.clause_id for c in graph.clauses if c.clause_type in filters.clause_types or any(t in filters.clause_types for t in c.topics)}
        if filters.pages:
            candidates &= {
                c.clause_id for c in graph.clauses if c.page_start <= filters.pages.last and c.page_end >= filters.pages.first
            }
        result |= candidates
    return result
