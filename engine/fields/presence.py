"""Which kinds of clause a contract has: a sentence classifier per CUAD category.

Each sentence of the contract is scored by a linear model over its words and word pairs, its
clause heading's words and, at a lower weight, the words of the whole clause around it
(trained on the CUAD dev contracts by bench/train_presence.py). The contract has the clause
when its best sentence reaches the category's threshold, and the best sentences are kept as
evidence. The clause's words matter because a sentence often means nothing alone: "except
for breaches of Section 7" is an uncapped liability only inside a limitation-of-liability
clause (cross-validated dev F1 over the 26 categories with 40+ dev contracts 0.750 -> 0.765).
Hand-written patterns were tried first and measured worse on dev (mean F1 0.66 over 26
categories against 0.78 cross-validated): a "Miscellaneous" sentence that says "neither party
may transfer its rights without consent" has too many shapes to enumerate.

The same model scores sentences for the 17 terms ContractNLI asks of an NDA ("NDA: Sharing
with employees"), learnt from its dev NDAs and from hand-written sentences that state each
term or do not (bench/phrasings/nda_term_examples.json; the terms' cross-validated F1 0.835 ->
0.868, stop 66): questions about an NDA's terms reach the clause that states one, and find none
where the NDA does not, whatever their words. Those columns are never a contract's flags
(`contract_categories`).

The static model's sentence vector (engine/static_embed.py) beside the words was measured with
bench/train_presence.py's folds and thresholds (stop 61): the NDA terms' mean cross-validated F1
0.835 -> 0.844 (weight 1; "Permissible copy" 0.537 -> 0.578, "Return of confidential
information" 0.484 -> 0.525), CUAD's 0.706 -> 0.718 at weight 0.5 (18 categories better, 9
worse) and 0.707 at weight 1. Not shipped: gains of that size are within the spread of the
weights, and the ranker and the abstain decision, which read these scores, would be refitted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from engine.fields.sentences import Span, split_sentences
from models.clause import Clause

MODEL_FILE = Path(__file__).with_name("presence_model.npz")
EVIDENCE_SENTENCES = 2
MIN_RELIABLE_F1 = 0.80  # a category is flagged in the app only if the model found it this well on dev
MIN_RELIABLE_CONTRACTS = 20  # ... in at least this many dev contracts, so that estimate is not a few lucky calls
MIN_WORDS = 3
NDA_PREFIX = "NDA: "  # the categories of ContractNLI's hypotheses, an NDA's usual terms ("NDA: No reverse engineering")
HEADING_MARK = "h_"  # heading words are features of their own, apart from the same words in a sentence
CONTEXT_WEIGHT = 0.5  # of the clause's words against the sentence's own; 0.3 and 1.0 measured lower on dev

CATEGORIES = [
    "Anti-Assignment", "Change Of Control", "Audit Rights", "Insurance", "Cap On Liability", "Uncapped Liability",
    "Termination For Convenience", "Exclusivity", "Non-Compete", "Renewal Term", "License Grant", "Non-Transferable License",
    "Irrevocable Or Perpetual License", "Ip Ownership Assignment", "Joint Ip Ownership", "Most Favored Nation",
    "Source Code Escrow", "Liquidated Damages", "Minimum Commitment", "Rofr/Rofo/Rofn", "No-Solicit Of Employees",
    "No-Solicit Of Customers", "Covenant Not To Sue", "Revenue/Profit Sharing", "Warranty Duration",
    "Post-Termination Services", "Notice Period To Terminate Renewal", "Third Party Beneficiary", "Volume Restriction",
    "Price Restrictions", "Competitive Restriction Exception", "Non-Disparagement", "Affiliate License-Licensee",
    "Affiliate License-Licensor", "Unlimited/All-You-Can-Eat-License",
]

_NOT_WORD = re.compile(r"[^a-z0-9]+")


def presence_text(text: str) -> str:
    """What the model reads of a sentence: lower case words, punctuation and layout gone."""
    return _NOT_WORD.sub(" ", text.lower()).strip()


class ScoredSentence(NamedTuple):
    """A sentence as the model reads it: its words (with the heading's, marked) and its clause's."""

    span: Span
    text: str
    context: str


def contract_sentences(sentences: list[Span]) -> list[ScoredSentence]:
    """The sentences the model scores (a few words at least), with what it reads of each."""
    found = []
    context_of: dict[str, str] = {}
    for clause, start, end in sentences:
        text = presence_text(clause.text[start:end])
        if len(text.split()) >= MIN_WORDS:
            # the heading's words, marked, join the sentence's: "Insurance" above a clause says a lot
            heading = " ".join(f"{HEADING_MARK}{w}" for w in presence_text(clause.heading).split())
            if clause.clause_id not in context_of:
                context_of[clause.clause_id] = presence_text(clause.text)
            found.append(ScoredSentence((clause, start, end), heading + " " + text, context_of[clause.clause_id]))
    return found


def sentence_vectorizer(**settings) -> TfidfVectorizer:
    return TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, dtype=np.float32, **settings)


def context_vectorizer(**settings) -> TfidfVectorizer:
    return TfidfVectorizer(ngram_range=(1, 1), sublinear_tf=True, dtype=np.float32, **settings)


def features(sentence_words: TfidfVectorizer, context_words: TfidfVectorizer, sentences: list[ScoredSentence]) -> sparse.csr_matrix:
    """One row per sentence: its own word features, then its clause's, weighted down."""
    own = sentence_words.transform([s.text for s in sentences])
    # a clause's sentences share its context: each context is read once, its row repeated
    contexts = list(dict.fromkeys(s.context for s in sentences))
    row_of = {context: row for row, context in enumerate(contexts)}
    around = context_words.transform(contexts)[[row_of[s.context] for s in sentences]]
    return sparse.hstack([own, CONTEXT_WEIGHT * around], format="csr")


def is_reliable(cv_f1: float, dev_contracts: int) -> bool:
    """Whether a category is flagged in the app: found well enough, in enough dev contracts."""
    return cv_f1 >= MIN_RELIABLE_F1 and dev_contracts >= MIN_RELIABLE_CONTRACTS


def _fitted(vectorizer: TfidfVectorizer, vocabulary: np.ndarray, idf: np.ndarray) -> TfidfVectorizer:
    vectorizer.vocabulary_ = {str(term): index for index, term in enumerate(vocabulary)}
    vectorizer.idf_ = idf
    return vectorizer


class PresenceModel:
    def __init__(self, path: Path = MODEL_FILE) -> None:
        stored = np.load(path, allow_pickle=False)
        self.categories = [str(c) for c in stored["categories"]]
        self.sentence_words = _fitted(sentence_vectorizer(), stored["vocabulary"], stored["idf"])
        self.context_words = _fitted(context_vectorizer(), stored["context_vocabulary"], stored["context_idf"])
        self.coefficients = stored["coefficients"]
        self.intercepts = stored["intercepts"]
        self.thresholds = dict(zip(self.categories, stored["thresholds"].tolist()))
        self.cv_f1 = dict(zip(self.categories, stored["cv_f1"].tolist()))
        self.dev_contracts = dict(zip(self.categories, stored["dev_contracts"].tolist()))
        # a contract's fields report CUAD's categories; an NDA term's column only scores sentences
        # (the category arm, the abstain decision): it was learnt from NDAs alone and would read
        # any confidentiality clause of a commercial contract as one
        self.contract_categories = [c for c in self.categories if not c.startswith(NDA_PREFIX)]
        # the categories good enough to flag, chosen on dev when the model was trained
        self.reliable = [c for c in self.contract_categories if is_reliable(self.cv_f1[c], self.dev_contracts[c])]
        # the rest: a "which contracts..." request about one asks each contract instead of its flag
        self.unflagged = [c for c in self.contract_categories if c not in self.reliable]

    def scores(self, sentences: list[ScoredSentence]) -> np.ndarray:
        """Probability per sentence (rows) and category (columns)."""
        if not sentences:
            return np.zeros((0, len(self.categories)))
        logits = features(self.sentence_words, self.context_words, sentences) @ self.coefficients.T + self.intercepts
        return 1.0 / (1.0 + np.exp(-np.asarray(logits)))


_model_file = MODEL_FILE


@cache
def presence_model() -> PresenceModel:
    return PresenceModel(_model_file)


def use_presence_model(path: Path) -> None:
    """Score with another model file from now on: a benchmark's model that never read the labels
    of the contracts it asks about (bench/train_presence.py --hold-docs)."""
    global _model_file
    _model_file = path
    presence_model.cache_clear()


@contextmanager
def presence_model_from(path: Path) -> Iterator[None]:
    """Score with another model file for a while (one contract's fold model), then with the
    one in use before."""
    previous = _model_file
    use_presence_model(path)
    try:
        yield
    finally:
        use_presence_model(previous)


def clause_scores(clauses: list[Clause], model: PresenceModel | None = None) -> np.ndarray:
    """Each clause's best sentence, scored for every category by `model` (the one in use when
    None): rows in `clauses` order, columns in the model's. The search's clause-model arm reads
    a column: the clauses most likely of the category a question is about, whatever words the
    question used."""
    model = model or presence_model()
    table = np.zeros((len(clauses), len(model.categories)), dtype=np.float32)
    scored = contract_sentences(split_sentences(clauses))
    if not scored:
        return table
    row_of = {clause.clause_id: row for row, clause in enumerate(clauses)}
    probabilities = model.scores(scored)
    for sentence, row in zip(scored, probabilities):
        index = row_of[sentence.span[0].clause_id]
        np.maximum(table[index], row, out=table[index])
    return table
