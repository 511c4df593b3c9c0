"""Find a contract's table of contents, so its entries never pose as headings.

"12.3 Other Early Termination ... 42" looks just like the heading of clause 12.3; left
in, every entry would open a clause before the body starts. The lines of a detected
table of contents are kept together as one clause instead.
"""

from __future__ import annotations

import re

from engine.ingest.line_shapes import WORD, is_title
from engine.ingest.numbering import Marker, parse_marker
from engine.ingest.pdf import TextLine

_TOC_TITLE = re.compile(r"^(?:table\s+of\s+contents?|contents|index)\s*:?$", re.I)  # "TABLE OF CONTENT" too
_ENDS_WITH_PAGE_NUMBER = re.compile(r"\s\.*\s*\d{1,3}$|\.{3,}\s*\d{1,3}$")
_DOT_LEADER = re.compile(r"\w\s*\.{4,}\s*(?:page\s*)?\d{1,3}$", re.I)  # "DEFINITIONS........ Page 4"


def table_of_contents(lines: list[TextLine]) -> set[int]:
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
    numbered = sum(1 for line in window if _ENDS_WITH_PAGE_NUMBER.search(line.text) and len(WORD.findall(line.text)) <= 12)
    return numbered >= 6


def is_toc_entry(marker: Marker) -> bool:
    """A heading followed by nothing but a page number: an entry of a table of contents."""
    match = re.match(r"^(.*?)[.\s]*(?:\s[Pp]age)?\s(\d{1,3})$", marker.rest)  # "DEFINITIONS...... Page 4" too
    return bool(match and match.group(1) and is_title(match.group(1).rstrip(".")))


def without_toc_entries(text: str) -> str:
    """`text` with each line that is a contents entry blanked, offsets kept: "SECTION 8.0
    PURCHASE OF ASSETS...... Page 11" left in a clause's text (a contents page the detector
    missed) names a section, it does not refer to it."""
    return "\n".join(
        " " * len(line) if _DOT_LEADER.search(line) and (marker := parse_marker(line)) is not None and is_toc_entry(marker) else line
        for line in text.split("\n")
    )


def _toc_continues(upcoming: list[TextLine]) -> bool:
    """Does the table of contents go on over a page break? Its entries are short lines,
    most of them numbered or ending in a page number."""
    if not upcoming:
        return False
    if _TOC_TITLE.match(upcoming[0].text.strip()):
        return True
    counts = [len(WORD.findall(line.text)) for line in upcoming]
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
        # "2.1 Scope 18" is entry "2.1 scope" on page 18; "ARTICLE 2" is all label, no page
        entry = (text if marker is not None and not marker.rest.strip() else re.sub(r"\s+\d{1,3}$", "", text)).lower()
        if marker is not None and entry in seen_entries:
            break  # the first entry again: the body has begun
        words = len(WORD.findall(text))
        if words >= (22 if marker is not None else 14) and not _ENDS_WITH_PAGE_NUMBER.search(text):
            break
        seen_entries.add(entry)
        index += 1
    return index
