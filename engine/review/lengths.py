"""Lengths of time in a contract's words, as a playbook compares them: "thirty (30) days'
prior written notice" is 30 days; "successive one (1) year terms" is 1 year."""

from __future__ import annotations

import re

from engine.fields.term import period_after
from models.review import Length, Unit

_NOTICE = re.compile(r"\bnotice\b", re.I)
_UNITS = {"day": Unit.DAYS, "month": Unit.MONTHS, "year": Unit.YEARS}


def length_in(text: str) -> Length | None:
    """The length a sentence states: the one just before "notice" when it names a notice
    period, else its first one; None when it names none."""
    notice = _NOTICE.search(text)
    found = (period_after(text, notice.start()) if notice else None) or period_after(text, 0)
    return parse_length(found) if found else None


def parse_length(value: str) -> Length | None:
    """A field's length as stored ("successive 1 year", "30 day", "3 years") as a Length."""
    match = re.search(r"(\d+(?:\.\d+)?)\s*(day|month|year)s?\b", value, re.I)
    if match is None:
        return None
    return Length(amount=float(match.group(1)), unit=_UNITS[match.group(2).lower()])
