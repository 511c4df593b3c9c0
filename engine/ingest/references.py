"""Find explicit cross-references in clause text and resolve them to clauses.

Handles Section(s), §, Clause, Article, Paragraph, Schedule, Exhibit, Annex, Appendix,
Attachment; subclauses ("8.1(b)(ii)"); ranges ("2.1 through 2.4", "2.1 to 2.4",
"2.1-2.4"); lists ("Sections 4.2 and 4.3", "Sections 3, 4 and 7"); relative subclauses
("paragraph (b)"). References to other instruments ("Section 365(n) of the Bankruptcy
Code", "Article 5 of the Purchase Agreement") are recognised and left out.

A reference resolves to the most specific clause that exists: 8.1(b)(ii), else 8.1(b),
else 8.1. One that matches no clause is kept and counted as unresolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.ingest.numbering import roman_value

_KEYWORD = (
    r"(?P<kw>\b(?i:sections?|clauses?|articles?|paragraphs?|sub-?sections?|sub-?paragraphs?|sub-?clauses?|"
    r"schedules?|exhibits?|annex(?:es)?|appendix|appendices|attachments?)|§§?)"
)
_SUB = r"(?:\s?\((?:[a-z]{1,3}|[ivxlc]{1,6}|[A-Z]{1,2}|\d{1,2})\))"
_NUMBER = rf"(?:\d{{1,3}}(?:\.\d{{1,3}})*\.?{_SUB}*|[IVXLC]{{1,6}}\b{_SUB}*|[A-Z](?:-?\d{{1,2}})?\b|[\"“'‘][A-Z0-9]{{1,3}}[\"”'’]|{_SUB}+)"
_SEPARATOR = r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or|and/or|through|thru|to)\s|\s*[-–—]\s*|&)\s*"
_REFERENCE = re.compile(
    rf"{_KEYWORD}\s*(?P<items>{_NUMBER}(?:{_SEPARATOR}(?:(?i:sections?|clauses?|articles?|paragraphs?)\s*|§\s*)?{_NUMBER})*)"
)
_ITEM = re.compile(_NUMBER)
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


@dataclass(frozen=True, slots=True)
class FoundReference:
    """One target of a cross-reference as written in the text."""

    text: str  # the whole reference as written: "Sections 2.1 through 2.4"
    kind: str  # section | article | schedule | exhibit | annex | appendix | attachment | relative
    target: str  # the label of this one target: "2.3", "III", "A", "(b)"
    start: int


def find_references(text: str) -> list[FoundReference]:
    """Every internal cross-reference in `text`, ranges expanded into their end points."""
    found: list[FoundReference] = []
    for match in _REFERENCE.finditer(text):
        keyword = match.group("kw").lower()
        if _is_external(text, match):
            continue
        kind = _kind(keyword)
        written = " ".join(match.group(0).split()).rstrip(".")
        items = list(_ITEM.finditer(match.group("items")))
        previous_end = 0
        base = ""  # "7.2" of "Section 7.2(b) or (c)": a bare "(c)" that follows is 7.2(c)
        for index, item in enumerate(items):
            label = item.group(0).strip().strip("\"“”'‘’").rstrip(".")
            if label.startswith("(") and base:
                label = base + label
            elif not label.startswith("("):
                base = label.split("(")[0].strip()
            between = match.group("items")[previous_end : item.start()]
            previous_end = item.end()
            item_kind = kind
            # "Article VIII, Section 1": a keyword between items changes the kind
            inner = re.search(r"(sections?|clauses?|articles?|paragraphs?|§)\s*$", between, re.IGNORECASE)
            if inner:
                item_kind = _kind(inner.group(1).lower())
            if label.startswith("("):
                item_kind = "relative"
            is_range_end = index > 0 and bool(_RANGE_WORDS.match(between))
            if kind in ("schedule", "exhibit", "annex", "appendix", "attachment") and not _schedule_label(label):
                continue
            found.append(
                FoundReference(written, f"{item_kind}-range-end" if is_range_end else item_kind, label, match.start() + item.start())
            )
    return found


def _kind(keyword: str) -> str:
    keyword = keyword.replace("-", "")
    for prefix, kind in (
        ("article", "article"), ("schedule", "schedule"), ("exhibit", "exhibit"), ("annex", "annex"),
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
            if ref.startswith("Article "):
                label = ref.split(" ", 1)[1]
                value = int(label) if label.isdigit() else roman_value(label)
                if value:
                    self._article_by_number[value] = ref
        self._schedules = {ref.lower(): ref for ref in self._by_container.get(None, set()) | {c for c in self._by_container if c}}

    def resolve(self, reference: FoundReference, source_ref: str, container: str | None) -> str | None:
        """The ref of the clause a reference points to, or None if it matches none."""
        kind = reference.kind.replace("-range-end", "")
        label = reference.target
        if kind in ("schedule", "exhibit", "annex", "appendix", "attachment"):
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

    def range_between(self, first: str, last: str, container: str | None) -> list[str]:
        """The refs strictly between two resolved range ends, in document order."""
        scope = container if (container, first) in self._order else None
        start = self._order.get((scope, first))
        end = self._order.get((scope, last))
        if start is None or end is None or end <= start:
            return []
        depth = first.count(".")
        return [
            ref
            for (c, ref), index in self._order.items()
            if c == scope and start < index < end and ref.count(".") == depth and "(" not in ref
        ]

    def _section(self, label: str, container: str | None) -> str | None:
        label = re.sub(r"\.(?=\(|$)", "", re.sub(r"\s+", "", label))
        candidates = [label]
        while "(" in candidates[-1]:
            candidates.append(candidates[-1][: candidates[-1].rindex("(")])
        # "Section 4" may be printed as "4.0", or be an Article numbered 4
        top = candidates[-1]
        if re.fullmatch(r"\d+", top):
            candidates += [f"{top}.0", f"{top}.00"]
        for scope in ([container, None] if container else [None]):
            refs = self._by_container.get(scope, set())
            for candidate in candidates:
                if candidate in refs:
                    return candidate
        if re.fullmatch(r"\d+", top) and int(top) in self._article_by_number:
            return self._article_by_number[int(top)]
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
