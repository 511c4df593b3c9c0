"""When the contract was made and when it takes effect, each read from the sentence that says so.

The agreement date is the first date of the opening ("made as of March 14, 2011"). The effective
date is the date a sentence gives the defined "Effective Date" or says the agreement is
"effective as of"; a contract that names no other one takes effect on the date it is made, which
is how lawyers read it (CUAD labels that date as the effective date too).
"""

from __future__ import annotations

import re
from datetime import date

from engine.fields.sentences import Span, sentence_text
from models.fields import full_year

MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"], start=1)}
_MONTH = r"(?P<month>January|February|March|April|May|June|July|August|September|October|November|December)"
DATE_PATTERNS = [
    re.compile(rf"{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>(?:19|20)\d\d)", re.I),
    re.compile(rf"(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?{_MONTH},?\s+(?P<year>(?:19|20)\d\d)", re.I),
    re.compile(r"(?P<m>\d{1,2})/(?P<day>\d{1,2})/(?P<year>(?:19|20)?\d\d)\b"),
]
OPENING_CLAUSES = 4  # the title, preamble and first recitals: where a contract says when it is made
_EFFECTIVE = re.compile(
    r"[\"“]?Effective\s+Date[\"”]?\s*(?:shall\s+)?(?:mean|means|is|shall\s+be)\b|\beffective\s+(?:as\s+(?:of|from)|on|from)\b|[\"“]Effective\s+Date[\"”]", re.I
)
_RECITAL = re.compile(r"^(?:recitals?\s+)?(?:whereas|background|reference is (?:hereby )?made)\b", re.I)
_DATED = re.compile(r"\b(?:dated|as of|made|entered into|date[d:]?)\b", re.I)
_EFFECTIVE_REACH = 120  # characters between the words that say "effective" and the date they give


def find_date(text: str) -> tuple[re.Match, date] | None:
    """The first real calendar date written in the text, and where."""
    found = [m for m in (pattern.search(text) for pattern in DATE_PATTERNS) if m]
    for match in sorted(found, key=lambda m: m.start()):
        value = _calendar_date(match)
        if value is not None:
            return match, value
    return None


def short_date(value: date) -> str:
    """CUAD's way of writing a date: 3/14/11."""
    return f"{value.month}/{value.day}/{value.year % 100:02d}"


def agreement_date(sentences: list[Span]) -> tuple[Span, date] | None:
    """The first date in the opening clauses, with its sentence; else a date the first pages
    give the agreement ("Dated: ..."). A recital's date is another agreement's, not this one's."""
    first_pages = [s for s in sentences if s[0].page_start <= 2 and not _RECITAL.match(sentence_text(s))]
    page_one = dict.fromkeys(s[0].clause_id for s in first_pages if s[0].page_start == 1)  # in reading order
    opening = set(list(page_one)[:OPENING_CLAUSES])
    candidates = [s for s in first_pages if s[0].clause_id in opening]
    candidates += [s for s in first_pages if s[0].clause_id not in opening and _DATED.search(s[0].text[s[1] : s[2]])]
    for span in candidates:
        found = find_date(sentence_text(span))
        if found is not None:
            return span, found[1]
    return None


def effective_date(sentences: list[Span]) -> tuple[Span, date] | None:
    """A date the contract gives as the day it takes effect, with its sentence."""
    for span in sentences:
        sentence = sentence_text(span)
        for said in _EFFECTIVE.finditer(sentence):
            window = sentence[max(0, said.start() - _EFFECTIVE_REACH) : said.end() + _EFFECTIVE_REACH]
            found = find_date(window)
            if found is not None:
                return span, found[1]
    return None


def _calendar_date(match: re.Match) -> date | None:
    groups = match.groupdict()
    month = MONTHS[groups["month"].lower()] if groups.get("month") else int(groups["m"])
    try:
        return date(full_year(int(groups["year"])), month, int(groups["day"]))
    except ValueError:
        return None
