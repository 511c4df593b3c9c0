"""Segment a contract's text into a tree of clauses.

Headings are found by the numbering marker at the start of a line (see numbering.py) and
accepted only when they continue the document's numbering: "12.5" right after "3.2" is a
wrapped cross-reference, not a heading; "(b)" continues the open "(a)" list; "(i)" after
"(h)" is a letter, otherwise a numeral. This continuity test is what keeps wrapped text,
tables and stray numbers from breaking the tree.

Text before the first heading is the preamble; "WHEREAS"/"Recitals" opens the recitals,
"IN WITNESS WHEREOF" the signature block; a table of contents is kept as one clause so
its entries never pose as headings.

The segmenter's parts: clause_tree.py (the Segment tree and its building moves),
headings.py (which numbered lines are headings, and their titles), special_clauses.py
(recitals, signatures, definition entries, unnumbered headings), table_of_contents.py
and line_shapes.py. This module drives them and places each accepted heading in the tree.
"""

from __future__ import annotations

from engine.ingest.clause_tree import Segment
from engine.ingest.headings import HeadingRules, numbered_recitals, roman_articles, schedule_ref
from engine.ingest.numbering import DOTTED_STYLES, SPELLED_VALUES, Marker, Style, normalised_key, parse_marker
from engine.ingest.pdf import DocumentText, TextLine
from engine.ingest.special_clauses import SpecialClauses
from engine.ingest.table_of_contents import table_of_contents
from models.clause import ClauseKind


def segment(document: DocumentText) -> list[Segment]:
    """The clauses of a document in reading order (parents before their children)."""
    return _Segmenter(document).run()


class _Segmenter(SpecialClauses, HeadingRules):
    """Reads the lines once, top to bottom, and places each accepted heading in the tree."""

    def __init__(self, document: DocumentText) -> None:
        self.document = document
        self.lines = document.lines
        self.segments: list[Segment] = []
        self.root_children: list[Segment] = []
        self.container: Segment | None = None  # current schedule, None while in the body
        self.keys: dict[tuple[int, ...], Segment] = {}  # dotted numbers seen in this container
        self.current: Segment | None = None  # the clause whose text we are in
        self.anchor: Segment | None = None  # the innermost dotted-numbered clause, lists hang here
        self.lists: list[Segment] = []  # open enumerations under the anchor, outermost first
        self.toc_lines = table_of_contents(self.lines)
        self.roman_articles = roman_articles(self.lines, self.toc_lines)
        self.opening_list = numbered_recitals(self.lines, self.toc_lines)  # "1. Party A is ...": items, not sections
        self.seen_numbered = False
        self.seen_recitals = False

    # ------------------------------------------------------------------ driver

    def run(self) -> list[Segment]:
        if not self.lines:
            return []
        first = self.lines[0]
        self.current = self._open(Segment("Preamble", "", ClauseKind.PREAMBLE, first.start), parent=None)
        self.anchor = self.current
        for index, line in enumerate(self.lines):
            if index in self.toc_lines:
                if index == min(self.toc_lines) or self.current.kind is not ClauseKind.TOC:
                    self._open_special("Contents", "Table of Contents", ClauseKind.TOC, line)
                continue
            if self._special(index, line):
                continue
            if index in self.roman_articles:
                self._open_roman_article(line, self.roman_articles[index])
                continue
            marker = parse_marker(line.text)
            if marker is None and (self._definition_entry(index, line) or self._unnumbered_heading(index, line)):
                continue
            if marker is None or not self._plausible_heading(index, marker):
                continue
            self._place(index, line, marker)
        self._close_all()
        return self.segments

    def _place(self, index: int, line: TextLine, marker: Marker) -> None:
        if marker.style is Style.SCHEDULE:
            self._open_schedule(index, line, marker)
        elif marker.style in DOTTED_STYLES and not (marker.style is Style.NUMBER and self._in_roman_articles()) and index not in self.opening_list:
            self._place_dotted(index, line, marker)
        else:
            self._place_list_item(index, line, marker)

    def _open_schedule(self, index: int, line: TextLine, marker: Marker) -> None:
        segment = Segment(schedule_ref(marker), self._heading(index, marker), ClauseKind.SCHEDULE, line.start, marker=marker)
        segment.container = segment
        self.container = segment
        self.keys = {}
        self._open_heading(segment, parent=None)

    def _open_roman_article(self, line: TextLine, marker: Marker) -> None:
        """An article of a contract numbered "I.", "II." ...; its "1." items start again in
        each article and under each lettered item, so there they are list items, not sections."""
        segment = Segment(
            self._unique_ref(f"Article {marker.label}", self.container), marker.rest, ClauseKind.ARTICLE, line.start,
            marker=marker, container=self.container,
        )
        self.keys[marker.key] = segment  # its "7.1" hangs under Article VII
        self._open_heading(segment, parent=self.container)
        self.seen_numbered = True

    def _place_dotted(self, index: int, line: TextLine, marker: Marker) -> None:
        key = normalised_key(marker.key)
        if key in self.keys:
            return  # a number already used in this part of the document: a reference, not a heading
        parent = self._dotted_parent(key)
        if not self._continues_numbering(key, parent):
            return
        kind = ClauseKind.ARTICLE if marker.style is Style.ARTICLE else ClauseKind.SECTION
        label = str(marker.value) if marker.label.lower() in SPELLED_VALUES else marker.label
        ref = f"Article {label.upper()}" if kind is ClauseKind.ARTICLE else label
        heading, start = self._heading(index, marker), line.start
        if not heading:
            heading, start = self._heading_above(index) or (heading, start)
        segment = Segment(
            self._unique_ref(ref, self.container), heading, kind, start, marker=marker, container=self.container,
        )
        self.keys[key] = segment
        self._open_heading(segment, parent=parent if parent is not None else self.container)
        self.seen_numbered = True

    def _dotted_parent(self, key: tuple[int, ...]) -> Segment | None:
        """The clause a dotted number hangs under: 4.2.1 under 4.2, else 4, else none."""
        for length in range(len(key) - 1, 0, -1):
            parent = self.keys.get(key[:length])
            if parent is not None:
                return parent
        return None

    def _continues_numbering(self, key: tuple[int, ...], parent: Segment | None) -> bool:
        """Does `key` follow on from the numbers already seen at its level?

        Siblings are the numbers of the same depth under the same parent; a gap of up to
        two missed headings is tolerated, going backwards is not.
        """
        same_level = [
            k for k in self.keys
            if len(k) == len(key) and k[:-1] == key[:-1]
        ]
        if parent is None and len(key) > 1:
            # "3.1" with no "3" printed: plausible only if 3 continues the top-level numbers.
            tops = [k[0] for k in self.keys]
            if tops and not (max(tops) <= key[0] <= max(tops) + 1):
                return False
        last = max((k[-1] for k in same_level), default=None)
        if last is None:
            return key[-1] <= 3
        return last < key[-1] <= last + 3

    def _place_list_item(self, index: int, line: TextLine, marker: Marker) -> None:
        readings = [marker] + ([marker.alternative] if marker.alternative else [])
        # Continue an open list: the same style, the next value.
        for depth in range(len(self.lists) - 1, -1, -1):
            open_item = self.lists[depth]
            for reading in readings:
                if open_item.marker.style is reading.style and open_item.marker.value + 1 == reading.value:
                    self.lists = self.lists[:depth]
                    self._open_list_item(index, line, reading, open_item.parent)
                    return
        # Start a new list under the innermost open clause: it must start at its first value.
        first = [r for r in readings if r.value == 1]
        if not first:
            return
        parent = self.lists[-1] if self.lists else self.anchor
        if parent is None:
            return
        reading = first[0]
        if any(item.marker.style is reading.style for item in self.lists):
            # "(a)" again while an "(a)" list is open: a new list at that depth
            depth = next(i for i, item in enumerate(self.lists) if item.marker.style is reading.style)
            parent = self.lists[depth].parent
            self.lists = self.lists[:depth]
        self._open_list_item(index, line, reading, parent)

    def _open_list_item(self, index: int, line: TextLine, marker: Marker, parent: Segment) -> None:
        label = f"({marker.label})"
        base = parent.ref if parent.kind not in (ClauseKind.PREAMBLE,) else "Preamble"
        segment = Segment(
            self._unique_ref(f"{base}{label}", self.container), self._heading(index, marker),
            ClauseKind.SUBCLAUSE, line.start, marker=marker, container=self.container,
        )
        self.current = self._open(segment, parent=parent)
        self.lists.append(segment)
