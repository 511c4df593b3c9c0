"""Which contracts to read, for a question over more of them than are answered one by one.

The clause graph search works on each contract's graph in memory: its clauses, vectors and
edges. Over a library of 500 contracts that is seconds of loading for a process's first
question and most of its memory, although such a question is answered from its best matches
(limits.answer_each). So over a large scope the search arms that need no graph run first,
in the store alone (BM25 and the vectors, in LanceDB), and only the contracts of their best
fused hits are loaded and searched again by the whole pipeline.
"""

from __future__ import annotations

import numpy as np

from engine.query.arms import KeywordArm, VectorArm, fuse
from engine.settings import RetrievalSettings
from engine.store.clause_store import ClauseStore, in_list
from models.plan import QueryPlan


def best_contracts(store: ClauseStore, plan: QueryPlan, vector: np.ndarray, doc_ids: list[str], settings: RetrievalSettings) -> list[str]:
    """Up to `settings.large_scope_contracts` of `doc_ids`, those of the best hits first. Only
    for a plan without hard filters: those are checked on the graphs (scope.allowed)."""
    where = in_list("doc_id", doc_ids)
    arms = [KeywordArm(store, where, plan, settings), VectorArm(store, where, vector, settings.pool)]
    chosen: list[str] = []
    for node in fuse(arms, plan.question, settings.pool * len(arms)):
        doc_id = node.node.node_id.split(":", 1)[0]
        if doc_id not in chosen:
            chosen.append(doc_id)
        if len(chosen) == settings.large_scope_contracts:
            break
    return chosen
