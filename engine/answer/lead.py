"""Which sentence is quoted first: a small model learnt from where lawyers' answer spans lie.

The rules of extractive.py choose a first quote from the retriever's order, the question
model's category and the question's words. They were written for questions that use the
contract's words; asked as a situation ("we want to sell the product line; do they have to
agree?") or as two keywords, the rules often quote the sentence beside the answer instead of
the one that states it. This model weighs, for each sentence of the top passages: the passage's
rank and ranking probability, how much of the question's words it says, how likely the presence
model holds it of the categories the question is about, how close its meaning is to the
question's (MiniLM's question vector against the sentence's static vector), and whether the
rules chose it. A logistic regression, trained by `bench/train_lead_model.py` on phrasings
never used to evaluate and cross-validated by wording style and by contract. It decides only
where the rules found no sentence of the question's category (`pick`); without its file the
rules choose alone.
"""

from __future__ import annotations

import logging
import math
from functools import cache
from pathlib import Path

import numpy as np

from engine.answer.evidence import Evidence, Sentence
from engine.logistic import StandardisedLogistic
from engine.text.matching import stems

log = logging.getLogger(__name__)

MODEL_FILE = Path(__file__).with_name("lead_model.npz")
CANDIDATE_RANKS = 8  # the first quote comes from the passages ranked this high (more held no gold in the training runs)

#: what each candidate sentence is described by, in the model file's order
OWN_FEATURES = [
    "rank", "log_rank", "relative_probability", "probability", "coverage", "own_coverage", "score",
    "category_probability", "category_score", "category_evidence", "of_category", "categories_mix",
    "any_category", "graph", "first_in_clause", "log_words", "likeness",
]
#: ... and, for these, the gap to the best candidate of the same question (0 for the best)
RELATIVE_FEATURES = ["coverage", "own_coverage", "category_score", "categories_mix", "any_category", "relative_probability", "category_evidence", "likeness"]
FEATURES = OWN_FEATURES + [f"{name}_gap" for name in RELATIVE_FEATURES] + ["rules_choice"]
RULES_COLUMN, OF_CATEGORY_COLUMN = FEATURES.index("rules_choice"), FEATURES.index("of_category")


def lead_candidates(candidates: list[Sentence]) -> list[Sentence]:
    """The sentences a first quote may be: those of the top passages, in rank then text order."""
    return sorted((s for s in candidates if s.rank < CANDIDATE_RANKS), key=lambda s: (s.rank, s.start))


def lead_features(evidence: Evidence, candidates: list[Sentence], rules_choice: Sentence | None) -> np.ndarray:
    """One row of FEATURES per candidate (from `lead_candidates`)."""
    guesses = evidence.retrieval.plan.categories
    top_category, top_probability = (guesses[0].category, guesses[0].probability) if guesses else (None, 0.0)
    best_probability = max((p.score for p in evidence.retrieval.passages), default=1.0) or 1.0
    likeness = evidence.likeness([s.text for s in candidates])
    seen_clauses: set[str] = set()
    rows = []
    own_words = evidence.own_words
    for sentence, like in zip(candidates, likeness):
        own_coverage = own_words.coverage(stems(sentence.text))
        category_score = (evidence.category_score(sentence, top_category) or 0.0) if top_category else 0.0
        mix = sum(g.probability * (evidence.category_score(sentence, g.category) or 0.0) for g in guesses)
        own = {
            "rank": sentence.rank,
            "log_rank": math.log1p(sentence.rank),
            "relative_probability": sentence.passage.score / best_probability,
            "probability": sentence.passage.score,
            "coverage": sentence.coverage,
            "own_coverage": own_coverage,
            "score": sentence.score,
            "category_probability": top_probability,
            "category_score": category_score,
            "category_evidence": top_probability * category_score,
            "of_category": float(top_category is not None and evidence.reaches_threshold(top_category, category_score)),
            "categories_mix": mix,
            "any_category": evidence.best_category_score(sentence),
            "graph": float(sentence.passage.why.kind == "graph"),
            "first_in_clause": float(sentence.passage.clause_id not in seen_clauses),
            "log_words": math.log(max(len(sentence.text.split()), 1)),
            "likeness": float(like),
        }
        seen_clauses.add(sentence.passage.clause_id)
        rows.append(own)
    matrix = np.array([[row[name] for name in OWN_FEATURES] for row in rows], dtype=float).reshape(len(rows), len(OWN_FEATURES))
    relative = np.array([[row[name] for name in RELATIVE_FEATURES] for row in rows], dtype=float).reshape(len(rows), len(RELATIVE_FEATURES))
    if len(rows):
        relative -= relative.max(axis=0)
    chosen = np.array([[float(s is rules_choice)] for s in candidates]).reshape(len(rows), 1)
    return np.hstack([matrix, relative, chosen])


class LeadModel:
    """The logistic regression as `bench/train_lead_model.py` saved it (standardised features)."""

    def __init__(self, path: Path = MODEL_FILE) -> None:
        self.logistic = StandardisedLogistic.from_stored(np.load(path, allow_pickle=False))
        if self.logistic.names != FEATURES:
            raise ValueError(f"{path} was trained on other features ({len(self.logistic.names)}); retrain with bench/train_lead_model.py")

    def log_odds(self, matrix: np.ndarray) -> np.ndarray:
        return self.logistic.log_odds(matrix)

    def choose(self, evidence: Evidence, candidates: list[Sentence], rules_choice: Sentence | None) -> Sentence | None:
        """The sentence to quote first (`rules_choice` when there is no candidate)."""
        ranked = lead_candidates(candidates)
        if not ranked:
            return rules_choice
        matrix = lead_features(evidence, ranked, rules_choice)
        return ranked[pick(self.log_odds(matrix), matrix)]


def pick(log_odds: np.ndarray, matrix: np.ndarray) -> int:
    """Which candidate (rows of `lead_features`) is quoted first: the rules' choice when it is a
    sentence of the category the question is about, else the one the model finds likeliest on
    the answer span. Among sentences of the category the rules choose by the question's own
    words, which the model weighs poorly: "the liability cap" is the clause capping liability,
    though lawyers label the exclusion of lost profits beside it the same. Cross-validated, the
    guard leaves the figures as they were (CUAD phrasings 0.667 -> 0.665, ContractNLI 0.810 ->
    0.819, multi-hop 0.521 -> 0.510) and lifts the worst style (0.544 -> 0.559)."""
    rules = matrix[:, RULES_COLUMN]
    if rules.any() and matrix[int(np.argmax(rules)), OF_CATEGORY_COLUMN] > 0:
        return int(np.argmax(rules))
    return int(np.argmax(log_odds))


@cache
def lead_model() -> LeadModel | None:
    """The shipped model, or None when its file is absent or was trained on other features
    (the rules choose the first quote then, and the log says why)."""
    if not MODEL_FILE.is_file():
        return None
    try:
        return LeadModel()
    except ValueError as error:
        log.warning("first quotes chosen by the rules: %s", error)
        return None
