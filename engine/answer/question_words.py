"""How well a stretch of contract text covers a question's words.

Shared by the extractive answerer (which sentence answers best) and the abstain decision
(does anything in scope answer at all). Words are weighted by how rare they are in the
contracts in scope: a word every clause uses says little, a word no clause uses says the
contract is silent on it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.store.graphcache import DocGraph
from engine.text.matching import WORD, stem
from models.plan import QueryPlan


# Every contract states its title, its parties and its date, on its first page.
_CONTRACT_FACT = re.compile(
    r"\b(?:title|name of (?:this|the) (?:agreement|contract))\b|(?P<parties>who (?:are|were) the parties|\bparties to (?:this|the) "
    r"(?:agreement|contract)|who signed)|(?P<date>\bdated\b|date of (?:this|the) (?:agreement|contract))"
    r"|(?P<effective>\bbecomes? effective\b|\beffective date\b|\beffective as of\b|\btake effect\b)",
    re.IGNORECASE,
)


def contract_fact(question: str) -> str | None:
    """"title", "parties", "date" or "effective" when the question asks for that fact of the contract."""
    match = _CONTRACT_FACT.search(question)
    if match is None:
        return None
    return next((kind for kind in ("parties", "date", "effective") if match.group(kind)), "title")


@dataclass(frozen=True)
class QuestionWords:
    """The stems a question is looking for, each with its weight."""

    weights: dict[str, float]

    @classmethod
    def of(cls, plan: QueryPlan, graphs: Iterable[DocGraph], expansion_weight: float) -> QuestionWords:
        """`expansion_weight`: what a contract synonym counts for beside the question's own word."""
        frequency = _document_frequency(graphs)
        total = max(1, frequency.get("", 1))
        weights: dict[str, float] = {}
        for words, factor in ((plan.keywords, 1.0), (plan.expansions, expansion_weight)):
            for phrase in words:
                for word in WORD.findall(phrase):
                    key = stem(word)
                    rarity = math.log(1 + total / (1 + frequency.get(key, 0)))
                    weights[key] = max(weights.get(key, 0.0), factor * rarity)
        return cls(weights)

    def own(self, plan: QueryPlan) -> QuestionWords:
        """Only the question's own words (the plan's keywords), at the weights they have here:
        without the synonyms and category words the plan added."""
        keywords = {stem(word) for phrase in plan.keywords for word in WORD.findall(phrase)}
        return QuestionWords({key: weight for key, weight in self.weights.items() if key in keywords})

    @property
    def total(self) -> float:
        return sum(self.weights.values())

    def coverage(self, found: set[str]) -> float:
        """Share of the question's weight whose stems are in `found` (0 when it has none)."""
        total = self.total
        return sum(w for s, w in self.weights.items() if s in found) / total if total else 0.0


def _document_frequency(graphs: Iterable[DocGraph]) -> dict[str, int]:
    """Stem -> number of clauses using it, over the graphs; "" -> number of clauses."""
    frequency: dict[str, int] = {}
    for graph in graphs:
        for key, count in graph.stem_frequency.items():
            frequency[key] = frequency.get(key, 0) + count
    return frequency
