"""Recognise the numbering marker at the start of a line: "ARTICLE IV", "4.2.1", "(b)", "Schedule A".

A marker says what kind of heading a line could be; whether it really starts a clause is
decided by the segmenter, which knows the numbering so far.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Style(StrEnum):
    ARTICLE = "article"  # ARTICLE IV / Article 4
    SECTION = "section"  # Section 4.2 / SECTION 5 / Clause 7
    DECIMAL = "decimal"  # 4.2 / 4.2.1.3 / 1.38.
    NUMBER = "number"  # 1. / 12.
    PAREN_LOWER = "paren_lower"  # (a)
    PAREN_ROMAN = "paren_roman"  # (iv)
    PAREN_UPPER = "paren_upper"  # (A)
    PAREN_UPPER_ROMAN = "paren_upper_roman"  # (IV)
    PAREN_NUMBER = "paren_number"  # (1)
    LETTER_DOT = "letter_dot"  # A. / a) / a.
    ROMAN_DOT = "roman_dot"  # iv. / IV.
    SCHEDULE = "schedule"  # Schedule A / Exhibit B / Annex 1 / Appendix


#: Styles whose numbers nest by dots, so "4.2.1" names its own parent "4.2".
DOTTED_STYLES = frozenset({Style.ARTICLE, Style.SECTION, Style.DECIMAL, Style.NUMBER})
#: Styles of enumerated list items, which nest by context.
LIST_STYLES = frozenset(
    {
        Style.PAREN_LOWER,
        Style.PAREN_ROMAN,
        Style.PAREN_UPPER,
        Style.PAREN_UPPER_ROMAN,
        Style.PAREN_NUMBER,
        Style.LETTER_DOT,
        Style.ROMAN_DOT,
    }
)

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")


def roman_value(numeral: str) -> int | None:
    """The value of a well-formed Roman numeral, or None."""
    numeral = numeral.lower()
    if not numeral or not _ROMAN.match(numeral):
        return None
    total = 0
    for current, following in zip(numeral, numeral[1:] + " "):
        value = _ROMAN_VALUES[current]
        total += -value if following != " " and _ROMAN_VALUES[following] > value else value
    return total


def article_as_number(ref: str) -> str:
    """An article's ref as the number it is ("Article IV" -> "4"); any other ref as it is."""
    label = ref.removeprefix("Article ")
    return ref if label == ref else str(int(label) if label.isdigit() else roman_value(label) or label)


def normalised_key(key: tuple[int, ...]) -> tuple[int, ...]:
    """'2.0' is how some contracts number top-level section 2."""
    while len(key) > 1 and key[-1] == 0:
        key = key[:-1]
    return key


def printed_with_dot(marker: Marker, line: str) -> bool:
    """A number printed "5." or "5 .", not a bare "5" or "5 FEES"."""
    return re.match(rf"{marker.label}\s?\.", line.strip()) is not None


def letter_value(letters: str) -> int:
    """a=1 ... z=26, aa=27 (lists that run past z double the letter)."""
    letters = letters.lower()
    if len(letters) == 2 and letters[0] == letters[1]:
        return 26 + ord(letters[0]) - ord("a") + 1
    return ord(letters[0]) - ord("a") + 1


@dataclass(frozen=True, slots=True)
class Marker:
    """A numbering marker found at the start of a line."""

    style: Style
    label: str  # as printed, without brackets or trailing period: "IV", "4.2", "b", "A"
    value: int  # position within its list: (b) -> 2, (iv) -> 4, 4.2 -> 2
    key: tuple[int, ...]  # dotted path for dotted styles: 4.2.1 -> (4, 2, 1)
    rest: str  # the text after the marker on the same line
    word: str = ""  # "Article", "Schedule", "Exhibit", ... for worded markers
    alternative: Marker | None = None  # "(i)" may be the letter i or the numeral one


_SCHEDULE_WORDS = "schedule|exhibit|annex|annexure|appendix|attachment|addendum"
_SPELLED = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
).split()
SPELLED_VALUES = {word: index for index, word in enumerate(_SPELLED, start=1)}
_SPELLED_PATTERN = "|".join(_SPELLED)
# A schedule's label: one letter, a number or a Roman numeral, optionally with a part
# number ("A-1"); never a word like "TO".
_SCHEDULE_LABEL = r"[a-z](?:-?\d{1,2})?|\d{1,2}(?:-\d{1,2})?|[ivx]{1,5}"
_PATTERNS: list[tuple[Style, re.Pattern[str]]] = [
    (Style.ARTICLE, re.compile(rf"^(article)\s+([ivxlcdm]+|\d{{1,3}}|{_SPELLED_PATTERN})\b\.?\s*[-–—:.]?\s*(.*)$", re.I)),
    (Style.SECTION, re.compile(rf"^(section|clause)\s+(\d{{1,3}}(?:\.\d{{1,3}})*|{_SPELLED_PATTERN})\b\.?\s*[-–—:.]?\s*(.*)$", re.I)),
    (Style.SCHEDULE, re.compile(
        rf"^({_SCHEDULE_WORDS})\b(?:\s+[\"“']?({_SCHEDULE_LABEL})[\"”']?(?![\w.]))?\s*([-–—:.]?)\s*(.*)$",
        re.I,
    )),
    (Style.DECIMAL, re.compile(r"^(\d{1,3}(?:\.\d{1,3})+)\.?(?:\s+(.*))?$")),
    (Style.DECIMAL, re.compile(r"^(\d{1,3}(?:\.\d{1,3})+)\.?((?=[A-Z“\"]).*)$")),  # "1.1Definitions"
    (Style.DECIMAL, re.compile(r"^(\d{1,2})\.\s(\d{1,2})\s+(?=[A-Z])(.*)$")),  # "2. 1 Lot 1" as printed
    (Style.DECIMAL, re.compile(r"^(\d{1,3}(?:\.\s\d{1,3})+)\.\s+(.*)$")),  # "2. 3. 8. 1. with respect to ..." as typed
    (Style.DECIMAL, re.compile(r"^(\d{1,3}\.[A-Z])\.\s+(.*)$")),  # "2.C. TERRITORIAL RIGHTS": section 2's third part
    (Style.NUMBER, re.compile(r"^(\d{1,3})\.(?:\s+(.*))?$")),
    (Style.NUMBER, re.compile(r"^(\d{1,3})\s\.\s+(.*)$")),  # "2 . Broker Dealer represents ..." as typed
    (Style.NUMBER, re.compile(r"^(\d{1,3})\.((?=[A-Z“\"]).*)$")),  # "5.Term of this Agreement"
    (Style.NUMBER, re.compile(r"^(\d{1,2})(?:\s+([A-Z].*))?$")),  # "1 Interpretation" in UK style
    (Style.PAREN_NUMBER, re.compile(r"^\((\d{1,2})\)\s*(.*)$")),
    (Style.PAREN_LOWER, re.compile(r"^\(([a-z]{1,2}|[ivxlc]{1,6})\)\s*(.*)$")),
    (Style.PAREN_UPPER, re.compile(r"^\(([A-Z]{1,2}|[IVXLC]{1,6})\)\s*(.*)$")),
    (Style.LETTER_DOT, re.compile(r"^([A-Z])\.\s+(.*)$")),
    (Style.LETTER_DOT, re.compile(r"^([a-z])[.)]\s*((?=[A-Z“\"]).*|\s.*)$")),
    (Style.ROMAN_DOT, re.compile(r"^([ivx]{1,5}|[IVX]{1,5})[.)]\s+(.*)$")),
]


def parse_marker(line: str) -> Marker | None:
    """The numbering marker at the start of `line`, if it has one."""
    text = line.strip()
    for style, pattern in _PATTERNS:
        match = pattern.match(text)
        if match:
            marker = _build(style, match)
            if marker is not None:
                return marker
    return None


def _build(style: Style, match: re.Match[str]) -> Marker | None:
    groups = match.groups()
    if style is Style.ARTICLE:
        word, label, rest = groups
        value = _number_value(label)
        if value is None:
            return None
        return Marker(style, label, value, (value,), rest or "", word)
    if style is Style.SECTION:
        word, label, rest = groups
        if label.lower() in SPELLED_VALUES:
            key: tuple[int, ...] = (SPELLED_VALUES[label.lower()],)
        else:
            key = tuple(int(p) for p in label.split("."))
        return Marker(style, label, key[-1], key, rest or "", word)
    if style is Style.SCHEDULE:
        word, label, separator, rest = groups
        label = (label or "").upper()
        if not label and rest and not separator:
            return None  # "Schedule of Fees", "Addendum Number: 3": a phrase, not a schedule heading
        return Marker(style, label, _schedule_value(label), (), rest or "", word)
    if style is Style.DECIMAL:
        if len(groups) == 3:  # "2. 1 Lot 1"
            label = f"{groups[0]}.{groups[1]}"
            rest = groups[2]
        else:
            label, rest = groups
            label = label.replace(" ", "")
        key = tuple(int(p) if p.isdigit() else letter_value(p) for p in label.split("."))
        return Marker(style, label, key[-1], key, rest or "")
    if style is Style.NUMBER:
        label, rest = groups
        value = int(label)
        return Marker(style, label, value, (value,), rest or "")
    label, rest = groups[0], (groups[1] or "").strip()
    if style is Style.PAREN_NUMBER:
        return Marker(style, label, int(label), (), rest)
    if style is Style.PAREN_LOWER:
        return _letter_or_roman(Style.PAREN_LOWER, Style.PAREN_ROMAN, label, rest)
    if style is Style.PAREN_UPPER:
        return _letter_or_roman(Style.PAREN_UPPER, Style.PAREN_UPPER_ROMAN, label, rest)
    if style is Style.LETTER_DOT:
        return Marker(style, label, letter_value(label), (), rest)
    if style is Style.ROMAN_DOT:
        value = roman_value(label)
        return Marker(style, label, value, (), rest) if value else None
    return None


def _number_value(label: str) -> int | None:
    if label.isdigit():
        return int(label)
    return SPELLED_VALUES.get(label.lower()) or roman_value(label)


def _letter_or_roman(letter_style: Style, roman_style: Style, label: str, rest: str) -> Marker | None:
    """"(i)", "(v)", "(x)", "(c)" are both letters and numerals; keep both readings."""
    is_letter = len(label) == 1 or (len(label) == 2 and label[0] == label[1])
    roman = roman_value(label)
    letter = Marker(letter_style, label, letter_value(label), (), rest) if is_letter else None
    numeral = Marker(roman_style, label, roman, (), rest) if roman else None
    if letter and numeral:
        return Marker(letter.style, label, letter.value, (), rest, alternative=numeral)
    return letter or numeral


def _schedule_value(label: str) -> int:
    head = label.split("-")[0]
    if head.isdigit():
        return int(head)
    if head and head.isalpha() and len(head) <= 2:
        return roman_value(head) or letter_value(head)
    return 0
