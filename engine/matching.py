"""How well a stretch of contract text covers a question's words.

Shared by the extractive answerer (which sentence answers best) and the abstain decision
(does anything in scope answer at all). Words are compared by a crude stem, so
"terminate", "terminated" and "termination" meet, and weighted by how rare they are in the
contracts in scope: a word every clause uses says little, a word no clause uses says the
contract is silent on it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.graphcache import DocGraph
from models.plan import QueryPlan

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_SENTENCE_END = re.compile(r"(?<=[.;:!?])[\"”’)]?\s+(?=[\"“(]?[A-Z0-9(])|\n(?=\s*\(?[a-z0-9ivx]{1,4}[.)]\s)")
_NUMBERING = re.compile(r"(?:(?:Section|Clause|Article)\s+)?(?:\d+(?:\.\d+)*\.?|\(?[a-zA-Z]{1,2}\)|\(?[ivxIVX]{1,5}\)|[a-z]\.)\s+")
_STEM_LENGTH = 6
EXPANSION_WEIGHT = 0.5


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


def stem(word: str) -> str:
    word = word.lower().strip("'-")
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > _STEM_LENGTH:
        return word[:_STEM_LENGTH]
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text)}


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence (and list item) spans of text[start:end], as offsets into `text`."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    position = start
    for match in _SENTENCE_END.finditer(text, start, end):
        if match.start() - position >= 2:
            spans.append((position, match.start()))
        position = match.end()
    if end - position >= 2:
        spans.append((position, end))
    return [(s, e) for s, e in (_trim(text, s, e) for s, e in spans) if e - s >= 2]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Without surrounding space and without the clause or item number it starts with."""
    while start < end and text[start].isspace():
        start += 1
    numbering = _NUMBERING.match(text, start, end)
    if numbering:
        start = numbering.end()
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


@dataclass(frozen=True)
class QuestionWords:
    """The stems a question is looking for, each with its weight."""

    weights: dict[str, float]

    @classmethod
    def of(cls, plan: QueryPlan, graphs: Iterable[DocGraph]) -> QuestionWords:
        frequency = _document_frequency(graphs)
        total = max(1, frequency.get("", 1))
        weights: dict[str, float] = {}
        for words, factor in ((plan.keywords, 1.0), (plan.expansions, EXPANSION_WEIGHT)):
            for phrase in words:
                for word in _WORD.findall(phrase):
                    key = stem(word)
                    rarity = math.log(1 + total / (1 + frequency.get(key, 0)))
                    weights[key] = max(weights.get(key, 0.0), factor * rarity)
        return cls(weights)

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
