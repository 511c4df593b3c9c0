"""Clauses the contract marks with a phrase or a layout rather than a number.

Recitals open with "WHEREAS" or "Background", the signature block with "IN WITNESS
WHEREOF"; a definitions list gives each defined term a paragraph of its own; a contract
with no numbering heads its sections with bold or capitalised lines. None of these pass
the numbering continuity test that numbered headings do, so they get rules of their own.
"""

from __future__ import annotations

import re

from engine.ingest.clause_tree import ClauseTreeBuilder, Segment
from engine.ingest.definitions import definition_opening, is_glossary
from engine.ingest.line_shapes import MID_SENTENCE, SIGNATURES_START, WORD, is_title
from engine.ingest.numbering import parse_marker
from engine.ingest.pdf import TextLine
from models.clause import ClauseKind

_RECITALS = re.compile(r"^(?:recitals?|whereas\b|w\s*i\s*t\s*n\s*e\s*s\s*s\s*e\s*t\s*h|background)\b", re.I)
_NAMES_AN_AGREEMENT = re.compile(r"\b(?:agreement|contract|addendum|amendment|license|licence|lease|deed)\b", re.I)


class SpecialClauses(ClauseTreeBuilder):
    """The segmenter's rules for recitals, signatures, definition entries and unnumbered headings."""

    def _special(self, index: int, line: TextLine) -> bool:
        """Recitals, signature blocks: clauses that have a phrase, not a number."""
        text = line.text.strip()
        previous = self.lines[index - 1] if index else None
        if previous is not None and previous.page == line.page and previous.full_width and MID_SENTENCE.search(previous.text):
            return False  # "... except by a writing\nsigned by both parties": a sentence running on
        if not self.seen_numbered and not self.seen_recitals and _RECITALS.match(text):
            self.seen_recitals = True
            self._open_special("Recitals", "Recitals", ClauseKind.RECITALS, line)
            return True
        if SIGNATURES_START.match(text) and self.current.kind is not ClauseKind.SIGNATURES and (
            self.seen_numbered or self.current.kind in (ClauseKind.PREAMBLE, ClauseKind.RECITALS)
        ):
            heading = "Signatures"
            self._open_special("Signatures", heading, ClauseKind.SIGNATURES, line)
            return True
        return False

    def _definition_entry(self, index: int, line: TextLine) -> bool:
        """A paragraph of a definitions list becomes a clause of its own, under its section."""
        if not line.text.lstrip()[:1] in "\"“‘'" or self.anchor is None:
            return False
        previous = self.lines[index - 1] if index else None
        if previous is not None and previous.full_width and MID_SENTENCE.search(previous.text):
            return False
        parent = self.anchor.parent if self.anchor.kind is ClauseKind.DEFINITION else self.anchor
        if parent is None:
            return False
        joined = " ".join(l.text.strip() for l in self.lines[index : index + 6])
        term = definition_opening(joined, self._in_glossary(parent))
        if term is None:
            return False
        ref = self._unique_ref(f'{parent.ref} "{term}"', self.container)
        segment = Segment(ref, term, ClauseKind.DEFINITION, line.start, container=self.container)
        self._open_heading(segment, parent=parent)
        return True

    def _unnumbered_heading(self, index: int, line: TextLine) -> bool:
        """In a document (or schedule) with no numbering at all, a bold or capitalised line
        standing alone above a paragraph heads a section: "PRICING", "Terms of Agreement"."""
        numbered = self.keys or self._in_roman_articles()
        if numbered or index < 3 or line.full_width or index + 1 >= len(self.lines):
            return False
        if self.current is not None and self.current.kind is ClauseKind.PREAMBLE and _NAMES_AN_AGREEMENT.search(line.text):
            return False  # "MANUFACTURING AGREEMENT" over the opening paragraph: the title, part of the preamble
        text = line.text.strip()
        letters = [c for c in text if c.isalpha()]
        capitals = len(letters) >= 3 and sum(c.isupper() for c in letters) / len(letters) > 0.8
        if not (line.bold or capitals) or not is_title(text) or len(WORD.findall(text)) > 8:
            return False
        following = self.lines[index + 1]
        if following.bold or len(WORD.findall(following.text)) < 6 or parse_marker(following.text) is not None:
            return False
        heading = text.rstrip(".:")
        segment = Segment(self._unique_ref(heading, self.container), heading, ClauseKind.SECTION, line.start, container=self.container)
        self._open_heading(segment, parent=self.container)
        return True

    def _in_glossary(self, clause: Segment) -> bool:
        """Is this clause, or one it sits in, a list of definitions?"""
        node: Segment | None = clause
        while node is not None:
            first_line = self.document.text[node.start : node.start + 300]
            if is_glossary(node.heading, first_line):
                return True
            node = node.parent
        return False

    def _open_special(self, ref: str, heading: str, kind: ClauseKind, line: TextLine) -> None:
        ref = self._unique_ref(ref, self.container)
        segment = Segment(ref, heading, kind, line.start, container=self.container)
        self._open_heading(segment, parent=self.container)
