"""Stage 4, budgeted selection: the context, cut by characters, anchor by anchor, each anchor
followed by the best clauses it led to.

What an anchor leads to (its definitions, the sections it cites, its parts) goes right after
it, up to a few per anchor and up to the graph share of the budget, so a strong anchor's
evidence is never pushed out by weaker anchors. A long clause is cut to its best window.
"""

from __future__ import annotations

import numpy as np

from engine.query.anchors import Candidate
from engine.query.rank import Scored
from engine.query.reading import in_order, reading_order
from engine.settings import RetrievalSettings
from engine.text.normalise import normalise
from models.plan import QueryPlan
from models.retrieval import Passage

_KEYWORD_MIN_CHARS = 3  # shorter question words say too little to pick a window by
_KEYWORD_HITS_CAP = 3  # a word repeated in a window counts at most this often
_EXPANSION_FACTOR = 0.5  # a synonym counts half as much as the question's own word in choosing a window


def select(
    anchors: dict[str, Candidate], followers: list[Candidate], vector: np.ndarray, plan: QueryPlan, budget: int, settings: RetrievalSettings
) -> list[Passage]:
    """The passages, in context order, until `budget` normalised characters are spent."""
    s = settings
    ranked_anchors = sorted(anchors.values(), key=lambda c: (c.order, -c.score))
    led_to: dict[int, list[Candidate]] = {}
    for follower in sorted(followers, key=lambda c: (c.tier, -c.score)):
        led_to.setdefault(follower.order, []).append(follower)
    graph_budget = budget * s.graph_share
    passages: list[Passage] = []
    placed: set[str] = set()
    spent = spent_graph = 0

    def add(candidate: Candidate) -> int:
        clause_id = candidate.clause.clause_id
        if clause_id in placed:
            return 0
        passage = to_passage(candidate, vector, plan, s)
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


def select_ranked(scored: Scored, vector: np.ndarray, plan: QueryPlan, budget: int, settings: RetrievalSettings) -> list[Passage]:
    """The passages in the learned ranking's reading order (`reading.reading_order`: the lead
    reading's by likelihood per character for the first `settings.lead_chars`, then the support
    reading's) until `budget` normalised characters are spent, each scored by the lead reading's
    probability and ranked (`Passage.rank`) as `in_order` places it by likelihood alone, the
    sections and terms the question names first: what the answerer reads as likeliest."""
    candidates, probabilities = scored.candidates, scored.probabilities
    passages = [to_passage(c, vector, plan, settings) for c in candidates]
    lengths = np.array([len(normalise(p.text)) + 1 for p in passages])
    index = {id(c): i for i, c in enumerate(candidates)}
    belief = {index[id(r.candidate)]: place for place, r in enumerate(in_order(candidates, probabilities))}
    chosen: list[Passage] = []
    spent = 0
    for item in reading_order(candidates, probabilities, lengths, scored.support, settings.lead_chars):
        if spent >= budget:
            break
        i = index[id(item.candidate)]
        chosen.append(passages[i].model_copy(update={"score": round(item.probability, 4), "rank": belief[i]}))
        spent += lengths[i]
    return chosen


def to_passage(candidate: Candidate, vector: np.ndarray, plan: QueryPlan, settings: RetrievalSettings) -> Passage:
    """A candidate's clause as a passage: whole, or cut to its best run of windows when long."""
    clause, graph = candidate.clause, candidate.graph
    start, end, trimmed = 0, len(clause.text), False
    windows = graph.windows.get(clause.clause_id, [])
    limit = settings.trim_chars if candidate.why.kind != "graph" else settings.follower_chars
    if windows and len(normalise(clause.text)) > limit:
        weights = {k: 1.0 for k in plan.keywords if len(k) > _KEYWORD_MIN_CHARS}
        weights.update({k: _EXPANSION_FACTOR for k in plan.expansions if len(k) > _KEYWORD_MIN_CHARS and k not in weights})

        def window_score(window) -> float:
            stretch = clause.text[window.start : window.end].lower()
            hits = sum(weight * min(stretch.count(word), _KEYWORD_HITS_CAP) for word, weight in weights.items())
            return float(window.vector @ vector) + settings.window_keyword_weight * hits

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
