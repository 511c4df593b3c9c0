"""A learned ranking of every candidate clause (issue 17): the anchors the search found and
what the graph walk reached from them, scored by one model instead of a hand-set formula.

The walk's formula and the follower tiers were set by hand on 40 questions and did not carry
over to unseen contracts: most missed evidence was reached by the walk and then ranked out.
Here each candidate is described by what is known about it whatever the question's words (its
rank in each search arm, its similarity to the question, the edge path that reached it, how
far it lies from the anchor, the anchor's own strength, its clause type against the plan, its
length and place, and how far its similarity and category score lie below the best
candidate's) and a logistic regression trained on dev questions' evidence
(`bench/train_ranker.py`, cross-validated by contract) gives the probability that it holds
evidence. The context is then filled by each passage's odds of holding evidence per character
it costs (engine/query/reading.py), so a short definition a long likely clause would push past
the budget comes first. A ranker of shallow boosted trees can be read too, for measuring:
trees ranked cuad_dev and the multi-hop questions a little better held out by contract, but
ContractNLI's NDAs, a kind of contract none was trained on, far worse (recall@4k 0.912 ->
0.861), so the logistic regression ships. Measured again over 914 questions
(stop 55): held out by contract, trees lift multi-hop complete@8k 0.664 -> 0.690 (worst fold
0.603 -> 0.682), but the CUAD phrasings of 20 contracts neither ranker read lose recall@4k
0.886 -> 0.869 (worst style, scenario, 0.816 -> 0.804) and ContractNLI 0.986 -> 0.969: the trees
learn cuad_dev's own wording, and answers in anyone's words come first.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from engine.boosted_trees import BoostedTrees
from engine.logistic import StandardisedLogistic
from engine.query.anchors import Candidate
from engine.query.scope import SearchScope
from engine.text.matching import stems
from models.clause import ClauseKind
from models.edge import EdgeType
from models.plan import QueryPlan

log = logging.getLogger(__name__)

MODEL_FILE = Path(__file__).with_name("ranker.npz")
SUPPORT = "support_"  # the prefix of the support reading's arrays in the ranker file (`LearnedRanker`)
THIN_CHARS = 300  # a clause this short with parts of its own is little more than their heading
_ABSENT_RANK = 200  # a clause an arm did not return ranks as if far down its list
_EDGES = [("REFERENCES", "out"), ("REFERENCES", "in"), ("DEFINES", "out"), ("DEFINES", "in"), ("PARENT_OF", "out"), ("PARENT_OF", "in")]

FEATURES = [
    "anchor", "named", "log_rank", "fused_score", "similarity", "similarity_rank",
    "keyword_rank", "vector_rank", "topic_rank", "in_keyword", "in_vector",
    "walked", "hops", "walk_score", "origin_rank", "origin_score",
    *[f"edge_{edge.lower()}_{direction}" for edge, direction in _EDGES],
    "label_named", "term_weight", "topic_match", "definition", "thin", "log_chars", "position", "word_coverage", "lexicon_coverage",
    "category_score", "category_rank", "similarity_gap", "category_gap", "part_similarity", "part_similarity_rank",
]
#: How the question's meaning and the clause's meet, which none of the above reads: the
#: elementwise product of the question's vector and the clause's (a diagonal bilinear form),
#: along the directions in which those products vary most over the training candidates (the
#: ranker file's `interaction_basis`, `interaction_basis()`). A cosine weighs every dimension
#: alike; these let the model learn which shared meanings mark evidence. Held out by contract
#: (bench/train_ranker.py, 914 questions, stop 58): multi-hop complete@8k 0.664 -> 0.679 with 8
#: directions (4: 0.667, 16: 0.682, 24: 0.673, 32: 0.664), 3 hops 0.546 -> 0.563, definition
#: 0.711 -> 0.719, worst fold 0.603 -> 0.638, cuad_dev recall@4k 0.884 -> 0.885; 2,300
#: training-only phrasings in other wording, never trained on, recall@4k 0.840 -> 0.841 (worst
#: style, scenario, 0.785 -> 0.787).
INTERACTION_DIMENSIONS = 8
INTERACTIONS = [f"interaction_{k}" for k in range(INTERACTION_DIMENSIONS)]
#: what the ranking model reads: each candidate's features, then the interactions
RANKED_FEATURES = [*FEATURES, *INTERACTIONS]
#: the second reading's features (`LearnedRanker`): the first's, and the first reading's
#: probability for the likeliest candidate that needs this one (`needed_by`)
LINKED_FEATURES = [*RANKED_FEATURES, "needed_by_probability"]
#: features also given as the distance to the question's best candidate: a pointwise model sees
#: each candidate alone, and a new wording moves every candidate's similarity and category score
#: together (a scenario's best clause may have a similarity a cuad_dev question's worst has)
_GAPS = {"similarity_gap": "similarity", "category_gap": "category_score"}
# Features of how a definition's term meets the question (the cosine of the question with the
# term's name by the static model, the same with its nearest ask, each also as the gap to the
# best defining candidate, the share of the name's words the question uses, and in the second
# pass the needer's probability times that cosine) were built in and measured with presence and
# question fold models (stop 61): multi-hop complete@8k 0.667 -> 0.673 with 5 contract folds
# (worst fold 0.621 -> 0.651), 0.670 -> 0.670 with 10 (definition 0.703 -> 0.734, definition +
# cross-reference 0.507 -> 0.467), cuad_dev recall@4k 0.885 -> 0.886 (5) and 0.884 -> 0.886 (10).
# No gain; not shipped.


def candidate_features(anchors: dict[str, Candidate], followers: list[Candidate], scope: SearchScope, plan: QueryPlan) -> tuple[list[Candidate], np.ndarray]:
    """Each distinct candidate clause (an anchor first when it is both) and its feature row."""
    walked = {f.clause.clause_id: f for f in followers}
    order_scores = {a.order: a.score for a in anchors.values()}
    ranked_similarity = sorted(scope.similarity.values(), reverse=True)
    nearest_part = _nearest_part(scope)
    keyword_stems = stems(" ".join(plan.keywords))
    lexicon_stems = stems(" ".join(plan.expansions))
    topics = set(plan.topics)
    by_category = _category_standing(scope)
    candidates = [_as_found(anchor, walked.get(clause_id)) for clause_id, anchor in anchors.items()]
    candidates += [f for f in followers if f.clause.clause_id not in anchors]
    rows = []
    for candidate in candidates:
        clause_id = candidate.clause.clause_id
        anchor = anchors.get(clause_id)
        follower = walked.get(clause_id)
        clause, graph = candidate.clause, candidate.graph
        similarity = scope.similarity.get(clause_id, 0.0)
        arms = anchor.why.arms if anchor else {}
        clause_stems = graph.clause_stems.get(clause_id, set())
        origin = follower.order if follower else 0
        row = {
            "anchor": float(anchor is not None),
            "named": float(anchor is not None and anchor.why.kind == "named"),
            "log_rank": math.log1p(max(anchor.order, 0)) if anchor else math.log1p(_ABSENT_RANK),
            "fused_score": anchor.score if anchor else 0.0,
            "similarity": similarity,
            "similarity_rank": math.log1p(_rank_of(similarity, ranked_similarity)),
            "keyword_rank": math.log1p(arms.get("keyword", _ABSENT_RANK)),
            "vector_rank": math.log1p(arms.get("vector", _ABSENT_RANK)),
            "topic_rank": math.log1p(arms.get("topic", _ABSENT_RANK)),
            "in_keyword": float("keyword" in arms),
            "in_vector": float("vector" in arms),
            "walked": float(follower is not None),
            "hops": float(follower.why.hops) if follower else 0.0,
            "walk_score": follower.score if follower else 0.0,
            "origin_rank": math.log1p(max(origin, 0)) if follower else math.log1p(_ABSENT_RANK),
            "origin_score": order_scores.get(origin, 0.0) if follower else 0.0,
            "label_named": float(bool(follower and follower.why.label and follower.why.label.lower() in plan.question.lower())),
            "term_weight": graph.term_weight(follower.why.label) if follower and follower.why.edge == "DEFINES" else 0.0,
            "topic_match": float(bool(topics & ({clause.clause_type} | set(clause.topics)))),
            "definition": float(clause.kind is ClauseKind.DEFINITION),
            "thin": float(bool(parts_under_heading(candidate))),
            "log_chars": math.log1p(len(clause.text)),
            "position": clause.order / max(len(graph.clauses), 1),
            "word_coverage": len(keyword_stems & clause_stems) / len(keyword_stems) if keyword_stems else 0.0,
            "lexicon_coverage": len(lexicon_stems & clause_stems) / len(lexicon_stems) if lexicon_stems else 0.0,
        }
        row["category_score"], row["category_rank"] = by_category.get(clause_id, (0.0, math.log1p(_ABSENT_RANK)))
        own = (row["similarity"], row["similarity_rank"])  # a question that asks one thing has the whole question's own
        row["part_similarity"], row["part_similarity_rank"] = nearest_part(clause_id) if scope.part_similarities else own
        for edge, direction in _EDGES:
            row[f"edge_{edge.lower()}_{direction}"] = float(bool(follower and (follower.why.edge, follower.why.direction) == (edge, direction)))
        rows.append(row)
    for gap, name in _GAPS.items():
        best = max((row[name] for row in rows), default=0.0)
        for row in rows:
            row[gap] = row[name] - best
    matrix = [[row[name] for name in FEATURES] for row in rows]
    return candidates, np.asarray(matrix, dtype=np.float64).reshape(len(rows), len(FEATURES))


def question_products(vector: np.ndarray, candidates: list[Candidate]) -> np.ndarray:
    """Each candidate clause's vector times the question's, dimension by dimension (rows in
    `candidates` order)."""
    if not candidates:
        return np.zeros((0, len(vector)))
    clauses = np.stack([c.graph.vectors[c.graph.row[c.clause.clause_id]] for c in candidates])
    return clauses.astype(np.float64) * np.asarray(vector, dtype=np.float64)


def interaction_basis(products: np.ndarray, dimensions: int = INTERACTION_DIMENSIONS) -> np.ndarray:
    """The `dimensions` directions (columns) along which question x clause products vary most:
    their principal axes, found without labels, so the few weights learnt on them stay few."""
    centred = products - products.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    return axes[:dimensions].T


def with_interactions(matrix: np.ndarray, products: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """The ranking model's rows (`RANKED_FEATURES`): the candidates' features and their products
    along the basis."""
    return np.column_stack([matrix, products @ basis])


def needed_by(candidates: list[Candidate]) -> list[list[int]]:
    """For each candidate, the places of the other candidates that need it to be read: those
    using the term it defines, citing it, holding it as a part, or being one of its parts.
    Whichever path the walk reached it by, these say which candidates its worth depends on."""
    place = {c.clause.clause_id: k for k, c in enumerate(candidates)}
    to_needers = {EdgeType.DEFINES, EdgeType.PARENT_OF}  # edges out of it: to the clauses using its term, to its parts
    from_needers = {EdgeType.REFERENCES, EdgeType.PARENT_OF}  # edges into it: from the clauses citing it, from its parent
    result = []
    for k, candidate in enumerate(candidates):
        graph, clause_id = candidate.graph, candidate.clause.clause_id
        linked = [e.dst for e in graph.out_edges.get(clause_id, []) if e.type in to_needers]
        linked += [e.src for e in graph.in_edges.get(clause_id, []) if e.type in from_needers]
        result.append(sorted({place[i] for i in linked if i in place and place[i] != k}))
    return result


def needed_by_probability(needers: list[list[int]], probabilities: np.ndarray) -> np.ndarray:
    """Each candidate's likeliest needer's probability (0 when nothing among them needs it)."""
    return np.array([max((float(probabilities[j]) for j in js), default=0.0) for js in needers])


def linked_rows(matrix: np.ndarray, needers: list[list[int]], first_pass: np.ndarray) -> np.ndarray:
    """The second pass's rows (`LINKED_FEATURES`): each candidate's features and the first
    pass's probability for its likeliest needer; the engine and bench/train_ranker.py build them alike."""
    return np.column_stack([matrix, needed_by_probability(needers, first_pass)])


def _nearest_part(scope: SearchScope) -> Callable[[str], tuple[float, float]]:
    """Clause id -> its best cosine with one of the question's parts, and its best log rank by
    one of them: the term clause is near "how long does it run" though far from the whole
    question that also asks about disputes."""
    parts = [(similarity, sorted(similarity.values(), reverse=True)) for similarity in scope.part_similarities]

    def nearest(clause_id: str) -> tuple[float, float]:
        values = [similarity.get(clause_id, 0.0) for similarity, _ in parts]
        ranks = [_rank_of(value, ranked) for value, (_, ranked) in zip(values, parts)]
        return max(values), math.log1p(min(ranks))

    return nearest


def _category_standing(scope: SearchScope) -> dict[str, tuple[float, float]]:
    """Clause id -> how likely the presence model finds it of the question's guessed categories,
    and its log rank by that within its contract: what the words of a question worded far from
    the contract's cannot say."""
    standing = {}
    for graph in scope.graphs:
        likelihood = scope.category_likelihood.get(graph.doc_id)
        if likelihood is None:  # no guessed category has a presence column
            continue
        ranks = np.empty(len(likelihood), dtype=np.int64)
        ranks[scope.category_order[graph.doc_id]] = np.arange(1, len(likelihood) + 1)
        for clause, score, rank in zip(graph.clauses, likelihood.tolist(), ranks.tolist()):
            standing[clause.clause_id] = (score, math.log1p(rank))
    return standing


def _as_found(anchor: Candidate, follower: Candidate | None) -> Candidate:
    """A search hit the walk also reached from a better anchor is shown as the walk found it:
    "Clause 4.6.2, which 4.6.4 refers to" says how it bears on the answer, and the answer quotes
    it beside that clause."""
    return follower if follower is not None and follower.order < anchor.order else anchor


def parts_under_heading(candidate: Candidate) -> list[str]:
    """The parts of a clause that is little more than their heading (short, with parts); else []."""
    clause, graph = candidate.clause, candidate.graph
    if len(clause.text) >= THIN_CHARS:
        return []
    return graph.parts(clause.clause_id)


def _rank_of(value: float, descending: list[float]) -> int:
    """1-based rank of `value` among `descending` (binary search)."""
    low, high = 0, len(descending)
    while low < high:
        middle = (low + high) // 2
        if descending[middle] > value:
            low = middle + 1
        else:
            high = middle
    return low + 1


@dataclass
class Scored:
    """Each distinct candidate with the lead reading's probability of holding evidence and, when
    the ranker has one, the support reading's (`reading_order`)."""

    candidates: list[Candidate]
    probabilities: np.ndarray
    support: np.ndarray | None = None


class LearnedRanker:
    """The ranking model as `bench/train_ranker.py` saved it: boosted trees (a file with a
    `roots` array), or a logistic regression over standardised features, read in two passes
    when the file holds a second one (`linked_` arrays).

    The second pass reads each candidate with the first pass's probability for the likeliest
    candidate that needs it (`needed_by`). A definition is worth reading when the clause that
    uses its term is likely evidence, whichever anchor the walk reached it from; the first
    pass only knows the anchor's search rank. Held out by contract (stop 51), multi-hop
    complete@8k 0.729 -> 0.750, worst contract fold 0.579 -> 0.632.

    A file may hold a support reading too (arrays under `support_`): the same two passes fitted
    with the multi-hop questions weighing more, which orders the context past its first
    characters (`reading_order`)."""

    def __init__(self, path: Path = MODEL_FILE) -> None:
        stored = np.load(path, allow_pickle=False)
        self.trees = BoostedTrees.from_stored(stored) if "roots" in stored.files else None
        self.logistic = StandardisedLogistic.from_stored(stored) if self.trees is None else None
        self.linked = StandardisedLogistic.from_stored(stored, prefix="linked_") if "linked_features" in stored.files else None
        self.support = (
            (StandardisedLogistic.from_stored(stored, prefix=SUPPORT), StandardisedLogistic.from_stored(stored, prefix=f"{SUPPORT}linked_"))
            if f"{SUPPORT}features" in stored.files else None
        )
        # a file from before the interactions ranks without them (a benchmark's held-out ranker)
        self.basis = stored["interaction_basis"] if "interaction_basis" in stored.files else None
        read = RANKED_FEATURES if self.basis is not None else FEATURES
        names = self.trees.names if self.trees is not None else self.logistic.names
        linked_names = [*read, LINKED_FEATURES[-1]]
        if (
            names != read
            or (self.linked is not None and self.linked.names != linked_names)
            or (self.support is not None and (self.support[0].names != read or self.support[1].names != linked_names))
        ):
            raise ValueError(f"{path} was trained on other features ({len(names)}); retrain with bench/train_ranker.py")

    def probabilities(self, matrix: np.ndarray, needers: list[list[int]], products: np.ndarray | None = None) -> np.ndarray:
        """Each row's probability by the lead reading; `needers` (`needed_by` of the rows'
        candidates) feeds the second pass, `products` (`question_products`) the interactions
        when the model reads them."""
        return self._read(matrix, needers, products)[0]

    def _read(self, matrix: np.ndarray, needers: list[list[int]], products: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
        """The lead reading's probabilities and the support reading's (None without one)."""
        if not len(matrix):
            return np.zeros(0), (np.zeros(0) if self.support is not None else None)
        if self.basis is not None:
            if products is None:
                raise ValueError("this ranker reads the question x clause products: pass question_products(...)")
            matrix = with_interactions(matrix, products, self.basis)
        first = self.trees.log_odds_rows(matrix) if self.trees is not None else self.logistic.log_odds(matrix)
        lead = _probabilities(first, self.linked, matrix, needers)
        if self.support is None:
            return lead, None
        support_first, support_linked = self.support
        return lead, _probabilities(support_first.log_odds(matrix), support_linked, matrix, needers)

    def score(self, anchors: dict[str, Candidate], followers: list[Candidate], scope: SearchScope, plan: QueryPlan) -> Scored:
        """Each distinct candidate and its probabilities of holding evidence."""
        candidates, matrix = candidate_features(anchors, followers, scope, plan)
        products = question_products(scope.vector, candidates) if self.basis is not None else None
        return Scored(candidates, *self._read(matrix, needed_by(candidates), products))


def _probabilities(first: np.ndarray, linked: StandardisedLogistic | None, matrix: np.ndarray, needers: list[list[int]]) -> np.ndarray:
    """A reading's probabilities from its first pass's log-odds: its second pass's, which also
    reads the first's probability for each row's likeliest needer, when it has one."""
    logits = linked.log_odds(linked_rows(matrix, needers, _sigmoid(first))) if linked is not None else first
    return _sigmoid(logits)


def _sigmoid(logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(logits, -30.0, 30.0)))


@cache
def learned_ranker() -> LearnedRanker | None:
    """The shipped ranker, or None when no model file is present or it was trained on other
    features than this code computes (the formula ranks then, and the log says why)."""
    if not MODEL_FILE.is_file():
        return None
    try:
        return LearnedRanker()
    except ValueError as error:
        log.warning("ranking by the formula: %s", error)
        return None
