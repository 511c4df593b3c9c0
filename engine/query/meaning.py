"""What a question is about, by meaning rather than by its words.

The planner's cue tables know the words of the questions they were written for; a user who
asks "can the contract be handed to someone else?" never says "assign". This model maps a
question to the CUAD categories (title, parties, governing law, anti-assignment, cap on
liability...) with a logistic regression over the local embedding model's vector of the
question and its character n-grams (which keep "asignment" close to "assignment"). It was
trained by `bench/train_question_model.py` on hand-written phrasings of every category in
seven styles, CUAD's category descriptions and the categories' standard wording, and
cross-validated by leaving each style out. Beside the 41 CUAD categories it knows the 17
terms ContractNLI asks of an NDA ("NDA: Sharing with employees", "NDA: No reverse
engineering"...), from the same kind of phrasings.

A recognised category brings what the question's own words lack: the clause types to search
(`CATEGORY_TYPES`) and the words contracts use for it (the model's lexicon, read from the
lawyers' labelled spans in the dev contracts), which the keyword arm and the abstain decision
use at a lower weight than the question's own words.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from engine.fields.presence import NDA_PREFIX
from engine.settings import RetrievalSettings
from models.clause import ClauseType
from models.plan import CategoryGuess, QueryPlan

MODEL_FILE = Path(__file__).with_name("question_model.npz")
T = ClauseType

#: The clause types ingest assigns that hold each category's clauses.
CATEGORY_TYPES: dict[str, list[ClauseType]] = {
    "Document Name": [T.PARTIES],
    "Parties": [T.PARTIES],
    "Agreement Date": [T.PARTIES],
    "Effective Date": [T.PARTIES, T.TERM_TERMINATION],
    "Expiration Date": [T.TERM_TERMINATION],
    "Renewal Term": [T.RENEWAL, T.TERM_TERMINATION],
    "Notice Period To Terminate Renewal": [T.RENEWAL, T.TERM_TERMINATION],
    "Governing Law": [T.GOVERNING_LAW],
    "Most Favored Nation": [T.PAYMENT],
    "Non-Compete": [T.NON_COMPETE],
    "Exclusivity": [T.EXCLUSIVITY],
    "No-Solicit Of Customers": [T.NON_COMPETE],
    "Competitive Restriction Exception": [T.NON_COMPETE, T.EXCLUSIVITY],
    "No-Solicit Of Employees": [T.NON_COMPETE],
    "Non-Disparagement": [T.NON_COMPETE],
    "Termination For Convenience": [T.TERM_TERMINATION],
    "Rofr/Rofo/Rofn": [],
    "Change Of Control": [T.CHANGE_OF_CONTROL, T.ASSIGNMENT],
    "Anti-Assignment": [T.ASSIGNMENT],
    "Revenue/Profit Sharing": [T.PAYMENT],
    "Price Restrictions": [T.PAYMENT],
    "Minimum Commitment": [T.PAYMENT],
    "Volume Restriction": [],
    "Ip Ownership Assignment": [T.IP_OWNERSHIP],
    "Joint Ip Ownership": [T.IP_OWNERSHIP],
    "License Grant": [T.LICENSE_GRANT],
    "Non-Transferable License": [T.LICENSE_GRANT],
    "Affiliate License-Licensor": [T.LICENSE_GRANT],
    "Affiliate License-Licensee": [T.LICENSE_GRANT],
    "Unlimited/All-You-Can-Eat-License": [T.LICENSE_GRANT],
    "Irrevocable Or Perpetual License": [T.LICENSE_GRANT],
    "Source Code Escrow": [T.IP_OWNERSHIP, T.LICENSE_GRANT],
    "Post-Termination Services": [T.TERM_TERMINATION],
    "Audit Rights": [T.AUDIT],
    "Uncapped Liability": [T.LIMITATION_OF_LIABILITY, T.INDEMNIFICATION],
    "Cap On Liability": [T.LIMITATION_OF_LIABILITY],
    "Liquidated Damages": [T.PAYMENT, T.TERM_TERMINATION],
    "Warranty Duration": [T.WARRANTY],
    "Insurance": [T.INSURANCE],
    "Covenant Not To Sue": [T.IP_OWNERSHIP],
    "Third Party Beneficiary": [],
}


def clause_types(category: str) -> list[ClauseType]:
    """The clause types holding a category's clauses; an NDA term is a confidentiality clause."""
    if category.startswith(NDA_PREFIX):
        return [T.CONFIDENTIALITY]
    return CATEGORY_TYPES.get(category, [])


def char_vectorizer() -> TfidfVectorizer:
    """Character n-grams within words: robust to typos and word endings."""
    return TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, lowercase=True, dtype=np.float32)


class QuestionModel:
    """Question (text and embedding) -> probability of each CUAD category."""

    def __init__(self, path: Path = MODEL_FILE) -> None:
        stored = np.load(path, allow_pickle=False)
        self.categories = [str(c) for c in stored["categories"]]
        self.chars = char_vectorizer()
        self.chars.vocabulary_ = {str(term): index for index, term in enumerate(stored["char_vocabulary"])}
        self.chars.idf_ = stored["char_idf"]
        self.embedding_coefficients = stored["embedding_coefficients"]
        self.char_coefficients = stored["char_coefficients"]
        self.intercepts = stored["intercepts"]
        words = [str(w) for w in stored["lexicon_words"]]
        offsets = stored["lexicon_offsets"].tolist()
        self.lexicon = {c: words[offsets[i] : offsets[i + 1]] for i, c in enumerate(self.categories)}
        # the share of dev contracts that state each category: how often the answer exists at all
        self.priors = dict(zip(self.categories, stored["priors"].tolist()))

    def sure_of(self, category: str) -> list[CategoryGuess]:
        """`category` as the one guess: what a question is about when the words that said so
        were read elsewhere (a listing whose other filters the contract fields settled)."""
        return [CategoryGuess(category=category, probability=1.0, prior=round(self.priors.get(category, 0.5), 4))]

    def probabilities(self, question: str, vector: np.ndarray) -> np.ndarray:
        """Softmax over the categories, in `self.categories` order."""
        chars = self.chars.transform([question])
        logits = self.embedding_coefficients @ vector + np.asarray(chars @ self.char_coefficients.T).ravel() + self.intercepts
        logits = logits - logits.max()
        exp = np.exp(logits)
        return exp / exp.sum()

    def guess(self, question: str, vector: np.ndarray, top: int = 3) -> list[CategoryGuess]:
        """The `top` likeliest categories, likeliest first."""
        probabilities = self.probabilities(question, vector)
        order = np.argsort(-probabilities)[:top]
        return [
            CategoryGuess(category=self.categories[i], probability=round(float(probabilities[i]), 4), prior=round(self.priors[self.categories[i]], 4))
            for i in order
        ]


STATED_BY_ALL = 0.9  # a category at least this share of dev contracts states (title, parties, date)


def listing_guesses(guesses: list[CategoryGuess]) -> list[CategoryGuess]:
    """The guesses for a "which contracts..." request, less the categories nearly every contract
    states: asking which contracts have a title or parties would list them all, so such a guess
    is the model misreading the request ("which contracts stop us hiring their people?" read as
    Parties), and the next guess reads it."""
    return [g for g in guesses if g.prior < STATED_BY_ALL]


@cache
def question_model() -> QuestionModel:
    return QuestionModel()


def with_meaning(plan: QueryPlan, guesses: list[CategoryGuess], lexicon: dict[str, list[str]], settings: RetrievalSettings) -> QueryPlan:
    """The rules' plan, with what the question means: the categories it is likely about, their
    clause types as topics, and their lexicon as further search words (weighted as synonyms).
    A guess below `settings.category_min` is recorded but steers nothing."""
    plan = plan.model_copy(deep=True)
    guesses = [g.model_copy(update={"words": lexicon.get(g.category, [])[: settings.lexicon_words]}) for g in guesses]
    plan.categories = guesses
    steering = [g for g in guesses if g.probability >= settings.category_min]
    for guess in steering:
        plan.topics += [t for t in clause_types(guess.category) if t not in plan.topics]
        known = set(plan.keywords) | set(plan.expansions)
        added = [w for w in guess.words if w not in known]
        plan.expansions += added
        plan.meaning_words += added
    if steering:
        plan.notes.append("about (by meaning): " + ", ".join(f"{g.category} ({g.probability:.2f})" for g in steering))
    return plan
