"""Graph-aware hybrid retrieval, as four stages a mode chooses among:

1. search (`arms.py`): keyword and/or vector arms over the scope, fused; the clause-type arm;
2. anchors (`anchors.py`): the fused ranking as candidates, plus the clauses the question names;
3. walk (`walk.py`): 1-3 hops over the clause graph from the strongest anchors;
4. select (`select.py`): the budgeted context, each anchor followed by what it led to.

The scope (`scope.py`) is built first: the hard filters, the question's vector and its
similarity to every clause. Nothing outside the hard filters is searched or walked to.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from llama_index.core import QueryBundle
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, TextNode

from engine.embed import Embedder
from engine.query.anchors import Candidate, inject_named, ranked_anchors
from engine.query.arms import CATEGORY, KEYWORD, TOPIC, VECTOR, search
from engine.query.query_adapter import search_vector
from engine.query.scope import SearchScope
from engine.query.rank import LearnedRanker, learned_ranker
from engine.query.select import select, select_ranked
from engine.query.walk import walk
from engine.settings import RetrievalSettings
from engine.store.clause_store import ClauseStore
from engine.store.graphcache import DocGraph, GraphCache
from models.plan import QueryPlan
from models.retrieval import Mode, Retrieval


@dataclass(frozen=True)
class Stages:
    """What a mode runs: which search arms, whether they search the words the question's meaning
    adds (its likely categories' lexicon) beside the typed ones, and whether named anchors and
    the walk follow."""

    arms: tuple[str, ...]
    meaning_words: bool = True  # off, a search for words no clause has finds nothing
    named_anchors: bool = False
    walk: bool = False


STAGES: dict[Mode, Stages] = {
    Mode.KEYWORD: Stages(arms=(KEYWORD,), meaning_words=False),
    Mode.VECTOR: Stages(arms=(VECTOR,)),
    Mode.HYBRID: Stages(arms=(KEYWORD, VECTOR, TOPIC, CATEGORY)),
    Mode.GRAPH: Stages(arms=(KEYWORD, VECTOR, TOPIC, CATEGORY), named_anchors=True, walk=True),
}


_READ_ONE_BY_ONE = 4  # up to this many contracts, their document rows are read one by one


class Retriever:
    """Runs a QueryPlan against the store and returns passages within a character budget."""

    def __init__(self, store: ClauseStore, embedder: Embedder, cache: GraphCache) -> None:
        self.store = store
        self.embedder = embedder
        self.cache = cache
        self.ranker: LearnedRanker | None = learned_ranker()  # a benchmark swaps in one trained without its contracts

    def graphs(self, doc_ids: list[str]) -> list[DocGraph]:
        if len(doc_ids) <= _READ_ONE_BY_ONE:  # a clause's contract: one row, not the whole documents table
            found = [self.store.document(doc_id) for doc_id in doc_ids]
            return self.cache.get_many([d for d in found if d is not None])
        documents = {d.doc_id: d for d in self.store.documents()}
        return self.cache.get_many([documents[doc_id] for doc_id in doc_ids if doc_id in documents])

    def retrieve(
        self,
        plan: QueryPlan,
        settings: RetrievalSettings,
        mode: Mode = Mode.GRAPH,
        budget: int | None = None,
        graphs: list[DocGraph] | None = None,
    ) -> Retrieval:
        """`graphs`: the scope's graphs when the caller already has them (the planner needed them too)."""
        started = time.perf_counter()
        budget = budget or settings.budget
        if not STAGES[mode].meaning_words:
            plan = plan.literal()
        graphs = graphs if graphs is not None else self.graphs(plan.scope)
        if not graphs:
            return Retrieval(plan=plan, mode=mode, passages=[], budget=budget, seconds=time.perf_counter() - started)
        timings: dict[str, float] = {}
        found = self.candidates(plan, settings, mode, graphs, timings)
        ranker = self.ranker if settings.ranking == "learned" and mode is Mode.GRAPH else None
        if ranker is not None:
            passages = select_ranked(ranker.score(found.anchors, found.followers, found.scope, plan), found.vector, plan, budget, settings)
        else:
            passages = select(found.anchors, found.followers, found.vector, plan, budget, settings)
        seconds = time.perf_counter() - started
        timings["total"] = seconds
        considered = list(found.anchors) + [c.clause.clause_id for c in found.followers if c.clause.clause_id not in found.anchors]
        return Retrieval(
            plan=plan, mode=mode, passages=passages, budget=budget, seconds=seconds, timings=timings, considered=considered
        )

    def question_vectors(self, plan: QueryPlan, settings: RetrievalSettings) -> tuple[np.ndarray, np.ndarray]:
        """The question's vector as read (what the walk, the ranking and the abstain decision
        compare clauses with), and the one the vector arm searches with (moved by the query
        adapter as far as `settings` and the question model allow)."""
        plain = self.embedder.encode_question(plan.read_as or plan.question)
        return plain, search_vector(plain, plan, settings.query_adapter)

    def candidates(
        self, plan: QueryPlan, settings: RetrievalSettings, mode: Mode, graphs: list[DocGraph], timings: dict[str, float] | None = None
    ) -> Candidates:
        """Stages 1-3: the question's vector and scope, the anchors, and what the walk reached."""
        timings = timings if timings is not None else {}
        started = time.perf_counter()
        stages = STAGES[mode]
        plain, adapted = self.question_vectors(plan, settings)
        # each ask's vector, for the parts arm and the ranker, which only modes with a vector arm run
        parts = [self.embedder.encode_question(part) for part in plan.parts] if VECTOR in stages.arms else []
        timings["embed"] = time.perf_counter() - started
        scope = SearchScope.of(plan, graphs, plain, adapted, parts)

        searched = time.perf_counter()
        anchors = ranked_anchors(search(self.store, scope, stages.arms, settings), scope)
        timings["search"] = time.perf_counter() - searched

        walked = time.perf_counter()
        if stages.named_anchors:
            inject_named(scope, anchors)
        followers: list[Candidate] = walk(anchors, scope, settings) if stages.walk else []
        timings["walk"] = time.perf_counter() - walked
        return Candidates(scope.vector, scope, anchors, followers)


@dataclass
class Candidates:
    vector: np.ndarray
    scope: SearchScope
    anchors: dict[str, Candidate]
    followers: list[Candidate]


class ClauseGraphRetriever(BaseRetriever):
    """The retriever as a LlamaIndex BaseRetriever: a query string in, passages as nodes out."""

    def __init__(self, retriever: Retriever, planner, scope: list[str], settings: RetrievalSettings, mode: Mode = Mode.GRAPH, filters=None) -> None:
        super().__init__()
        self._retriever, self._planner, self._scope, self._mode, self._filters = retriever, planner, scope, mode, filters
        self._settings = settings
        self.last: Retrieval | None = None

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        graphs = self._retriever.graphs(self._scope)
        plan = self._planner(query_bundle.query_str, graphs, self._filters)
        self.last = self._retriever.retrieve(plan, self._settings, self._mode, graphs=graphs)
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
