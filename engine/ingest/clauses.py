"""Segment a contract's text into a tree of clauses.

Headings are found by the numbering marker at the start of a line (see numbering.py) and
accepted only when they continue the document's numbering: "12.5" right after "3.2" is a
wrapped cross-reference, not a heading; "(b)" continues the open "(a)" list; "(i)" after
"(h)" is a letter, otherwise a numeral. This continuity test is what keeps wrapped text,
tables and stray numbers from breaking the tree.

Text before the first heading is the preamble; "WHEREAS"/"Recitals" opens the recitals,
"IN WITNESS WHEREOF" the signature block; a table of contents is kept as one clause so
its entries never pose as headings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.ingest.definitions import definition_opening, is_glossary
from engine.ingest.numbering import DOTTED_STYLES, LIST_STYLES, SPELLED_VALUES, Marker, Style, parse_marker
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


# Words that, ending a line, make a number at the start of the next line a reference.
_REFERENCE_LEAD = re.compile(
    r"(?:\b(?:sections?|clauses?|articles?|paragraphs?|subsections?|subparagraphs?|exhibits?|"
    r"schedules?|annex(?:es)?|appendix|appendices|attachments?|items?|rules?|parts?|no\.|"
    r"numbers?|forms?|chapter|title|pages?|under|of|to|in|per|through|with)|§+)\s*$",
    re.IGNORECASE,
)
_MID_SENTENCE = re.compile(r"[\w,]\s*$")
_LIST_JOIN_AFTER_PUNCTUATION = re.compile(r"[;,]\s*(?:and|or)\s*$", re.IGNORECASE)
_RECITALS = re.compile(r"^(?:recitals?|whereas\b|w\s*i\s*t\s*n\s*e\s*s\s*s\s*e\s*t\s*h|background)\b", re.I)
_SIGNATURES = re.compile(
    r"^(?:in\s+witness\s+where(?:of|for)|signature\s+page\b|signed\s+(?:\[|by\b|for\b|on\s+behalf\b))", re.I
)
_NAMES_AN_AGREEMENT = re.compile(r"\b(?:agreement|contract|addendum|amendment|license|licence|lease|deed)\b", re.I)
_TOC_TITLE = re.compile(r"^(?:table\s+of\s+contents|contents|index)\s*:?$", re.I)
_ENDS_WITH_PAGE_NUMBER = re.compile(r"\s\.*\s*\d{1,3}$|\.{3,}\s*\d{1,3}$")
_SENTENCE_END = re.compile(r"[.:;)\]\"”]\s*$")
_ENDS_LOWER = re.compile(r"(?:\b[a-z][\w'’-]*|,)\s*$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_LOWER_START = re.compile(r"^[a-z]")
# Small words that stay lower case in a Title Case heading.
_MINOR_WORDS = frozenset(
    "a an and as at by for from in into of on or the to upon with without under its their "
    "our your his her vs per".split()
)


def segment(document: DocumentText) -> list[Segment]:
    """The clauses of a document in reading order (parents before their children)."""
    return _Segmenter(document).run()


class _Segmenter:
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
        self.toc_lines = _table_of_contents(self.lines)
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
            marker = parse_marker(line.text)
            if marker is None and (self._definition_entry(index, line) or self._unnumbered_heading(index, line)):
                continue
            if marker is None or not self._plausible_heading(index, marker):
                continue
            self._place(index, line, marker)
        self._close_all()
        return self.segments

    # ---------------------------------------------------------------- specials

    def _special(self, index: int, line: TextLine) -> bool:
        """Recitals, signature blocks: clauses that have a phrase, not a number."""
        text = line.text.strip()
        previous = self.lines[index - 1] if index else None
        if previous is not None and previous.page == line.page and previous.full_width and _MID_SENTENCE.search(previous.text):
            return False  # "... except by a writing\nsigned by both parties": a sentence running on
        if not self.seen_numbered and not self.seen_recitals and _RECITALS.match(text):
            self.seen_recitals = True
            self._open_special("Recitals", "Recitals", ClauseKind.RECITALS, line)
            return True
        if _SIGNATURES.match(text) and self.current.kind is not ClauseKind.SIGNATURES and (
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
        if previous is not None and previous.full_width and _MID_SENTENCE.search(previous.text):
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
        self.current = self._open(segment, parent=parent)
        self.anchor = segment
        self.lists = []
        return True

    def _unnumbered_heading(self, index: int, line: TextLine) -> bool:
        """In a document (or schedule) with no numbering at all, a bold or capitalised line
        standing alone above a paragraph heads a section: "PRICING", "Terms of Agreement"."""
        if self.keys or index < 3 or line.full_width or index + 1 >= len(self.lines):
            return False
        if self.current is not None and self.current.kind is ClauseKind.PREAMBLE and _NAMES_AN_AGREEMENT.search(line.text):
            return False  # "MANUFACTURING AGREEMENT" over the opening paragraph: the title, part of the preamble
        text = line.text.strip()
        letters = [c for c in text if c.isalpha()]
        capitals = len(letters) >= 3 and sum(c.isupper() for c in letters) / len(letters) > 0.8
        if not (line.bold or capitals) or not _is_title(text) or len(_WORD.findall(text)) > 8:
            return False
        following = self.lines[index + 1]
        if following.bold or len(_WORD.findall(following.text)) < 6 or parse_marker(following.text) is not None:
            return False
        heading = text.rstrip(".:")
        segment = Segment(self._unique_ref(heading, self.container), heading, ClauseKind.SECTION, line.start, container=self.container)
        self.current = self._open(segment, parent=self.container)
        self.anchor = segment
        self.lists = []
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
        self.current = self._open(segment, parent=self.container)
        self.anchor = segment
        self.lists = []

    # ---------------------------------------------------------------- headings

    def _plausible_heading(self, index: int, marker: Marker) -> bool:
        """Reject markers that are really wrapped text: "...pursuant to Section\\n2.1 of"."""
        line = self.lines[index]
        first_on_page = index == 0 or self.lines[index - 1].page != line.page
        previous_line = self.lines[index - 1] if index else None
        previous = previous_line.text.rstrip() if previous_line else ""
        # Only a line that runs to the right margin can wrap into this one.
        wrapped = previous_line is not None and previous_line.full_width and not first_on_page
        if marker.style is Style.SCHEDULE:
            if not self.seen_numbered and line.page == 1:
                return False  # "EXHIBIT 10.65 / EXHIBIT II" on a cover: the document's own label
            return self._plausible_schedule(index, marker, previous, first_on_page)
        if _LOWER_START.match(marker.rest) and marker.style in (Style.ARTICLE, Style.SECTION):
            return False  # "Section 5 of the Act", "Article 3 hereof"
        if wrapped and _REFERENCE_LEAD.search(previous):
            if marker.style in LIST_STYLES:
                # "(b)" after "... pursuant to paragraph" is a reference; after "of" it may be a list
                if re.search(r"(?:paragraph|clause|section|subsection|items?)s?\s*$", previous, re.I):
                    return False
            else:
                return False
        if wrapped and marker.style in LIST_STYLES and _MID_SENTENCE.search(previous) and not _LIST_JOIN_AFTER_PUNCTUATION.search(previous):
            return False  # "... solely in connection with\n(i) the fulfillment": an inline list wrapped
        if marker.style is Style.NUMBER and not marker.label.isdigit():
            return False
        if marker.style is Style.NUMBER and not line.text.strip().startswith(f"{marker.label}."):
            # a bare "5" or "5 FEES.": only as a short heading that continues the numbering
            if len(_WORD.findall(marker.rest)) > 8 or (_SENTENCE_END.search(marker.rest) and not _is_title(marker.rest)):
                return False
        if _is_toc_entry(marker):
            return False  # "12.3 Other Early Termination. 42" outside the detected contents
        return True

    def _plausible_schedule(self, index: int, marker: Marker, previous: str, first_on_page: bool) -> bool:
        if "." in marker.label or re.match(r"^\d+\.\d+", marker.rest):
            return False  # EDGAR filing labels: "Exhibit 10.1"
        rest_words = _WORD.findall(marker.rest)
        if marker.rest and (_LOWER_START.match(marker.rest) or marker.rest[:1] in ",;("):
            return False  # "Exhibit A attached hereto", "Schedule 2, which ..."
        if len(rest_words) > 14:
            return False
        if not marker.label and marker.rest and not marker.rest[:1].isupper():
            return False
        previous_ends = not previous or _SENTENCE_END.search(previous) or len(_WORD.findall(previous)) <= 6
        if not (first_on_page or previous_ends):
            return False
        ref = _schedule_ref(marker)
        if any(s.ref == ref for s in self.root_children):
            return False  # a repeated page header
        return not self._lists_schedules(index, marker)

    def _lists_schedules(self, index: int, marker: Marker) -> bool:
        """"Exhibit A - Pipeline\nExhibit B - Rates": a list of the schedules, not one of them."""
        for following in self.lines[index + 1 : index + 3]:
            other = parse_marker(following.text)
            if other is not None and other.style is Style.SCHEDULE and other.word.lower() == marker.word.lower():
                return True
        return False

    def _place(self, index: int, line: TextLine, marker: Marker) -> None:
        if marker.style is Style.SCHEDULE:
            self._open_schedule(index, line, marker)
        elif marker.style in DOTTED_STYLES:
            self._place_dotted(index, line, marker)
        else:
            self._place_list_item(index, line, marker)

    def _open_schedule(self, index: int, line: TextLine, marker: Marker) -> None:
        segment = Segment(_schedule_ref(marker), self._heading(index, marker), ClauseKind.SCHEDULE, line.start, marker=marker)
        segment.container = segment
        self.container = segment
        self.keys = {}
        self.current = self._open(segment, parent=None)
        self.anchor = segment
        self.lists = []

    def _place_dotted(self, index: int, line: TextLine, marker: Marker) -> None:
        key = _normalise_key(marker.key)
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
        self.current = self._open(segment, parent=parent if parent is not None else self.container)
        self.anchor = segment
        self.lists = []
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

    def _top_level(self) -> list[Segment]:
        if self.container is not None:
            return self.container.children
        return self.root_children

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

    # ---------------------------------------------------------------- building

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

    def _heading_above(self, index: int) -> tuple[str, int] | None:
        """A title on the line above a numbered clause heads it: "Admin fees" over "6.12 The admin fee ..."."""
        if index < 1 or self.current is None:
            return None
        above = self.lines[index - 1]
        text = above.text.strip()
        if above.start <= self.current.start or above.full_width or parse_marker(text) is not None:
            return None
        if len(_WORD.findall(text)) > 8 or not (_is_title(text) or _is_short_heading(text)):
            return None
        before = self.lines[index - 2] if index >= 2 else None
        if before is not None and before.full_width and not _SENTENCE_END.search(before.text):
            return None  # the short last line of a paragraph, not a title
        if before is not None and _ENDS_LOWER.search(before.text):
            return None  # '... the date of first log in of a' goes on to this line
        return text.rstrip(".:"), above.start

    def _heading(self, index: int, marker: Marker) -> str:
        """The clause's title: the words after its number, or the next line if the number stands alone."""
        rest = marker.rest.strip()
        line = self.lines[index]
        if not rest and index + 1 < len(self.lines):
            following = self.lines[index + 1]
            if parse_marker(following.text) is None and not following.full_width and _is_title(following.text):
                return following.text.strip().rstrip(".:")
            return ""
        # A list item, or a line that runs on, has a heading only if it ends in a full stop:
        # "(a) Termination for Cause. Either party ..."
        whole_line_allowed = marker.style not in LIST_STYLES and not line.full_width
        return _title_part(rest, whole_line_allowed)


def _title_part(text: str, whole_line_allowed: bool = True) -> str:
    """'Termination for Cause. Either party may...' -> 'Termination for Cause'."""
    text = text.strip().lstrip("-–—: ")
    if not text:
        return ""
    if whole_line_allowed and (_is_title(text) or _is_short_heading(text)):
        return text.rstrip(".:")
    match = re.match(r"^(.{2,80}?)[.:](?:\s|$)", text)
    if match and _is_title(match.group(1)) and match.group(1).count("(") == match.group(1).count(")"):
        return match.group(1).strip()
    return ""


def _is_short_heading(text: str) -> bool:
    """A sentence-case heading standing alone: 'Return of Information and surviving obligations'."""
    words = _WORD.findall(text)
    return (
        0 < len(words) <= 9
        and text[:1].isupper()
        and not re.search(r"[.;,:]$", text)
        and "," not in text
        and text[:1] not in "“\"'‘"
    )


def _is_title(text: str) -> bool:
    """Short, capitalised and not a sentence: how headings look."""
    text = text.strip()
    words = _WORD.findall(text)
    if not words or len(words) > 12 or text.endswith((",", ";")) or text[:1] in "“\"'‘":
        return False
    letters = [c for c in text if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) / len(letters) > 0.8:
        return True
    significant = [w for w in words if w.lower() not in _MINOR_WORDS]
    capitalised = sum(w[0].isupper() for w in significant)
    return bool(significant) and capitalised / len(significant) >= 0.75 and not re.search(r"[.;]\s+\S", text)


def _schedule_ref(marker: Marker) -> str:
    word = marker.word.title()
    return f"{word} {marker.label}".strip()


def _normalise_key(key: tuple[int, ...]) -> tuple[int, ...]:
    """'2.0' is how some contracts number top-level section 2."""
    while len(key) > 1 and key[-1] == 0:
        key = key[:-1]
    return key


def _table_of_contents(lines: list[TextLine]) -> set[int]:
    """Indexes of lines that form a table of contents, so its entries never pose as headings."""
    toc: set[int] = set()
    index = 0
    limit = max(40, len(lines) // 4)
    while index < min(len(lines), limit):
        text = lines[index].text.strip()
        titled = bool(_TOC_TITLE.match(text))
        if titled or _looks_like_toc_page(lines, index):
            end = _toc_end(lines, index)
            if end - index >= 3:
                toc.update(range(index, end))
                index = end
                continue
        index += 1
    return toc


def _looks_like_toc_page(lines: list[TextLine], index: int) -> bool:
    """An untitled table of contents: a run of entries that end in page numbers."""
    window = lines[index : index + 8]
    if len(window) < 8 or (index and lines[index - 1].page == lines[index].page):
        return False
    numbered = sum(1 for line in window if _ENDS_WITH_PAGE_NUMBER.search(line.text) and len(_WORD.findall(line.text)) <= 12)
    return numbered >= 6


def _is_toc_entry(marker: Marker) -> bool:
    """A heading followed by nothing but a page number: an entry of a table of contents."""
    match = re.match(r"^(.*?)[.\s]*\s(\d{1,3})$", marker.rest)
    return bool(match and match.group(1) and _is_title(match.group(1).rstrip(".")))


def _toc_continues(upcoming: list[TextLine]) -> bool:
    """Does the table of contents go on over a page break? Its entries are short lines,
    most of them numbered or ending in a page number."""
    if not upcoming:
        return False
    if _TOC_TITLE.match(upcoming[0].text.strip()):
        return True
    counts = [len(_WORD.findall(line.text)) for line in upcoming]
    entries = sum(
        1 for line, words in zip(upcoming, counts)
        if words <= 12 and (parse_marker(line.text) is not None or _ENDS_WITH_PAGE_NUMBER.search(line.text))
    )
    return entries >= min(3, len(upcoming)) and max(counts) < 20


def _toc_end(lines: list[TextLine], start: int) -> int:
    """Where the table of contents that starts at `start` ends."""
    seen_entries: set[str] = set()
    page = lines[start].page
    index = start + 1 if _TOC_TITLE.match(lines[start].text.strip()) else start
    while index < len(lines):
        line = lines[index]
        text = line.text.strip()
        if line.page != page:
            if not _toc_continues(lines[index : index + 8]):
                break
            page = line.page
        marker = parse_marker(text)
        entry = re.sub(r"\s+\d{1,3}$", "", text).lower()
        if marker is not None and entry in seen_entries:
            break  # the first entry again: the body has begun
        words = len(_WORD.findall(text))
        if words >= (22 if marker is not None else 14) and not _ENDS_WITH_PAGE_NUMBER.search(text):
            break
        seen_entries.add(entry)
        index += 1
    return index
