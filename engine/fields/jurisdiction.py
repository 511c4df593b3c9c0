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
# Every sovereign state, plus the territories and UK nations contracts choose the law of.
# Written forms that differ from the name a user filters on map to that name.
_COUNTRY_NAMES = """
Afghanistan, Albania, Algeria, Andorra, Angola, Antigua and Barbuda, Argentina, Armenia, Australia, Austria,
Azerbaijan, Bahamas, Bahrain, Bangladesh, Barbados, Belarus, Belgium, Belize, Benin, Bhutan, Bolivia,
Bosnia and Herzegovina, Botswana, Brazil, Brunei, Bulgaria, Burkina Faso, Burundi, Cambodia, Cameroon, Canada,
Cape Verde, Central African Republic, Chad, Chile, Colombia, Comoros, Costa Rica, Croatia, Cuba, Cyprus,
Czech Republic, Denmark, Djibouti, Dominica, Dominican Republic, Ecuador, Egypt, El Salvador, Equatorial Guinea,
Eritrea, Estonia, Eswatini, Ethiopia, Fiji, Finland, France, Gabon, Gambia, Georgia, Germany, Ghana, Greece, Grenada,
Guatemala, Guinea, Guinea-Bissau, Guyana, Haiti, Honduras, Hungary, Iceland, India, Indonesia, Iran, Iraq, Ireland,
Israel, Italy, Jamaica, Japan, Jordan, Kazakhstan, Kenya, Kiribati, Kuwait, Kyrgyzstan, Laos, Latvia, Lebanon,
Lesotho, Liberia, Libya, Liechtenstein, Lithuania, Luxembourg, Madagascar, Malawi, Malaysia, Maldives, Mali, Malta,
Marshall Islands, Mauritania, Mauritius, Mexico, Micronesia, Moldova, Monaco, Mongolia, Montenegro, Morocco,
Mozambique, Myanmar, Namibia, Nauru, Nepal, Netherlands, New Zealand, Nicaragua, Niger, Nigeria, North Macedonia,
Norway, Oman, Pakistan, Palau, Panama, Papua New Guinea, Paraguay, Peru, Philippines, Poland, Portugal, Qatar,
Romania, Russia, Rwanda, Saint Kitts and Nevis, Saint Lucia, Saint Vincent and the Grenadines, Samoa, San Marino,
Saudi Arabia, Senegal, Serbia, Seychelles, Sierra Leone, Singapore, Slovakia, Slovenia, Solomon Islands, Somalia,
South Africa, South Korea, Spain, Sri Lanka, Sudan, Suriname, Sweden, Switzerland, Syria, Taiwan, Tajikistan,
Tanzania, Thailand, Togo, Tonga, Trinidad and Tobago, Tunisia, Turkey, Turkmenistan, Tuvalu, Uganda, Ukraine,
United Arab Emirates, United Kingdom, United States, Uruguay, Uzbekistan, Vanuatu, Venezuela, Vietnam, Yemen, Zambia,
Zimbabwe, England and Wales, England, Scotland, Wales, Northern Ireland, Hong Kong, Macau, Cayman Islands, Bermuda,
British Virgin Islands, Guernsey, Jersey, Isle of Man, Gibraltar, Puerto Rico, Curacao
"""
COUNTRIES = {name.strip(): name.strip() for name in _COUNTRY_NAMES.replace("\n", " ").split(",") if name.strip()}
COUNTRIES.update({
    "People's Republic of China": "People's Republic of China", "PRC": "People's Republic of China", "China": "People's Republic of China",
    "Mainland China": "People's Republic of China", "Korea": "South Korea", "Republic of Korea": "South Korea",
    "The Netherlands": "Netherlands", "Holland": "Netherlands", "Russian Federation": "Russia", "Viet Nam": "Vietnam",
    "Czechia": "Czech Republic", "UAE": "United Arab Emirates", "Dubai": "United Arab Emirates",
    "Republic of Ireland": "Ireland", "Hong Kong SAR": "Hong Kong", "Macao": "Macau", "BVI": "British Virgin Islands",
    "Great Britain": "United Kingdom", "U.K.": "United Kingdom", "UK": "United Kingdom",
    "United States of America": "United States", "U.S.A.": "United States", "USA": "United States", "U.S.": "United States",
})

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
    "Israeli": "Israel", "Indian": "India", "Irish": "Ireland", "Swedish": "Sweden", "Korean": "South Korea",
    "Singaporean": "Singapore", "Australian": "Australia", "Canadian": "Canada", "Brazilian": "Brazil",
    "Mexican": "Mexico", "Belgian": "Belgium", "Danish": "Denmark", "Norwegian": "Norway", "Finnish": "Finland",
    "Austrian": "Austria", "Polish": "Poland", "Russian": "Russia", "Greek": "Greece", "Portuguese": "Portugal",
    "Turkish": "Turkey", "Taiwanese": "Taiwan", "Thai": "Thailand", "Malaysian": "Malaysia", "Indonesian": "Indonesia",
    "Philippine": "Philippines", "Vietnamese": "Vietnam", "Cypriot": "Cyprus", "Maltese": "Malta",
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


# "governed by the laws of the state where a suit is filed ..., being either Illinois or New York":
# the chosen law is named later in a sentence that says what governs.
_GOVERNED_BY_LAWS = re.compile(r"\bgoverned\s+by\b.{0,40}\blaws?\b", re.IGNORECASE)
_NAMED_LATER = re.compile(rf"\b(?P<name>{_ALTERNATION})\b", re.IGNORECASE)


def jurisdiction_in(sentence: str) -> str | None:
    """The jurisdiction whose law a governing-law sentence chooses, as a gazetteer name."""
    sentence = " ".join(sentence.replace("\u2019", "'").split())
    if _AND_WALES.search(sentence):
        return "England and Wales"
    names = [_name(m.group("name")) for pattern in (_AFTER_LAWS, _THEREOF, _NAME_LAW) for m in pattern.finditer(sentence)]
    specific = [n for n in names if n not in _NATIONAL]
    if not specific:  # "the laws of the United States of America and of the State of Texas", or
        # "the internal laws, and not the laws regarding conflicts of laws, of the State of North Carolina"
        specific = [_name(m.group("name")) for m in _SUBDIVISION.finditer(sentence)]
    governed = _GOVERNED_BY_LAWS.search(sentence)
    if not specific and not names and governed:
        names = [_name(m.group("name")) for m in _NAMED_LATER.finditer(sentence, governed.end())]
    return _one_jurisdiction((specific or names or [None])[0])


def _one_jurisdiction(name: str | None) -> str | None:
    # English law is the law of England and Wales: one jurisdiction, however a contract names it
    return "England and Wales" if name == "England" else name


_ANY_NAME = re.compile(rf"\b(?P<name>{_ALTERNATION}|{'|'.join(_ADJECTIVES)})\b", re.IGNORECASE)


def jurisdiction_named(text: str) -> str | None:
    """A jurisdiction a short text names anywhere ("New York governing law"), as a gazetteer
    name; `jurisdiction_in` reads a whole governing-law sentence instead."""
    found = jurisdiction_in(text)
    if found is not None:
        return found
    match = _ANY_NAME.search(" ".join(text.replace("\u2019", "'").split()))
    return _one_jurisdiction(_name(match.group("name"))) if match else None


def _name(written: str) -> str:
    adjective = next((name for adj, name in _ADJECTIVES.items() if adj.lower() == written.lower()), None)
    return adjective or _NAMES[written.lower()]


_PREFIXES = re.compile(r"^(?:the\s+)?(?:state|commonwealth|province|(?:federal\s+)?republic|kingdom)\s+of\s+(?:the\s+)?", re.IGNORECASE)


def jurisdiction_key(name: str) -> str:
    """A comparable key: "Ontario, Canada", "Province of Ontario" -> "ontario"; "England; Wales" -> "england"."""
    first = _PREFIXES.sub("", re.split(r"[;,]", name.replace("\u2019", "'"))[0].strip())
    known = _NAMES.get(first.lower(), first).split(",")[0]
    return known.split(" and ")[0].lower()
