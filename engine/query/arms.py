"""Stage 1, search: the question against the clauses in scope by each search arm, fused.

- keyword: BM25 with LanceDB's native full-text index, over clause text and headings, the
  question's defined terms as phrases and contract synonyms at a lower weight;
- vector: nearest clauses by each clause's first window and the further windows of long
  clauses (a clause counts once, by its best window);
- fused by LlamaIndex's reciprocal-rank fusion; the ranking of the clauses of the types the
  question is about (topic) then adds a reciprocal-rank share, a softer signal than the words
  and the meaning;
- category: the clauses the presence model (trained on lawyers' labelled clauses) finds most
  likely of the categories the question model read the question as, weighted by how sure it
  is. It does not read the question's words at all, so "if we are bought, does the other side
  have to agree?" still reaches the change-of-control clause that shares none of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from lancedb.query import BooleanQuery, MatchQuery, Occur, PhraseQuery
from llama_index.core import QueryBundle
from llama_index.core.llms import MockLLM
from llama_index.core.retrievers import BaseRetriever, QueryFusionRetriever
from llama_index.core.retrievers.fusion_retriever import FUSION_MODES
from llama_index.core.schema import NodeWithScore, TextNode

from engine.query.scope import SearchScope
from engine.settings import RetrievalSettings
from engine.store.clause_store import ClauseStore
from models.clause import Clause, ClauseKind
from models.plan import QueryPlan

KEYWORD, VECTOR, TOPIC, CATEGORY, PARTS = "keyword", "vector", "topic", "category", "parts"


@dataclass
class Ranking:
    """The fused ranking of clause ids, and each arm's own ranks (for a passage's `why`)."""

    nodes: list[NodeWithScore]
    ranks: dict[str, dict[str, int]]  # arm name -> clause id -> 1-based rank, in arm order


def _node(clause_id: str) -> TextNode:
    """One node per clause, the same from every arm, so fusion recognises it."""
    return TextNode(id_=clause_id, text=clause_id)


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
    name = KEYWORD

    def __init__(self, store: ClauseStore, where: str, plan: QueryPlan, settings: RetrievalSettings) -> None:
        super().__init__()
        self.store, self.where, self.plan, self.settings = store, where, plan, settings

    def _query(self) -> BooleanQuery | None:
        single = [w for w in self.plan.keywords if " " not in w]
        phrases = [w for w in self.plan.keywords if " " in w]
        clauses = []
        if single:
            clauses.append((Occur.SHOULD, MatchQuery(" ".join(single), "text")))
            clauses.append((Occur.SHOULD, MatchQuery(" ".join(single), "heading", boost=self.settings.heading_boost)))
        clauses += [(Occur.SHOULD, PhraseQuery(phrase, "text")) for phrase in phrases]
        expansions = [w for w in self.plan.expansions if " " not in w]
        if expansions:
            clauses.append((Occur.SHOULD, MatchQuery(" ".join(expansions), "text", boost=self.settings.expansion_boost)))
        return BooleanQuery(clauses) if clauses else None

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        query = self._query()
        if query is None:
            return self._remember([])
        try:
            rows = (
                self.store.table("clauses").search(query, query_type="fts")
                .where(self.where, prefilter=True).select(["clause_id", "_score"]).limit(self.settings.pool).to_list()
            )
        except (ValueError, RuntimeError):  # a query of nothing but stop words
            rows = []
        return self._remember([(row["clause_id"], float(row["_score"])) for row in rows])


class VectorArm(_Arm):
    name = VECTOR

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


class PartsArm(_Arm):
    """Clauses by their nearness to the nearest of the question's asks (`plan.parts`), for a
    question that asks two things: the clause that answers one of them is often far from the
    whole question's vector, which lies between the two answers. The asks are merged by best
    similarity, so a long ask, nearer to every clause, can fill the arm before a short one's
    nearest clause; interleaving the asks by place instead measured no better held out (stop 50:
    multi-hop complete@8k 0.729 -> 0.722), and the ranker reads each ask's own rank anyway."""

    name = PARTS

    def __init__(self, scope: SearchScope, limit: int) -> None:
        super().__init__()
        self.scope, self.limit = scope, limit

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        first, *others = self.scope.part_similarities  # each holds every clause in scope
        best = {clause_id: max([value, *(other[clause_id] for other in others)]) for clause_id, value in first.items()}
        ranked = [item for item in sorted(best.items(), key=lambda item: -item[1]) if self.scope.searchable(item[0])]
        return self._remember(ranked[: self.limit])


class CategoryArm(_Arm):
    """Clauses by the presence model's probability of the question's likely categories."""

    name = CATEGORY

    def __init__(self, scope: SearchScope, limit: int) -> None:
        super().__init__()
        self.scope, self.limit = scope, limit

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        scored = []
        for graph in self.scope.graphs:
            likelihood = self.scope.category_likelihood[graph.doc_id]
            for row in self.scope.category_order[graph.doc_id][: self.limit]:
                clause = graph.clauses[row]
                if self.scope.searchable(clause.clause_id):
                    scored.append((clause.clause_id, float(likelihood[row])))
        return self._remember(sorted(scored, key=lambda item: -item[1])[: self.limit])


class TopicArm(_Arm):
    """Clauses of the types the question is about, nearest first."""

    name = TOPIC

    def __init__(self, candidates: list[tuple[str, float]], limit: int) -> None:
        super().__init__()
        self.candidates, self.limit = candidates, limit

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._remember(sorted(self.candidates, key=lambda item: -item[1])[: self.limit])


def search(store: ClauseStore, scope: SearchScope, arms: tuple[str, ...], settings: RetrievalSettings) -> Ranking:
    """Run the named arms (`keyword`, `vector`, `topic`, `category`) over the scope and fuse their rankings."""
    plan, where = scope.plan, scope.where()
    searched: list[_Arm] = []
    if KEYWORD in arms:
        searched.append(KeywordArm(store, where, plan, settings))
    if VECTOR in arms:
        searched.append(VectorArm(store, where, scope.search_vector, settings.pool))
        if scope.part_similarities:
            searched.append(PartsArm(scope, settings.pool))
    fused = fuse(searched, plan.question, settings.pool * len(searched))
    if TOPIC in arms and plan.topics:
        topical = [
            (c.clause_id, scope.similarity[c.clause_id])
            for g in scope.graphs for c in g.clauses
            if scope.admits(c.clause_id) and is_about(c, plan)
        ]
        if topical:
            topic = TopicArm(topical, settings.pool)
            fused = with_topic(fused, topic.retrieve(plan.question), settings.topic_weight, settings.rrf_k)
            searched.append(topic)
    if CATEGORY in arms and settings.category_weight > 0 and scope.category_likelihood:
        category = CategoryArm(scope, settings.pool)
        fused = with_topic(fused, category.retrieve(plan.question), settings.category_weight, settings.rrf_k)
        searched.append(category)
    return Ranking(fused, {arm.name: arm.ranks for arm in searched})


def fuse(arms: list[_Arm], question: str, limit: int) -> list[NodeWithScore]:
    if not arms:
        return []
    if len(arms) == 1:
        return arms[0].retrieve(question)
    fusion = QueryFusionRetriever(
        arms, llm=MockLLM(), mode=FUSION_MODES.RECIPROCAL_RANK, similarity_top_k=limit, num_queries=1, use_async=False
    )
    return fusion.retrieve(question)


def with_topic(fused: list[NodeWithScore], topical: list[NodeWithScore], weight: float, rrf_k: float) -> list[NodeWithScore]:
    """The clause-type ranking adds a reciprocal-rank share of `weight` to the fused scores."""
    scores = {n.node.node_id: n.score or 0.0 for n in fused}
    nodes = {n.node.node_id: n for n in fused}
    for rank, node in enumerate(topical):
        scores[node.node.node_id] = scores.get(node.node.node_id, 0.0) + weight / (rrf_k + rank)
        nodes.setdefault(node.node.node_id, node)
    ordered = sorted(scores, key=lambda clause_id: -scores[clause_id])
    return [NodeWithScore(node=nodes[clause_id].node, score=scores[clause_id]) for clause_id in ordered]


def is_about(clause: Clause, plan: QueryPlan) -> bool:
    """Whether a clause is of a type the question is about (a table of contents never is)."""
    if clause.kind is ClauseKind.TOC:
        return False
    return clause.clause_type in plan.topics or any(t in plan.topics for t in clause.topics[:2])
