"""Text normalisation shared by span matching, citation checks and scoring.

The rule is the one ../shared/bench/FORMAT.md scores with: Unicode NFKC, lower case,
curly quotes straightened, every run of non-alphanumeric characters one space, trimmed.
`normalise_with_offsets` keeps, for each normalised character, the offset in the
original text it came from, so a match in normalised text maps back to the original.
"""

from __future__ import annotations

import unicodedata

_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "‚": "'", "′": "'"})


def normalise(text: str) -> str:
    return normalise_with_offsets(text)[0]


def normalise_with_offsets(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, its offset in `text`."""
    out: list[str] = []
    offsets: list[int] = []
    pending_space = False
    for index, char in enumerate(text):
        folded = unicodedata.normalize("NFKC", char.translate(_QUOTES)).lower()
        for piece in folded:
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
