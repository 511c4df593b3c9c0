"""The clause tree the segmenter builds, and the moves that grow it.

A Segment is a clause as found in the text: a ref, a heading, where it starts and ends,
its parent and children. ClauseTreeBuilder holds the segmenter's state and the three
moves every kind of clause uses: open a clause (ending the one before it), give it a ref
unique in its schedule, and close the last one at the end of the text. The rules that
decide *which* clause a line opens live in clauses.py, headings.py and special_clauses.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.ingest.numbering import Marker
from engine.ingest.pdf import DocumentText, TextLine
from models.clause import ClauseKind


@dataclass
class Segment:
    """A clause as the segmenter finds it, before it gets ids and types."""

    ref: str
    heading: str
    kind: ClauseKind
    start: int
    end: int = 0
    parent: Segment | None = None
    children: list[Segment] = field(default_factory=list)
    marker: Marker | None = None
    container: Segment | None = None  # the schedule this clause sits in, None for the body

    @property
    def level(self) -> int:
        depth, node = 1, self.parent
        while node is not None:
            depth, node = depth + 1, node.parent
        return depth

    @property
    def path(self) -> str:
        """A name unique within the document: the schedule, then the ref."""
        if self.container is not None and self.container is not self:
            return f"{self.container.ref}/{self.ref}"
        return self.ref


class ClauseTreeBuilder:
    """The segmenter's state, shared by its parts (set in clauses._Segmenter.__init__)."""

    document: DocumentText
    lines: list[TextLine]
    segments: list[Segment]  # every clause in reading order
    root_children: list[Segment]
    container: Segment | None  # current schedule, None while in the body
    keys: dict[tuple[int, ...], Segment]  # dotted numbers seen in this container
    roman_articles: dict[int, Marker]  # line index -> an article numbered "I.", "II." with no word "Article"
    opening_list: set[int]  # line indexes of a numbered list that opens the document (headings.numbered_recitals)
    current: Segment | None  # the clause whose text we are in
    anchor: Segment | None  # the innermost dotted-numbered clause, lists hang here
    lists: list[Segment]  # open enumerations under the anchor, outermost first
    seen_numbered: bool
    seen_recitals: bool

    def _in_roman_articles(self) -> bool:
        """In the body of a contract whose articles are numbered "I.", "II." (see headings.roman_articles)."""
        return bool(self.roman_articles) and self.container is None

    def _top_level(self) -> list[Segment]:
        if self.container is not None:
            return self.container.children
        return self.root_children

    def _open_heading(self, segment: Segment, parent: Segment | None) -> None:
        """Open a clause that later list items hang under, closing the lists open before it."""
        self.current = self._open(segment, parent)
        self.anchor = segment
        self.lists = []

    def _open(self, segment: Segment, parent: Segment | None) -> Segment:
        if self.segments:
            self.segments[-1].end = segment.start
        segment.parent = parent
        if parent is None:
            self.root_children.append(segment)
        else:
            parent.children.append(segment)
        self.segments.append(segment)
        return segment

    def _close_all(self) -> None:
        end = len(self.document.text)
        if self.segments:
            self.segments[-1].end = end
        # Drop a preamble with no text (the document opens with its first heading).
        first = self.segments[0]
        if first.kind is ClauseKind.PREAMBLE and not self.document.text[first.start:first.end].strip():
            self.segments.pop(0)
            self.root_children.remove(first)

    def _unique_ref(self, ref: str, container: Segment | None) -> str:
        taken = {s.ref for s in self.segments if s.container is container}
        if ref not in taken:
            return ref
        n = 2
        while f"{ref}#{n}" in taken:
            n += 1
        return f"{ref}#{n}"
