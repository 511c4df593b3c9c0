"""Read a contract PDF into one document string, keeping the box of every word.

Everything downstream (clauses, citations, highlights) works on character offsets into
one document string. This module builds that string and, for each word in it, the page
rectangle it came from, so a quote found in the text can later be highlighted on the page.

The steps have modules of their own: pdf_open.py refuses files that cannot be read,
page_layout.py reads each page into rows in reading order (by OCR for scanned pages),
running_lines.py drops running headers, footers and page numbers, and hyphenation.py
decides how words broken across lines are rejoined; here the rows become the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.ingest import ocr
from engine.ingest.hyphenation import hyphen_join, vocabulary_of
from engine.ingest.page_layout import Row, page_rows, recognised_rows
from engine.ingest.page_text import PageText
from engine.ingest.pdf_open import open_pdf
from engine.ingest.running_lines import drop_running_lines


@dataclass(slots=True)
class WordSpan:
    """Where one word of the document text sits: its characters and its page rectangle."""

    page: int
    start: int
    end: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(slots=True)
class TextLine:
    """A line of the document text, with the layout facts the clause segmenter uses."""

    page: int
    start: int
    end: int
    x0: float
    y0: float
    x1: float
    size: float
    bold: bool
    text: str
    full_width: bool = False  # runs to the page's right edge, so the sentence may wrap on


@dataclass
class DocumentText:
    """The whole document as one string plus the geometry that maps it back to pages."""

    text: str
    lines: list[TextLine]
    words: list[WordSpan]
    page_count: int
    page_sizes: list[tuple[float, float]]
    page_starts: list[int]
    pages_without_text: list[int] = field(default_factory=list)  # no text read: no layer, none recognised
    ocr_pages: list[int] = field(default_factory=list)  # no text layer; text recognised from the image
    ocr_unavailable: str | None = None  # why scanned pages went unread, when OCR is not installed
    removed_lines: int = 0

    def __getstate__(self) -> dict:
        """Pickled with the word boxes as columns: parsing workers send whole documents back
        (engine/ingest/parallel.py), and a hundred thousand small objects cost seconds to pickle."""
        state = dict(self.__dict__)
        columns = ("page", "start", "end", "x0", "y0", "x1", "y1")
        state["words"] = [np.array([getattr(w, name) for w in self.words]) for name in columns]
        return state

    def __setstate__(self, state: dict) -> None:
        state["words"] = list(map(WordSpan, *(column.tolist() for column in state["words"])))
        self.__dict__.update(state)

    def page_at(self, offset: int) -> int:
        """The 1-based page on which the character at `offset` is printed."""
        from bisect import bisect_right

        return max(1, bisect_right(self.page_starts, offset))

#: Told before each scanned page is recognised: its page number, how many scanned pages
#: are done, and how many there are. OCR takes seconds a page, so callers show it.
OcrProgress = Callable[[int, int, int], None]


def _no_ocr_progress(page: int, done: int, total: int) -> None:
    return None


def read_pdf(source: Path | bytes, on_ocr_page: OcrProgress = _no_ocr_progress, max_pages: int | None = None) -> DocumentText:
    """Parse a PDF into a DocumentText; pages that are only a picture of text are read by OCR."""
    with open_pdf(source, max_pages) as document:
        pages = [page_rows(PageText.of(page.get_textpage(flags=0)), n, page.rect) for n, page in enumerate(document, start=1)]
        sizes = [(page.rect.width, page.rect.height) for page in document]
        scanned = [n for n, rows in enumerate(pages, start=1) if not rows and ocr.has_image(document[n - 1])]
        unavailable = ocr.unavailable_reason() if scanned else None
        if unavailable is None:
            for done, number in enumerate(scanned):
                on_ocr_page(number, done, len(scanned))
                pages[number - 1] = recognised_rows(document[number - 1], number)
    kept, removed = drop_running_lines(pages, sizes)
    text = _assemble(kept, sizes)
    text.pages_without_text = [n for n, rows in enumerate(pages, start=1) if not rows]
    text.ocr_pages = [n for n in scanned if pages[n - 1]]
    text.ocr_unavailable = unavailable
    text.removed_lines = removed
    return text


def _assemble(pages: list[list[Row]], sizes: list[tuple[float, float]]) -> DocumentText:
    """The rows of every page joined into the document text, with each word's box and each line's layout."""
    vocabulary = vocabulary_of(pages)
    parts: list[str] = []
    lines: list[TextLine] = []
    spans: list[WordSpan] = []
    page_starts: list[int] = []
    offset = 0
    flat = [row for rows in pages for row in rows]
    next_row = {id(a): b for a, b in zip(flat, flat[1:])}

    for rows in pages:
        page_starts.append(offset)
        right_edge = max((row.x1 for row in rows), default=0.0)
        left_edge = min((row.x0 for row in rows), default=0.0)
        wrap_zone = right_edge - 0.12 * (right_edge - left_edge)
        for row in rows:
            line_start = offset
            words = [w.text for w in row.words]
            following = next_row.get(id(row))
            joined_head = None
            if following is not None:
                joined_head = hyphen_join(words[-1], following.words[0].text, vocabulary)
                if joined_head is not None:
                    words[-1] = joined_head
            line_text = " ".join(words)
            position = offset
            for word, text in zip(row.words, words):
                end = position + len(text)
                spans.append(WordSpan(row.page, position, end, word.x0, word.y0, word.x1, word.y1))
                position = end + 1
            parts.append(line_text)
            offset += len(line_text)
            lines.append(
                TextLine(row.page, line_start, offset, row.x0, row.y0, row.x1, row.size, row.bold, line_text, row.x1 >= wrap_zone)
            )
            if joined_head is None:  # a hyphenated word continues on the next line without a break
                parts.append("\n")
                offset += 1
    text = "".join(parts)
    return DocumentText(text, lines, spans, len(pages), sizes, page_starts)
