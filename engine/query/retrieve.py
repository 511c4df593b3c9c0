"""Graph-aware hybrid retrieval over the clause graph.

1. Pre-filter to the plan's scope and hard filters: nothing outside them is searched.
2. Anchors: LanceDB full-text search and vector search (clauses and their windows), each a
   LlamaIndex retriever, fused by LlamaIndex's reciprocal-rank fusion; the ranking of the
   clauses of the types the question is about then adds a reciprocal-rank share; plus
   injected anchors: clauses the question names by number and the definitions of defined
   terms it uses.
3. Graph walk, 1-3 hops from the anchors over REFERENCES, DEFINES (a clause using a term
   reaches its definition) and PARENT_OF, each node scored
   w_sem * similarity + w_struct * edge weight * decay^hops.
4. Budgeted selection by characters: part of the budget is kept for graph-found clauses so
   they are not ranked out; a long clause is cut to its best window; each anchor is
   followed by what it led to, so related evidence sits together.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from llama_index.core import QueryBundle
from llama_index.core.llms import MockLLM
from llama_index.core.retrievers import BaseRetriever, QueryFusionRetriever
from llama_index.core.retrievers.fusion_retriever import FUSION_MODES
from llama_index.core.schema import NodeWithScore, TextNode
from lancedb.query import BooleanQuery, MatchQuery, Occur, PhraseQuery
from pydantic import BaseModel, Field

from engine.embed import Embedder
from engine.store.graphcache import DocGraph, GraphCache
from engine.store.clause_store import ClauseStore
from engine.text.normalise import normalise
from models.clause import Clause, ClauseKind
from models.edge import EdgeType
from models.plan import QueryPlan
from models.retrieval import Mode, Passage, Retrieval, Why


class RetrievalSettings(BaseModel):
    """Weights and budgets; the defaults come from the clause-graph literature, tuned on dev data."""

    budget: int = Field(default=8000, description="context size in normalised characters")
    graph_share: float = Field(default=1 / 3, description="part of the budget kept for graph-found clauses")
    pool: int = Field(default=30, description="results taken from each search arm")
    walk_from: int = Field(default=8, description="anchors the graph walk starts from")
    hops: int = Field(default=3, ge=0, le=3)
    references: float = 1.0
    defines: float = 0.9
    parent_of: float = 0.55
    cited_by: float = 0.7  # walking a REFERENCES edge backwards: the clause that cites the anchor
    term_users: float = 0.3  # from a definition to the clauses using the term
    decay: float = 0.75
    w_sem: float = 0.5
    w_struct: float = 0.5
    min_graph_score: float = 0.3
    min_structure: float = Field(default=0.2, description="weaker links than this never bring a clause in")
    thin_chars: int = Field(default=300, description="a clause shorter than this is mostly a heading for its parts")
    thick_parent: float = Field(default=0.5, description="down-weighting of the parts of a clause with content of its own")
    followers: list[int] = Field(default=[4, 3, 2, 2, 1], description="clauses placed after the 1st, 2nd, ... anchor")
    trim_chars: int = Field(default=3500, description="longer clauses are cut to their best window")
    topic_weight: float = Field(default=1.0, description="share of a search arm the clause-type ranking counts for")
    chain_definitions: bool = True
    follower_chars: int = Field(default=2500, description="graph-found clauses longer than this are cut to their best window")
    window_keyword_weight: float = Field(default=0.03, description="weight of the question's words when choosing a window")


# ----------------------------------------------------------------------- arms

#: Follower order after an anchor: sections linked by citation, then by definitions, then the tree.
_TIERS = {"REFERENCES": 0, "DEFINES": 1}
HEADING_BOOST = 0.5  # a word in the heading counts half as much again as one in the text
EXPANSION_BOOST = 0.5  # a synonym counts for less than the question's own word
_RRF_K = 60.0  # the constant of LlamaIndex's reciprocal rank fusion, for the topic share


def _node(clause_id: str) -> TextNode:
    """One node per clause, the same from every arm, so fusion recognises it."""
    return TextNode(id_=clause_id, text=clause_id)


def _in_list(column: str, values: list[str]) -> str:
    quoted = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
    return f"{column} IN ({quoted})"


class _Arm(BaseRetriever):
    """A search arm: returns clause nodes, and remembers their ranks for explanations."""

    name = "arm"

    def __init__(self) -> None:
        super().__init__()
        self.ranks: dict[str, int] = {}

    def _remember(self, ranked: list[tuple[str, float]]) -> list[NodeWithScore]:
        self.ranks = {clause_id: rank for rank, (clause_id, _) in enumerate(ranked, start=1)}
        return [NodeWithScore(node=_node(clause_id), score=score) for clause_id, score in ranked]


class KeywordArm(_Arm):
    """BM25 with LanceDB's native full-text index: the question's words over clause text and
    headings, its defined terms as phrases, and contract synonyms at a lower weight."""

    name = "keyword"

    def __init__(self, store: ClauseStore, where: str, plan: QueryPlan, limit: int) -> None:
        super().__init__()
        self.store, self.where, self.plan, self.limit = store, where, plan, limit

    def _query(self) -> BooleanQuery | None:
        single = [w for w in self.plan.keywords if " " not in w]
        phrases = [w for w in self.plan.keywords if " " in w]
        clauses = []
        if single:
            clauses.append((Occur.SHOULD, MatchQuery(" ".join(single), "text")))
            clauses.append((Occur.SHOULD, MatchQuery(" ".join(single), "heading", boost=HEADING_BOOST)))
        clauses += [(Occur.SHOULD, PhraseQuery(phrase, "text")) for phrase in phrases]
        expansions = [w for w in self.plan.expansions if " " not in w]
        if expansions:
            clauses.append((Occur.SHOULD, MatchQuery(" ".join(expansions), "text", boost=EXPANSION_BOOST)))
        return BooleanQuery(clauses) if clauses else None

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        query = self._query()
        if query is None:
            return self._remember([])
        try:
            rows = (
                self.store.table("clauses").search(query, query_type="fts")
                .where(self.where, prefilter=True).select(["clause_id", "_score"]).limit(self.limit).to_list()
            )
        except (ValueError, RuntimeError):  # a query of nothing but stop words
            rows = []
        return self._remember([(row["clause_id"], float(row["_score"])) for row in rows])


class VectorArm(_Arm):
    """Nearest clauses to the question, over each clause's first window and the further
    windows of long clauses; a clause counts once, by its best window."""

    name = "vector"

    def __init__(self, store: ClauseStore, where: str, vector: np.ndarray, limit: int) -> None:
        super().__init__()
        self.store, self.where, self.vector, self.limit = store, where, vector, limit

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        best: dict[str, float] = {}
        for table in ("clauses", "windows"):
            rows = (
                self.store.table(table).search(self.vector).where(self.where, prefilter=True)
                .select(["clause_id", "_distance"]).limit(self.limit).to_list()
            )
            for row in rows:
                similarity = 1.0 - float(row["_distance"]) / 2.0  # unit vectors: L2² = 2 - 2cos
                best[row["clause_id"]] = max(best.get(row["clause_id"], -1.0), similarity)
        ranked = sorted(best.items(), key=lambda item: -item[1])[: self.limit]
        return self._remember(ranked)


class TopicArm(_Arm):
    """Clauses of the types the question is about, nearest first."""

    name = "topic"

    def __init__(self, candidates: list[tuple[str, float]], limit: int) -> None:
        super().__init__()
        self.candidates, self.limit = candidates, limit

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._remember(sorted(self.candidates, key=lambda item: -item[1])[: self.limit])


# ------------------------------------------------------------------ retriever


@dataclass
class _Candidate:
    clause: Clause
    graph: DocGraph
    similarity: float
    score: float
    why: Why
    order: int = 0  # anchor rank, or the rank of the anchor a graph node was reached from
    tier: int = 0


class Retriever:
    """Runs a QueryPlan against the store and returns passages within a character budget."""

    def __init__(self, store: ClauseStore, embedder: Embedder, cache: GraphCache, settings: RetrievalSettings | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.cache = cache
        self.settings = settings or RetrievalSettings()

    def graphs(self, doc_ids: list[str]) -> list[DocGraph]:
        documents = {d.doc_id: d for d in self.store.documents()} if doc_ids else {}
        return [self.cache.get(documents[doc_id]) for doc_id in doc_ids if doc_id in documents]

    def retrieve(
        self, plan: QueryPlan, mode: Mode = Mode.GRAPH, budget: int | None = None, graphs: list[DocGraph] | None = None
    ) -> Retrieval:
        """`graphs`: the scope's graphs when the caller already has them (the planner needed them too)."""
        started = time.perf_counter()
        settings = self.settings
        budget = budget or settings.budget
        timings: dict[str, float] = {}
        graphs = graphs if graphs is not None else self.graphs(plan.scope)
        if not graphs:
            return Retrieval(plan=plan, mode=mode, passages=[], budget=budget, seconds=time.perf_counter() - started)
        allowed = _allowed(plan, graphs)
        vector = self.embedder.encode([plan.question])[0]
        timings["embed"] = time.perf_counter() - started
        similarity = _similarities(graphs, vector)
        where = _in_list("doc_id", [g.doc_id for g in graphs])
        if allowed is not None:
            where += " AND " + _in_list("clause_id", sorted(allowed) or ["-"])

        arms: list[_Arm] = []
        if mode in (Mode.KEYWORD, Mode.HYBRID, Mode.GRAPH):
            arms.append(KeywordArm(self.store, where, plan, settings.pool))
        if mode in (Mode.VECTOR, Mode.HYBRID, Mode.GRAPH):
            arms.append(VectorArm(self.store, where, vector, settings.pool))
        searched = time.perf_counter()
        fused = _fuse(arms, plan.question, settings.pool * len(arms))
        if mode in (Mode.HYBRID, Mode.GRAPH) and plan.topics:
            topical = [
                (c.clause_id, similarity[c.clause_id])
                for g in graphs for c in g.clauses
                if (allowed is None or c.clause_id in allowed) and _about(c, plan)
            ]
            if topical:
                topic = TopicArm(topical, settings.pool)
                fused = _with_topic(fused, topic.retrieve(plan.question), settings.topic_weight)
                arms.append(topic)
        timings["search"] = time.perf_counter() - searched

        by_id = {c.clause_id: (c, g) for g in graphs for c in g.clauses}
        top = max((node.score or 0.0 for node in fused), default=1.0) or 1.0
        anchors: dict[str, _Candidate] = {}
        for rank, node in enumerate(fused, start=1):
            clause, graph = by_id[node.node.node_id]
            arms_rank = {arm.name: arm.ranks[clause.clause_id] for arm in arms if clause.clause_id in arm.ranks}
            strength = (node.score or 0.0) / top
            anchors[clause.clause_id] = _Candidate(
                clause, graph, similarity[clause.clause_id], strength, Why(kind="anchor", arms=arms_rank), order=rank
            )
        walked = time.perf_counter()
        followers: list[_Candidate] = []
        if mode is Mode.GRAPH:
            _inject(plan, by_id, similarity, anchors, allowed)
            followers = self._walk(anchors, similarity, allowed)
        timings["walk"] = time.perf_counter() - walked
        passages = self._select(anchors, followers, vector, plan, budget)
        seconds = time.perf_counter() - started
        timings["total"] = seconds
        considered = list(anchors) + [c.clause.clause_id for c in followers if c.clause.clause_id not in anchors]
        return Retrieval(
            plan=plan, mode=mode, passages=passages, budget=budget, seconds=seconds, timings=timings, considered=considered
        )

    # ------------------------------------------------------------------ walk

    def _walk(self, anchors: dict[str, _Candidate], similarity: dict[str, float], allowed: set[str] | None) -> list[_Candidate]:
        """Breadth-first from the strongest anchors, up to `hops` edges; each node keeps its
        best-scoring path and says which edge, from which clause, brought it in."""
        s = self.settings
        starts = sorted(anchors.values(), key=lambda c: (c.order, -c.score))[: s.walk_from]
        found: dict[str, _Candidate] = {}
        for anchor in starts:
            start_id = anchor.clause.clause_id
            frontier = [(start_id, 1.0, 0)]
            visited = {start_id}
            for hop in range(1, s.hops + 1):
                following = []
                for clause_id, weight, distance in frontier:
                    source = anchor.graph.by_id[clause_id]
                    for target, edge_weight, why in self._neighbours(anchor.graph, clause_id):
                        if target in visited or (allowed is not None and target not in allowed):
                            continue
                        visited.add(target)
                        path_weight = weight * edge_weight
                        # a definition that uses another defined term needs that one too: no extra distance
                        chained = s.chain_definitions and source.kind is ClauseKind.DEFINITION and (why.edge, why.direction) == ("DEFINES", "out")
                        steps = distance if chained and distance else distance + 1
                        following.append((target, path_weight, steps))
                        if target in anchors and anchors[target].order <= anchor.order:
                            continue  # already in context ahead of this anchor
                        structure = path_weight * s.decay**steps * (0.5 + 0.5 * anchor.score)
                        if structure < s.min_structure:
                            continue
                        score = s.w_sem * similarity[target] + s.w_struct * structure
                        current = found.get(target)
                        if current is None or score > current.score:
                            tier = _TIERS.get(why.edge or "", 2) + (steps - 1) * 3
                            found[target] = _Candidate(
                                anchor.graph.by_id[target], anchor.graph, similarity[target], score,
                                why.model_copy(update={"hops": hop}), order=anchor.order, tier=tier,
                            )
                frontier = following
        return [c for c in found.values() if c.score >= s.min_graph_score]

    def _neighbours(self, graph: DocGraph, clause_id: str):
        """Edges out of a clause with their weights, both directions where they help.

        - REFERENCES: to the clause cited (full weight) and from clauses citing it.
        - DEFINES: from a clause to the definitions of the terms it uses, weighted by how
          telling the term is; from a definition to the clauses using the term, weakly, and
          never from the preamble, whose party names every clause uses.
        - PARENT_OF: up to the enclosing clause, and down to the parts of a clause that is
          little more than a heading (its content is in its parts).
        """
        s = self.settings
        clause = graph.by_id[clause_id]
        ref = clause.ref
        thin = len(clause.text) < s.thin_chars
        for edge in graph.out_edges.get(clause_id, []):
            if edge.type is EdgeType.REFERENCES:
                yield edge.dst, s.references, Why(kind="graph", edge="REFERENCES", direction="out", via_ref=ref, label=edge.label)
            elif edge.type is EdgeType.PARENT_OF:
                weight = s.parent_of if thin else s.parent_of * s.thick_parent
                yield edge.dst, weight, Why(kind="graph", edge="PARENT_OF", direction="out", via_ref=ref)
            elif edge.type is EdgeType.DEFINES and clause.kind is not ClauseKind.PREAMBLE:
                weight = s.term_users * graph.term_weight(edge.label)
                yield edge.dst, weight, Why(kind="graph", edge="DEFINES", direction="in", via_ref=ref, label=edge.label)
        for edge in graph.in_edges.get(clause_id, []):
            if edge.type is EdgeType.REFERENCES:
                yield edge.src, s.cited_by, Why(kind="graph", edge="REFERENCES", direction="in", via_ref=ref, label=edge.label)
            elif edge.type is EdgeType.PARENT_OF:
                yield edge.src, s.parent_of, Why(kind="graph", edge="PARENT_OF", direction="in", via_ref=ref)
            elif edge.type is EdgeType.DEFINES:
                weight = s.defines * graph.term_weight(edge.label)
                yield edge.src, weight, Why(kind="graph", edge="DEFINES", direction="out", via_ref=ref, label=edge.label)

    # ------------------------------------------------------------- selection

    def _select(self, anchors: dict[str, _Candidate], followers: list[_Candidate], vector: np.ndarray, plan: QueryPlan, budget: int) -> list[Passage]:
        """Fill the budget anchor by anchor, each followed by the best clauses it led to.

        What an anchor leads to (its definitions, the sections it cites, its parts) goes
        right after it, up to a few per anchor and up to the graph share of the budget, so a
        strong anchor's evidence is never pushed out by weaker anchors.
        """
        s = self.settings
        ranked_anchors = sorted(anchors.values(), key=lambda c: (c.order, -c.score))
        led_to: dict[int, list[_Candidate]] = {}
        for follower in sorted(followers, key=lambda c: (c.tier, -c.score)):
            led_to.setdefault(follower.order, []).append(follower)
        graph_budget = budget * s.graph_share
        passages: list[Passage] = []
        placed: set[str] = set()
        spent = spent_graph = 0

        def add(candidate: _Candidate) -> int:
            clause_id = candidate.clause.clause_id
            if clause_id in placed:
                return 0
            passage = self._passage(candidate, vector, plan)
            placed.add(clause_id)
            passages.append(passage)
            return len(normalise(passage.text)) + 1

        for index, anchor in enumerate(ranked_anchors):
            if spent >= budget:
                break
            spent += add(anchor)
            limit = s.followers[min(index, len(s.followers) - 1)]
            for follower in led_to.get(anchor.order, [])[:limit]:
                if spent >= budget or spent_graph >= graph_budget:
                    break
                size = add(follower)
                spent += size
                spent_graph += size
        leftovers = sorted((f for f in followers if f.clause.clause_id not in placed), key=lambda c: -c.score)
        for follower in leftovers:  # few anchors: the rest of the budget goes to the graph
            if spent >= budget:
                break
            spent += add(follower)
        return passages

    def _passage(self, candidate: _Candidate, vector: np.ndarray, plan: QueryPlan) -> Passage:
        clause, graph = candidate.clause, candidate.graph
        start, end, trimmed = 0, len(clause.text), False
        windows = graph.windows.get(clause.clause_id, [])
        limit = self.settings.trim_chars if candidate.why.kind != "graph" else self.settings.follower_chars
        if windows and len(normalise(clause.text)) > limit:
            weights = {k: 1.0 for k in plan.keywords if len(k) > 3}
            weights.update({k: 0.5 for k in plan.expansions if len(k) > 3 and k not in weights})

            def window_score(window) -> float:
                stretch = clause.text[window.start : window.end].lower()
                hits = sum(weight * min(stretch.count(word), 3) for word, weight in weights.items())
                return float(window.vector @ vector) + self.settings.window_keyword_weight * hits

            scores = [window_score(w) for w in windows]
            first = last = max(range(len(windows)), key=scores.__getitem__)
            # Grow from the best window towards the better neighbour while it fits.
            while True:
                options = [i for i in (first - 1, last + 1) if 0 <= i < len(windows)]
                options = [i for i in options if _span(windows, min(first, i), max(last, i), clause.text) <= limit]
                if not options:
                    break
                pick = max(options, key=scores.__getitem__)
                first, last = min(first, pick), max(last, pick)
            start, end, trimmed = windows[first].start, windows[last].end, True
        absolute = clause.char_start + start
        return Passage(
            doc_id=graph.doc_id, clause_id=clause.clause_id, ref=clause.ref, heading=clause.heading,
            page=graph.page_at(absolute), page_end=graph.page_at(clause.char_start + max(start, end - 1)),
            char_start=absolute, char_end=clause.char_start + end, text=clause.text[start:end],
            score=round(candidate.score, 4), similarity=round(candidate.similarity, 4), why=candidate.why, trimmed=trimmed,
        )


def _span(windows, first: int, last: int, text: str) -> int:
    return len(normalise(text[windows[first].start : windows[last].end]))


def _fuse(arms: list[_Arm], question: str, limit: int) -> list[NodeWithScore]:
    if not arms:
        return []
    if len(arms) == 1:
        return arms[0].retrieve(question)
    fusion = QueryFusionRetriever(
        arms, llm=MockLLM(), mode=FUSION_MODES.RECIPROCAL_RANK, similarity_top_k=limit, num_queries=1, use_async=False
    )
    return fusion.retrieve(question)


def _with_topic(fused: list[NodeWithScore], topical: list[NodeWithScore], weight: float) -> list[NodeWithScore]:
    """Clause types read from the question are a softer signal than the words and the meaning:
    their ranking adds a reciprocal-rank share of `weight` to the fused scores."""
    scores = {n.node.node_id: n.score or 0.0 for n in fused}
    nodes = {n.node.node_id: n for n in fused}
    for rank, node in enumerate(topical):
        scores[node.node.node_id] = scores.get(node.node.node_id, 0.0) + weight / (_RRF_K + rank)
        nodes.setdefault(node.node.node_id, node)
    ordered = sorted(scores, key=lambda clause_id: -scores[clause_id])
    return [NodeWithScore(node=nodes[clause_id].node, score=scores[clause_id]) for clause_id in ordered]


def _similarities(graphs: list[DocGraph], vector: np.ndarray) -> dict[str, float]:
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


def _about(clause: Clause, plan: QueryPlan) -> bool:
    if clause.kind is ClauseKind.TOC:
        return False
    return clause.clause_type in plan.topics or any(t in plan.topics for t in clause.topics[:2])


def _allowed(plan: QueryPlan, graphs: list[DocGraph]) -> set[str] | None:
    """Clause ids that pass the hard filters, or None when there are none."""
    filters = plan.filters
    if not (filters.clause_types or filters.section_refs or filters.pages):
        return None
    allowed: set[str] = set()
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
        allowed |= candidates
    return allowed


def _inject(plan: QueryPlan, by_id, similarity, anchors: dict[str, _Candidate], allowed) -> None:
    """Clauses the question names, and definitions of the terms it uses, become anchors at the top."""
    # Named sections go first; definitions of the terms used come right after the best search hit.
    named = [(m.clause_id, m.text, -100 + i) for i, m in enumerate(plan.sections)]
    named += [(t.clause_id, f"defines “{t.term}”", 1) for t in plan.terms]
    for clause_id, label, order in named:
        if clause_id not in by_id or (allowed is not None and clause_id not in allowed):
            continue
        clause, graph = by_id[clause_id]
        previous = anchors.get(clause_id)
        arms = previous.why.arms if previous else {}
        order = min(order, previous.order) if previous else order
        anchors[clause_id] = _Candidate(clause, graph, similarity[clause_id], 1.0, Why(kind="named", arms=arms, label=label), order=order)


class ClauseGraphRetriever(BaseRetriever):
    """The retriever as a LlamaIndex BaseRetriever: a query string in, passages as nodes out."""

    def __init__(self, retriever: Retriever, planner, scope: list[str], mode: Mode = Mode.GRAPH, filters=None) -> None:
        super().__init__()
        self._retriever, self._planner, self._scope, self._mode, self._filters = retriever, planner, scope, mode, filters
        self.last: Retrieval | None = None

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        graphs = self._retriever.graphs(self._scope)
        plan = self._planner(query_bundle.query_str, graphs, self._filters)
        self.last = self._retriever.retrieve(plan, self._mode, graphs=graphs)
        return [
            NodeWithScore(
                node=TextNode(
                    id_=f"{p.clause_id}@{p.char_start}", text=p.text,
                    metadata={"contract_id": p.doc_id, "clause_id": p.clause_id, "ref": p.ref, "page": p.page, "why": p.why.describe()},
                ),
                score=p.score,
            )
            for p in self.last.passages
        ]
