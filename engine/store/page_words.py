"""One stored page's text and word boxes, the way citations read them.

A quote is found as character offsets in the document text; PageWords maps those offsets
back to the word rectangles on the page, so the viewer can highlight the quote.
"""

from __future__ import annotations

from collections.abc import Sequence


class PageWords(Sequence):
    """The text and word boxes of one page, as stored."""

    def __init__(self, row: dict) -> None:
        self.page: int = row["page"]
        self.width: float = row["width"]
        self.height: float = row["height"]
        self.text_start: int = row["text_start"]
        self.text: str = row["text"]
        self._columns = [row[k] for k in ("word_start", "word_end", "x0", "y0", "x1", "y1")]

    def __len__(self) -> int:
        return len(self._columns[0])

    def __getitem__(self, index):  # (start, end, x0, y0, x1, y1)
        return tuple(column[index] for column in self._columns)

    def overlapping(self, start: int, end: int) -> range:
        """Indexes of the words whose characters overlap [start, end) of the document text."""
        from bisect import bisect_left, bisect_right

        return range(bisect_right(self._columns[1], start), bisect_left(self._columns[0], end))
