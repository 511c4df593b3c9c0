"""The parties, from the sentence that introduces them: "by and between National CineMedia, LLC,
a Delaware limited liability company (“NCM”), and Digital Cinema Destinations Corp. ...".

Each party is the name up to its first comma or parenthesis, with the short name the contract
gives it in quotes, if any.
"""

from __future__ import annotations

import re

from models.clause import Clause

MAX_PARTIES = 4
OPENING_CLAUSES = 6
OPENING_PAGES = 3  # a cover page and a table of contents can come before the opening sentence
_INTRODUCES = re.compile(r"\b(?:by\s+and\s+between|between|among|by\s+and\s+among)\s*:?\s+", re.IGNORECASE)
_NEXT_PARTY = re.compile(r"[,;]?\s+(?:-\s+)?(?:and|AND|And)\s*[:-]?\s+(?=[\w“\"'\[●•▪])")  # "and", "AND:", "- and -", "; and ● ..."
_ALIAS = re.compile(r"[\"“”']([^\"“”']{1,40})[\"“”']")
_COLLECTIVE_ALIASES = {"party", "parties", "agreement"}  # how the parties or the contract are named together, not a party
_NAME_END = re.compile(r",|\(|\s+a\s+(?:[A-Z][a-z]+\s+)*(?:corporation|company|limited|partnership|societ|bank|national)|\s+an?\s+(?:individual|entity)|\s+\(|\s+with\s+(?:its|a)\s|\s+having\s|\s+whose\s|\s+this\s+agreement\b|\s+whereas\b", re.IGNORECASE)
_NOT_A_PARTY = re.compile(r"\b(?:collectively|together|individually|singularly|referred|hereinafter|each\s+a)\b|^with\s|^(?:other|the\s+other)\b", re.IGNORECASE)
#: a form's blank where a party's name goes: "a [resident of] [corporation organized in] ...", "______",
#: "[ ]"; not a placeholder that says what goes there ("[INSERT NAME OF CONTRACTOR]"), which names the party
_BLANK = re.compile(r"an?\s+\[|_{3,}|\[[\s_.]*\]")
_LEADING = re.compile(r"^(?:the\s+following\s+parties\s*:?\s*|:\s*|\(\d\)\s*|\d\.\s*|[●•▪]\s*)", re.IGNORECASE)


def parties_in(clauses: list[Clause]) -> list[tuple[Clause, int, int, str]]:
    """(clause, start, end of the introducing words, "Name (“Alias”)") for each party the opening names."""
    opening = sorted((c for c in clauses if c.page_start <= OPENING_PAGES), key=lambda c: c.order)[:OPENING_CLAUSES]
    for clause in opening:
        for found in _INTRODUCES.finditer(clause.text):
            end = _statement_end(clause.text, found.end())
            parties = _split(" ".join(clause.text[found.end() : end].split()))
            if len(parties) >= 2:
                start = clause.text.rfind("\n", 0, found.start()) + 1
                return [(clause, start, end, party) for party in parties[:MAX_PARTIES]]
    return []


_ABBREVIATIONS = {"inc", "corp", "co", "ltd", "llc", "l.p", "n.a", "s.a", "b.v", "n.v", "plc", "no", "mr", "ms", "dr", "st", "u.s", "jr", "sr"}
_FULL_STOP = re.compile(r"\.\s+(?=[A-Z])")  # "Inc. (“Aduro”)": a parenthesis after a stop goes on with the name
WINDOW = 700


def _statement_end(text: str, start: int) -> int:
    """Where the sentence naming the parties ends: a full stop that does not close "Inc." or "N.A."."""
    for stop in _FULL_STOP.finditer(text, start, min(len(text), start + WINDOW)):
        word = text[max(start, stop.start() - 6) : stop.start()].split()[-1:] or [""]
        token = word[0].lower().strip("(,")
        if token not in _ABBREVIATIONS and len(token.replace(".", "")) > 2 and "." not in token:  # "Inc.", "N.A.", "P.R.C.", "S. Amphlett" go on
            return stop.start() + 1
    return min(len(text), start + WINDOW)


#: how a party's description goes on after "organized and": not a new party's name
_DESCRIPTION_GOES_ON = re.compile(r"(?:existing|organi[sz]ed|incorporated|having|its|with|located|doing|acting|represented)\b")


def _segments(text: str) -> list[str]:
    """The text split at each "and" that can start another party; a piece that goes on with a
    description ("existing under the laws of Israel (“MediWound”)", after "organized and")
    belongs to the party before it."""
    segments: list[str] = []
    for segment in _NEXT_PARTY.split(text):
        segment = _LEADING.sub("", segment.strip())
        if segments and _DESCRIPTION_GOES_ON.match(segment):
            segments[-1] += " and " + segment
        else:
            segments.append(segment)
    return segments


_NAMELIKE = re.compile(r"(?:the\s+)?(?:[A-Z0-9\[_]|[a-z]+[A-Z-]|\S*\.\w)")  # "Acme", "the Company", "3M", "mPhase", "e-centives", "ebix.com", a blank "[ ]"
_DESCRIPTION = re.compile(r"[a-z]+(?:\s+[a-z]+)+")  # words, all lower case: "professional golfer", not "ebix.com"


def _name(segment: str) -> str:
    """The party's name: up to its first comma or description, past a lower-case description
    that comes first ("professional golfer, TOM WATSON, (hereinafter ...)")."""
    while True:
        cut = _NAME_END.search(segment)
        name = segment[: cut.start()].strip(" ,.;:") if cut else segment.strip(" ,.;:")
        if not _DESCRIPTION.fullmatch(name) or cut is None or segment[cut.start()] != ",":
            return name
        segment = segment[cut.end():]


def _split(text: str) -> list[str]:
    parties = []
    for segment in _segments(text):
        name = _name(segment)
        if _BLANK.match(name):  # a form's party, whose name is left blank, is known by its alias
            if alias := _named_alias(segment):
                parties.append(alias)
            continue
        if not name or not re.search(r"[A-Za-z]{2}", name) or len(name.split()) > 10 or name.lower().startswith(("whereas", "the parties")):
            continue
        if not _NAMELIKE.match(name):  # "satellite facilities", "the hours of 8pm": words of a sentence, not a name
            continue
        alias = _ALIAS.search(segment)
        if _NOT_A_PARTY.search(name) or (alias and alias.group(1).strip().lower() in _COLLECTIVE_ALIASES):
            continue  # "collectively, the “Parties”": how the parties are named together, not a party
        parties.append(f"{name} (“{alias.group(1)}”)" if alias and alias.group(1) != name else name)
    return parties


def _named_alias(segment: str) -> str | None:
    """The last capitalised name a blank party is given: "(“you” or the “Franchisee”)" -> Franchisee."""
    names = [a.strip() for a in _ALIAS.findall(segment) if a.strip()[:1].isupper() and a.strip().lower() not in _COLLECTIVE_ALIASES]
    return names[-1] if names else None


_LEGAL_FORMS = {
    "inc", "llc", "corp", "corporation", "ltd", "limited", "co", "company", "the", "n", "a", "l", "p", "lp", "plc", "gmbh",
    "sa", "ag", "bv", "nv", "llp", "pty", "s", "de", "of", "and", "group", "holdings", "incorporated",
}


def name_tokens(text: str) -> list[str]:
    """A name's lower-case words and numbers: "Chase Bank USA, N.A." -> chase, bank, usa, n, a."""
    return re.findall(r"[a-z0-9]+", text.lower())


def party_key(name: str) -> list[str]:
    """The words that identify a party: "Chase Bank USA, N.A." -> ["chase", "bank", "usa"]."""
    bare = re.split(r"\(|[\"“]", name)[0]
    return [w for w in name_tokens(bare) if w not in _LEGAL_FORMS]


def name_words(party: str) -> set[str]:
    """The lower-case words a question may name a party by: its name less the legal form, and
    the whole short name the contract gives it ("National CineMedia, LLC (“NCM”)" -> national,
    cinemedia, ncm; "Acme Corp. (“Company”)" -> acme, company)."""
    alias = _ALIAS.search(party)
    words = set(party_key(party))
    if alias:
        words |= {w for w in name_tokens(alias.group(1)) if w != "the"}
    return words


def same_party(one: str, other: str) -> bool:
    first, second = party_key(one), party_key(other)
    return bool(first and second) and (first[0] == second[0] or set(first) <= set(second) or set(second) <= set(first))
