"""Whether a question asks over every contract ("which contracts...", "how many..."), and the
filter over the contract fields it asks for. Decided from the question alone, before any
search, so an ordinary question reads no fields.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from engine.fields.doctype import document_type
from engine.fields.jurisdiction import jurisdiction_in, jurisdiction_named
from models.enumeration import FieldQuery
from models.plan import CategoryGuess

# The form of a question over many contracts: which / list / how many / do any / compare,
# with a plural document noun (misspelt ones too). These are a closed class of words, unlike
# the topic, which the question model reads by meaning.
_DOCS = r"(?:contracts|contarcts|contrcts|agreements|agreemnts|agrements|agreemets|deals|instruments|ndas)"
_DOCS_END = r"(?:contracts|contarcts|contrcts|agreements|agreemnts|agrements|agreemets|deals)"
_ONE = r"(?:contract|agreement|document|deal|instrument)"
_ONE_OF_MANY = rf"{_ONE}\b(?!\s+(?:year|month|quarter|week|day|period)s?\b)"  # "each contract year" is a span of time
_WH = r"(?:which|wich|whcih|what)"
_ENUMERATION = re.compile(
    rf"\b{_WH}\s+(?:of\s+(?:the|these|our|my)\s+)?(?:[\w-]+\s+){{0,3}}?{_DOCS}\b"
    rf"|\b{_WH}\s+(?:of\s+(?:them|these|those))\b"
    rf"|\b(?:list|show|find|identify|name|enumerate|give\s+me|pull\s+up)\s+(?:me\s+)?(?:all|every|each|the|any)?\s*(?:[\w-]+\s+){{0,4}}?{_DOCS}\b"
    rf"|\b(?:list|show|find)\s+(?:me\s+)?(?:all|every|each)\b|\blist\s*[?.]?\s*$"
    rf"|\bhow\s+many\s+(?:of\s+)?(?:the\s+|these\s+|our\s+)?(?:[\w-]+\s+){{0,2}}?{_DOCS}\b|\bhow\s+many\s+of\s+(?:them|these|those)\b"
    rf"|\b(?:any|none|all|each|every)\s+of\s+(?:these|those|them\b|(?:the|our|my)\s+(?:[\w-]+\s+){{0,3}}?{_DOCS}\b)"
    rf"|\bany\s+(?:[\w-]+\s+){{0,2}}?(?:{_DOCS}\b|{_ONE_OF_MANY})|\banywhere\s+in\b"
    rf"|\b(?:across|among)\s+(?:all\s+)?(?:the\s+|these\s+|our\s+)?(?:[\w-]+\s+){{0,2}}?{_DOCS}\b"
    rf"|\bcompar\w*\b.{{0,60}}\b{_DOCS}\b"
    rf"|\b(?:all|every|each)\s+(?:[\w-]+\s+){{0,2}}?(?:{_DOCS}\b|{_ONE_OF_MANY})"
    rf"|^\s*(?:[\w-]+\s+){{0,3}}{_DOCS}\s+(?:that|which|where|whose|with|governed|under|subject|affected|afected|allowing|requir\w*|having)\b"
    rf"|\b{_DOCS_END}\s*[?.]?\s*$",
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


# A question that points at one contract asks about it, whatever else it says ("Audit wants the
# date each contract was made: what is it for this one?").
_THIS_ONE = re.compile(rf"\bthis\s+(?:one|{_ONE})\b", re.IGNORECASE)


def asks_over_contracts(question: str) -> bool:
    """Whether the question asks which / how many / whether any of several contracts."""
    return bool(_ENUMERATION.search(question)) and not _THIS_ONE.search(question)


def counts(question: str) -> bool:
    """Whether the question asks how many rather than which."""
    return bool(_COUNT.search(question))


def field_query(
    question: str, known_categories: list[str], meant: list[CategoryGuess] = (), min_probability: float = 1.0, several: bool = False,
    over_contracts: bool | None = None, unflagged: Collection[str] = (),
) -> FieldQuery | None:
    """The filter an enumeration question asks for; None when the question is not one.

    The category is the question model's (`meant`, likeliest first) when it is at least
    `min_probability` sure of it, its second guess when the first is the governing law ("New
    York law contracts with a non-compete"); the cue table is the fallback. A category of
    `known_categories` is read from the contracts' flags; one of `unflagged` (a clause kind the
    presence model scores too poorly to flag) becomes `searched`: each contract is asked. With
    `several` contracts in scope, a search-box query about the governing law that names a
    jurisdiction ("New York governing law") asks for the contracts under that law too.
    `over_contracts` says whether the question asks over contracts when the caller has decided
    it (from the question as written and as spelling-corrected); None reads it from `question`."""
    sure = [g.category for g in meant if g.probability >= min_probability]
    law_meant = "Governing Law" in sure[:1]
    if over_contracts is None:
        over_contracts = asks_over_contracts(question)
    if not over_contracts and not (several and law_meant and jurisdiction_named(question)):
        return None
    query = FieldQuery(question=question, kind="count" if counts(question) else "list")
    asked = sure[1:2] if law_meant else sure[:1]  # beside the law, the next sure guess is a clause asked for too
    query.categories = [c for c in asked if c in known_categories]
    query.searched = next((c for c in asked if c in unflagged), None)
    if not query.categories and query.searched is None:  # the cues are narrow: "change of control" beside "governed by New York law"
        cued = [c for c in [*known_categories, *unflagged] if c in _CUES and _CUES[c].search(question)]
        query.categories = [c for c in cued if c in known_categories]  # flagged ones narrow the scope,
        query.searched = next((c for c in cued if c in unflagged), None)  # then each contract left is asked
    kind = _DOCUMENT_TYPE.search(question)
    if kind and document_type(kind.group("type")):  # a family of agreement ("distributor"), not "all" in "list all agreements"
        query.document_type = kind.group("type").lower()
    if "Anti-Assignment" in query.categories and "Ip Ownership Assignment" in query.categories:
        query.categories.remove("Anti-Assignment")
    expiry = _EXPIRY.search(question)
    if expiry:
        relation = (expiry.group("relation") or "in").lower()
        query.expires = {"during": "in", "by": "before"}.get(relation, relation)
        query.expiry_year = int(expiry.group("year"))
    clause_asked = query.categories or query.searched
    if law_meant or _LAW_ASKED.search(question) and not (clause_asked and not re.search(r"\bgovern|\blaws?\s+of\b", question, re.I)):
        query.governing_law = jurisdiction_in(question.replace("governed by", "governed by the laws of"))
        if query.governing_law is None and law_meant:  # "choice of law New York", "contracts under Delaware rules"
            query.governing_law = jurisdiction_named(question)
        if query.governing_law is None:
            named = _UNKNOWN_LAW.search(question)
            if named and named.group("name").lower() not in {"which", "what", "the"}:
                query.unknown.append(f"{named.group('name')} law")
    if not query.filters and not query.unknown and query.searched is None:
        return None  # a list question about something the fields do not hold: leave it to search
    return query
