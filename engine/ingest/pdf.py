"""Read a contract PDF into text lines in reading order, keeping the box of every word.

Everything downstream (clauses, citations, highlights) works on character offsets into
one document string. This module is the only place that knows about PDF geometry: it
builds that string and, for each word in it, the page rectangle it came from, so a quote
found in the text can later be highlighted on the page.

Reading order is rebuilt from PyMuPDF's blocks rather than taken from the content stream,
because contracts put section numbers in a margin column (G-Cloud), definitions in
two-column tables (Highways England NDA) and numbers on their own line (EDGAR exhibits).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pymupdf

from engine.errors import IngestError
from engine.ingest import ocr

_SPACE_CHARS = frozenset(" \t\n\r\xa0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000")
_DROPPED_CHARS = frozenset("\u200b\u200c\u200d\u2060\ufeff\ufffd")
_SOFT_HYPHEN = "\xad"
_HYPHENS = ("-", _SOFT_HYPHEN, "\u2010", "\u2011")
_BOLD_FLAG = 16

_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?[-–—(]?\s*(?:\d{1,4}|[ivxlc]{1,7})\s*[-–—)]?(?:\s*(?:of|/)\s*\d{1,4})?$",
    re.IGNORECASE,
)
# A page number printed mid-page: EDGAR conversions keep the original document's page
# numbers as centred lines between paragraphs.
_CENTRED_PAGE_NUMBER = re.compile(r"^(?:page\s*)?[-–—]?\s*\d{1,3}\s*[-–—]?$", re.IGNORECASE)
_EDGAR_SOURCE_LINE = re.compile(r"^source:\s.{3,120}\d{1,2}/\d{1,2}/\d{2,4}$", re.IGNORECASE)
_MARGIN_ZONE = 0.12  # top and bottom share of the page where running headers and footers live
_END_OF_FILE = b"%%EOF"  # a complete PDF ends with it, within its last kilobyte


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

    @cached_property
    def x0(self) -> float:
        return self.words[0].x0

    @cached_property
    def x1(self) -> float:
        return self.words[-1].x1

    @cached_property
    def y0(self) -> float:
        return min(w.y0 for w in self.words)

    @cached_property
    def y1(self) -> float:
        return max(w.y1 for w in self.words)

    @cached_property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


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

    def page_at(self, offset: int) -> int:
        """The 1-based page on which the character at `offset` is printed."""
        from bisect import bisect_right

        return max(1, bisect_right(self.page_starts, offset))


def open_pdf(source: Path | bytes, max_pages: int | None = None) -> pymupdf.Document:
    """Open a PDF or raise an IngestError that says plainly what is wrong with it."""
    data = source if isinstance(source, bytes) else _read(source)
    if not data:
        raise IngestError("the file is empty (0 bytes)")
    if b"%PDF-" not in data[:1024]:
        kind = _content_kind(data)
        raise IngestError(f"not a PDF file: it holds {kind}" if kind else "not a PDF file (it does not start with a PDF header)")
    try:
        document = pymupdf.open(stream=data, filetype="pdf")
    except Exception as error:  # PyMuPDF raises several types for damaged files
        raise IngestError(f"the PDF is damaged and cannot be read ({error})") from error
    problem = _problem(document, data, max_pages)
    if problem:
        document.close()
        raise IngestError(problem)
    return document


def _problem(document: pymupdf.Document, data: bytes, max_pages: int | None) -> str | None:
    """Why an opened PDF still cannot be ingested, if it cannot."""
    if document.needs_pass or document.is_encrypted:
        return "the PDF is locked with a password: it cannot be opened without it; add an unlocked copy"
    # MuPDF rebuilds a file that lost its end from the objects it still finds, so a cut-off
    # download opens as a shorter document (or none): refuse it rather than read part of it.
    if document.is_repaired and _END_OF_FILE not in data[-1024:]:
        return (
            f"the file is incomplete: it stops after {len(data):,} bytes, before the end of the PDF "
            "(a download or copy that was cut short); add the whole file again"
        )
    if document.page_count == 0:
        return "the PDF has no pages"
    if max_pages is not None and document.page_count > max_pages:
        return f"the PDF has {document.page_count:,} pages, more than the limit of {max_pages:,} pages (setting max_pages)"
    return None


# What a file with a .pdf name holds instead, by its first bytes.
_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive (a Word .docx, Excel .xlsx or .zip file?)"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office document (.doc or .xls?)"),
    (b"{\\rtf", "an RTF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
)


def _content_kind(data: bytes) -> str | None:
    """What a file that is not a PDF holds, in words a user recognises; None if unknown."""
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    head = data[:4096]
    if head.lstrip().lower().startswith((b"<!doctype html", b"<html")):
        return "a web page (HTML)"
    if b"\x00" in head:
        return None
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.reason != "unexpected end of data":  # a character cut at the 4 KB mark is still text
            return None
    return "plain text"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise IngestError(f"cannot read the file ({error.strerror})") from error


#: Told before each scanned page is recognised: its page number, how many scanned pages
#: are done, and how many there are. OCR takes seconds a page, so callers show it.
OcrProgress = Callable[[int, int, int], None]


def _no_ocr_progress(page: int, done: int, total: int) -> None:
    return None


def read_pdf(source: Path | bytes, on_ocr_page: OcrProgress = _no_ocr_progress, max_pages: int | None = None) -> DocumentText:
    """Parse a PDF into a DocumentText; pages that are only a picture of text are read by OCR."""
    with open_pdf(source, max_pages) as document:
        pages = [_page_rows(page.get_text("rawdict", flags=0), n, page.rect) for n, page in enumerate(document, start=1)]
        sizes = [(page.rect.width, page.rect.height) for page in document]
        scanned = [n for n, rows in enumerate(pages, start=1) if not rows and ocr.has_image(document[n - 1])]
        unavailable = ocr.unavailable_reason() if scanned else None
        if unavailable is None:
            for done, number in enumerate(scanned):
                on_ocr_page(number, done, len(scanned))
                pages[number - 1] = _recognised_rows(document[number - 1], number)
    kept, removed = _drop_running_lines(pages, sizes)
    text = _assemble(kept, sizes)
    text.pages_without_text = [n for n, rows in enumerate(pages, start=1) if not rows]
    text.ocr_pages = [n for n in scanned if pages[n - 1]]
    text.ocr_unavailable = unavailable
    text.removed_lines = removed
    return text


# ---------------------------------------------------------------- page layout


def _page_rows(raw: dict, number: int, bounds: pymupdf.Rect) -> list[Row]:
    """The rows of one page in reading order, from PyMuPDF's "rawdict" of its text.

    The text is read with flags=0: MEDIABOX_CLIP drops whole glyphs near the left edge
    ("ARTICLE 2" read as "LE 2"); characters off the page are filtered in _line_row instead.
    """
    blocks: list[list[tuple[Row, bool]]] = []
    for block in raw["blocks"]:
        if block.get("type") != 0:
            continue
        rows = []
        for line in block["lines"]:
            row = _line_row(line, number, bounds)
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


def _recognised_rows(page: pymupdf.Page, number: int) -> list[Row]:
    """The rows of a scanned page, read by OCR: laid out level, boxed where they are printed."""
    recognised = ocr.recognise(page)
    rows = _page_rows(recognised.raw, number, recognised.bounds)
    return [Row(row.page, [_moved(word, recognised.to_page) for word in row.words], row.size, row.bold) for row in rows]


def _moved(word: Word, matrix: pymupdf.Matrix) -> Word:
    box = pymupdf.Rect(word.x0, word.y0, word.x1, word.y1) * matrix
    return Word(word.text, box.x0, box.y0, box.x1, box.y1)


def _line_row(line: dict, page: int, bounds: pymupdf.Rect) -> Row | None:
    """Split a PyMuPDF line into words using its character boxes."""
    words: list[Word] = []
    sizes: list[float] = []
    bold_chars = 0
    all_chars = 0
    current: list[str] = []
    box: list[float] = []

    def flush() -> None:
        if current:
            words.append(Word("".join(current), box[0], box[1], box[2], box[3]))
            current.clear()
            box.clear()

    for span in line["spans"]:
        is_bold = bool(span["flags"] & _BOLD_FLAG) or "bold" in span["font"].lower()
        for char in span["chars"]:
            c = char["c"]
            if c in _SPACE_CHARS:
                flush()
                continue
            if c in _DROPPED_CHARS or "\ue000" <= c <= "\uf8ff":
                continue
            if c == _SOFT_HYPHEN:
                c = "-"
            x0, y0, x1, y1 = char["bbox"]
            if not (bounds.x0 <= (x0 + x1) / 2 <= bounds.x1 and bounds.y0 <= (y0 + y1) / 2 <= bounds.y1):
                continue  # printed off the page
            if current:
                box[0], box[1] = min(box[0], x0), min(box[1], y0)
                box[2], box[3] = max(box[2], x1), max(box[3], y1)
            else:
                box.extend((x0, y0, x1, y1))
            current.append(c)
            sizes.append(span["size"])
            all_chars += 1
            bold_chars += is_bold
    flush()
    if not words:
        return None
    return Row(page, words, statistics.median(sizes), bold_chars * 2 > all_chars)


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


# ------------------------------------------------------ running headers/footers


_HEADING_START = re.compile(r"^(?:article|section|clause)\s+\w", re.IGNORECASE)


def _shape(text: str) -> str:
    """A line's text with numbers blurred, so 'Page 3 of 9' and 'Page 4 of 9' match.

    Headings keep their numbers: "ARTICLE 5" and "ARTICLE 6" at the top of two pages
    are content, not a running header.
    """
    text = text.lower().strip()
    return text if _HEADING_START.match(text) else re.sub(r"\d+", "#", text)


def _edge_rows(rows: list[Row], height: float, depth: int) -> list[Row]:
    """Rows that can be a running header or footer: the first and last few of the page,
    and any in its top or bottom margin. EDGAR exhibits print footers right after the
    last paragraph, mid-page, so position alone would miss them."""
    edge = {id(r) for r in rows[:depth] + rows[-depth:]}
    return [
        r for r in rows
        if id(r) in edge or r.y1 < height * _MARGIN_ZONE or r.y0 > height * (1 - _MARGIN_ZONE)
    ]


def _drop_running_lines(
    pages: list[list[Row]], sizes: list[tuple[float, float]]
) -> tuple[list[list[Row]], int]:
    """Remove running headers, footers and bare page numbers from every page."""
    counts: Counter[str] = Counter()
    for rows, (_, height) in zip(pages, sizes):
        counts.update({_shape(r.text) for r in _edge_rows(rows, height, 3)})
    pages_with_text = sum(1 for rows in pages if rows)
    repeat_floor = max(2, int(pages_with_text * 0.3)) if pages_with_text >= 2 else 10**9

    running = {shape for shape, count in counts.items() if count >= repeat_floor}

    def is_running(shape: str) -> bool:
        # The same footer is sometimes split into two rows on a few pages: a piece of a
        # frequent running line is running too.
        return shape in running or (len(shape) >= 12 and any(shape in r for r in running))

    kept_pages: list[list[Row]] = []
    removed = 0
    first_page = next((index for index, rows in enumerate(pages) if rows), 0)
    for index, (rows, (_, height)) in enumerate(zip(pages, sizes)):
        candidates = {id(r) for r in _edge_rows(rows, height, 3)}
        outermost = {id(r) for r in _edge_rows(rows, height, 2)}
        body = [r for r in rows if len(r.words) > 6] or rows
        left = statistics.median(r.x0 for r in body) if body else 0.0
        right = statistics.median(r.x1 for r in body) if body else 0.0
        centre, tolerance = (left + right) / 2, 0.12 * (right - left)
        kept: list[Row] = []
        dropped_number: int | None = None
        for row in rows:
            text = row.text.strip()
            drop = id(row) in candidates and (
                # a running header on the first page is the document's title: keep it there
                (is_running(_shape(text)) and (index != first_page or _PAGE_NUMBER.match(text) or row.y0 > height / 2))
                or _EDGAR_SOURCE_LINE.match(text)
                or (id(row) in outermost and _PAGE_NUMBER.match(text))
            )
            number = _CENTRED_PAGE_NUMBER.match(text)
            if not drop and number:
                # EDGAR prints the next page's number right under the centred one, not centred
                drop = abs((row.x0 + row.x1) / 2 - centre) < tolerance or _follows(dropped_number, text)
            dropped_number = _number(text) if drop and number else None
            if drop:
                removed += 1
            else:
                kept.append(row)
        kept_pages.append(kept)
    return kept_pages, removed


def _number(text: str) -> int | None:
    digits = re.sub(r"\D", "", text)
    return int(digits) if digits else None


def _follows(previous: int | None, text: str) -> bool:
    return previous is not None and _number(text) == previous + 1


# ------------------------------------------------------------- text assembly


def _vocabulary(pages: list[list[Row]]) -> Counter[str]:
    words: Counter[str] = Counter()
    for rows in pages:
        for row in rows:
            for word in row.words:
                words[word.text.strip(".,;:()[]\"'“”‘’").lower()] += 1
    return words


_HYPHEN_PREFIXES = frozenset(
    "non self co ex pre post anti cross semi quasi multi well third first second half full part long short "
    "follow sub re de".split()
)


def _hyphen_join(last: str, following: str, vocabulary: Counter[str]) -> str | None:
    """How a word broken across lines is rejoined: with its hyphen, without, or not at all.

    Returns the text to keep of the first part ("agree" or "non-"), or None when the line
    break is not a hyphenation. The document itself is the dictionary: a form seen
    elsewhere wins; a known prefix ("non-") or two real words ("pass-through") keep the
    hyphen; a fragment ("agree-" + "ment") is joined.
    """
    if len(last) < 3 or not last.endswith(_HYPHENS) or not last[-2].isalpha():
        return None
    if not following[:1].islower():
        return None
    head = last[:-1]
    tail_match = re.match(r"[\w']+", following)
    tail = (tail_match.group(0) if tail_match else following).lower()
    core = head.lstrip("(\"'“‘[").lower()
    joined, hyphenated = vocabulary[core + tail], vocabulary[f"{core}-{tail}"]
    if joined != hyphenated:
        return head if joined > hyphenated else head + "-"
    if core in _HYPHEN_PREFIXES or (vocabulary[core] and vocabulary[tail] > 1):
        return head + "-"
    return head


def _assemble(pages: list[list[Row]], sizes: list[tuple[float, float]]) -> DocumentText:
    vocabulary = _vocabulary(pages)
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
                joined_head = _hyphen_join(words[-1], following.words[0].text, vocabulary)
                if joined_head is not None:
                    words[-1] = joined_head
            for index, (word, text) in enumerate(zip(row.words, words)):
                if index:
                    parts.append(" ")
                    offset += 1
                parts.append(text)
                spans.append(WordSpan(row.page, offset, offset + len(text), word.x0, word.y0, word.x1, word.y1))
                offset += len(text)
            lines.append(
                TextLine(
                    row.page, line_start, offset, row.x0, row.y0, row.x1, row.size, row.bold,
                    " ".join(words), row.x1 >= wrap_zone,
                )
            )
            if joined_head is None:  # a hyphenated word continues on the next line without a break
                parts.append("\n")
                offset += 1
    text = "".join(parts)
    return DocumentText(text, lines, spans, len(pages), sizes, page_starts)
