"""Find defined terms and where they are used.

A term is defined by a quoted, capitalised phrase ("cGMP" and "eBay Customer" count: one small
letter before a capital) in one of two forms (or, opening an entry of a list of definitions, an
unquoted one: "1.23 Field means ...", "(a) Affiliate: A company is ...", "1.4 Affiliate - a
business entity ...", or one that says "is":
'1.5 "Commencement Date" is the first business day ...'):
  - "X" means / shall mean / has the meaning / shall have the meaning / is defined as /
    refers to (with chains: "Control", "Controls" or "Controlled by" means ...), and with where
    the term holds said between: "X", as used in this Agreement, means ...
  - inline: (the "X"), (hereinafter "X"), ("X"), (such period, the "X"), each a "X",
    together the "X", referred to individually as a "X", known as the "X", shall constitute an "X"
Straight, curly and single quotes all count; "includes" never defines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

_OPEN = "\"“‘'`"
_CLOSE = "\"”’'"
# A term opens with a capital or a digit, or with one small letter before a capital ("cGMP",
# "eBay Customer", "kWh"): '"Current Good Manufacturing Practices" or "cGMP(s)" shall mean ...'
# must define both, and the clauses that use "cGMP" need its definition.
_TERM_START = r"(?:[A-Z0-9]|[a-z](?=[A-Z]))"
_QUOTED = rf"[{_OPEN}](?P<term{{n}}>{_TERM_START}[^{_OPEN}{_CLOSE}\n]{{0,79}}?(?:\n[^{_OPEN}{_CLOSE}\n]{{1,60}}?){{0,3}})[{_CLOSE}]{{1,2}}"


def _quoted(n: int) -> str:
    return _QUOTED.replace("{n}", str(n))


_VERB = (
    r"(?:shall\s+mean|means|mean|will\s+mean|shall\s+have\s+the\s+(?:respective\s+)?meanings?|"
    r"has\s+the\s+(?:respective\s+)?meanings?|have\s+the\s+(?:respective\s+)?meanings?|"
    r"(?:is|are|shall\s+be)\s+defined\s+(?:as|in)|shall\s+be\s+as\s+defined\s+in|(?:shall\s+)?refers?\s+to|shall\s+refer\s+to)\b"
)
_JOIN = r"\s*(?:,\s*)?(?:(?:or|and|and/or)\s+)?(?:the\s+)?"
# "as used herein", "as used in this Agreement": where the term holds, said between it and its verb
_AS_USED = (  # "in this Section 10.3": a dot only between digits
    rf"(?:as\s+(?:used|utili[sz]ed)\s+(?:herein|in\s+(?:this|the)\s+(?:[^,.;:()\n{_OPEN}{_CLOSE}]|(?<=\d)\.(?=\d)){{1,40}}?)\s*,?\s*)?"
)
# "Affiliate" of a Party means ...: whose the term is, between it and its verb
_OF_WHOM = r"(?:of\s+(?:a|an|any|either|each)\s+[A-Za-z]+\s*,?\s*)?"
# "X" [, "Y" or "Z"] [(optional aside)] [as used herein | of a Party] means ...
_MEANS = re.compile(
    rf"{_quoted(0)}(?P<more>(?:{_JOIN}[{_OPEN}]{_TERM_START}[^{_OPEN}{_CLOSE}\n]{{0,79}}[{_CLOSE}]){{0,4}}+)"
    rf"\s*,?\s*(?:\([^()]{{0,60}}\)\s*)?,?\s*{_AS_USED}{_OF_WHOM}(?:shall\s+|will\s+)?(?:{_VERB}|:)",
)
_INLINE_LEAD = (
    r"(?:the\s+|each\s+(?:a|an)\s+|individually\s*,?\s+(?:a|an)\s+|collectively\s*,?\s+(?:the\s+)?|"
    r"together\s*,?\s+(?:the\s+)?|hereinafter\s+(?:referred\s+to\s+as\s+|called\s+)?(?:the\s+)?|"
    r"referred\s+to\s+(?:herein\s+|hereinafter\s+)?as\s+(?:the\s+)?|herein\s*,?\s+|as\s+(?:the\s+)?|a\s+|an\s+|"
    # (such period, the "X"), (in such capacity, the "Agent"), (in either case, the "Specified Scope")
    rf"[a-z][^()\n{_OPEN}{_CLOSE},;]{{0,40}},\s*(?:the|a|an|each\s+(?:a|an))\s+)?"
)
# (the "X") or ("X" or "Y") -- the whole parenthesis is the definition
_PARENTHESISED = re.compile(
    rf"\(\s*{_INLINE_LEAD}{_quoted(0)}(?P<more>(?:{_JOIN}[{_OPEN}]{_TERM_START}[^{_OPEN}{_CLOSE}\n]{{0,79}}[{_CLOSE}]){{0,4}}+)\s*[,;]?\s*(?:[^()]{{0,40}})?\)",
)
# "..., the "X")": a term closing a parenthesis after a comma names what the parenthesis
# gathered, however the parenthesis began ("(collectively, (i) and (ii), the "Service Standard")")
_CLOSING_PARENTHESIS = re.compile(rf",\s*(?:the|a|an|each\s+(?:a|an))\s+{_quoted(0)}\s*\)")
# each a "Party", together the "Parties", referred to as "Licensee", known as the "Parties"
_LEAD_PHRASE = re.compile(
    rf"\b(?:each\s*,?\s+(?:a|an)|individually\s*,?\s+(?:a|an)|together\s*,?\s+(?:the)?|collectively\s*,?\s+(?:the)?|"
    rf"hereinafter\s+(?:referred\s+to\s+as|called)?\s*(?:the)?|"
    rf"referred\s+to\s+(?:herein\s+|hereinafter\s+)?(?:individually\s+|collectively\s+|together\s+)?as\s+(?:the|a|an)?|"
    rf"(?:individually|collectively|together)\s*,?\s+as\s+(?:the|a|an)?|"
    rf"known\s+(?:together\s+|collectively\s+)?as\s+(?:the)?|treat\s+this\s+as\s+(?:a|an|the)?|"
    rf"constitutes?\s+(?:a|an|the))\s*{_quoted(0)}(?!\s*\(as\s+(?:hereinafter\s+|herein\s+)?defined)",
    re.IGNORECASE,
)
# (the Purpose), (the Confidential Information): capitalised words in brackets, unquoted
_UNQUOTED_PARENTHESISED = re.compile(
    r"\((?:the|each\s+a|together\s+the|collectively\s+the)\s+(?P<term0>[A-Z][\w-]*(?:\s+(?:of\s+|for\s+|and\s+)?[A-Z][\w-]*){0,4})\)"
)
# A glossary row: the quoted term opens the line and its meaning follows, no verb.
_GLOSSARY_ROW = re.compile(
    rf"(?m)^\s*{_quoted(0)}\s*(?::\s*|[-–—]\s*)?(?=[A-Z(\[●•])"
)
_GLOSSARY_CUE = re.compile(
    r"definitions?|defined\s+terms|glossary|interpretation|following\s+(?:expressions|terms|words)"
    r"|unless\s+the\s+context\s+(?:otherwise\s+requires|requires\s+otherwise)"
    r"|(?:have|has|shall\s+have)\s+the\s+(?:following|respective)\s+(?:interpreted\s+)?meanings?",
    re.IGNORECASE,
)
# "X" has the meaning given to it in Clause 5.1 / set forth in Section 2.2 / is defined in ...
_POINTS_ELSEWHERE = re.compile(
    rf"\s*,?\s*{_AS_USED}(?:(?:shall\s+)?ha(?:s|ve)\s+the\s+(?:respective\s+)?meanings?\s+(?:given|set\s+(?:forth|out)|assigned|ascribed|specified|provided)"
    r"[^.;]{0,60}?\b(?:in|under|by)\s+(?:Section|Clause|Article|Paragraph|Schedule|Exhibit|§"
    r"|the\s+(?:introductory\s+paragraph|first\s+paragraph|preamble|recitals?)\b)"  # "... ascribed to it in the introductory paragraph"
    r"|(?:is|are|shall\s+be)\s+(?:as\s+)?defined\s+in\b)",  # "is defined in the preamble", "... in Section 2.6"
    re.IGNORECASE,
)
# In a list of definitions, an entry may name its term unquoted (the PDF set it in bold, and
# the text layer has no quotes): "1.23 Field means any human use ...", "1.5 Biologics License
# Application or BLA means ...", "1.15 Control (whether used as a noun or as a verb) or
# Controlled means ...". Only at the start of a clause in a glossary, where nothing else opens.
_UNQUOTED_WORD = r"[A-Z][\w’'&/-]*"
_UNQUOTED_TERM = rf"{_UNQUOTED_WORD}(?:\s+(?:(?:of|and|for|in|on|to|the|by|with)\s+)?{_UNQUOTED_WORD}){{0,6}}"
# the entry's own number, never a word: "1.23", "(c)", "iv.", "A." ("Net Sales means" is all term)
_ENTRY_NUMBER = r"(?:\(?\d+(?:\.\d+)*[.)]?|\((?:[A-Za-z]|[ivxlc]{1,5})\)|(?:[A-Za-z]|[ivxlc]{1,5})[.)])"
# where an entry of a list of definitions starts its term: after its own number, if any
_ENTRY_OPENING = rf"\A\s*(?:{_ENTRY_NUMBER}\s+)?"
_UNQUOTED_ENTRY = re.compile(
    rf"{_ENTRY_OPENING}(?P<term0>{_UNQUOTED_TERM})(?:\s+or\s+(?P<alternative>{_UNQUOTED_TERM}))?"
    rf"\s*(?:\([^()]{{0,60}}\)\s*)?(?:or\s+(?P<after_aside>{_UNQUOTED_TERM})\s*)?,?\s*(?P<verb>(?:shall\s+|will\s+)?{_VERB})"
)
# Two more forms only an entry of a list of definitions has (a clause whose parent opens the
# list; a clause that merely mentions "interpretation" or "definitions" is not one, and its
# "Captions: The captions ..." or "Definitions: The following ..." is a heading):
# "(a) Affiliate: A company is the Affiliate of another if ...": the term set apart by a colon,
# or by a dash: "1.4 Affiliate - a business entity now or hereafter controlled by ...";
_SET_APART_ENTRY = re.compile(
    rf"{_ENTRY_OPENING}(?!(?:Definitions?|Interpretations?)\b)(?P<term0>{_UNQUOTED_TERM})\s*(?:\([^()]{{0,30}}\)\s*)?"
    rf"(?::(?=\s*[A-Z{_OPEN}(])|\s[-–—]\s+(?=[\w{_OPEN}(]))"
)
# '1.5 "COMMENCEMENT DATE" is the first business day after ...': "is" where others say "means"
# (never "is defined in", which points elsewhere, nor "is used", which says how)
_ENTRY_IS = re.compile(
    rf"{_ENTRY_OPENING}{_quoted(0)}\s*,?\s+(?:is|are|shall\s+be)\s+(?!(?:as\s+)?defined\b|used\b|set\s+(?:forth|out)\b)"
)
_MORE_TERMS = re.compile(rf"[{_OPEN}]({_TERM_START}[^{_OPEN}{_CLOSE}\n]{{0,79}})[{_CLOSE}]")
_MAX_TERM_WORDS = 8


class Strength(IntEnum):
    """How authoritative a definition is, when a term is defined more than once."""

    POINTER = 0  # "X" has the meaning given in Section 3.1: the definition is elsewhere
    INLINE = 1  # (the "X")
    EXPLICIT = 2  # "X" means ...


@dataclass(frozen=True, slots=True)
class FoundDefinition:
    term: str
    start: int  # offset of the term in the text searched
    strength: Strength


def normalise_term(raw: str) -> str | None:
    """'Confidential\\nInformation,' -> 'Confidential Information'; None if not a term."""
    term = " ".join(raw.split()).strip(" ,.;:")
    if term.lower().startswith("the "):
        term = term[4:]
    term = re.sub(r"\((?:s|es|ies)\)$", "", term, flags=re.IGNORECASE).strip()  # "CUSTOMER(S)", "Party(ies)"
    if not term or not (term[0].isupper() or term[0].isdigit() or re.match(_TERM_START, term)):
        return None
    words = term.split()
    if len(words) > _MAX_TERM_WORDS or not any(c.isalpha() for c in term):
        return None
    if term.isdigit() or len(term) < 2:
        return None
    return _uncapitalise(term)


_MINOR = frozenset("a an and as at by for from in into of on or the to with".split())


def _uncapitalise(term: str) -> str:
    """A term defined in capitals is used in title case: "OUTSOURCING SERVICES" -> "Outsourcing Services".

    Acronyms ("HSNS", "FDA") stay as they are.
    """
    letters = [c for c in term if c.isalpha()]
    if not letters or not all(c.isupper() for c in letters) or (" " not in term and len(letters) <= 5):
        return term
    words = term.lower().split()
    return " ".join(w if i and w in _MINOR else w[:1].upper() + w[1:] for i, w in enumerate(words))


# A line that opens a definition: "Affiliate" means ... / "Disclosing Party" has the meaning ...
DEFINITION_OPENING = re.compile(rf"^[{_OPEN}]\s*(?P<term>{_TERM_START}[^{_OPEN}{_CLOSE}\n]{{0,80}}?)\s*[{_CLOSE}]{{1,2}}")
_DEFINING_VERB = re.compile(
    rf"\s*+(?:[,;]?\s*+(?:or|and)?\s*+(?:the\s+)?[{_OPEN}][^{_OPEN}{_CLOSE}]{{1,80}}[{_CLOSE}]\s*+)*+(?:\([^()]{{0,60}}\)\s*)?[,:]?\s*"
    rf"(?:(?:shall|will)\s+)?(?:{_VERB}|:|[-–—])",
    re.IGNORECASE,
)
_GLOSSARY_MEANING = re.compile(r"\s*[:\-–—]?\s*[A-Z(\[●•]")


def definition_opening(text: str, glossary: bool) -> str | None:
    """The term a line of definitions opens with, or None: '"Affiliate" means ...' -> 'Affiliate'.

    In a glossary the meaning may follow the quoted term with no verb.
    """
    match = DEFINITION_OPENING.match(text)
    if not match:
        return None
    after = text[match.end():]
    if not (_DEFINING_VERB.match(after) or (glossary and _GLOSSARY_MEANING.match(after))):
        return None
    return normalise_term(match.group("term"))


def is_glossary(heading: str, text: str) -> bool:
    """Does this clause open a table of definitions, where rows need no verb?"""
    return bool(_GLOSSARY_CUE.search(heading) or _GLOSSARY_CUE.search(text[:400]))


def find_definitions(text: str, glossary: bool = False, entry: bool = False) -> list[FoundDefinition]:
    """Every term defined in `text`, in order of appearance.

    In a glossary (see is_glossary) a quoted term at the start of a line defines itself. An
    `entry` of a list of definitions (its parent opens the list) may also set its term apart
    with a colon or a dash, or say "is" for "means".
    """
    found: dict[str, FoundDefinition] = {}

    def add(raw: str, start: int, strength: Strength) -> None:
        term = normalise_term(raw)
        if term and (term not in found or strength > found[term].strength):
            found[term] = FoundDefinition(term, start, strength)

    patterns = [
        (_MEANS, Strength.EXPLICIT),
        *([(_SET_APART_ENTRY, Strength.EXPLICIT), (_ENTRY_IS, Strength.EXPLICIT)] if entry else []),
        *([(_GLOSSARY_ROW, Strength.EXPLICIT)] if glossary else []),
        (_PARENTHESISED, Strength.INLINE), (_LEAD_PHRASE, Strength.INLINE),
        (_CLOSING_PARENTHESIS, Strength.INLINE), (_UNQUOTED_PARENTHESISED, Strength.INLINE),
    ]
    if glossary and (unquoted := _UNQUOTED_ENTRY.match(text)):
        strength = Strength.POINTER if _POINTS_ELSEWHERE.match(text, unquoted.start("verb")) else Strength.EXPLICIT
        for group in ("term0", "alternative", "after_aside"):
            if unquoted.group(group):
                add(unquoted.group(group), unquoted.start(group), strength)
    for pattern, strength in patterns:
        for match in pattern.finditer(text):
            points_elsewhere = pattern is _MEANS and _POINTS_ELSEWHERE.match(text, _after_terms(match))
            strength_here = Strength.POINTER if points_elsewhere else strength
            add(match.group("term0"), match.start("term0"), strength_here)
            more = match.groupdict().get("more") or ""
            for extra in _MORE_TERMS.finditer(more):
                add(extra.group(1), match.start("more") + extra.start(1), strength_here)
    return sorted(found.values(), key=lambda d: d.start)


def _after_terms(match: re.Match[str]) -> int:
    """Where the verb starts: just after the last quoted term of a definition."""
    return match.end("more") if match.group("more") else match.end("term0") + 1


class TermMatcher:
    """Finds uses of defined terms: whole word, capitalised as defined or all in capitals (a
    disclaimer or cap written in capitals uses "CONFIDENTIAL INFORMATION" and "THIRD PARTY"
    as the terms they are), plurals allowed."""

    def __init__(self, terms: list[str]) -> None:
        self._forms: dict[str, str] = {_spaced(term): term for term in terms}
        for term in terms:  # a term defined in capitals keeps its own form; short ones may be words
            if term != term.upper() and sum(c.isalpha() for c in term) >= _MIN_CAPITALS_LETTERS:
                self._forms.setdefault(_spaced(term.upper()), term)
        if not terms:
            self._pattern = None
            return
        # the longest term first: a regex takes the first alternative that matches, and "Holding
        # Company" (whose pattern allows "Companies") must not take "Holding Company Application";
        # ordered by the forms, not their patterns' lengths, and ties by name, so every run matches alike
        alternatives = list(dict.fromkeys(_term_pattern(f) for f in sorted(self._forms, key=lambda f: (-len(f), f))))
        self._pattern = re.compile(
            r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?:s|es|S|ES|['’]s|['’]S)?(?![\w-])"
        )

    def terms_in(self, text: str) -> list[str]:
        """The defined terms used in `text`, each once, in order of first use."""
        if self._pattern is None:
            return []
        used: dict[str, None] = {}
        for match in self._pattern.finditer(text):
            term = self._lookup(match.group(0))
            if term is not None:
                used.setdefault(term, None)
        return list(used)

    def _lookup(self, matched: str) -> str | None:
        form = _spaced(matched)
        s, es, ies, y = ("S", "ES", "IES", "Y") if form.isupper() else ("s", "es", "ies", "y")
        for candidate in (
            form,
            re.sub(r"['’][sS]$", "", form),
            form[: -len(s)] if form.endswith(s) else None,
            form[: -len(es)] if form.endswith(es) else None,
            form[: -len(ies)] + y if form.endswith(ies) else None,
        ):
            if candidate and candidate in self._forms:
                return self._forms[candidate]
        return None


_MIN_CAPITALS_LETTERS = 4  # "TERM", "PARTY" in capitals are the terms; "IP", "US" may be other words


def _spaced(text: str) -> str:
    return " ".join(text.split())


def _term_pattern(term: str) -> str:
    words = [re.escape(w) for w in term.split()]
    if term[-1:] in ("y", "Y") and len(term) > 2:
        last = re.escape(term.split()[-1][:-1])
        words[-1] = f"(?:{words[-1]}|{last}{'ies' if term[-1] == 'y' else 'IES'})"
    return r"\s+".join(words)
