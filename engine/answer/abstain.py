"""Whether the evidence answers the question: a calibrated decision on retrieval features.

A contract that lacks a clause still yields top-k passages; the question is whether they
say what was asked. The features are cheap facts about the evidence (how much of the
question's rarer words the best sentence and the whole scope contain, how similar the top
clause is, whether a clause of the question's type exists in scope at all, whether the
contract's presence flag says it has the kind of clause asked about). A model over
them, fitted on the phrasing sample and ContractNLI dev by `bench/calibrate_abstain.py`,
turns them into a probability of support; below the threshold the answerer abstains. A
question about an NDA's terms has a threshold of its own (see `threshold`). The model (boosted
trees in a file beside this one, or logistic weights) and its thresholds are settings
(`answer.abstain` of the preset), written by that script.
"""

from __future__ import annotations

from pathlib import Path

from engine.answer.evidence import Evidence, Sentence
from engine.answer.question_words import contract_fact
from engine.boosted_trees import load_trees, sigmoid
from engine.fields.presence import NDA_PREFIX
from engine.settings import AbstainSettings
from engine.text.matching import stem, stems
from models.plan import CategoryGuess

TREES_DIR = Path(__file__).parent  # where `answer.abstain.trees` files are
ALWAYS_STATED = {"title", "parties", "date"}  # facts every contract states; an effective date may be left blank

FEATURES = (
    "best_sentence", "best_clause", "scope_coverage", "top_similarity", "topic_in_scope", "topic_on_top", "keyword_first",
    "contract_fact", "rarest_on_top", "missing_rare", "heading_match", "all_words_on_top",
    "category_probability", "category_found", "category_evidence", "stated_by_meaning", "nda_term", "category_prior",
    "category_stated", "category_in_scope",
)
#: Categories every contract states (its name, its parties, its date), recognised by meaning.
STATED_CATEGORIES = {"Document Name", "Parties", "Agreement Date"}
NDA_KIND = 0.5  # a question whose NDA-term probability reaches this is about an NDA's terms


def support(calibration: AbstainSettings, features: dict[str, float]) -> float:
    """The model's probability that the evidence supports an answer: the boosted trees when the
    settings name them, else the logistic weights."""
    if calibration.trees:
        return load_trees(TREES_DIR / calibration.trees).probability(features)
    return sigmoid(calibration.bias + sum(calibration.weights.get(name, 0.0) * value for name, value in features.items()))


def features(evidence: Evidence) -> dict[str, float]:
    """The decision's inputs, each in [0, 1]."""
    retrieval = evidence.retrieval
    words = evidence.words
    weights = words.weights
    ranked = retrieval.ranked_passages()
    top = ranked[: evidence.settings.abstain.top_passages]
    top_ids = {p.clause_id for p in top}
    sentences = [s for s in evidence.sentences if s.passage.clause_id in top_ids]
    top_clauses = [evidence.clause(p.doc_id, p.clause_id) for p in top]
    top_stems = [
        graph.clause_stems.get(p.clause_id, set()) if (graph := evidence.graphs.get(p.doc_id)) else stems(p.text) for p in top
    ]
    topics = set(retrieval.plan.topics)
    in_scope = any(topics & g.clause_types for g in evidence.graphs.values())
    on_top = any(c is not None and (c.clause_type in topics or topics.intersection(c.topics)) for c in top_clauses[:3])
    first = ranked[0] if ranked else None
    rarest = max(weights, key=weights.get) if weights else None
    heaviest = max(weights.values(), default=0.0) or 1.0
    missing = [w for s, w in weights.items() if s not in evidence.scope_stems]
    return {
        **meaning_features(evidence, sentences),
        "contract_fact": 1.0 if contract_fact(retrieval.plan.question) in ALWAYS_STATED else 0.0,
        "rarest_on_top": 1.0 if rarest is not None and any(rarest in found for found in top_stems) else 0.0,
        "missing_rare": max(missing, default=0.0) / heaviest,
        "heading_match": max((words.coverage(stems(c.heading)) for c in top_clauses if c is not None and c.heading), default=0.0),
        "all_words_on_top": 1.0 if weights and any(set(weights) <= found for found in top_stems) else 0.0,
        "best_sentence": max((s.coverage for s in sentences), default=0.0),
        "best_clause": max((words.coverage(found) for found in top_stems), default=0.0),
        "scope_coverage": words.coverage(evidence.scope_stems),
        "top_similarity": max((p.similarity for p in top), default=0.0),
        "topic_in_scope": (1.0 if in_scope else 0.0) if topics else 0.5,
        "topic_on_top": (1.0 if on_top else 0.0) if topics else 0.5,
        "keyword_first": 1.0 if first is not None and first.why.arms.get("keyword", 99) <= 2 else 0.0,
    }


def meaning_features(evidence: Evidence, sentences: list[Sentence]) -> dict[str, float]:
    """Features that do not depend on the question's words: how sure the question model is of
    the category, whether the top sentences are of the categories it guessed (by the presence
    classifier, or by the category's lexicon where it has none), weighted by its probabilities,
    and whether it is a fact every contract states."""
    guesses = evidence.retrieval.plan.categories
    if not guesses:
        return {
            "category_probability": 0.0, "category_found": 0.0, "category_evidence": 0.0, "stated_by_meaning": 0.0,
            "nda_term": 0.0, "category_prior": 0.5, "category_stated": 0.0, "category_in_scope": 0.5,
        }
    found = [_category_found(evidence, g, sentences) for g in guesses]
    return {
        "category_probability": guesses[0].probability,
        "category_found": found[0],
        "category_evidence": sum(g.probability * f for g, f in zip(guesses, found)),
        "stated_by_meaning": sum(g.probability for g in guesses if g.category in STATED_CATEGORIES),
        # an NDA's terms are asked of contracts that all speak of confidential information: the
        # words are everywhere, so the same coverage says less than for a commercial clause
        "nda_term": sum(g.probability for g in guesses if g.category.startswith(NDA_PREFIX)),
        # how often contracts state what is asked at all (an effective date: 77% of dev contracts;
        # source code escrow: a few), weighted by how likely each category is
        "category_prior": sum(g.probability * g.prior for g in guesses) / (sum(g.probability for g in guesses) or 1.0),
        # whether a top sentence reaches the threshold at which the presence model says a contract
        # has the category (chosen per category by cross-validation when it was trained): its raw
        # probabilities are not comparable, a 0.5 is sure of one category and unsure of another
        "category_stated": sum(g.probability for g, f in zip(guesses, found) if evidence.reaches_threshold(g.category, f)),
        # the same, anywhere in the contract: its presence flag for the category ("this NDA says
        # nothing of returning the information"), whatever the search put on top
        "category_in_scope": sum(g.probability * evidence.presence_flag(g.category) for g in guesses) / (sum(g.probability for g in guesses) or 1.0),
    }


def _category_found(evidence: Evidence, guess: CategoryGuess, sentences: list[Sentence]) -> float:
    """How surely the best of `sentences` is of the guessed category."""
    if not sentences:
        return 0.0
    scores = [evidence.category_score(s, guess.category) for s in sentences]
    if scores[0] is not None:
        return max(scores)
    lexicon = {stem(w) for w in guess.words}
    return max((len(lexicon & stems(s.text)) / len(lexicon) for s in sentences), default=0.0) if lexicon else 0.0


def decide(evidence: Evidence) -> tuple[bool, float]:
    """(abstain?, probability that the evidence supports an answer), by `evidence.settings.abstain`."""
    if not evidence.retrieval.passages:
        return True, 0.0
    calibration = evidence.settings.abstain
    found = features(evidence)
    probability = support(calibration, found)
    return probability < threshold(calibration, found, evidence.of_ndas), probability


def threshold(calibration: AbstainSettings, features: dict[str, float], of_ndas: bool) -> float:
    """The threshold for this kind of question: an NDA's term (the question model puts most of
    its probability on ContractNLI's hypotheses) asked `of_ndas` has its own when the preset
    sets one. An NDA's evidence nearly always speaks of confidential information, so the support
    of a term it does not state runs higher than that of a missing commercial clause, and one
    threshold chosen over both kinds sits too high for contract questions and too low for NDA
    terms. The default preset chooses each kind's on its own questions, against its own targets
    (calibrate_abstain.py --per-kind). The contract threshold so chosen (stop 65): on wording
    held in reserve (held out by style and contract) CUAD's false-abstain fell from 0.130 to
    0.116 for an abstain recall from 0.920 to 0.912. The NDA one (stop 66, once the presence
    model's NDA terms learnt from hand-written examples): on the reserve, against stop 65's
    decision, ContractNLI's abstain recall 0.740 -> 0.836 for a false-abstain 0.134 -> 0.187
    (CUAD 0.912 / 0.116 -> 0.911 / 0.113). It refuses some terms often where the NDA states
    them (on the reserve "Permissible post-agreement possession" 40 of 56, "Permissible copy"
    24 of 42); before the examples it refused "Permissible copy" on 83% of the NDAs stating it
    (stop 64, unseen wording) and was not shipped.

    The NDA threshold was chosen on NDAs alone. Asked of a commercial contract (whether a
    framework agreement lets confidential information go to the parties' advisers), where the
    NDA terms' presence flags cannot say, the support runs lower, and it refused the sample
    G-Cloud agreement's answer that the contract threshold gives. The calibration reads a
    question's kind from its features alone, so 22 of its 22,440 questions, on CUAD's contracts
    (19 of them cuad_dev's wording of post-termination services), count as NDA terms there."""
    if calibration.nda_threshold is not None and of_ndas and features["nda_term"] >= NDA_KIND:
        return calibration.nda_threshold
    return calibration.threshold
