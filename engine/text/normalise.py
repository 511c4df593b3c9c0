"""Text normalisation shared by span matching, citation checks and scoring.

The rule is the one ../shared/bench/FORMAT.md scores with: Unicode NFKC, lower case,
curly quotes straightened, every run of non-alphanumeric characters one space, trimmed.
`normalise_with_offsets` keeps, for each normalised character, the offset in the
original text it came from, so a match in normalised text maps back to the original.
"""

from __future__ import annotations

import re
import unicodedata

_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "‚": "'", "′": "'"})


def normalise(text: str) -> str:
    return _NOT_ALNUM.sub(" ", text.translate(_FOLD)).strip()


def normalise_with_offsets(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, its offset in `text`."""
    if any(len(_FOLD[ord(char)]) != 1 for char in set(text)):
        return _normalise_by_character(text)  # a character folds to several ("ﬁ"): map offsets one by one
    folded = text.translate(_FOLD)  # one character each: folded[i] came from text[i]
    out: list[str] = []
    offsets: list[int] = []
    for run in _ALNUM_RUN.finditer(folded):
        start, end = run.span()
        if out:
            out.append(" ")
            offsets.append(start)  # a gap's space points at the character after it
        out.append(run.group())
        offsets.extend(range(start, end))
    return "".join(out), offsets


class _Folding(dict):
    """Code point -> what one character becomes (quotes straightened, NFKC, lower case), worked
    out once per character: `str.translate` applies it to every character of a text at C speed,
    and the result is the same as folding each character on its own, as FORMAT.md's rule does."""

    def __missing__(self, code: int) -> str:
        folded = unicodedata.normalize("NFKC", chr(code).translate(_QUOTES)).lower()
        self[code] = folded
        return folded


_FOLD = _Folding()
_NOT_ALNUM = re.compile(r"[\W_]+")  # \w is str.isalnum() and the underscore
_ALNUM_RUN = re.compile(r"[^\W_]+")


def _normalise_by_character(text: str) -> tuple[str, list[int]]:
    out: list[str] = []
    offsets: list[int] = []
    pending_space = False
    for index, char in enumerate(text):
        for piece in _FOLD[ord(char)]:
            if piece.isalnum():
                if pending_space and out:
                    out.append(" ")
                    offsets.append(index)
                pending_space = False
                out.append(piece)
                offsets.append(index)
            else:
                pending_space = True
    return "".join(out), offsets


def locate(needle: str, text: str, normalised: tuple[str, list[int]] | None = None) -> list[tuple[int, int]]:
    """Every (start, end) span of `text` whose normalised form equals normalised `needle`."""
    target = normalise(needle)
    if not target:
        return []
    haystack, offsets = normalised or normalise_with_offsets(text)
    spans = []
    position = haystack.find(target)
    while position >= 0:
        spans.append((offsets[position], offsets[position + len(target) - 1] + 1))
        position = haystack.find(target, position + 1)
    return spans
