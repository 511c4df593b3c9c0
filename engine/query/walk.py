"""Stage 3, the graph walk: 1-3 hops from the strongest anchors over REFERENCES, DEFINES and
PARENT_OF, each reached clause scored w_sem * similarity + w_struct * edge weight * decay^hops
and keeping its best path, so every passage can say which edges, through which clauses, brought
it: a term used inside the definition of a term the anchor uses says both definitions.

The definitions of the terms a starting anchor uses pass the gates however common the term
(`definitions_used`), save the terms naming a party: "PRC", used by twenty clauses, weighs
little as an edge, yet its definition may be what excludes Hong Kong. The learned ranker, which
reads the term's weight, decides whether they are read. Held out by contract
(bench/train_ranker.py, stop 44): multi-hop complete@8k 0.646 -> 0.667 over 144 dev questions
(definition 0.667 -> 0.682, 3 hops 0.508 -> 0.576), cuad_dev recall@4k 0.883 -> 0.879. With
`definition_chains_used` the definitions those definitions use pass too, down the chain ("Territory"
means ... the Field of Activity, defined apart): held out by contract (stop 49, the ranker refitted
per fold) multi-hop complete@8k 0.688 -> 0.701, definition 0.727 -> 0.758, 3 hops 0.576 -> 0.610,
worst fold 0.526 -> 0.579, the best order possible 0.903 -> 0.917; cuad_dev recall@4k 0.885 -> 0.886.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.query.anchors import Candidate
from engine.query.scope import SearchScope
from engine.settings import RetrievalSettings
from engine.store.graphcache import DocGraph
from models.clause import Clause, ClauseKind, ClauseType
from models.edge import EdgeType
from models.retrieval import Step, Why

#: Follower order after an anchor: sections linked by citation, then by definitions, then the tree.
_TIERS = {"REFERENCES": 0, "DEFINES": 1}
_TIER_PER_HOP = 3  # a clause one hop further comes after every tier of the nearer ones


def walk(anchors: dict[str, Candidate], scope: SearchScope, settings: RetrievalSettings) -> list[Candidate]:
    """Breadth-first from the `walk_from` strongest anchors, up to `hops` edges."""
    s = settings
    starts = sorted(anchors.values(), key=lambda c: (c.order, -c.score))[: s.walk_from]
    similarity = scope.similarity
    found: dict[str, Candidate] = {}
    ungated: set[str] = set()
    for anchor in starts:
        start_id = anchor.clause.clause_id
        frontier: list[tuple[str, float, int, tuple[Step, ...]]] = [(start_id, 1.0, 0, ())]
        visited = {start_id}
        for hop in range(1, s.hops + 1):
            following = []
            for clause_id, weight, distance, path in frontier:
                source = anchor.graph.by_id[clause_id]
                for target, edge_weight, edge, direction, label in neighbours(anchor.graph, clause_id, s):
                    if target in visited or not scope.admits(target):
                        continue
                    visited.add(target)
                    step = Step(edge=edge, direction=direction, via_ref=source.ref, label=label)
                    path_weight = weight * edge_weight
                    # a definition that uses another defined term needs that one too: no extra distance
                    chained = s.chain_definitions and _is_definition(source) and (edge, direction) == ("DEFINES", "out")
                    steps = distance if chained and distance else distance + 1
                    following.append((target, path_weight, steps, (*path, step)))
                    if target in anchors and anchors[target].order <= anchor.order:
                        continue  # already in context ahead of this anchor
                    structure = path_weight * s.decay**steps * (0.5 + 0.5 * anchor.score)
                    definition_used = (
                        s.definitions_used and (edge, direction) == ("DEFINES", "out") and label not in anchor.graph.party_terms
                        and (hop == 1 or (s.definition_chains_used and chained and _all_definitions(path)))
                    )
                    if structure < s.min_structure and not definition_used:
                        continue
                    if definition_used:
                        ungated.add(target)
                    score = s.w_sem * similarity[target] + s.w_struct * structure
                    current = found.get(target)
                    if current is None or score > current.score:
                        tier = _TIERS.get(edge, 2) + (steps - 1) * _TIER_PER_HOP
                        why = Why(kind="graph", edge=edge, direction=direction, via_ref=source.ref, label=label, hops=hop, path=list(path))
                        found[target] = Candidate(anchor.graph.by_id[target], anchor.graph, similarity[target], score, why, order=anchor.order, tier=tier)
            frontier = following
    return [c for c in found.values() if c.score >= s.min_graph_score or c.clause.clause_id in ungated]


def _is_definition(clause: Clause) -> bool:
    """An entry of a list of definitions: a glossary row read as its own clause, or a numbered
    section of the definitions that defines a term ("2.4 "cGMP" shall mean the standards required
    by the Regulatory Authority ..."), whose own terms a chain follows."""
    return clause.kind is ClauseKind.DEFINITION or (bool(clause.defines) and clause.clause_type is ClauseType.DEFINITIONS)


def _all_definitions(path: tuple[Step, ...]) -> bool:
    """Did every step so far go from a clause to the definition of a term it uses?"""
    return all((step.edge, step.direction) == ("DEFINES", "out") for step in path)


def neighbours(graph: DocGraph, clause_id: str, s: RetrievalSettings) -> Iterator[tuple[str, float, str, str, str]]:
    """Edges out of a clause with their weights, both directions where they help: (target,
    weight, edge type, direction, label). Plain tuples: the walk meets thousands of edges a
    question, most to clauses it has already reached, and makes a `Step` only of the rest.

    - REFERENCES: to the clause cited (full weight) and from clauses citing it.
    - DEFINES: from a clause to the definitions of the terms it uses, weighted by how
      telling the term is; from a definition to the clauses using the term, weakly, and
      never from the preamble, whose party names every clause uses.
    - PARENT_OF: up to the enclosing clause, and down to the parts of a clause that is
      little more than a heading (its content is in its parts).
    """
    clause = graph.by_id[clause_id]
    thin = len(clause.text) < s.thin_chars
    for edge in graph.out_edges.get(clause_id, []):
        if edge.type is EdgeType.REFERENCES:
            yield edge.dst, s.references, "REFERENCES", "out", edge.label
        elif edge.type is EdgeType.PARENT_OF:
            weight = s.parent_of if thin else s.parent_of * s.thick_parent
            yield edge.dst, weight, "PARENT_OF", "out", ""
        elif edge.type is EdgeType.DEFINES and clause.kind is not ClauseKind.PREAMBLE:
            yield edge.dst, s.term_users * graph.term_weight(edge.label), "DEFINES", "in", edge.label
    for edge in graph.in_edges.get(clause_id, []):
        if edge.type is EdgeType.REFERENCES:
            yield edge.src, s.cited_by, "REFERENCES", "in", edge.label
        elif edge.type is EdgeType.PARENT_OF:
            yield edge.src, s.parent_of, "PARENT_OF", "in", ""
        elif edge.type is EdgeType.DEFINES:
            yield edge.src, s.defines * graph.term_weight(edge.label), "DEFINES", "out", edge.label
