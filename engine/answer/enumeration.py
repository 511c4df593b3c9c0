"""Answer "which contracts..." and "how many..." completely, from the contract fields.

Top-k retrieval cannot list every contract governed by New York law: one missed contract is a
wrong answer. These questions are compiled into a filter over every contract's fields (the
governing law, the clause categories present) and every contract in scope is checked; each
listed contract comes with the sentence that shows it, cited.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.answer.citations import Citer
from engine.fields.jurisdiction import jurisdiction_in, jurisdiction_key
from models.answer import Citation
from models.clause import Clause
from models.enumeration import Enumeration, FieldQuery, ListedContract
from models.fields import ContractFields, FieldValue

_ENUMERATION = re.compile(
    r"^\s*(?:which|what)\s+(?:of\s+the\s+)?(?:\w+\s+){0,3}(?:contracts|agreements|documents)\b|\b(?:list|show|find)\s+(?:me\s+)?(?:all|every|each)\b"
    r"|\bhow\s+many\s+(?:\w+\s+){0,3}(?:contracts|agreements|documents)\b|\b(?:all|every)\s+(?:\w+\s+)?(?:contracts|agreements)\s+(?:with|that|which|governed)",
    re.IGNORECASE,
)
_DOCUMENT_TYPE = re.compile(
    r"\b(?:which|many|all|every|each|list)\s+(?:of\s+the\s+)?(?P<type>(?!contracts\b|agreements\b|the\b|of\b)[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)\s+(?:contracts|agreements)\b",
    re.IGNORECASE,
)
_EXPIRY = re.compile(
    r"\b(?:expir\w*|end(?:s|ing)?|terminat\w*|run\s+out)\s+(?:(?P<relation>in|during|before|by|after)\s+)?(?P<year>(?:19|20)\d\d)\b", re.IGNORECASE
)
_COUNT = re.compile(r"\bhow\s+many\b", re.IGNORECASE)
_LAW_ASKED = re.compile(r"\bgovern|\b\w+\s+law\b|\blaws\s+of\b|\bjurisdiction\b", re.IGNORECASE)
_UNKNOWN_LAW = re.compile(r"\b(?:governed by|under)\s+(?:the\s+)?(?:laws?\s+of\s+)?(?:the\s+)?(?:state\s+of\s+)?(?P<name>[A-Z][\w'’.]*(?:\s+[A-Z][\w'’.]*)*)(?:\s+laws?)?", re.UNICODE)

# What a question calls each clause category.
CATEGORY_CUES = {
    "Change Of Control": r"change[- ](?:of|in)[- ]control",
    "Anti-Assignment": r"anti-?assignment|assign(?:ment|able)?\b",
    "Audit Rights": r"\baudit",
    "Insurance": r"\binsurance",
    "Cap On Liability": r"(?:cap|limit\w*)\s+(?:on|of)\s+liability|liability\s+(?:cap|limit)",
    "Uncapped Liability": r"uncapped|unlimited\s+liability",
    "Termination For Convenience": r"terminat\w*\s+for\s+convenience|terminat\w*\s+without\s+cause",
    "Exclusivity": r"\bexclusiv",
    "Non-Compete": r"non-?compet",
    "Renewal Term": r"\brenew",
    "License Grant": r"licen[cs]e\s+grant|grants?\s+(?:a\s+)?licen[cs]e",
    "Non-Transferable License": r"non-?transferable",
    "Ip Ownership Assignment": r"\bip\s+(?:ownership\s+)?assignment|assign\w*\s+(?:of\s+)?(?:ip|intellectual property)",
    "Source Code Escrow": r"source\s+code\s+escrow|\bescrow",
    "No-Solicit Of Employees": r"(?:non|no)-?solicit\w*\s+(?:of\s+)?employees",
    "Covenant Not To Sue": r"covenant\s+not\s+to\s+sue",
    "Revenue/Profit Sharing": r"revenue[- ]shar|profit[- ]shar|royalt",
    "Warranty Duration": r"warranty\s+(?:period|duration)",
    "Most Favored Nation": r"most[- ]favou?red",
    "Liquidated Damages": r"liquidated\s+damages",
    "Minimum Commitment": r"minimum\s+(?:purchase|commitment|order)",
    "Rofr/Rofo/Rofn": r"right\s+of\s+first|\brofr\b|\brofo\b|\brofn\b",
    "Non-Disparagement": r"non-?disparage",
    "Joint Ip Ownership": r"joint(?:ly)?\s+own",
}
_CUES = {category: re.compile(pattern, re.IGNORECASE) for category, pattern in CATEGORY_CUES.items()}


def field_query(question: str, known_categories: list[str]) -> FieldQuery | None:
    """The filter an enumeration question asks for; None when the question is not one."""
    if not _ENUMERATION.search(question):
        return None
    query = FieldQuery(question=question, kind="count" if _COUNT.search(question) else "list")
    query.categories = [c for c in known_categories if c in _CUES and _CUES[c].search(question)]
    kind = _DOCUMENT_TYPE.search(question)
    if kind:
        query.document_type = kind.group("type").lower()
    if "Anti-Assignment" in query.categories and "Ip Ownership Assignment" in query.categories:
        query.categories.remove("Anti-Assignment")
    expiry = _EXPIRY.search(question)
    if expiry:
        relation = (expiry.group("relation") or "in").lower()
        query.expires = {"during": "in", "by": "before"}.get(relation, relation)
        query.expiry_year = int(expiry.group("year"))
    if _LAW_ASKED.search(question) and not (query.categories and not re.search(r"\bgovern|\blaws?\s+of\b", question, re.I)):
        query.governing_law = jurisdiction_in(question.replace("governed by", "governed by the laws of"))
        if query.governing_law is None:
            named = _UNKNOWN_LAW.search(question)
            if named and named.group("name").lower() not in {"which", "what", "the"}:
                query.unknown.append(f"{named.group('name')} law")
    if not query.filters and not query.unknown:
        return None  # a list question about something the fields do not hold: leave it to search
    return query


ClauseLookup = Callable[[str], Clause | None]


def enumerate_contracts(query: FieldQuery, fields: list[ContractFields], names: dict[str, str], citer: Citer, clause: ClauseLookup) -> Enumeration:
    """Every contract in `fields` that passes the query, each with a cited sentence.
    `clause(clause_id)` finds the clause a value was read from."""
    notes = [f"{value}: no contract's governing law is known by that name, so it was not used" for value in query.unknown]
    listed: list[ListedContract] = []
    searched = len(fields)
    if not query.filters:  # only values no contract has: nothing to check
        return Enumeration(query=query, documents=[], searched=len(fields), notes=notes)
    if query.document_type is not None:
        typed = [f for f in fields if _is_type(f, names[f.doc_id], query.document_type)]
        if not typed:
            notes.append(f"no contract in scope is titled a {query.document_type} agreement, so the type was not used")
        else:
            fields = typed
    for contract in fields:
        shown: list[FieldValue] = []  # what matched, the first one cited
        if query.governing_law is not None:
            law = contract.governing_law
            if law is None or jurisdiction_key(law.value) != jurisdiction_key(query.governing_law):
                continue
            shown.append(law)
        if not all(contract.presence.get(c) is not None and contract.presence[c].present for c in query.categories):
            continue
        if query.expires is not None:
            year = contract.expiry_year
            if year is None or not _year_matches(year, query.expires, query.expiry_year):
                continue
            shown.append(contract.expiration)
        values = [v.value for v in shown] + ([", ".join(query.categories)] if query.categories else [])
        evidence = shown[0] if shown else _first_evidence(contract, query.categories)
        listed.append(ListedContract(doc_id=contract.doc_id, file=names[contract.doc_id], value="; ".join(values), citation=_cite(evidence, citer, clause)))
    if query.governing_law is not None and not listed:
        present = sorted({f.governing_law.value for f in fields if f.governing_law})
        notes.append(f"no contract in scope is governed by {query.governing_law} law; the laws found are: {', '.join(present) or 'none'}")
    if query.expires is not None:
        unknown = sum(1 for f in fields if f.expiry_year is None)
        if unknown:
            notes.append(
                f"{unknown} of {len(fields)} contracts give no end date (their term is a length counted from an event, "
                "renews until terminated, or is not stated), so they could not be checked"
            )
    for number, row in enumerate(listed, start=1):
        if row.citation is not None:
            row.citation = row.citation.model_copy(update={"number": number})
    return Enumeration(query=query, documents=listed, searched=searched, notes=notes)


def _first_evidence(contract: ContractFields, categories: list[str]) -> FieldValue | None:
    evidence = contract.presence[categories[0]].evidence if categories else []
    return evidence[0] if evidence else None


def _year_matches(year: int, relation: str, asked: int) -> bool:
    return year == asked if relation == "in" else year < asked if relation == "before" else year > asked


def _is_type(contract: ContractFields, file_name: str, document_type: str) -> bool:
    """The contract's title (or file name) names the kind: "DISTRIBUTOR AGREEMENT" is a distributor agreement."""
    words = re.sub(r"[^a-z]+", " ", f"{contract.title} {file_name}".lower())
    return all(re.search(rf"\b{re.escape(w[:6])}", words) for w in document_type.split())


def _cite(value: FieldValue | None, citer: Citer, clause: ClauseLookup) -> Citation | None:
    if value is None:
        return None
    found = clause(value.clause_id)
    return citer.cite(found, value.quote) if found is not None else None
