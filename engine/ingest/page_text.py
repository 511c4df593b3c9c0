"""One page's text as PyMuPDF extracts it: lines with their fonts, and words with their boxes.

Read as "dict" plus "words" from one TextPage rather than as "rawdict" (a dict for every
character): building those dicts cost more than laying out the page, and the word boxes
PyMuPDF unites from the character boxes are the ones the highlights need.
"""

from __future__ import annotations

from dataclasses import dataclass

import pymupdf

SPACE_CHARS = frozenset(" \t\n\r\xa0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000")
_DELIMITERS = "".join(sorted(SPACE_CHARS))  # a word ends at every kind of space


@dataclass(frozen=True, slots=True)
class PageText:
    """`lines` is the "dict" extraction (blocks, lines, spans with font, size and flags);
    `words` the "words" one: (x0, y0, x1, y1, text, block number, line number, word number)."""

    lines: dict
    words: list[tuple]

    @classmethod
    def of(cls, textpage: pymupdf.TextPage) -> PageText:
        return cls(textpage.extractDICT(), textpage.extractWORDS(_DELIMITERS))
