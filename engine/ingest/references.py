"""Find explicit cross-references in clause text and resolve them to clauses.

Handles Section(s), §, Clause, Article, Paragraph, Schedule, Exhibit, Annex, Appendix,
Attachment; subclauses ("8.1(b)(ii)"); ranges ("2.1 through 2.4", "2.1 to 2.4",
"2.1-2.4"); lists ("Sections 4.2 and 4.3", "Sections 3, 4 and 7"); relative subclauses
("paragraph (b)"); and labels written with no keyword that "above" or "below" marks as
references ("(a), (b) and (c) above", "1.3 above", "3(a) below"). References to other
instruments ("Section 365(n) of the Bankruptcy Code", "Article 5 of the Purchase Agreement")
are recognised and left out.

A reference resolves to the most specific clause that exists: 8.1(b)(ii), else 8.1(b), else
8.1, else 8.1's parts. One that matches no clause is kept and counted as unresolved. A reference
written "above" (or "below") only resolves to a clause printed before (or after) it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.ingest.numbering import article_as_number, letter_value, roman_value

_KEYWORD = (
    r"(?P<kw>\b(?i:sections?|clauses?|articles?|paragraphs?|sub-?sections?|sub-?paragraphs?|sub-?clauses?|"
    r"schedules?|exhibits?|annex(?:es|ures?)?|appendix|appendices|attachments?)|§§?)"
)
_SUB = r"(?:\s?\((?:[a-z]{1,3}|[ivxlc]{1,6}|[A-Z]{1,2}|\d{1,2})\))"
_NUMBER = rf"(?:\d{{1,3}}\.[A-Z](?![\w&])\.?{_SUB}*|\d{{1,3}}(?:\.\d{{1,3}})*\.?{_SUB}*|[IVXLC]{{1,6}}\b{_SUB}*|[A-Z](?:-?\d{{1,2}})?\b|[\"“'‘][A-Z0-9]{{1,3}}[\"”'’]|{_SUB}+)"
_SEPARATOR = r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or|and/or|through|thru|to)\s|\s*[-–—]\s*|&)\s*"
_REFERENCE = re.compile(
    rf"{_KEYWORD}\s*(?P<items>{_NUMBER}(?:{_SEPARATOR}(?:(?i:sections?|clauses?|articles?|paragraphs?)\s*|§\s*)?{_NUMBER})*)"
)
_ITEM = re.compile(_NUMBER)
_SCHEDULE_KINDS = ("schedule", "exhibit", "annex", "annexure", "appendix", "attachment")
_RANGE_WORDS = re.compile(r"^\s*(?:through|thru|to|[-–—])\s*$", re.IGNORECASE)
# "Section 365(n) of the United States Bankruptcy Code": what follows names another instrument.
_EXTERNAL_LEAD = re.compile(r"\s*(?:\([^)]{0,20}\)\s*)*(?:,\s*)?(?:of|under|in|to)\s+(?:the\s+)?(?!this\b|these\b|hereof\b|herein\b)")
_NAME_WORD = re.compile(r"(?:[A-Z0-9][\w.&'’-]*|of|and|for|on)\b")
_INSTRUMENT = re.compile(
    r"\b(?:Act|Code|Regulations?|Rules?|U\.?S\.?C\.?|Laws?|Statutes?|Directive|Convention|Treaty|Constitution|"
    r"Agreement|Plan|Tariff|Conditions|Terms|Indenture|Certificate|Charter|By-?laws|Statement|Policy|Lease|Note|Guidelines)\b"
)
_EXTERNAL_BEFORE = re.compile(r"(?:U\.\s?S\.\s?C\.?|C\.\s?F\.\s?R\.?|USC|CFR|Code|Act|Regulations?)\s*$", re.IGNORECASE)
_OTHER_DOCUMENT = re.compile(r"^\s*(?:\([^)]{0,20}\)\s*)*(?:of|to|in)\s+(?:the|that|such|any|each)\s+(?!Agreement\b)[A-Z][\w-]*", re.UNICODE)
# "... as provided in 3(a) above", "(a), (b) and (c) above", "outlined in 4.1 above": a label with no
# keyword is a reference only when "above" or "below" follows it. A bare "5" is not taken (it is
# as often a count: "Categories 1 and 2 above"); the label needs a dot or a bracketed part.
# It starts a word of its own: not the "(a)" of "Section 3 (a)", nor a digit of "$1.5" or "12.2.1".
_BARE_LABEL = rf"(?:\d{{1,3}}(?:\.\d{{1,3}})+{_SUB}*|\d{{1,3}}{_SUB}+|\((?:[a-z]{{1,3}}|[ivxlc]{{1,6}}|[A-Z]{{1,2}}|\d{{1,2}})\){_SUB}*)"
_ANCHORED = re.compile(
    rf"(?<![\w.,$§(/-])(?<!\d\s)(?P<items>{_BARE_LABEL}(?:{_SEPARATOR}{_BARE_LABEL})*)(?=\s*,?\s*(?:above|below)\b)"
)
# A bare number with no keyword ("1.3 above") is a reference after a word that leads to one
# ("outlined in 1.3 above"), not after "at" or a noun ("payable at 1.5 above the prime rate").
_LEADS_TO_NUMBER = re.compile(r"\b(?:in|under|of|to|with|by|per|see|and|or|from|than|pursuant)\s+$", re.IGNORECASE)
# What follows a reference and says where its target is printed: "Section 9.1 above".
_DIRECTION = re.compile(r"\s*,?\s*(above|below)\b")
_GROUP = re.compile(r"\(([^)]*)\)")
#: A range expands into at most this many clauses between its ends; a longer one keeps only its
#: ends, so one misread reference cannot flood the graph. The longest real range in the CUAD dev
#: contracts, "Sections 1 and 5 through 30", has 24 between its ends.
MAX_RANGE = 30


@dataclass(frozen=True, slots=True)
class FoundReference:
    """One target of a cross-reference as written in the text."""

    text: str  # the whole reference as written: "Sections 2.1 through 2.4"
    kind: str  # section | article | schedule | exhibit | annex | annexure | appendix | attachment | relative
    target: str  # the label of this one target: "2.3", "III", "A", "(b)"
    start: int  # where this target's label is printed in the text
    # "above" or "below" when the text says where the target is printed, kept for the labels that
    # alone do not say which clause they mean: a bare "(b)", or "1.3" with no keyword
    direction: str = ""


def find_references(text: str) -> list[FoundReference]:
    """Every internal cross-reference in `text`, ranges expanded into their end points."""
    found: list[FoundReference] = []
    covered: list[tuple[int, int]] = []
    for match in _REFERENCE.finditer(text):
        covered.append(match.span())
        if not _is_external(text, match):
            found += _members(text, match, _kind(match.group("kw").lower()), worded=True)
    for match in _ANCHORED.finditer(text):
        if any(start <= match.start() < end for start, end in covered):
            continue
        if match.group("items").startswith("(") or _LEADS_TO_NUMBER.search(text[max(0, match.start() - 12) : match.start()]):
            found += _members(text, match, "section", worded=False)
    return sorted(found, key=lambda reference: reference.start)


def _members(text: str, match: re.Match[str], kind: str, worded: bool) -> list[FoundReference]:
    """One FoundReference per member of a list or range: "Sections 4.1, 4.2 and 4.5" has three.

    A bare "(c)" after "3.2(b)" is 3.2(c): it replaces as many bracketed parts of the member
    before it as it has. In a worded reference, a bare "(C)" that is really the next item of
    an enumeration around it ("under Section 4.2(a), or (C) any changes") ends the list.
    """
    items_text = match.group("items")
    written = " ".join(match.group(0).split()).rstrip(".")
    after = _DIRECTION.match(text, match.end())
    direction = after.group(1).lower() if after else ""
    found: list[FoundReference] = []
    previous_end = 0
    previous = ""  # the member before, as resolved against its predecessors: "7.2(b)"
    for index, item in enumerate(_ITEM.finditer(items_text)):
        label = item.group(0).strip().strip("\"“”'‘’").rstrip(".")
        between = items_text[previous_end : item.start()]
        previous_end = item.end()
        is_range_end = index > 0 and bool(_RANGE_WORDS.match(between))
        if label.startswith("(") and previous:
            numbered = not previous.startswith("(")  # "clauses (a) and (g)" is a list whatever it skips
            if worded and numbered and not is_range_end and _is_enumeration(text, match.start(), previous, label):
                break
            label = _with_base(previous, label)
        previous = label
        # "Article VIII, Section 1": a keyword between items changes the kind
        inner = re.search(r"(sections?|clauses?|articles?|paragraphs?|§)\s*$", between, re.IGNORECASE)
        item_kind = _kind(inner.group(1).lower()) if inner else kind
        if item_kind in _SCHEDULE_KINDS and not _schedule_label(label):
            continue  # "Schedule(s)", "Exhibit (k)(1)"
        if label.startswith("("):
            item_kind = "relative"
        found.append(
            FoundReference(
                written, f"{item_kind}-range-end" if is_range_end else item_kind, label,
                match.start("items") + item.start() + len(item.group(0)) - len(item.group(0).lstrip()),
                direction if (label.startswith("(") or not worded) else "",
            )
        )
    return found


def _with_base(previous: str, member: str) -> str:
    """ "(iii)" after "3.1(d)(ii)" is 3.1(d)(iii); "(a)(iii)" after "4.1(a)(i)" is 4.1(a)(iii)."""
    groups = len(_GROUP.findall(member))
    base = re.sub(r"\s+", "", previous)
    for _ in range(groups):
        if "(" not in base:
            break
        base = base[: base.rindex("(")]
    return base + member


def _is_enumeration(text: str, start: int, previous: str, member: str) -> bool:
    """Is a bare "(C)" after "Section 4.2(a), or" the next item of the text's own enumeration?

    It is not when it is the very next of the part it replaces ("3.2(b) or (c)"). It is when
    it does not come after that part in any numbering ("(a)" then "(C)", "(f)" then "(b)", "(a)"
    then "(2)"), or when the item before it ("(B)") is printed as an enumeration marker just
    before the reference.
    """
    replaced, first = _GROUP.findall(previous)[-1:], _GROUP.findall(member)[0]
    if replaced and len(_GROUP.findall(member)) == 1:
        if _follows(replaced[0], first, step=1):
            return False
        if not _follows(replaced[0], first):
            return True
    before = text[max(0, start - 300) : start]
    return any(re.search(rf"(?<![\w)])\({re.escape(marker)}\)", before) for marker in _predecessors(first))


def _values(marker: str) -> dict[str, int]:
    """The positions a list marker can stand for, by numbering: "i" is the letter i or the numeral one."""
    if marker.isdigit():
        return {"digit": int(marker)}
    case = "upper" if marker.isupper() else "lower"
    values: dict[str, int] = {}
    if len(marker) == 1 or (len(marker) == 2 and marker[0] == marker[1]):
        values[f"letter-{case}"] = letter_value(marker)
    roman = roman_value(marker)
    if roman:
        values[f"roman-{case}"] = roman
    return values


def _follows(previous: str, member: str, step: int = 0) -> bool:
    """Does `member` come after `previous` (exactly `step` places after, if given) in some
    numbering both can be read in?"""
    before, after = _values(previous), _values(member)
    return any(
        after[system] - value == step if step else after[system] > value
        for system, value in before.items()
        if system in after
    )


def _predecessors(marker: str) -> list[str]:
    """The markers just before this one, in each numbering it can be read in: "v" -> "iv", "u"."""
    found = []
    for system, value in _values(marker).items():
        if value <= 1:
            continue
        if system == "digit":
            found.append(str(value - 1))
        elif system.startswith("roman"):
            found.append(_roman(value - 1, upper=marker.isupper()))
        elif len(marker) == 1:
            found.append(chr(ord(marker) - 1))
    return found


def _roman(value: int, upper: bool) -> str:
    """Small Roman numerals (list markers rarely pass xxxix)."""
    numeral = ""
    for amount, digits in ((10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while value >= amount:
            numeral += digits
            value -= amount
    return numeral.upper() if upper else numeral


def written_inline(reference: FoundReference, text: str, references: list[FoundReference]) -> bool:
    """Is "(a) above" an item of `text`'s own enumeration ("(c) if options (a) and (b) above
    cannot be accomplished"), printed where the reference says, rather than a clause?

    `references`: all found in `text`; a "(a)" that is itself one of them is no item.
    """
    if not reference.direction or not reference.target.startswith("("):
        return False
    marker = re.escape(reference.target[: reference.target.index(")") + 1])
    cited = {other.start for other in references}
    for other in re.finditer(rf"(?<![\w)]){marker}", text):
        if other.start() not in cited and (other.start() < reference.start) == (reference.direction == "above"):
            return True
    return False


def _kind(keyword: str) -> str:
    keyword = keyword.replace("-", "")
    for prefix, kind in (
        ("article", "article"), ("schedule", "schedule"), ("exhibit", "exhibit"), ("annexure", "annexure"), ("annex", "annex"),
        ("append", "appendix"), ("attach", "attachment"),
    ):
        if keyword.startswith(prefix):
            return kind
    return "section"


def _schedule_label(label: str) -> bool:
    return bool(re.fullmatch(r"[A-Z](?:-?\d{1,2})?|\d{1,2}|[IVX]{1,5}", label))


def _is_external(text: str, match: re.Match[str]) -> bool:
    after = text[match.end() : match.end() + 160]
    before = text[max(0, match.start() - 20) : match.start()]
    if _EXTERNAL_BEFORE.search(before):
        return True
    lead = _EXTERNAL_LEAD.match(after)
    if lead is not None:
        name = _instrument_name(after, lead.end())
        if name and _INSTRUMENT.search(name):
            return True
    return bool(_OTHER_DOCUMENT.match(after)) and not re.match(r"^\s*(?:of|to|in)\s+(?:this|the)\s+Agreement\b", after)


def _instrument_name(text: str, position: int) -> str:
    """The capitalised name starting at `position`: "United States Bankruptcy Code"."""
    words = []
    while len(words) < 10:
        while position < len(text) and text[position] in " \t\n":
            position += 1
        word = _NAME_WORD.match(text, position)
        if word is None:
            break
        words.append(word.group(0))
        position = word.end()
    while words and words[-1] in ("of", "and", "for", "on"):
        words.pop()
    return " ".join(words) if words and (words[0][:1].isupper() or words[0][:1].isdigit()) else ""


class ReferenceResolver:
    """Resolves reference labels to clause refs of one document."""

    def __init__(self, refs: list[tuple[str, str | None]]) -> None:
        """`refs`: (ref, container) of every clause; container is the schedule ref or None."""
        self._by_container: dict[str | None, set[str]] = {}
        self._order: dict[tuple[str | None, str], int] = {}
        for index, (ref, container) in enumerate(refs):
            self._by_container.setdefault(container, set()).add(ref)
            self._order[(container, ref)] = index
        self._body = self._by_container.get(None, set())
        self._article_by_number: dict[int, str] = {}
        for ref in self._body:
            if ref.startswith("Article ") and (number := article_as_number(ref)).isdigit():
                self._article_by_number[int(number)] = ref
        self._schedules = {ref.lower(): ref for ref in self._by_container.get(None, set()) | {c for c in self._by_container if c}}

    def resolve(self, reference: FoundReference, source_ref: str, container: str | None) -> str | None:
        """The ref of the clause a reference points to, or None if it matches none.

        "3(a) above" that would land after the clause it is written in is not 3(a) of this
        document's numbering as read (a misread number, or another list's item): unresolved.
        """
        target = self._target(reference, source_ref, container)
        if target is None or not reference.direction:
            return target
        return target if self._printed(target, reference.direction, source_ref, container) else None

    def _printed(self, target: str, direction: str, source_ref: str, container: str | None) -> bool:
        """Is `target` printed above (or below) the clause `source_ref`, as the text says?"""
        source = self._order.get((container, source_ref))
        place = self._order.get((container, target), self._order.get((None, target)))
        if source is None or place is None:
            return True  # no clause to compare with (a question, not a clause): nothing to check
        return place < source if direction == "above" else place > source

    def _target(self, reference: FoundReference, source_ref: str, container: str | None) -> str | None:
        kind = reference.kind.replace("-range-end", "")
        label = reference.target
        if kind in _SCHEDULE_KINDS:
            return self._schedules.get(f"{kind} {label}".lower())
        if kind == "article" and "." in label:
            return self._section(label, container)  # "Articles 3.08 and 3.09"
        if kind == "article":
            value = int(label) if label.isdigit() else roman_value(label)
            if value and value in self._article_by_number:
                return self._article_by_number[value]
            return self._section(str(value) if value else label, container)
        if kind == "relative":
            return self._relative(label, source_ref, container)
        return self._section(label, container)

    def parts_of(self, reference: FoundReference, source_ref: str, container: str | None) -> list[str] | None:
        """The parts of a section that is a clause only through them ("Paragraph 17": 17.1 to 17.4); []
        when written inside it ("this Paragraph 18" in 18.11). None: no such section."""
        label = reference.target.rstrip(".")
        # not an article: one the parse lacks is most often a heading it left inside the clause before
        if reference.kind.replace("-range-end", "") != "section" or not re.fullmatch(r"\d+(?:\.\d+)*", label):
            return None
        if re.match(rf"{re.escape(label)}(?!\d)", article_as_number(source_ref)):
            return []
        part = re.compile(rf"{re.escape(label)}(?:\.\d+|\([^()]+\))")
        parts = [ref for (c, ref) in sorted(self._order, key=self._order.__getitem__) if c == container and part.fullmatch(ref)]
        printed = bool(parts) and (not reference.direction or self._printed(parts[0], reference.direction, source_ref, container))
        return parts if printed and len(parts) <= MAX_RANGE else None

    def range_between(self, first: str, last: str, container: str | None) -> list[str]:
        """The refs strictly between two resolved range ends, in document order.

        "Sections 6 through 8" adds 7; "Section 13.2(a)-(c)" adds 13.2(b). A range of more
        than MAX_RANGE clauses adds none.
        """
        scope = container if (container, first) in self._order else None
        start = self._order.get((scope, first))
        end = self._order.get((scope, last))
        if start is None or end is None or end <= start:
            return []
        shape = _range_shape(first)
        between = [
            ref
            for (c, ref), index in sorted(self._order.items(), key=lambda item: item[1])
            if c == scope and start < index < end and _range_shape(ref) == shape
        ]
        return between if len(between) <= MAX_RANGE else []

    def _section(self, label: str, container: str | None) -> str | None:
        label = re.sub(r"\.(?=\(|$)", "", re.sub(r"\s+", "", label))
        candidates = [label]
        while "(" in candidates[-1]:
            candidates.append(candidates[-1][: candidates[-1].rindex("(")])
        if re.fullmatch(r"\d+\.[A-Z]", candidates[-1]):
            candidates.append(candidates[-1].split(".")[0])  # "Section 2.C" of a contract whose 2 has no parts read
        # "Section 4" may be printed as "4.0", or be an Article numbered 4
        top = candidates[-1]
        if re.fullmatch(r"\d+", top):
            candidates += [f"{top}.0", f"{top}.00"]
        for scope in ([container, None] if container else [None]):
            refs = self._by_container.get(scope, set())
            for candidate in candidates:
                if candidate in refs:
                    return candidate
        if re.fullmatch(r"\d+|[IVXLC]+", top) and (number := article_as_number(f"Article {top}")).isdigit():
            return self._article_by_number.get(int(number))  # "Paragraph III" of a contract in articles I, II, III
        return None

    def _relative(self, label: str, source_ref: str, container: str | None) -> str | None:
        """'paragraph (b)' inside 8.1(a) is 8.1(b); inside 8.1 it is 8.1(b) too."""
        refs = self._by_container.get(container, set())
        base = source_ref
        while True:
            candidate = f"{base}{label}"
            if candidate in refs:
                return candidate
            if "(" not in base:
                return None
            base = base[: base.rindex("(")]


def _range_shape(ref: str) -> tuple[str | None, int]:
    """What the members of a range share: subclauses one parent ("13.2" of 13.2(b)), dotted
    sections their depth only ("2.9 through 3.2" crosses from 2 into 3)."""
    if "(" in ref:
        return ref[: ref.rindex("(")], ref.count("(")
    return None, ref.count(".")
