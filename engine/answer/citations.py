"""The citation check: a quote is kept only if the cited clause says it, word for word.

Deterministic, no model. A quote is matched against its clause after normalising
whitespace, quotes, case and hyphenation (a word broken across a line, "termi- nation",
matches "termination"). A kept citation carries the clause's own text at the matched span,
never the model's spelling, so it is verbatim by construction; it is then checked once more,
page by page, against the PDF's own text layer (what a reader, or a scorer, sees on that
page; on a scanned page, the text recognised from its image) and cut where the page does
not print it as one run (a word the engine rejoined across a hyphenated line break, say).
A quote across a page break keeps one part per page. Its rectangles come from the word
boxes stored at ingest: one per line, on every page the quote touches.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

import pymupdf

from engine.store.clause_store import ClauseStore
from engine.store.page_words import PageWords
from engine.text.normalise import locate, normalise, normalise_with_offsets
from models.answer import Citation, QuotePart, Rect
from models.clause import Clause

MIN_QUOTE_WORDS = 3  # a shorter fragment proves nothing and highlights noise
_KEPT_DOCUMENTS = 48  # documents whose page words a Citer holds: more than a listing cites at once


def find_quote(quote: str, text: str) -> tuple[int, int] | None:
    """The span of `text` that `quote` reproduces, or None if the text does not say it."""
    spans = locate(quote, text)
    if spans:
        return spans[0]
    return _locate_compact(quote, text)


def _locate_compact(quote: str, text: str) -> tuple[int, int] | None:
    """Match ignoring the spaces between letters: hyphenation and line breaks inside words."""
    target = normalise(quote).replace(" ", "")
    if len(target) < 12:
        return None
    normal, offsets = normalise_with_offsets(text)
    keep = [i for i, char in enumerate(normal) if char != " "]
    compact = "".join(normal[i] for i in keep)
    position = compact.find(target)
    if position < 0:
        return None
    return offsets[keep[position]], offsets[keep[position + len(target) - 1]] + 1


class Citer:
    """Makes checked citations for the clauses of the documents in one store."""

    def __init__(self, store: ClauseStore) -> None:
        self.store = store
        self._pages: OrderedDict[str, list[PageWords]] = OrderedDict()
        self._holding = threading.Lock()  # sessions of one app share a Citer
        self._file_names: dict[str, str] = {}
        self._recognised: dict[tuple[str, int], str] = {}  # normalised OCR text of scanned pages

    def cite(self, clause: Clause, quote: str, min_words: int = MIN_QUOTE_WORDS) -> Citation | None:
        """A citation for `quote` in `clause`, or None if the clause does not say it (or its
        pages print fewer than `min_words` of it verbatim)."""
        span = find_quote(quote, clause.text)
        if span is None:
            return None
        return self.cite_span(clause, *span, min_words=min_words)

    def cite_span(self, clause: Clause, start: int, end: int, min_words: int = MIN_QUOTE_WORDS) -> Citation | None:
        """A citation of clause.text[start:end] (clause-relative offsets), fitted to its pages."""
        start, end = _strip(clause.text, start, end)
        parts = self._printed_parts(clause, start, end, min_words)
        if not parts:
            return None
        start, end = parts[0][1], parts[-1][2]
        doc_start, doc_end = clause.char_start + start, clause.char_start + end
        rects = _rects(self._page_words(clause.doc_id), doc_start, doc_end)
        return Citation(
            doc_id=clause.doc_id,
            file_name=self._file_name(clause.doc_id),
            clause_id=clause.clause_id,
            ref=clause.ref,
            heading=clause.heading,
            page=parts[0][0],
            page_end=parts[-1][0],
            quote=clause.text[start:end],
            char_start=doc_start,
            char_end=doc_end,
            rects=rects,
            parts=[QuotePart(page=page, text=clause.text[s:e]) for page, s, e in parts],
        )

    # ------------------------------------------------------------ page fit

    def _printed_parts(self, clause: Clause, start: int, end: int, min_words: int) -> list[tuple[int, int, int]]:
        """(page, start, end) of the span page by page, as far as each page prints it verbatim;
        none when that is fewer than `min_words` words.

        The engine's text joins words hyphenated across lines and leaves out running headers,
        so a span of it may not be printed as one run on the page; such a span is cut at the
        last word that still is."""
        words = _word_bounds(clause.text, start, end)
        pages = self._page_words(clause.doc_id)
        starts = [p.text_start for p in pages]
        groups: list[tuple[int, list[tuple[int, int]]]] = []
        for word in words:
            page = pages[max(0, bisect_right(starts, clause.char_start + word[0]) - 1)].page if pages else clause.page_start
            if groups and groups[-1][0] == page:
                groups[-1][1].append(word)
            else:
                groups.append((page, [word]))
        parts: list[tuple[int, int, int]] = []
        for page, group in groups:
            printed = self._page_text(clause.doc_id, page)
            count = _longest_printed(group, lambda n: normalise(clause.text[group[0][0] : group[n - 1][1]]) in printed)
            if count:
                parts.append((page, group[0][0], group[count - 1][1]))
            if count < len(group):
                break
        kept = sum(len(normalise(clause.text[s:e]).split()) for _, s, e in parts)
        return parts if kept >= min_words else []

    def _page_text(self, doc_id: str, page: int) -> str:
        """Normalised text of a page as PyMuPDF reads the stored PDF.

        A scanned page has no text layer to read: what it prints is what text recognition
        read from its image at ingest, the page text the store keeps."""
        printed = printed_page(str(self.store.file_path(doc_id)), page)
        if printed:
            return printed
        if (doc_id, page) not in self._recognised:
            stored = next((p for p in self._page_words(doc_id) if p.page == page), None)
            self._recognised[doc_id, page] = normalise(stored.text) if stored is not None else ""
        return self._recognised[doc_id, page]

    def _file_name(self, doc_id: str) -> str:
        if doc_id not in self._file_names:  # every name in one read: a listing cites many contracts
            self._file_names = self.store.file_names()
        return self._file_names.get(doc_id, "")

    def prefetch(self, doc_ids: list[str]) -> None:
        """Read the page words of these documents in one query, ahead of citing in each."""
        with self._holding:
            missing = list(dict.fromkeys(d for d in doc_ids if d not in self._pages))
        if missing:
            self._keep(self.store.pages_of(missing))

    def _page_words(self, doc_id: str) -> list[PageWords]:
        with self._holding:
            pages = self._pages.get(doc_id)
            if pages is not None:
                self._pages.move_to_end(doc_id)
                return pages
        pages = self.store.pages(doc_id)
        self._keep({doc_id: pages})
        return pages

    def _keep(self, pages: dict[str, list[PageWords]]) -> None:
        """Hold these documents' pages, forgetting the least recently cited beyond _KEPT_DOCUMENTS."""
        with self._holding:
            self._pages.update(pages)
            while len(self._pages) > _KEPT_DOCUMENTS:
                forgotten, _ = self._pages.popitem(last=False)
                for key in [key for key in self._recognised if key[0] == forgotten]:
                    del self._recognised[key]


def _longest_printed(group: list, printed) -> int:
    """The largest n with printed(n) true (0 if none); printed is monotone in n."""
    if printed(len(group)):
        return len(group)
    low, high = 0, len(group)  # printed(low) holds (or low is 0), printed(high) does not
    while high - low > 1:
        middle = (low + high) // 2
        if printed(middle):
            low = middle
        else:
            high = middle
    return low


@lru_cache(maxsize=512)
def printed_page(path: str, page: int) -> str:
    """The normalised text of one page (1-based) as PyMuPDF reads the PDF itself; empty if the
    file or the page is gone. One page, not the whole file: an answer over many contracts cites
    a few pages of each."""
    if not Path(path).is_file():
        return ""
    with pymupdf.open(path) as pdf:
        return normalise(pdf[page - 1].get_text()) if 1 <= page <= pdf.page_count else ""


@lru_cache(maxsize=32)
def printed_pages(path: str) -> tuple[str, ...]:
    """The normalised text of each page as PyMuPDF reads the PDF itself (empty if it is gone)."""
    if not Path(path).is_file():
        return ()
    with pymupdf.open(path) as pdf:
        return tuple(normalise(page.get_text()) for page in pdf)


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and not text[start].isalnum() and text[start] not in "\"“'‘($":
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _word_bounds(text: str, start: int, end: int) -> list[tuple[int, int]]:
    bounds: list[tuple[int, int]] = []
    position = start
    for piece in text[start:end].split():
        begin = text.index(piece, position)
        bounds.append((begin, begin + len(piece)))
        position = begin + len(piece)
    return bounds


def _rects(pages: list[PageWords], start: int, end: int) -> list[Rect]:
    """One rectangle per printed line of the words inside [start, end) of the document text."""
    rects: list[Rect] = []
    for page in pages:
        for index in page.overlapping(start, end):
            _, _, x0, y0, x1, y1 = page[index]
            last = rects[-1] if rects else None
            same_line = last is not None and last.page == page.page and min(last.y1, y1) - max(last.y0, y0) > 0.5 * (y1 - y0)
            if same_line and x0 >= last.x0 - 1:
                last.x0, last.y0, last.x1, last.y1 = min(last.x0, x0), min(last.y0, y0), max(last.x1, x1), max(last.y1, y1)
            else:
                rects.append(Rect(page=page.page, x0=x0, y0=y0, x1=x1, y1=y1))
    return rects
