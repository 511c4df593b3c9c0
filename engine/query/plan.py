"""Turn a question into a QueryPlan before any search runs.

The rules path needs no model: it finds the intent, the sections the question names
("Section 6", "clause 8.1(b)"), the defined terms of the documents in scope that it uses,
the clause types it is about, search keywords with contract synonyms, and explicit page
limits. Filters the user chose (documents, clause types, sections, pages) are hard: a
clause outside them is never searched. Clause types read from the question are soft: they
add an arm to the search, they never exclude.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.ingest.references import find_references
from engine.query.question_parts import question_parts
from engine.store.graphcache import DocGraph
from models.clause import ClauseKind, ClauseType
from models.plan import Filters, Intent, PageRange, QueryPlan, SectionMention, TermMention

T = ClauseType

#: Words in a question -> the clause types it is about.
TOPIC_CUES: list[tuple[ClauseType, str]] = [
    (T.GOVERNING_LAW, r"governing law|\bgovern(?:s|ed|ing)?\b|law(?:s)? of|choice of law|which law|applicable law"),
    (T.DISPUTE_RESOLUTION, r"disputes?|arbitrat|\bcourts?\b|venue|jurisdiction|mediat|litigat|jury"),
    (T.TERM_TERMINATION, r"terminat|\bexpir|\bterm\b|duration|how long|\bend(?:s)?\b|cancel|without cause|for convenience|post-termination|survive"),
    (T.RENEWAL, r"renew|\bextend|extension|roll ?over"),
    (T.PAYMENT, r"\bpa(?:y|id|yment|yable)|\bfees?\b|price|pricing|royalt|revenue|profit|compensat|invoice|\bcosts?\b|charges?|commission|minimum (?:purchase|order|volume|commitment)"),
    (T.CONFIDENTIALITY, r"confidential|disclos|secre|non-?disclosure|privacy"),
    (T.INDEMNIFICATION, r"indemn|hold harmless|\bdefend"),
    (T.LIMITATION_OF_LIABILITY, r"liabilit|\bliable|\bcap\b|damages|consequential|limitation|limit(?:ed|s)? (?:on|of)|uncapped|bring (?:a )?claims?"),
    (T.WARRANTY, r"warrant|guarantee|represent"),
    (T.ASSIGNMENT, r"\bassign|transfer"),
    (T.CHANGE_OF_CONTROL, r"change (?:of|in) control|merg|acqui|sale of (?:its |the )?business|takeover|controlling"),
    (T.NON_COMPETE, r"compet|solicit|non-?compete|restrict(?:ed|ion)? from|disparag"),
    (T.EXCLUSIVITY, r"exclusiv|\bsole\b|only (?:supplier|provider|distributor)"),
    (T.IP_OWNERSHIP, r"intellectual property|\bip\b|ownership|\bowns?\b|invention|work product|patent|copyright|trademark"),
    (T.LICENSE_GRANT, r"licen[cs]|sublicen|right to use|\b(?:let|allow|permit)s?\b[^?]{0,40}\buse\b"),
    (T.AUDIT, r"audit|inspect|books|records"),
    (T.INSURANCE, r"insur"),
    (T.FORCE_MAJEURE, r"force majeure|act of god|beyond (?:its |their )?control"),
    (T.NOTICES, r"\bnotices? (?:be )?(?:sent|given|delivered)|address for notice|how (?:must|should) notice"),
    (T.PARTIES, r"\bparties\b|who (?:signed|are the)|\btitle\b|\bname of (?:this|the)|\bcalled\b|\bdated?\b|\bsigned\b|effective date|become effective|entered into"),
    (T.DEFINITIONS, r"\bmean(?:s|ing)?\b|defin"),
]
_TOPIC_PATTERNS = [(t, re.compile(p, re.IGNORECASE)) for t, p in TOPIC_CUES]

#: A small table of contract synonyms, both ways where it makes sense.
SYNONYMS: dict[str, list[str]] = {
    "audit": ["inspect", "inspection", "records", "books", "examine"],
    "inspect": ["audit", "inspection", "records"],
    "terminate": ["termination", "terminated", "expire", "expiration", "cancel"],
    "termination": ["terminate", "expiration", "expire"],
    "end": ["terminate", "termination", "expire", "expiration"],
    "expire": ["expiration", "term", "terminate"],
    "renew": ["renewal", "extend", "extension", "successive"],
    "licence": ["license", "licensed", "licensee"],
    "license": ["licence", "licensed", "licensee", "sublicense"],
    "assign": ["assignment", "transfer", "assigns"],
    "transfer": ["assign", "assignment"],
    "pay": ["payment", "fee", "fees", "payable", "price"],
    "fee": ["fees", "payment", "price", "charge"],
    "price": ["pricing", "fee", "prices"],
    "liability": ["liable", "damages", "limitation"],
    "cap": ["limit", "limitation", "exceed", "aggregate", "liability"],
    "law": ["governed", "laws", "jurisdiction"],
    "governs": ["governed", "law", "laws"],
    "confidential": ["confidentiality", "disclose", "disclosure", "proprietary"],
    "compete": ["competition", "competing", "competitive", "non-compete"],
    "solicit": ["solicitation", "hire", "employ"],
    "exclusive": ["exclusivity", "exclusively", "sole"],
    "insurance": ["insure", "insured", "policy", "coverage"],
    "warranty": ["warrant", "warrants", "warranties"],
    "indemnify": ["indemnification", "indemnity", "hold harmless", "defend"],
    "notice": ["notify", "notice", "written"],
    "owner": ["ownership", "own", "title", "property"],
    "ip": ["intellectual property", "patent", "copyright"],
    "dispute": ["arbitration", "court", "jurisdiction"],
    "merger": ["change of control", "acquisition", "merge"],
    "control": ["change of control", "merger", "acquisition"],
    "escrow": ["source code", "deposit"],
    "damages": ["liquidated", "liability", "damages"],
    "subsidiaries": ["affiliates", "subsidiary", "affiliate"],
    "affiliates": ["subsidiaries", "affiliate", "subsidiary"],
    "overseas": ["worldwide", "territory", "foreign"],
    "countries": ["territory", "worldwide", "country"],
    "long": ["term", "duration", "years", "continue", "expire"],
    "last": ["term", "duration", "continue", "expire"],
    "run": ["term", "duration", "continue"],
}
STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does doing for from had has have having
    he her here hers him his how i if in into is it its may might must no nor not of on or our out over
    shall she should so some such than that the their them then there these they this those through to
    too under until up upon very was we were what when where which while who whom why will with within
    would you your any all each either other another agreement contract party parties say says said
    about whether there much many does under one two nda""".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]|\d+(?:\.\d+)*")
_DEFINITION_QUESTION = re.compile(
    r"what (?:does|do)\s+[\"“‘']?(?P<a>[^\"”’'?]+?)[\"”’']?\s*(?:mean|refer to)\s*\??$"
    r"|what (?:is meant by|is the (?:meaning|definition) of)\s+[\"“‘']?(?P<d>[^\"”’'?]+?)[\"”’']?\s*\??$"
    r"|(?:definition|meaning) of\s+(?:the\s+(?:term\s+)?)?[\"“‘']?(?P<b>[^\"”’'?]+?)[\"”’']?\s*\??$"
    r"|how (?:is|are)\s+[\"“‘']?(?P<c>[^\"”’'?]+?)[\"”’']?\s+defined",
    re.IGNORECASE,
)
_ENUMERATE = re.compile(r"^\s*(?:which|list|what) (?:of the |all )?(?:contracts|agreements|documents)\b|\blist (?:all|every)\b|\ball (?:contracts|agreements)\b|how many (?:contracts|agreements)", re.IGNORECASE)
_PAGES = re.compile(r"\bpages?\s+(\d{1,4})(?:\s*(?:-|–|to|through)\s*(\d{1,4}))?", re.IGNORECASE)
#: Everyday phrasings whose words are not the contract's: "how long does it run" asks for the term.
_IDIOMS: list[tuple[re.Pattern[str], frozenset[str], list[str]]] = [
    (
        re.compile(r"\bhow long\b(?!.{0,40}\b(?:notice|days?|cure|survive|confidential))|\bwhen does\b.{0,60}\b(?:end|expire)\b", re.IGNORECASE),
        frozenset({"long", "last", "run", "end", "expire"}),
        ["term", "continue", "years", "expire"],
    ),
]
_THIS_CONTRACT = re.compile(
    r"\b(of|in|under) (?:the|this|that|our) (?:[\w'’-]+ ){0,4}?(?:agreement|contract|nda|lease|licen[cs]e)\b", re.IGNORECASE
)
_NAMED_AGREEMENT = re.compile(r"(?P<words>(?:[\w'’-]+\s+){1,4})(?:agreement|contract)\b", re.IGNORECASE)
#: Terms so common in contracts that a question using them says nothing about where to look.
_GENERIC_TERMS = frozenset({"agreement", "party", "parties", "person", "effective date", "term"})


def make_plan(
    question: str,
    graphs: list[DocGraph],
    filters: Filters | None = None,
    read_as: str | None = None,
) -> QueryPlan:
    """The rules-only plan for `question` over the documents of `graphs`; `read_as` is the
    question as its meaning is read, when that differs (without the title of the contract it names)."""
    filters = filters.model_copy(deep=True) if filters else Filters()
    notes: list[str] = []
    pages = _pages(question)
    if pages and filters.pages is None:
        filters.pages = pages
        notes.append(f"limited to pages {pages.first}-{pages.last} as the question says")
    sections = list(_sections(question, graphs))
    terms = list(_terms(question, graphs))
    intent = _intent(question, sections, terms)
    topics = [t for t, pattern in _TOPIC_PATTERNS if pattern.search(question)]
    if intent is Intent.DEFINITION and T.DEFINITIONS not in topics:
        topics.append(T.DEFINITIONS)
    words, expansions = keywords(question, [t.term for t in terms])
    names = _party_words(graphs) | _preamble_names(question, graphs) | _title_words(question, graphs)
    words = [w for w in words if w not in names] or words
    named = {w.lower() for s in sections for w in _WORD.findall(s.text)}
    words = [w for w in words if w not in named] or words
    for idiom, vague, meant in _IDIOMS:
        if idiom.search(question):
            words = [w for w in words if w not in vague] + [w for w in meant if w not in words]
            expansions = [w for w in expansions if w not in meant]
    if sections:
        notes.append("named sections: " + ", ".join(s.ref for s in sections))
    if terms:
        notes.append("defined terms: " + ", ".join(sorted({t.term for t in terms})))
    read_as = without_parties(read_as or question, [party for g in graphs for party in g.party_names])
    parts = question_parts(read_as)
    if parts:
        notes.append(f"asks {len(parts)} things, each also searched by meaning: " + " | ".join(parts))
    return QueryPlan(
        question=question,
        read_as=read_as,
        scope=[g.doc_id for g in graphs],
        parts=parts,
        filters=filters,
        intent=intent,
        topics=topics,
        sections=sections,
        terms=terms,
        keywords=words,
        expansions=expansions,
        notes=notes,
    )


def keywords(question: str, terms: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """The question's content words (and the defined terms it uses), and their contract synonyms."""
    words = [w.lower().strip("'’") for w in _WORD.findall(question)]
    found: dict[str, None] = {}
    for word in words:
        if word in STOPWORDS or len(word) < 2:
            continue
        found[re.sub(r"['’]s$", "", word)] = None
    for term in terms:
        found[term.lower()] = None
    expansions: dict[str, None] = {}
    for word in list(found):
        for synonym in SYNONYMS.get(word, []) + SYNONYMS.get(word.rstrip("s"), []):
            if synonym not in found:
                expansions[synonym] = None
    return list(found), list(expansions)


def named_contract(question: str, titles: dict[str, str]) -> str | None:
    """The one contract (doc id, from doc id -> title) the question names by its title: "which
    law governs the mutual non-disclosure agreement?" names the one title in scope with the
    words before "agreement" ("mutual", "non-disclosure"), read back while a title has them."""
    title_words = {doc_id: {w.lower() for w in _WORD.findall(title)} for doc_id, title in titles.items()}
    for words in _title_phrases(question, set().union(*title_words.values()), stop=STOPWORDS):
        named = [doc_id for doc_id, found in title_words.items() if words and set(words) <= found]
        if len(named) == 1:
            return named[0]
    return None


def _title_phrases(question: str, known: set[str], stop: frozenset[str] = frozenset()) -> Iterable[list[str]]:
    """For each "... agreement" or "... contract" in the question, the words just before it,
    read back while they are `known` title words (and not `stop` words)."""
    for match in _NAMED_AGREEMENT.finditer(question):
        words: list[str] = []
        for word in reversed([w.lower() for w in _WORD.findall(match.group("words"))]):
            if word not in known or word in stop:
                break
            words.append(word)
        yield words


def without_words(question: str, title: str) -> str:
    """The question less the words of a title it names: "which law governs the mutual
    non-disclosure agreement?" -> "which law governs the agreement?"."""
    words = {w.lower() for w in _WORD.findall(title)} - {"agreement", "contract"}
    kept = [w for w in re.split(r"(\s+)", question) if w.strip(" ?.,;:!\"'“”‘’()").lower() not in words]
    return re.sub(r"\s{2,}", " ", "".join(kept)).strip()


_CAPITALISED_RUN = re.compile(
    r"(?P<the>\b[Tt]he\s+)?(?P<run>[A-Z][\w&-]*\.?(?:\s+[A-Z][\w&-]*\.?)*)(?P<owner>['’]s\b|s?['’](?!\w))?(?=[^\w&-]|$)"
)


def without_parties(question: str, parties: list[set[str]]) -> str:
    """The question with the parties' names put as roles: "Can NCM hire Digital Cinema
    Destinations' staff?" -> "Can the party hire the other party's staff?".

    A party's name is in nearly every clause of its contract, so searched by meaning it pulls
    toward any clause that names the party, and the question model has never seen it. A run
    of capitalised words is a name when every word of it (after a question word such as "Can")
    belongs to one party's name; the first party named becomes "the party", another "the
    other party"."""
    if not parties:
        return question
    roles: dict[int, str] = {}

    def role(match: re.Match[str]) -> str:
        words = match.group("run").split()
        lead = 0
        while lead < len(words) and words[lead].lower() in STOPWORDS:
            lead += 1
        named = [w.rstrip(".").lower() for w in words[lead:]]
        party = next((i for i, name in enumerate(parties) if named and all(w in name for w in named)), None)
        if party is None:
            return match.group(0)
        said = roles.setdefault(party, "the party" if not roles else "the other party")
        kept = " ".join(words[:lead])
        owner = "'s" if match.group("owner") else ""
        opening = (match.group("the") or "") if lead else ""
        return f"{opening}{kept} {said}{owner}".strip() if kept else f"{said}{owner}"

    return _CAPITALISED_RUN.sub(role, question)


def _title_words(question: str, graphs: list[DocGraph]) -> set[str]:
    """Words naming the contract itself ("the co-branding agreement"): every clause of it is
    about that, so they say nothing about where to look."""
    titles = {w.lower() for g in graphs for w in _WORD.findall(g.document.title)}
    return {word for words in _title_phrases(question, titles) for word in words}


def _preamble_names(question: str, graphs: list[DocGraph]) -> set[str]:
    """Capitalised words of the question that the preamble prints capitalised too: the names
    of the parties ("PlanetCAD and Dassault Systemes"), which every clause is about."""
    capitalised = {w for w in _WORD.findall(question[1:]) if w[:1].isupper()}
    if not capitalised:
        return set()
    found: set[str] = set()
    for graph in graphs:
        preamble = " ".join(c.text for c in graph.clauses[:8] if c.path.split("(")[0] == "Preamble")
        found.update(w.lower() for w in capitalised if re.search(rf"\b{re.escape(w)}\b", preamble))
    return found


def _party_words(graphs: list[DocGraph]) -> set[str]:
    """Words of the parties' names: they are in nearly every clause and say nothing about where to look."""
    words: set[str] = set()
    for graph in graphs:
        for term, clause in graph.definitions.items():
            if clause.kind is ClauseKind.PREAMBLE and graph.term_weight(term) < 0.5:
                words.update(w.lower() for w in _WORD.findall(term))
    return words


def _intent(question: str, sections: list[SectionMention], terms: list[TermMention]) -> Intent:
    if _ENUMERATE.search(question):
        return Intent.ENUMERATE
    if _DEFINITION_QUESTION.search(question.strip()):
        return Intent.DEFINITION
    if sections:
        return Intent.SECTION_REFERENCE
    return Intent.LOOKUP


def _pages(question: str) -> PageRange | None:
    match = _PAGES.search(question)
    if not match:
        return None
    first = int(match.group(1))
    last = int(match.group(2) or first)
    return PageRange(first=min(first, last), last=max(first, last))


def _sections(question: str, graphs: list[DocGraph]) -> Iterable[SectionMention]:
    # "Section 6 of the NDA" is this contract's Section 6, not another document's
    references = find_references(_THIS_CONTRACT.sub(r"\1 this Agreement", question))
    if not references:
        return
    for graph in graphs:
        resolver = graph.resolver
        for reference in references:
            ref = resolver.resolve(reference, "", None)
            if ref is None:
                continue
            clause = next((c for c in graph.by_ref.get(ref.lower(), []) if "/" not in c.path), None)
            clause = clause or next(iter(graph.by_ref.get(ref.lower(), [])), None)
            if clause is not None:
                yield SectionMention(text=reference.text, doc_id=graph.doc_id, clause_id=clause.clause_id, ref=clause.ref)


def _terms(question: str, graphs: list[DocGraph]) -> Iterable[TermMention]:
    """Defined terms the question uses.

    A term asked about ("what does Cause mean?") always counts. Otherwise a term counts when
    the question writes it as the contract does, or it is several words long (people type
    "the liability cap" in lower case); one-word terms that half the contract uses, and the
    parties' names from the preamble, say nothing about where to look.
    """
    lowered = f" {question.lower()} "
    definition = _DEFINITION_QUESTION.search(question.strip())
    asked = next((g for g in (definition.groupdict().values() if definition else []) if g), "").strip().lower()
    asked = re.sub(r"^(?:the|a|an)\s+", "", asked)
    for graph in graphs:
        for term, clause in graph.definitions.items():
            key = term.lower()
            if key == asked or (asked and key == asked.rstrip("s")):
                yield TermMention(term=term, doc_id=graph.doc_id, clause_id=clause.clause_id)
                continue
            if key in _GENERIC_TERMS or clause.kind is ClauseKind.PREAMBLE or key not in lowered:
                continue  # (a term the question does not contain, in any case, is never matched below)
            pattern = rf"(?<![\w-]){re.escape(term)}(?:s|es)?(?![\w-])"
            exact = re.search(pattern, question)
            loose = " " in term and re.search(pattern, question, re.IGNORECASE)
            if (exact or loose) and graph.term_weight(term) >= 0.3:
                yield TermMention(term=term, doc_id=graph.doc_id, clause_id=clause.clause_id)
