"""Read a contract's fields from its clauses: kind, parties, governing law, expiration, and
which kinds of clause it has; the contract is cut into sentences once for all of them."""

from __future__ import annotations

import re

import numpy as np

from engine.fields.dates import agreement_date, effective_date, short_date
from engine.fields.doctype import contract_type
from engine.fields.jurisdiction import jurisdiction_in
from engine.fields.parties import parties_in
from engine.fields.presence import EVIDENCE_SENTENCES, contract_sentences, presence_model
from engine.fields.sentences import Span, sentence_text, split_sentences
from engine.fields.term import expiration_in, renewal_in
from models.clause import Clause, ClauseType
from models.fields import ContractFields, FieldValue, Presence

_CHOOSES_LAW = re.compile(
    r"\bgovern|\bconstru|\binterpret|\benforced in accordance|\bapplicable law\b|\bapplication of (?:the )?(?:\w+ )?laws?\b|\bsubject to the (?:provisions? of (?:the )?)?(?:substantive |internal )?laws\b|\bin accordance with the laws\b|\bcontrolled by the laws\b|\blaws? of\b.{0,80}\bshall (?:apply|prevail)\b", re.I | re.S
)
# The agreement read under the laws of a place, whether or not that place can be read: "governed
# by ... the laws of [***]" (the filing withholds it), "construed under the laws of the state in
# which the restaurant is located". Stricter than _CHOOSES_LAW, whose words serve to find the
# jurisdiction in a sentence already on the topic: "comply with all laws governing exports" chooses nothing.
_READ_UNDER_LAWS = re.compile(r"\b(?:govern|constru|interpret|enforc|subject\b)\w*.{0,80}?\blaws?\s+(?:of|in)\b", re.I | re.S)
_INCORPORATION = re.compile(r"\borgani[sz]ed\b|\bincorporated\b|\bexisting under\b|\bformed under\b", re.I)


def extract_fields(doc_id: str, clauses: list[Clause], title: str = "") -> ContractFields:
    ordered = sorted(clauses, key=lambda c: c.order)
    sentences = split_sentences(ordered)
    parties = [_value(clause, start, end, name) for clause, start, end, name in parties_in(ordered)]
    opening = agreement_date(sentences)  # (sentence, date): a term may be counted from that date
    made = _dated(opening)
    ending, renewal = expiration_in(sentences, opening[1] if opening else None), renewal_in(sentences)
    return ContractFields(
        doc_id=doc_id, title=title, document_type=contract_type(title, ordered), parties=parties,
        governing_law=_governing_law(sentences), agreement_date=made, effective_date=_dated(effective_date(sentences)) or made,
        expiration=_value(*ending) if ending else None, renewal_term=_value(*renewal) if renewal else None,
        presence=_presence(sentences),
    )


def _dated(found) -> FieldValue | None:
    if found is None:
        return None
    (clause, start, end), day = found
    return _value(clause, start, end, short_date(day))


def _value(clause: Clause, start: int, end: int, value: str) -> FieldValue:
    return FieldValue(value=value, clause_id=clause.clause_id, ref=clause.ref, page=clause.page_start, quote=clause.text[start:end])


def _governing_law(sentences: list[Span]) -> FieldValue | None:
    """The jurisdiction a choice-of-law sentence names; a governing-law clause is read first."""
    typed = [s for s in sentences if s[0].clause_type is ClauseType.GOVERNING_LAW or ClauseType.GOVERNING_LAW in s[0].topics]
    for span in typed + sentences:
        sentence = sentence_text(span)
        if not _CHOOSES_LAW.search(sentence) or _INCORPORATION.search(sentence):
            continue
        name = jurisdiction_in(sentence)
        if name is not None:
            return _value(*span, name)
    return None


def chooses_a_law(sentence: str) -> bool:
    """Whether a sentence says which law the agreement is read under, named or withheld."""
    return bool(_READ_UNDER_LAWS.search(sentence)) and not _INCORPORATION.search(sentence)


def _presence(sentences: list[Span]) -> dict[str, Presence]:
    """Each category the model knows: present when the contract's best sentence reaches its
    threshold; the clauses of every sentence that does, and the best ones as evidence."""
    model = presence_model()
    scored = contract_sentences(sentences)
    scores = model.scores(scored)
    found: dict[str, Presence] = {}
    for category in model.contract_categories:
        column = model.categories.index(category)
        threshold = model.thresholds[category]
        ranked = [row for row in np.argsort(-scores[:, column]) if scores[row, column] >= threshold] if len(scored) else []
        presence = Presence(present=bool(ranked))
        for row in ranked:
            clause, start, end = scored[row].span
            if clause.clause_id not in presence.clause_ids:
                presence.clause_ids.append(clause.clause_id)
            if len(presence.evidence) < EVIDENCE_SENTENCES:
                presence.evidence.append(_value(clause, start, end, category))
        found[category] = presence
    return found
