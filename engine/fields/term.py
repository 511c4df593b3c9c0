"""When the contract ends: a date it names, "perpetual" (it runs until someone ends it), or the
length of its term as written ("three (3) years from the Effective Date")."""

from __future__ import annotations

import re
from datetime import date

from engine.fields.dates import find_date, short_date
from engine.fields.sentences import Span, sentence_text
from models.clause import Clause, ClauseType

_ENDS = re.compile(r"\b(?:expire|expiration|terminat|end|until|through|continue|remain)\w*\b", re.I)
_TERM = re.compile(r"\b(?:term|expire|expiration|continue in (?:full )?(?:force|effect)|remain in (?:full )?(?:force|effect))\b", re.I)
_UNTIL_DATE = re.compile(r"\b(?:until|through|to and including|expire[sd]?\s+on|end(?:s|ing)?\s+on|terminate[sd]?\s+on|ending)\s+(?:the\s+)?(?:close\s+of\s+business\s+on\s+)?", re.I)
_PERPETUAL = re.compile(
    r"\bin\s+perpetuity\b|\bperpetual(?:ly)?\b|\bindefinite(?:ly)?\b|\buntil\s+(?:it\s+is\s+)?terminated\b|\bend\s+when\s+terminated\b|\bunless\s+and\s+until\s+terminated\b"
    r"|\buntil\s+(?:either|one|a)\s+party\b[^.;]{0,80}\bterminat", re.I)
_LENGTH = re.compile(
    r"\b(?:for\s+(?:a\s+(?:period|term)\s+of\s+|an?\s+(?:initial\s+)?(?:period|term)\s+of\s+)?|(?:period|term)\s+of\s+)"
    r"(?P<length>(?:\w+[- ])?(?:\w+\s+)?\(?\d+\)?\s+(?:calendar\s+)?(?:years?|months?|days?))", re.I)
_LENGTH_WORDS = re.compile(r"\b(?P<length>(?:one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty)\s+(?:\(\d+\)\s+)?(?:years?|months?))\b", re.I)


def expiration_in(sentences: list[Span], contract_date: date | None) -> tuple[Clause, int, int, str] | None:
    """(clause, start, end, value) for the sentence saying when the contract ends; value is
    "m/d/yy" (named, or the contract's date plus a term counted from it), "perpetual",
    or the term's length as written."""
    found = _expiration_sentence(sentences)
    if found is None:
        return None
    *span, value = found
    counted = _counted_from_start(sentence_text(span), value, contract_date)
    return *span, counted or value


_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
            "eleven": 11, "twelve": 12, "fifteen": 15, "eighteen": 18, "twenty": 20, "thirty": 30, "thirty-six": 36}
_FROM_START = re.compile(r"\b(?:from|after|following|of)\s+(?:the\s+)?(?:effective\s+date|date\s+(?:hereof|of\s+this\s+agreement|first\s+(?:written|stated|set\s+forth)\s+above)|execution)", re.I)
_COMMENCES = re.compile(r"\b(?:effective\s+(?:as\s+of\s+)?the\s+(?:effective\s+)?date|commence\w*\s+on\s+the\s+(?:effective\s+)?date|as\s+of\s+the\s+date)", re.I)


_RENEWS = re.compile(r"\b(?:renew\w*|extend\w*|extension)\b", re.I)
_RENEWAL_PERIOD = re.compile(r"\b(?:successive|additional|renewal|further|consecutive|like|year[- ]to[- ]year)\b", re.I)
_YEARLY = re.compile(r"\byear[- ]to[- ]year\b|\bannually\b", re.I)
_PERIOD = re.compile(
    r"(?:\b(?P<word>[a-z]+)[\s-]+)?(?:\((?P<digits>\d+)\)\s*|(?P<bare>\d+)[\s~-]*)?(?P<unit>year|month|day)s?\b", re.I
)


def renewal_in(sentences: list[Span]) -> tuple[Clause, int, int, str] | None:
    """(clause, start, end, value) for the sentence saying how long each renewal runs; value is
    "successive 1 year" for automatic successive renewals, else "1 year"."""
    for span in _term_clauses_first(sentences):
        sentence = sentence_text(span)
        renewal = _RENEWAL_PERIOD.search(sentence)
        if renewal is None or not _RENEWS.search(sentence):
            continue
        period = "1 year" if _YEARLY.search(sentence) else period_after(sentence, renewal.start())
        if period is not None:
            successive = re.search(r"\b(?:successive|consecutive)\b", sentence, re.I)
            return *span, f"successive {period}" if successive else period
    return None


def period_after(sentence: str, position: int) -> str | None:
    """The first "one (1) year" / "12 months" / "thirty day" length from a position, as "1 year"."""
    for match in _PERIOD.finditer(sentence, max(0, position - 40)):
        count = match.group("digits") or match.group("bare")
        number = int(count) if count else _NUMBERS.get((match.group("word") or "").lower())
        if number:
            unit = match.group("unit").lower()
            return f"{number // 12} year" if unit == "month" and number % 12 == 0 else f"{number} {unit}"
    return None


def _counted_from_start(sentence: str, length: str, start: date | None) -> str | None:
    """The end date when the term runs a whole number of years or months from the contract's date."""
    if start is None or "/" in length or length == "perpetual":
        return None
    if not (_FROM_START.search(sentence) or _COMMENCES.search(sentence)) or re.search(r"\blaunch|\bacceptance|\bfirst\s+(?:sale|shipment|commercial)", sentence, re.I):
        return None
    number = re.search(r"\((\d+)\)|\b(\d+)\b", length)
    count = int(next(g for g in number.groups() if g)) if number else _NUMBERS.get(length.split()[0].lower())
    if not count:
        return None
    months = count * 12 if "year" in length.lower() else count if "month" in length.lower() else None
    if months is None:
        return None
    total = start.year * 12 + start.month - 1 + months
    year, month = divmod(total, 12)
    return f"{month + 1}/{start.day}/{year % 100:02d}"


def _expiration_sentence(sentences: list[Span]) -> tuple[Clause, int, int, str] | None:
    """The first sentence saying when the contract ends; term and renewal clauses are read first."""
    for span in _term_clauses_first(sentences):
        sentence = sentence_text(span)
        if not _TERM.search(sentence) or not _ENDS.search(sentence):
            continue
        value = _ending(sentence)
        if value is not None:
            return *span, value
    return None


def _term_clauses_first(sentences: list[Span]) -> list[Span]:
    """The sentences of term and renewal clauses, then the rest, each in reading order."""
    return [s for s in sentences if _about_term(s[0])] + [s for s in sentences if not _about_term(s[0])]


def _about_term(clause: Clause) -> bool:
    return clause.clause_type in (ClauseType.TERM_TERMINATION, ClauseType.RENEWAL) or "term" in clause.heading.lower()


def _ending(sentence: str) -> str | None:
    for until in _UNTIL_DATE.finditer(sentence):
        found = _date(sentence[until.end() : until.end() + 40])
        if found is not None:
            return found
    if _PERPETUAL.search(sentence):
        return "perpetual"
    length = _LENGTH.search(sentence) or _LENGTH_WORDS.search(sentence)
    if length and re.search(r"\b(?:term|continue|remain|expire|effect)\b", sentence, re.I):
        return " ".join(length.group("length").split())
    return None


def _date(text: str) -> str | None:
    """The date the text starts with, as m/d/yy."""
    text = text.strip()
    found = find_date(text)
    return short_date(found[1]) if found and found[0].start() == 0 else None
