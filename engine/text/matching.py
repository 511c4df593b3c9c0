"""Words and sentences of contract text, compared by a crude stem so that "terminate",
"terminated" and "termination" meet. Shared by ingest (fields read sentence by sentence) and by
the answer (which sentence covers a question best)."""

from __future__ import annotations

import re
from functools import lru_cache

WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_SENTENCE_END = re.compile(r"(?<=[.;:!?])[\"”’)]?\s+(?=[\"“(]?[A-Z0-9(])|\n(?=\s*\(?[a-z0-9ivx]{1,4}[.)]\s)")
_NUMBERING = re.compile(r"(?:(?:Section|Clause|Article)\s+)?(?:\d+(?:\.\d+)*\.?|\(?[a-zA-Z]{1,2}\)|\(?[ivxIVX]{1,5}\)|[a-z]\.)\s+")
_STEM_LENGTH = 6


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    # Cached: a question over hundreds of contracts stems every word of every clause once,
    # millions of calls over a vocabulary of a few tens of thousands.
    word = word.lower().strip("'-")
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > _STEM_LENGTH:
        return word[:_STEM_LENGTH]
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def stems(text: str) -> set[str]:
    return {stem(w) for w in set(WORD.findall(text))}


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence (and list item) spans of text[start:end], as offsets into `text`."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    position = start
    for match in _SENTENCE_END.finditer(text, start, end):
        if match.start() - position >= 2:
            spans.append((position, match.start()))
        position = match.end()
    if end - position >= 2:
        spans.append((position, end))
    return [(s, e) for s, e in (_trim(text, s, e) for s, e in spans) if e - s >= 2]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Without surrounding space and without the clause or item number it starts with."""
    while start < end and text[start].isspace():
        start += 1
    numbering = _NUMBERING.match(text, start, end)
    if numbering:
        start = numbering.end()
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
