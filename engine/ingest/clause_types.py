"""Assign clause types by rules: a heading names its subject; failing that, the wording does.

The heading is the strongest evidence ("Governing Law"); the text is read for phrases
that only that kind of clause uses ("shall be governed by the laws of"). A subclause
with no evidence of its own takes its parent's type, since "(b)" under "Termination"
is about termination.
"""

from __future__ import annotations

import re

from models.clause import ClauseKind, ClauseType

T = ClauseType

# Heading words -> type, most specific first: "Covenant Not-To-Compete During Term" is
# about competition, "Term and Termination" about the term.
_HEADING_RULES: list[tuple[ClauseType, str]] = [
    (T.DEFINITIONS, r"\bdefinitions?\b|\bdefined terms\b|\binterpretation\b|\bglossary\b"),
    (T.CHANGE_OF_CONTROL, r"change (?:of|in) control|change of ownership"),
    (T.NON_COMPETE, r"non-?compet|not[- ]to[- ]compete|competition|competing|non-?solicit|restrictive covenant"),
    (T.EXCLUSIVITY, r"exclusiv"),
    (T.FORCE_MAJEURE, r"force majeure|acts? of god"),
    (T.GOVERNING_LAW, r"governing law|applicable law|choice of law|\bgoverning\b"),
    (T.DISPUTE_RESOLUTION, r"dispute|arbitration|jurisdiction|venue|mediation|jury"),
    (T.INDEMNIFICATION, r"indemn|hold harmless"),
    (T.LIMITATION_OF_LIABILITY, r"limitation (?:of|on) liability|limitations? of (?:damages|remed)|\bliability\b|consequential damages|exclusion of (?:damages|liability)|\bdamages\b"),
    (T.INSURANCE, r"insurance"),
    (T.AUDIT, r"audit|inspection|books and records|\brecords\b"),
    (T.ASSIGNMENT, r"\bassignment|\bassign\b|successors and assigns|\btransfer of (?:rights|agreement)|\btransfers?\b"),
    (T.RENEWAL, r"\brenewals?\b|\bextension of (?:the )?term"),
    (T.CONFIDENTIALITY, r"confidential|non-?disclosure|secrecy"),
    (T.IP_OWNERSHIP, r"intellectual property|ownership|proprietary rights|\bip\b|inventions|work product|\btitle\b"),
    (T.LICENSE_GRANT, r"\blicen[cs]e|\bgrant of rights|\brights granted|sublicens"),
    (T.WARRANTY, r"warrant|representations"),
    (T.NOTICES, r"\bnotices?\b"),
    (T.TERM_TERMINATION, r"\bterminat|\bterm\b|\bduration\b|\bexpir|effect of termination"),
    (T.PAYMENT, r"payment|\bfees?\b|price|pricing|compensation|royalt|invoic|charges|\bcosts?\b|expenses|taxes|milestone|commission|revenue"),
    (T.GOVERNING_LAW, r"\blaw\b"),
    (T.PARTIES, r"^parties$"),
    (T.SIGNATURES, r"signature"),
]

# Text phrases -> type. Broad subjects (payment, term, warranty ...) turn up in clauses
# about something else, so their phrases count half.
_TEXT_RULES: list[tuple[ClauseType, str]] = [
    (T.DEFINITIONS, r"[\"“‘'][A-Z][^\"”’']{0,60}[\"”’']\s*(?:shall\s+)?(?:means|has the meaning|shall have the meaning)"),
    (T.GOVERNING_LAW, r"governed by[^.;]{0,80}?\blaws?\b|(?:construed|interpreted|enforced)[^.;]{0,40}in accordance with[^.;]{0,30}\blaws?\b|governing law"),
    (T.DISPUTE_RESOLUTION, r"\barbitrat|exclusive jurisdiction|submit to the (?:non-exclusive |exclusive )?jurisdiction|waive(?:s)? (?:any )?(?:right to )?(?:a )?trial by jury|\bvenue\b|mediat|\bdisputes?\b[^.]{0,60}(?:resolv|settle|escalat)"),
    (T.CHANGE_OF_CONTROL, r"change (?:of|in) control|\bmerge[rd]?\b|\bconsolidat|acquisition of (?:all|substantially all)|(?:sale|transfer) of (?:all or )?(?:substantially all|a majority)|controlling interest|majority of (?:the |its )?(?:voting|outstanding|assets|shares|stock|equity)"),
    (T.ASSIGNMENT, r"(?:may|shall|will) not (?:be )?assign|assign (?:or|and|,)? ?(?:otherwise )?transfer|without the (?:prior )?(?:written )?consent of[^.]{0,60}assign|\bassign(?:ed|ment)? (?:of )?(?:this|the) agreement|\bassignable\b"),
    (T.RENEWAL, r"automatically (?:be )?(?:renew|extend)|renewal (?:term|period)|successive (?:one|two|three|\d|\()|renew (?:this|the) agreement|auto-?renew|(?:extend|extension of) the term|notice of (?:its intent(?:ion)? )?(?:not to renew|non-?renewal)"),
    (T.TERM_TERMINATION, r"terminat(?:e|ion) (?:of )?(?:this|the) agreement|may terminate|right to terminate|suspend or terminate|initial term|shall (?:remain|continue) in (?:full )?(?:force|effect) (?:for|until)|term of this agreement|upon (?:the )?(?:expiration|termination)"),
    (T.LIMITATION_OF_LIABILITY, r"in no event shall[^.]{0,80}(?:liable|responsible)|shall not be liable for any (?:indirect|special|consequential|incidental)|(?:aggregate|total|maximum|cumulative|entire) liability|liability[^.]{0,60}(?:shall not exceed|limited to|in excess of)|consequential damages|sole and exclusive remedy|only for direct damages|(?:bring|commence)[^.]{0,40}(?:action|claim)[^.]{0,60}(?:later than|more than|within)[^.]{0,25}(?:years?|months?)"),
    (T.INDEMNIFICATION, r"\bindemnif|hold (?:\w+ )?harmless|defend, indemnify"),
    (T.WARRANTY, r"represents and warrants|warrants that|warranty|disclaims? (?:all|any) (?:other )?warrant|\bas is\b"),
    (T.CONFIDENTIALITY, r"confidential information|keep (?:\w+ )?confidential|shall not disclose|non-?disclosure|proprietary information"),
    (T.NON_COMPETE, r"\bcompet(?:e|es|ing|itor|itors|itive|ition)\b|non-?compet|not (?:to )?(?:directly or indirectly )?(?:engage in|carry on|operate) (?:any |a )?(?:business|similar)|solicit"),
    (T.EXCLUSIVITY, r"(?<!non-)(?<!non )\bexclusive(?:ly)?\b(?! remedy)(?! jurisdiction)|sole (?:and exclusive )?(?:supplier|provider|distributor|source)|shall not[^.]{0,60}(?:purchase|obtain|buy)[^.]{0,40}from any (?:other|third)|requirements? (?:from|of)"),
    (T.IP_OWNERSHIP, r"(?:shall|will) (?:be|remain|become) the (?:sole and )?(?:exclusive )?property of|all right, title and interest|intellectual property rights? (?:in|to)[^.]{0,40}(?:own|vest)|hereby assigns?|work(?:s)? made for hire|shall own"),
    (T.LICENSE_GRANT, r"hereby grants?[^.]{0,120}licen[cs]e|(?:non-?exclusive|exclusive|royalty-free|perpetual|irrevocable|limited)[^.]{0,40}licen[cs]e|right to (?:use|reproduce|sublicense)"),
    (T.AUDIT, r"\baudit|inspect (?:the )?(?:books|records|facilities|premises)|books and records|right to (?:examine|inspect)|access to (?:its )?(?:books|records)"),
    (T.INSURANCE, r"\binsurance\b|insured|\bpolicies of insurance|coverage (?:of|in an amount)"),
    (T.FORCE_MAJEURE, r"force majeure|acts? of god|beyond (?:its|their|the) (?:reasonable )?control"),
    (T.NOTICES, r"notices? (?:shall|required|hereunder|under this agreement)[^.]{0,80}(?:in writing|delivered|sent|given)|(?:certified|registered) mail|overnight courier|(?:addressed|sent) to[^.]{0,20}at the (?:following )?address"),
    (T.PAYMENT, r"shall pay|payable|invoice|\bfees?\b|purchase price|royalt|net sales|\$\s?\d|compensation|commission"),
]
_BROAD = {T.PAYMENT, T.TERM_TERMINATION, T.WARRANTY, T.CONFIDENTIALITY, T.NOTICES, T.EXCLUSIVITY, T.NON_COMPETE}

_HEADING_PATTERNS = [(t, re.compile(p, re.IGNORECASE)) for t, p in _HEADING_RULES]
# Matched against the lower-cased text, twice as fast as IGNORECASE over every clause; the
# definition pattern names capitals ([A-Z]), so it keeps IGNORECASE on the text as written.
_TEXT_PATTERNS = [(t, re.compile(p, re.IGNORECASE) if t is T.DEFINITIONS else re.compile(p)) for t, p in _TEXT_RULES]
_KIND_TYPES = {
    ClauseKind.DEFINITION: T.DEFINITIONS,
    ClauseKind.SIGNATURES: T.SIGNATURES,
    ClauseKind.RECITALS: T.OTHER,
    ClauseKind.TOC: T.OTHER,
}


def classify(
    heading: str, text: str, kind: ClauseKind, parent_type: ClauseType | None
) -> tuple[ClauseType, list[ClauseType]]:
    """The primary type of a clause and every type the rules found in it."""
    if kind in _KIND_TYPES:
        return _KIND_TYPES[kind], []
    from_heading = list(dict.fromkeys(t for t, pattern in _HEADING_PATTERNS if heading and pattern.search(heading)))
    body = text[:2500]
    lowered = body.lower()
    scores = {
        t: len(pattern.findall(body if t is T.DEFINITIONS else lowered)) * (1 if t in _BROAD else 2)
        for t, pattern in _TEXT_PATTERNS
    }
    order = {t: i for i, (t, _) in enumerate(_TEXT_RULES)}
    from_text = sorted((t for t, n in scores.items() if n), key=lambda t: (-scores[t], order[t]))
    topics = list(dict.fromkeys(from_heading + from_text))
    if kind is ClauseKind.PREAMBLE:
        return T.PARTIES, topics
    if from_heading:
        return from_heading[0], topics
    inherited = parent_type not in (None, T.OTHER, T.PARTIES, T.SIGNATURES)
    if from_text:
        # A subclause whose wording agrees with its section keeps the section's subject.
        if inherited and parent_type in from_text and scores[parent_type] >= scores[from_text[0]] / 2:
            return parent_type, topics
        return from_text[0], topics
    return (parent_type if inherited else T.OTHER), topics
