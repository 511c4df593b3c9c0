"""Jurisdiction names: the governing-law sentence's "laws of the State of New York" -> "New York".

A gazetteer, not a guess: a name is only returned when it is a US state, a Canadian province,
a country or a UK nation the table knows, so a value is something a user can filter on.
"""

from __future__ import annotations

import re

US_STATES = [
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida", "Georgia",
    "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine", "Maryland",
    "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire",
    "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania",
    "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington",
    "West Virginia", "Wisconsin", "Wyoming", "District of Columbia",
]
CANADIAN_PROVINCES = [
    "Ontario", "Quebec", "British Columbia", "Alberta", "Manitoba", "Saskatchewan", "Nova Scotia", "New Brunswick",
    "Newfoundland and Labrador", "Prince Edward Island",
]
COUNTRIES = {
    "England and Wales": "England and Wales", "England": "England", "Scotland": "Scotland", "Wales": "Wales",
    "United Kingdom": "United Kingdom", "Northern Ireland": "Northern Ireland", "Ireland": "Ireland",
    "People's Republic of China": "People's Republic of China", "PRC": "People's Republic of China", "China": "People's Republic of China",
    "Hong Kong": "Hong Kong", "Taiwan": "Taiwan", "Japan": "Japan", "Korea": "Korea", "Republic of Korea": "Korea", "Singapore": "Singapore",
    "India": "India", "Israel": "Israel", "Germany": "Germany", "France": "France", "Netherlands": "Netherlands",
    "The Netherlands": "Netherlands", "Switzerland": "Switzerland", "Sweden": "Sweden", "Italy": "Italy", "Spain": "Spain",
    "Belgium": "Belgium", "Luxembourg": "Luxembourg", "Denmark": "Denmark", "Norway": "Norway", "Finland": "Finland",
    "Austria": "Austria", "Australia": "Australia", "New Zealand": "New Zealand", "Canada": "Canada", "Mexico": "Mexico",
    "Brazil": "Brazil", "Cayman Islands": "Cayman Islands", "Bermuda": "Bermuda", "British Virgin Islands": "British Virgin Islands",
    "United States": "United States", "United States of America": "United States", "U.S.A.": "United States", "USA": "United States",
    "Malaysia": "Malaysia", "Thailand": "Thailand", "Philippines": "Philippines", "South Africa": "South Africa",
    "Cyprus": "Cyprus", "Greece": "Greece", "Poland": "Poland", "Russia": "Russia", "Russian Federation": "Russia",
}

_NAMES: dict[str, str] = {}
for _state in US_STATES:
    _NAMES[_state.lower()] = _state
for _province in CANADIAN_PROVINCES:
    _NAMES[_province.lower()] = f"{_province}, Canada"
for _written, _name in COUNTRIES.items():
    _NAMES[_written.lower()] = _name
_NAMES["new york state"] = "New York"
_NAMES["commonwealth of massachusetts"] = "Massachusetts"

_ADJECTIVES = {
    "English": "England", "Scottish": "Scotland", "Swiss": "Switzerland", "German": "Germany", "Dutch": "Netherlands",
    "French": "France", "Italian": "Italy", "Spanish": "Spain", "Japanese": "Japan", "Chinese": "People's Republic of China",
    "Israeli": "Israel", "Indian": "India", "Irish": "Ireland", "Swedish": "Sweden", "Korean": "Korea",
    "Singaporean": "Singapore", "Australian": "Australia", "Canadian": "Canada",
}
_ALTERNATION = "|".join(sorted((re.escape(n) for n in _NAMES), key=len, reverse=True))
_PLACE = r"(?:the\s+)?(?:(?:State|Commonwealth|Province|Republic|Kingdom|Federal Republic|Emirate)\s+of\s+)?(?:the\s+)?"
# "the laws [and decisions] [in force] of/in [the] [State|Commonwealth|Province] of NAME"; a name
# right after "laws of" is what the contract chose, not a party's address.
_AFTER_LAWS = re.compile(
    rf"\blaws?\b(?:\s+and\s+\w+(?:\s+\w+)?)?(?:\s+(?:in\s+force|applicable|prevailing))?\s+(?:(?:of|in)\s+)?{_PLACE}(?P<name>{_ALTERNATION})\b",
    re.IGNORECASE,
)
_NAME_LAW = re.compile(rf"\b(?P<name>{_ALTERNATION}|{'|'.join(_ADJECTIVES)})\s+(?:substantive\s+)?laws?\b", re.IGNORECASE)
# "... in the State of Nevada and shall be governed by the laws thereof"
_THEREOF = re.compile(rf"\b(?:State|Commonwealth|Province)\s+of\s+(?P<name>{_ALTERNATION})\b(?=.*\blaws\s+(?:thereof|of\s+(?:such|that|said)\s+(?:state|province)))", re.IGNORECASE)
_SUBDIVISION = re.compile(rf"\b(?:State|Commonwealth|Province)\s+of\s+(?P<name>{_ALTERNATION})\b", re.IGNORECASE)
_AND_WALES = re.compile(r"\bEngland\s+(?:and|&)\s+Wales\b", re.IGNORECASE)
_NATIONAL = {"United States", "Canada"}  # federal law, usually alongside the state or province that decides


def jurisdiction_in(sentence: str) -> str | None:
    """The jurisdiction whose law a governing-law sentence chooses, as a gazetteer name."""
    sentence = " ".join(sentence.split())
    if _AND_WALES.search(sentence):
        return "England and Wales"
    names = [_name(m.group("name")) for pattern in (_AFTER_LAWS, _THEREOF, _NAME_LAW) for m in pattern.finditer(sentence)]
    specific = [n for n in names if n not in _NATIONAL]
    if not specific:  # "the laws of the United States of America and of the State of Texas", or
        # "the internal laws, and not the laws regarding conflicts of laws, of the State of North Carolina"
        specific = [_name(m.group("name")) for m in _SUBDIVISION.finditer(sentence)]
    return (specific or names or [None])[0]


def _name(written: str) -> str:
    adjective = next((name for adj, name in _ADJECTIVES.items() if adj.lower() == written.lower()), None)
    return adjective or _NAMES[written.lower()]


_PREFIXES = re.compile(r"^(?:the\s+)?(?:state|commonwealth|province|(?:federal\s+)?republic|kingdom)\s+of\s+(?:the\s+)?", re.IGNORECASE)


def jurisdiction_key(name: str) -> str:
    """A comparable key: "Ontario, Canada", "Province of Ontario" -> "ontario"; "England; Wales" -> "england"."""
    first = re.split(r"[;,]| and ", name.strip())[0].strip()
    first = _PREFIXES.sub("", first).lower()
    return {"prc": "people's republic of china", "china": "people's republic of china", "the netherlands": "netherlands"}.get(first, first)
