"""A contract cut into sentences once, for every field reader to share."""

from __future__ import annotations

from engine.text.matching import sentence_spans
from models.clause import Clause

Span = tuple[Clause, int, int]  # a sentence: its clause and offsets in the clause text


def split_sentences(clauses: list[Clause]) -> list[Span]:
    """Every sentence of the contract, in reading order."""
    return [(clause, start, end) for clause in sorted(clauses, key=lambda c: c.order) for start, end in sentence_spans(clause.text)]


def sentence_text(span: Span) -> str:
    """A sentence's words as the field readers match them: a PDF line break is a space."""
    clause, start, end = span
    return " ".join(clause.text[start:end].split())
