"""How a line of contract text looks: a title, a short heading, a sentence running on.

Headings carry no mark-up in a PDF, so the segmenter tells them from body text by their
shape: short, capitalised, not ending mid-sentence. These tests are plain functions of
the text, shared by the heading rules, the special clauses and the table of contents.
"""

from __future__ import annotations

import re

MID_SENTENCE = re.compile(r"[\w,]\s*$")
SENTENCE_END = re.compile(r"[.:;)\]\"”]\s*$")
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
# The line that opens a signature block: "IN WITNESS WHEREOF", "Signed by ...".
SIGNATURES_START = re.compile(
    r"^(?:in\s+witness\s+where(?:of|for)|signature\s+page\b|signed\s+(?:\[|by\b|for\b|on\s+behalf\b))", re.I
)
# Small words that stay lower case in a Title Case heading.
_MINOR_WORDS = frozenset(
    "a an and as at by for from in into of on or the to upon with without under its their "
    "our your his her vs per".split()
)


def title_part(text: str, whole_line_allowed: bool = True) -> str:
    """'Termination for Cause. Either party may...' -> 'Termination for Cause'."""
    text = text.strip().lstrip("-–—: ")
    if not text:
        return ""
    if whole_line_allowed and (is_title(text) or is_short_heading(text)):
        return text.rstrip(".:")
    match = re.match(r"^(.{2,80}?)[.:](?:\s|$)", text)
    if match and is_title(match.group(1)) and match.group(1).count("(") == match.group(1).count(")"):
        return match.group(1).strip()
    return ""


def is_short_heading(text: str) -> bool:
    """A sentence-case heading standing alone: 'Return of Information and surviving obligations'."""
    words = WORD.findall(text)
    return (
        0 < len(words) <= 9
        and text[:1].isupper()
        and not re.search(r"[.;,:]$", text)
        and "," not in text
        and text[:1] not in "“\"'‘"
    )


def is_title(text: str) -> bool:
    """Short, capitalised and not a sentence: how headings look."""
    text = text.strip()
    words = WORD.findall(text)
    if not words or len(words) > 12 or text.endswith((",", ";")) or text[:1] in "“\"'‘":
        return False
    letters = [c for c in text if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) / len(letters) > 0.8:
        return True
    significant = [w for w in words if w.lower() not in _MINOR_WORDS]
    capitalised = sum(w[0].isupper() for w in significant)
    return bool(significant) and capitalised / len(significant) >= 0.75 and not re.search(r"[.;]\s+\S", text)
