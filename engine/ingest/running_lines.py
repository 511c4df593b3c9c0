"""Remove running headers, footers and page numbers, so they never land inside a clause.

A footer repeated on every page would otherwise split sentences and pose as text of
whichever clause runs over the page break. A line is running when its shape (numbers
blurred) repeats at the edge of many pages; page numbers and EDGAR "Source:" lines go
wherever they sit near the edge, and centred page numbers mid-page too. A footer of several
rows is taken whole, from the page's edge inwards (`_widen_to_blocks`).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter

from engine.ingest.line_shapes import WORD
from engine.ingest.numbering import parse_marker
from engine.ingest.page_layout import Row

_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?[-–—(]?\s*(?:\d{1,4}|[ivxlc]{1,7})\s*[-–—)]?(?:\s*(?:of|/)\s*\d{1,4})?$",
    re.IGNORECASE,
)
# A page number printed mid-page: EDGAR conversions keep the original document's page
# numbers as centred lines between paragraphs.
_CENTRED_PAGE_NUMBER = re.compile(r"^(?:page\s*)?[-–—]?\s*\d{1,3}\s*[-–—]?$", re.IGNORECASE)
_EDGAR_SOURCE_LINE = re.compile(r"^source:\s.{3,120}\d{1,2}/\d{1,2}/\d{2,4}$", re.IGNORECASE)
_MARGIN_ZONE = 0.12  # top and bottom share of the page where running headers and footers live
_SIGNATURE_LINE = re.compile(r"^(?:by|name|title|its)\s*:|/s/", re.IGNORECASE)
_BLOCK_DEPTH = 8  # rows from a page's edge a footer or header of several rows may reach
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


def drop_running_lines(
    pages: list[list[Row]], sizes: list[tuple[float, float]]
) -> tuple[list[list[Row]], int]:
    """Remove running headers, footers and bare page numbers from every page."""
    counts: Counter[str] = Counter()  # shapes at the edge of each page
    block_rows: Counter[str] = Counter()  # shapes within _BLOCK_DEPTH rows of its top or bottom
    for rows, (_, height) in zip(pages, sizes):
        counts.update({_shape(r.text) for r in _edge_rows(rows, height, 3)})
        block_rows.update({_shape(r.text) for r in rows[:_BLOCK_DEPTH] + rows[-_BLOCK_DEPTH:]})
    pages_with_text = sum(1 for rows in pages if rows)
    repeat_floor = max(2, int(pages_with_text * 0.3)) if pages_with_text >= 2 else 10**9

    running = {shape for shape, count in counts.items() if count >= repeat_floor}
    # stricter than a running line: on half the pages, words, no clause number ("6.1.", "(e) - 4")
    in_blocks = {
        shape for shape, count in block_rows.items()
        if count >= max(4, pages_with_text / 2) and len(WORD.findall(shape)) >= 3 and parse_marker(shape) is None
        and not _SIGNATURE_LINE.search(shape)  # a joint filing's signature block on each of its pages
    }

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
        dropped: set[int] = set()
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
                dropped.add(id(row))
        _widen_to_blocks(rows, dropped, in_blocks, from_top=index != first_page)
        removed += len(dropped)
        kept_pages.append([row for row in rows if id(row) not in dropped])
    return kept_pages, removed


def _widen_to_blocks(rows: list[Row], dropped: set[int], in_blocks: set[str], from_top: bool) -> None:
    """A footer of several rows ("Proprietary and Confidential" / "This Agreement and information
    ..." / "party representatives ..." above the page number) reaches past the few edge rows
    the running lines are looked for in, and its upper rows were left inside whatever clause
    runs over the page break. From the page's edge inwards, rows that repeat at the edge of
    many pages join the dropped ones, up to the first row that does not."""
    for ordered in ((rows, rows[::-1]) if from_top else (rows[::-1],)):
        for row in ordered[:_BLOCK_DEPTH]:
            if id(row) not in dropped and _shape(row.text) not in in_blocks:
                break
            dropped.add(id(row))


def _number(text: str) -> int | None:
    digits = re.sub(r"\D", "", text)
    return int(digits) if digits else None


def _follows(previous: int | None, text: str) -> bool:
    return previous is not None and _number(text) == previous + 1

