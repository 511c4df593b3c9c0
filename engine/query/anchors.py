"""Stage 2, anchors: the fused search ranking as candidates, and the clauses the question
names outright (a section number, a defined term) placed among them.

Named sections go first, ahead of every search hit; the definitions of terms the question
uses come right after the best search hit.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.query.arms import Ranking
from engine.query.scope import SearchScope
from engine.store.graphcache import DocGraph
from models.clause import Clause
from models.retrieval import Why

NAMED_SECTION_ORDER = -100  # before every search hit (whose order is its 1-based rank)
NAMED_TERM_ORDER = 1  # with the best search hit


@dataclass
class Candidate:
    """A clause on its way into the context: an anchor, or a clause the graph walk reached."""

    clause: Clause
    graph: DocGraph
    similarity: float
    score: float
    why: Why
    order: int = 0  # anchor rank, or the rank of the anchor a graph node was reached from
    tier: int = 0  # for graph-found clauses: the follower order after their anchor


def ranked_anchors(ranking: Ranking, scope: SearchScope) -> dict[str, Candidate]:
    """Every clause of the fused ranking, strength relative to the best, in rank order."""
    top = max((node.score or 0.0 for node in ranking.nodes), default=1.0) or 1.0
    anchors: dict[str, Candidate] = {}
    for rank, node in enumerate(ranking.nodes, start=1):
        clause, graph = scope.by_id[node.node.node_id]
        arms = {arm: ranks[clause.clause_id] for arm, ranks in ranking.ranks.items() if clause.clause_id in ranks}
        anchors[clause.clause_id] = Candidate(
            clause, graph, scope.similarity[clause.clause_id], (node.score or 0.0) / top, Why(kind="anchor", arms=arms), order=rank
        )
    return anchors


def inject_named(scope: SearchScope, anchors: dict[str, Candidate]) -> None:
    """Clauses the question names, and definitions of the terms it uses, become anchors at the top."""
    plan = scope.plan
    named = [(m.clause_id, m.text, NAMED_SECTION_ORDER + i) for i, m in enumerate(plan.sections)]
    named += [(t.clause_id, f"defines “{t.term}”", NAMED_TERM_ORDER) for t in plan.terms]
    for clause_id, label, order in named:
        if clause_id not in scope.by_id or not scope.admits(clause_id):
            continue
        clause, graph = scope.by_id[clause_id]
        previous = anchors.get(clause_id)
        arms = previous.why.arms if previous else {}
        order = min(order, previous.order) if previous else order
        anchors[clause_id] = Candidate(clause, graph, scope.similarity[clause_id], 1.0, Why(kind="named", arms=arms, label=label), order=order)
