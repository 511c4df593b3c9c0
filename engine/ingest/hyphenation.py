"""Rejoin words that the PDF broke across two lines with a hyphen.

"agree-" + "ment" must read "agreement" for search and quotes to match, but "non-" +
"exclusive" must keep its hyphen. The document itself is the dictionary: the counts of
every word form it prints decide each join.
"""

from __future__ import annotations

import re
from collections import Counter

from engine.ingest.page_layout import SOFT_HYPHEN, Row

_HYPHENS = ("-", SOFT_HYPHEN, "\u2010", "\u2011")


def vocabulary_of(pages: list[list[Row]]) -> Counter[str]:
    """How often the document prints each word form: the dictionary hyphen_join consults."""
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


def hyphen_join(last: str, following: str, vocabulary: Counter[str]) -> str | None:
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

