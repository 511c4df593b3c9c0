"""Which kinds of clause a contract has: a sentence classifier per CUAD category.

Each sentence of the contract is scored by a linear model over its words and word pairs
(trained on the CUAD dev contracts by bench/train_presence.py); the contract has the clause
when its best sentence reaches the category's threshold, and the best sentences are kept as
evidence. Hand-written patterns were tried first and measured worse on dev (mean F1 0.66 over
26 categories against 0.78 cross-validated): a "Miscellaneous" sentence that says "neither
party may transfer its rights without consent" has too many shapes to enumerate.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from engine.fields.sentences import Span

MODEL_FILE = Path(__file__).with_name("presence_model.npz")
EVIDENCE_SENTENCES = 2
MIN_RELIABLE_F1 = 0.80  # a category is flagged in the app only if the model found it this well on dev
MIN_WORDS = 3
HEADING_MARK = "h_"  # heading words are features of their own, apart from the same words in a sentence

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


def contract_sentences(sentences: list[Span]) -> list[tuple[Span, str]]:
    """The sentences the model scores (a few words at least), with what it reads of each."""
    found = []
    for clause, start, end in sentences:
        text = presence_text(clause.text[start:end])
        if len(text.split()) >= MIN_WORDS:
            # the heading's words, marked, join the sentence's: "Insurance" above a clause says a lot
            heading = " ".join(f"{HEADING_MARK}{w}" for w in presence_text(clause.heading).split())
            found.append(((clause, start, end), heading + " " + text))
    return found


class PresenceModel:
    def __init__(self, path: Path = MODEL_FILE) -> None:
        stored = np.load(path, allow_pickle=False)
        self.categories = [str(c) for c in stored["categories"]]
        vocabulary = {str(term): index for index, term in enumerate(stored["vocabulary"])}
        self.vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, vocabulary=vocabulary, dtype=np.float32)
        self.vectorizer.idf_ = stored["idf"]
        self.coefficients = stored["coefficients"]
        self.intercepts = stored["intercepts"]
        self.thresholds = dict(zip(self.categories, stored["thresholds"].tolist()))
        self.cv_f1 = dict(zip(self.categories, stored["cv_f1"].tolist()))
        self.min_reliable_f1 = MIN_RELIABLE_F1
        # the categories good enough to flag, chosen on dev when the model was trained
        self.reliable = [c for c in self.categories if self.cv_f1[c] >= MIN_RELIABLE_F1]

    def scores(self, texts: list[str]) -> np.ndarray:
        """Probability per sentence (rows) and category (columns)."""
        if not texts:
            return np.zeros((0, len(self.categories)))
        logits = self.vectorizer.transform(texts) @ self.coefficients.T + self.intercepts
        return 1.0 / (1.0 + np.exp(-np.asarray(logits)))


@cache
def presence_model() -> PresenceModel:
    return PresenceModel()
