"""Which numbered lines head a clause, and what a clause's heading is.

A line that starts with "2.1" or "(b)" is often not a heading: a cross-reference wrapped
onto a new line ("... pursuant to Section\\n2.1 of"), an inline list, a contents entry or
an exhibit label on a cover page. HeadingRules rejects those before the segmenter places
a marker in the tree, and reads the heading text of the clauses it accepts.
"""

from __future__ import annotations

import re

from engine.ingest.clause_tree import ClauseTreeBuilder
from engine.ingest.line_shapes import MID_SENTENCE, SENTENCE_END, SIGNATURES_START, WORD, is_short_heading, is_title, title_part
from engine.ingest.numbering import LIST_STYLES, Marker, Style, normalised_key, parse_marker, printed_with_dot, roman_value
from engine.ingest.pdf import TextLine
from engine.ingest.table_of_contents import is_toc_entry

# Words that, ending a line, make a number at the start of the next line a reference.
_REFERENCE_LEAD = re.compile(
    r"(?:\b(?:sections?|clauses?|articles?|paragraphs?|subsections?|subparagraphs?|exhibits?|"
    r"schedules?|annex(?:es|ures?)?|appendix|appendices|attachments?|items?|rules?|parts?|no\.|"
    r"numbers?|forms?|chapter|title|pages?|under|of|to|in|per|through|with)|§+)\s*$",
    re.IGNORECASE,
)
_LIST_JOIN_AFTER_PUNCTUATION = re.compile(r"[;,]\s*(?:and|or)\s*$", re.IGNORECASE)
_ENDS_LOWER = re.compile(r"(?:\b[a-z][\w'’-]*|,)\s*$")
_LOWER_START = re.compile(r"^[a-z]")
_ROMAN_HEADING = re.compile(r"^([IVXL]+)(?:\.|\s+[-–—])\s+(\S.*)$")  # "I. TITLE", "I - TITLE"


class HeadingRules(ClauseTreeBuilder):
    """The segmenter's tests of a heading marker, and its reading of heading text."""

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
        if wrapped and previous.endswith(",") and marker.word and re.search(rf"\b{marker.word}s?\s+\d", marker.rest, re.I):
            return False  # "... ARTICLE 9 (Remedies),\nARTICLE 10 (Confidentiality), ARTICLE 11 ...": references listed
        if wrapped and marker.style in LIST_STYLES and MID_SENTENCE.search(previous) and not _LIST_JOIN_AFTER_PUNCTUATION.search(previous):
            return False  # "... solely in connection with\n(i) the fulfillment": an inline list wrapped
        if marker.style is Style.NUMBER and not marker.label.isdigit():
            return False
        if marker.style is Style.NUMBER and not printed_with_dot(marker, line.text):
            # a bare "5" or "5 FEES.": only as a short heading that continues the numbering
            capitals = marker.rest.isupper() and is_title(marker.rest)  # "17 OPERATION AND MAINTENANCE COSTS OF SEGMENT S"
            if (len(WORD.findall(marker.rest)) > 8 and not capitals) or (SENTENCE_END.search(marker.rest) and not is_title(marker.rest)):
                return False
            if not marker.rest.strip() and not self._title_below(index):
                return False  # a page number or a table's cell, left in the text's flow
            if len(re.findall(r"\b\d[\d,.]*", marker.rest)) > 1 or marker.rest.rstrip().endswith(","):
                return False  # "17 Indiana 2334 Oakland Avenue ... 60,465", "12 Floor,": a table's row, an address
        if is_toc_entry(marker):
            return False  # "12.3 Other Early Termination. 42" outside the detected contents
        return True

    def _plausible_schedule(self, index: int, marker: Marker, previous: str, first_on_page: bool) -> bool:
        if "." in marker.label or re.match(r"^\d+\.\d+", marker.rest):
            return False  # EDGAR filing labels: "Exhibit 10.1"
        rest_words = WORD.findall(marker.rest)
        if marker.rest and (_LOWER_START.match(marker.rest) or marker.rest[:1] in ",;("):
            return False  # "Exhibit A attached hereto", "Schedule 2, which ..."
        if len(rest_words) > 14:
            return False
        if not marker.label and marker.rest and not marker.rest[:1].isupper():
            return False
        previous_ends = not previous or SENTENCE_END.search(previous)
        # a short line above may end a heading block, but not above a bare "Schedule": among
        # a table's short cells ("Payment / Schedule / Upon") it is a word of the table
        short_above = len(WORD.findall(previous)) <= 6 and bool(marker.label or marker.rest)
        if not (first_on_page or previous_ends or short_above):
            return False
        ref = schedule_ref(marker)
        if any(s.ref == ref for s in self.root_children):
            return False  # a repeated page header
        return not self._lists_schedules(index, marker)

    def _lists_schedules(self, index: int, marker: Marker) -> bool:
        """"Exhibit A - Pipeline\nExhibit B - Rates": a list of the schedules, not one of them."""
        line = self.lines[index]
        # a bold heading with the next one on the next page heads a one-page schedule (as in _ends_a_list)
        following = [f for f in self.lines[index + 1 : index + 3] if f.page == line.page or not line.bold]
        return any(_same_schedule_word(f.text, marker) for f in following) or self._ends_a_list(index, marker)

    def _ends_a_list(self, index: int, marker: Marker) -> bool:
        """The list's last entry, which no entry follows.

        Read as a schedule, "Exhibit L - Form of Change Order" at the end of a contents list
        would make the whole body that follows it Exhibit L's content. Only an entry that
        carries its title on its line is taken for part of a list, and a finished sentence
        in between ends the list: a bare "EXHIBIT A" after a list of the exhibits heads
        Exhibit A itself, and "Exhibit A - Trademark License / Attached." is a schedule of
        one line. A list runs on over a page break in plain type; a bold "Schedule 4 Prices"
        at the top of a page after "Schedule 3 The Trade Marks" on the page before is the
        next schedule.
        """
        if not marker.rest.strip():
            return False
        line = self.lines[index]
        above = self.lines[index - 1] if index else None
        # "Schedules:\nSchedule A - Compliance" is a list of one; "Date:" above a schedule ends the form before it
        introduces = above is not None and above.text.rstrip().endswith(":") and marker.word.lower() in above.text.lower()
        if introduces and above.page == line.page:
            return True
        for previous in reversed(self.lines[max(0, index - 2) : index]):
            other = _same_schedule_word(previous.text, marker)
            if other is not None and other.rest.strip():
                # across a page break, a bold line is a schedule's heading after a one-page schedule
                return previous.page == line.page or not (line.bold or previous.bold)
            if SENTENCE_END.search(previous.text):
                return False
        return False

    def _heading_above(self, index: int) -> tuple[str, int] | None:
        """A title on the line above a numbered clause heads it: "Admin fees" over "6.12 The admin fee ..."."""
        if index < 1 or self.current is None:
            return None
        above = self.lines[index - 1]
        text = above.text.strip()
        if above.start <= self.current.start or above.full_width or parse_marker(text) is not None:
            return None
        if len(WORD.findall(text)) > 8 or not (is_title(text) or is_short_heading(text)):
            return None
        before = self.lines[index - 2] if index >= 2 else None
        if before is not None and before.full_width and not SENTENCE_END.search(before.text):
            return None  # the short last line of a paragraph, not a title
        if before is not None and _ENDS_LOWER.search(before.text):
            return None  # '... the date of first log in of a' goes on to this line
        return text.rstrip(".:"), above.start

    def _title_below(self, index: int) -> bool:
        """Is the next line the title of a number that stands alone on its line?"""
        if index + 1 >= len(self.lines):
            return False
        following = self.lines[index + 1]
        return parse_marker(following.text) is None and not following.full_width and is_title(following.text)

    def _heading(self, index: int, marker: Marker) -> str:
        """The clause's title: the words after its number, or the next line if the number stands alone."""
        rest = marker.rest.strip()
        line = self.lines[index]
        if not rest and index + 1 < len(self.lines):
            return self.lines[index + 1].text.strip().rstrip(".:") if self._title_below(index) else ""
        # A list item, or a line that runs on, has a heading only if it ends in a full stop:
        # "(a) Termination for Cause. Either party ..."
        whole_line_allowed = marker.style not in LIST_STYLES and not line.full_width
        return title_part(rest, whole_line_allowed)


def roman_articles(lines: list[TextLine], skip: set[int]) -> dict[int, Marker]:
    """Articles numbered "I.", "II.", "III." with no word "Article", by line index.

    "I. APPOINTMENT AND FRANCHISE FEE" reads as the letter I, the ninth, so the articles of
    such a contract never start as a list would, and their "A." and "1." items fall under
    whatever clause was open. A run of at least three upper-case titles numbered I, II,
    III ... in order (a gap of one allowed) is taken for the document's articles; a letter
    list's "I. INSURANCE" is not the first of such a run.
    """
    found: dict[int, Marker] = {}
    last = 0
    for index, line in enumerate(lines):
        match = _ROMAN_HEADING.match(line.text.strip()) if index not in skip else None
        if match is None:
            continue
        value, title = roman_value(match.group(1)), match.group(2).strip()
        letters = [c for c in title if c.isalpha()]
        if not value or not last < value <= last + 2 or not letters or not all(c.isupper() for c in letters):
            continue
        short = len(WORD.findall(title)) <= 10
        if short or (last and value == last + 1):  # "IX. EXCEPT AS EXPRESSLY SET FORTH ...": its text in capitals
            found[index] = Marker(Style.ARTICLE, match.group(1), value, (value,), title.rstrip(".") if short else "")
            last = value
    return found if len(found) >= 3 else {}


def numbered_recitals(lines: list[TextLine], skip: set[int]) -> set[int]:
    """Lines of a numbered list that opens the document before its sections start again at 1.

    "1. Party A is a company ... 2. Party B is ..." under "WHEREAS", and then, after "agree
    as follows:", "1. Business Cooperation": read as sections, the recitals took numbers 1-5
    and the real sections 1-5 were refused as numbers already used. The document's first run
    of top-level numbers 1, 2, 3 ... is a list when the numbering starts again at 1 before any
    signature block, with titled entries ("1. DEFINITIONS", "2. Grant of License. ...") that
    run further in numbers and at least three times further in lines, and the first run's
    first entry is a sentence, not a title. Real sections with a numbered list inside (1, 2,
    then the list's 1, 2, 3) fail one of these; a list inside the new run's sections ("1.
    'Commencement Date' means ...") has no titles and is passed over.
    """
    numbered = [(index, value) for index, line in enumerate(lines) if index not in skip and (value := _top_level_number(line))]
    first: list[int] = []
    for position, (index, value) in enumerate(numbered):
        if value == len(first) + 1:
            first.append(index)
        elif value == 1:
            break
    else:
        return set()
    then: list[int] = []
    last = 0
    for index, value in numbered[position:]:
        if (last < value <= last + 2 if then else value == 1) and _titled(_marker_rest(lines[index])):
            then.append(index)  # a section whose title reads as none ("3. Party A's Rights ...") is skipped over
            last = value
    if len(first) < 2 or len(then) <= len(first) or then[0] != numbered[position][0]:
        return set()
    if then[-1] - then[0] < 3 * (first[-1] - first[0] + 1) or _titled(_marker_rest(lines[first[0]])):
        return set()
    if any(SIGNATURES_START.match(line.text.strip()) for line in lines[first[0] : then[0]]):
        return set()
    return set(first)


def _top_level_number(line: TextLine) -> int | None:
    """The number of a top-level "3." or "3.0" at the start of the line, else None."""
    marker = parse_marker(line.text)
    if marker is None or marker.style not in (Style.NUMBER, Style.DECIMAL):
        return None
    key = normalised_key(marker.key)
    if len(key) != 1 or (marker.style is Style.NUMBER and not printed_with_dot(marker, line.text)):
        return None
    return key[0]


def _marker_rest(line: TextLine) -> str:
    marker = parse_marker(line.text)
    return marker.rest.strip() if marker is not None else ""


def _short_title(text: str) -> bool:
    return is_title(text.rstrip(".:")) and len(WORD.findall(text)) <= 8


def _titled(text: str) -> bool:
    """A section's entry: a short title, alone or before its text ("Compensation. Marketing ...")."""
    return _short_title(text) or _short_title(title_part(text, whole_line_allowed=False))


def _same_schedule_word(text: str, marker: Marker) -> Marker | None:
    """The line's marker, when it names a schedule with the same word ("Exhibit", "Schedule")."""
    other = parse_marker(text)
    if other is not None and other.style is Style.SCHEDULE and other.word.lower() == marker.word.lower():
        return other
    return None


def schedule_ref(marker: Marker) -> str:
    """The ref of a schedule, the same however it is printed: "Exhibit A", "Schedule 2"."""
    word = marker.word.title()
    return f"{word} {marker.label}".strip()
