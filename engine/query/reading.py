"""The context's reading order: which candidate passages a question's context holds, and in what
order, once the ranker (engine/query/rank.py) has given each its probability of holding
evidence. The context is cut by characters, so passages are read by their odds per character
(`reading_priority`), with the placements the question or the layout asks for (`in_order`), and
past its first characters by a second reading fitted for what multi-hop answers need
(`reading_order`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.query.anchors import Candidate
from engine.query.rank import parts_under_heading
from models.clause import ClauseKind

#: a passage's cost in `reading_priority` is its length plus this many characters, so a bare
#: heading does not lead on shortness alone (100, 200 and 400 measured alike held out)
LENGTH_ALLOWANCE = 200
# Length counted twice (log-odds less 2 log length), chosen in every fold of a cross-validation
# nested in train_ranker's contract folds, lifted multi-hop complete@8k 0.667 -> 0.701 with
# cuad_dev unchanged, but held out by wording the CUAD phrasings lost recall@8k 0.915 -> 0.898
# (scenario recall@4k 0.752 -> 0.697): a new wording's probabilities are less sure, and length
# then decides. Not shipped (stop 44).
# Nor a reading order with diversity (maximal marginal relevance: each next passage's reading
# priority less a weight times its best cosine with a passage already placed): multi-hop
# complete@8k 0.667 -> 0.682 with 5 folds (weights 0.5, 1, 2), but 0.670 -> 0.670-0.673 with 10
# (0.25, 0.5, 1), its worst fold 0.594 -> 0.562 (stop 61). Not shipped.


@dataclass
class Ranked:
    candidate: Candidate
    probability: float


def reading_priority(probabilities: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Each passage's odds of holding evidence per character it costs, as log-odds less log
    length. The context is cut by characters: a 300-character definition at even odds is worth
    more of the budget than a 3,000-character clause at 0.7, and filling by likelihood alone
    put the definitions and cited sections a multi-hop answer needs past the budget (held out
    by contract, bench/train_ranker.py: multi-hop complete@8k 0.615 -> 0.698, cuad_dev
    recall@4k 0.880 -> 0.887)."""
    p = np.clip(np.asarray(probabilities, dtype=float), 1e-9, 1 - 1e-9)
    return np.log(p) - np.log1p(-p) - np.log(np.asarray(lengths, dtype=float) + LENGTH_ALLOWANCE)


def in_order(candidates: list[Candidate], probabilities: np.ndarray, lengths: np.ndarray | None = None) -> list[Ranked]:
    """Most likely first, or with `lengths` (each passage's normalised characters) most likely
    per character first (`reading_priority`), with three placements the question or the layout
    asks for: the sections the question names lead, each followed by its parts in reading
    order; the definitions of terms it uses follow the best candidate; a clause that is only a
    heading over its parts goes right before the first of them (its words are theirs)."""
    # empty unless a bare heading; a preamble is not one: its parts are the parties, and its own
    # words (the agreement's title and date) are what a date or title question needs first
    parts = {c.clause.clause_id: set(parts_under_heading(c)) if c.clause.kind is not ClauseKind.PREAMBLE else set() for c in candidates}
    priority = np.asarray(probabilities, dtype=float) if lengths is None else reading_priority(probabilities, lengths)
    ranked = [Ranked(candidates[i], float(probabilities[i])) for i in sorted(range(len(candidates)), key=lambda i: -priority[i])]
    sections = sorted((r for r in ranked if r.candidate.why.kind == "named" and r.candidate.order < 0), key=lambda r: r.candidate.order)
    terms = [r for r in ranked if r.candidate.why.kind == "named" and r.candidate.order >= 0]
    rest = [r for r in ranked if r.candidate.why.kind != "named"]
    ordered = sections + rest[:1] + terms + rest[1:]
    placed: set[str] = set()
    for section in sections:
        own = parts[section.candidate.clause.clause_id]
        placed |= own
        moving = sorted((r for r in ordered if r.candidate.clause.clause_id in own), key=lambda r: r.candidate.clause.order)
        ordered = [r for r in ordered if r.candidate.clause.clause_id not in own]
        at = ordered.index(section) + 1
        ordered[at:at] = moving
    headings = [r for r in ordered if r.candidate.why.kind != "named" and r.candidate.clause.clause_id not in placed]
    for heading in (r for r in headings if parts[r.candidate.clause.clause_id]):
        own = parts[heading.candidate.clause.clause_id]
        first = next((r for r in ordered if r.candidate.clause.clause_id in own), None)
        if first is not None and ordered.index(first) > ordered.index(heading):
            ordered.remove(heading)
            ordered.insert(ordered.index(first), heading)
    return ordered


def reading_order(
    candidates: list[Candidate], probabilities: np.ndarray, lengths: np.ndarray, support: np.ndarray | None = None, lead_chars: int = 0
) -> list[Ranked]:
    """The context's reading order: the lead reading's (`in_order` by likelihood per character)
    for its first `lead_chars` characters, then the support reading's for the rest (a passage
    placed once is not read again). Each keeps the lead reading's probability, which is what
    the answerer weighs. Without a support reading, the lead's order throughout.

    One reading cannot serve both kinds of question: fitted to weigh the multi-hop questions
    more, it gains their completeness and loses recall on single-clause questions in other
    wording (stop 62, held out by contract: the CUAD phrasings' scenario style 0.776 -> 0.752 at
    twice the weight). Read so, the first characters are the lead's, unchanged, and what follows
    is ranked for the definitions and cited clauses an answer needs (`LearnedRanker`,
    bench/train_ranker.py's SUPPORT_EMPHASIS): multi-hop complete@8k 0.667 -> 0.699 with 5
    contract folds and 0.670 -> 0.705 with 10, recall@4k unchanged in every wording, cuad_dev
    recall@8k 0.947 -> 0.939."""
    lead = in_order(candidates, probabilities, lengths)
    if support is None:
        return lead
    index = {id(c): i for i, c in enumerate(candidates)}
    chosen: list[Ranked] = []
    spent = 0
    for ranked in lead:
        if spent >= lead_chars:
            break
        chosen.append(ranked)
        spent += lengths[index[id(ranked.candidate)]]
    placed = {id(r.candidate) for r in chosen}
    rest = (r.candidate for r in in_order(candidates, support, lengths) if id(r.candidate) not in placed)
    return chosen + [Ranked(c, float(probabilities[index[id(c)]])) for c in rest]
