"""Read the words of one page, with their boxes, into visual rows in reading order.

This module and page_text.py are the only ones that read PyMuPDF's text geometry. Reading order is rebuilt from
PyMuPDF's blocks rather than taken from the content stream, because contracts put section
numbers in a margin column (G-Cloud), definitions in two-column tables (Highways England
NDA) and numbers on their own line (EDGAR exhibits). Pages without a text layer are read
by OCR (ocr.py) and laid out by the same code, so the rest of the pipeline never knows.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from functools import cached_property

import pymupdf

from engine.ingest import ocr
from engine.ingest.page_text import SPACE_CHARS, PageText

_DROPPED_CHARS = frozenset("\u200b\u200c\u200d\u2060\ufeff\ufffd")
SOFT_HYPHEN = "\xad"
_WITHOUT_SPACES = str.maketrans("", "", "".join(SPACE_CHARS))
_BOLD_FLAG = 16


@dataclass(slots=True)
class Word:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass
class Row:
    """One visual line of text on a page: words left to right."""

    page: int
    words: list[Word]
    size: float
    bold: bool
    # Its box, set once: layout reads these tens of thousands of times per contract.
    x0: float = field(init=False)
    y0: float = field(init=False)
    x1: float = field(init=False)
    y1: float = field(init=False)

    def __post_init__(self) -> None:
        self.x0 = self.words[0].x0
        self.x1 = self.words[-1].x1
        self.y0 = min(w.y0 for w in self.words)
        self.y1 = max(w.y1 for w in self.words)

    @cached_property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


def page_rows(text: PageText, number: int, bounds: pymupdf.Rect) -> list[Row]:
    """The rows of one page in reading order.

    The text is read with flags=0: MEDIABOX_CLIP drops whole glyphs near the left edge
    ("ARTICLE 2" read as "LE 2"); words printed off the page are dropped in _line_row instead.
    """
    words_by_line: dict[tuple[int, int], list[tuple]] = {}
    for word in text.words:
        words_by_line.setdefault((word[5], word[6]), []).append(word)
    blocks: list[list[tuple[Row, bool]]] = []
    for block in text.lines["blocks"]:
        if block.get("type") != 0:
            continue
        rows = []
        for line_number, line in enumerate(block["lines"]):
            words = words_by_line.get((block["number"], line_number))
            row = _line_row(line, words, number, bounds) if words else None
            if row is not None:
                horizontal = abs(line["dir"][1]) < 0.1 and line["dir"][0] > 0
                rows.append((row, horizontal))
        if rows:
            blocks.append(rows)
    # Rotated lines are margin stamps and watermarks, unless the whole page is rotated text.
    keep_rotated = not any(horizontal for rows in blocks for _, horizontal in rows)
    units: list[list[Row]] = []
    for rows in blocks:
        kept = [row for row, horizontal in rows if horizontal or keep_rotated]
        if kept:
            units.extend(_split_sparse(_merge_rows(kept)))
    return _reading_order(units)


def recognised_rows(page: pymupdf.Page, number: int) -> list[Row]:
    """The rows of a scanned page, read by OCR: laid out level, boxed where they are printed."""
    recognised = ocr.recognise(page)
    rows = page_rows(recognised.text, number, recognised.bounds)
    return [Row(row.page, [_moved(word, recognised.to_page) for word in row.words], row.size, row.bold) for row in rows]


def _moved(word: Word, matrix: pymupdf.Matrix) -> Word:
    box = pymupdf.Rect(word.x0, word.y0, word.x1, word.y1) * matrix
    return Word(word.text, box.x0, box.y0, box.x1, box.y1)


def _line_row(line: dict, words: list[tuple], page: int, bounds: pymupdf.Rect) -> Row | None:
    """One PyMuPDF line as a row: its words, cleaned of invisible characters, and the font
    size and weight most of its characters have."""
    kept: list[Word] = []
    left, top, right, bottom = bounds.x0, bounds.y0, bounds.x1, bounds.y1
    for x0, y0, x1, y1, text, *_ in words:
        if not (left <= (x0 + x1) / 2 <= right and top <= (y0 + y1) / 2 <= bottom):
            continue  # printed off the page
        if not text.isascii():
            text = _visible(text)
            if not text:
                continue
        kept.append(Word(text, x0, y0, x1, y1))
    if not kept:
        return None
    sizes: list[float] = []
    bold_chars = 0
    for span in line["spans"]:
        characters = len(span["text"].translate(_WITHOUT_SPACES))
        if characters:
            sizes.extend([span["size"]] * characters)
            if span["flags"] & _BOLD_FLAG or "bold" in span["font"].lower():
                bold_chars += characters
    if not sizes:
        return None
    return Row(page, kept, statistics.median(sizes), bold_chars * 2 > len(sizes))


def _visible(text: str) -> str:
    """A word without the characters that print nothing (zero-width marks, private-use
    glyphs) and with a soft hyphen printed as the hyphen it shows as at a line's end."""
    return "".join("-" if c == SOFT_HYPHEN else c for c in text if c not in _DROPPED_CHARS and not "\ue000" <= c <= "\uf8ff")


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    """Vertical overlap of two spans as a share of the shorter one."""
    shorter = max(min(a1 - a0, b1 - b0), 0.1)
    return max(0.0, min(a1, b1) - max(a0, b0)) / shorter


def _merge_rows(rows: list[Row]) -> list[Row]:
    """Join lines of one block that sit side by side (a number and its heading)."""
    rows = sorted(rows, key=lambda r: (r.y0, r.x0))
    merged: list[Row] = []
    for row in rows:
        if merged and _overlap(merged[-1].y0, merged[-1].y1, row.y0, row.y1) > 0.5:
            last = merged[-1]
            words = sorted(last.words + row.words, key=lambda w: w.x0)
            merged[-1] = Row(last.page, words, max(last.size, row.size), last.bold and row.bold)
        else:
            merged.append(row)
    return merged


def _split_sparse(rows: list[Row]) -> list[list[Row]]:
    """Split a block at large vertical gaps: a margin column of numbers is many units."""
    units: list[list[Row]] = [[rows[0]]]
    for previous, row in zip(rows, rows[1:]):
        height = max(previous.y1 - previous.y0, 1.0)
        if row.y0 - previous.y1 > 1.2 * height:
            units.append([row])
        else:
            units[-1].append(row)
    return units


def _reading_order(units: list[list[Row]]) -> list[Row]:
    """Order blocks top to bottom; blocks starting on the same line read left to right.

    Single-line blocks that start on the same line as others (a margin number, a tabbed
    heading, a page number in a table of contents) are joined into one row with the first
    line of the block to their right, so "4.6" and "Liability" become "4.6 Liability".
    """
    units = _split_at_margin_labels(units)
    units.sort(key=lambda u: (u[0].y0, u[0].x0))
    bands: list[list[list[Row]]] = []
    for unit in units:
        top = unit[0]
        if bands and any(_overlap(u[0].y0, u[0].y1, top.y0, top.y1) > 0.5 for u in bands[-1]):
            bands[-1].append(unit)
        else:
            bands.append([unit])
    ordered: list[Row] = []
    for band in bands:
        band.sort(key=lambda u: u[0].x0)
        pending: list[Row] = []
        for unit in band:
            if len(unit) == 1:
                pending.append(unit[0])
                continue
            ordered.append(_join(pending + [unit[0]]))
            ordered.extend(unit[1:])
            pending = []
        if pending:
            ordered.append(_join(pending))
    return ordered


def _split_at_margin_labels(units: list[list[Row]]) -> list[list[Row]]:
    """Cut a paragraph block where a short label in the left margin lines up with one of
    its rows: that row starts a numbered clause ("1.8" beside "By signing ...")."""
    labels = [u[0] for u in units if len(u) == 1 and len(u[0].text) <= 12]
    if not labels:
        return units
    result: list[list[Row]] = []
    for unit in units:
        if len(unit) == 1:
            result.append(unit)
            continue
        cuts = [
            index
            for index, row in enumerate(unit[1:], start=1)
            if any(
                label.x1 <= row.x0 and _overlap(label.y0, label.y1, row.y0, row.y1) > 0.5
                for label in labels
            )
        ]
        for start, end in zip([0] + cuts, cuts + [len(unit)]):
            result.append(unit[start:end])
    return result


def _join(rows: list[Row]) -> Row:
    if len(rows) == 1:
        return rows[0]
    words = [w for row in rows for w in row.words]
    return Row(rows[0].page, words, max(r.size for r in rows), all(r.bold for r in rows))

