"""A question about one of the contract's fields gets a one-line answer first.

"What is this contract called?", "whcih state law aplies", "when was it signed?": the
question model says which field is asked (engine/query/meaning.py), ingest already read that
field with the sentence it came from (engine/fields/), so the answer opens with the value and
that sentence, cited, before the quotes the search found. A field the contract does not state
changes nothing, the search's answer (or its "Not found") stands, unless ingest reads that field
wherever a contract states it (the governing law): then its absence is the answer, "Not found".
A local model's answer is left as the model wrote it (its quotes are checked on their own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.answer.answerer import excerpt
from engine.answer.citations import MIN_QUOTE_WORDS, Citer
from engine.fields.extract import chooses_a_law
from engine.text.normalise import normalise
from models.answer import Answer, BackendKind, Citation, Claim, Closest, section_name, stating_numbers
from models.clause import Clause
from models.fields import ContractFields, FieldValue
from models.plan import QueryPlan

ClauseLookup = Callable[[str], Clause | None]

#: CUAD category -> (what the line calls it, the ContractFields attribute holding it)
FIELDS: dict[str, tuple[str, str]] = {
    "Document Name": ("Title", "title"),
    "Parties": ("Parties", "parties"),
    "Agreement Date": ("Agreement date", "agreement_date"),
    "Effective Date": ("Effective date", "effective_date"),
    "Expiration Date": ("Term", "expiration"),
    "Renewal Term": ("Renewal", "renewal_term"),
    "Governing Law": ("Governing law", "governing_law"),
}


@dataclass(frozen=True)
class Unstated:
    """What the answer says of a field ingest reads wherever a contract states it, when it read
    none; and how to tell a quote that states it all the same, in words no value is read from
    (the law of "[***]", withheld by the filing)."""

    reason: str
    stated_by: Callable[[str], bool]


#: the fields whose absence is the answer: over the 396 dev contracts bench/fields.py reads the
#: governing law with recall 0.991 (3 of 337 labelled contracts missed: two withhold the place,
#: one names none). Dates, parties and terms are read far less surely (recall 0.31-0.70): their
#: absence says nothing, and the search's answer stands.
UNSTATED: dict[str, Unstated] = {
    "governing_law": Unstated("the contract does not appear to choose a governing law: no sentence says which law governs or construes it", chooses_a_law),
}


def asked_field(answer: Answer, plan: QueryPlan, min_probability: float) -> tuple[str, str] | None:
    """(label, ContractFields attribute) of the field the question asks for, when the question
    model is at least `min_probability` sure of it and the answer is extractive (a model's
    answer is its own reading of the passages, checked as such); else None."""
    guesses = plan.categories
    if answer.backend is not BackendKind.EXTRACTIVE or not guesses or guesses[0].probability < min_probability:
        return None
    return FIELDS.get(guesses[0].category)


def with_direct_answer(
    answer: Answer, field: tuple[str, str], fields: ContractFields, citer: Citer, clause: ClauseLookup, opening: list[Clause],
) -> Answer:
    """`answer` led by the asked `field`'s value (from `asked_field`) and its cited sentence,
    when the contract states it. `opening`: the contract's first-page clauses, where its title
    is printed."""
    label, attribute = field
    found = _value_and_citation(getattr(fields, attribute), citer, clause, opening)
    if found is None:
        return answer
    value, citation = found
    # the search's own quote of the same sentence, when it holds the field's words, reads whole
    citation = next(
        (c for c in answer.citations if c.clause_id == citation.clause_id and c.char_start <= citation.char_start and c.char_end >= citation.char_end),
        citation,
    ) if not answer.abstained else citation
    kept = [c for c in answer.citations if not _same_words(c, citation)] if not answer.abstained else []
    renumber = {c.number: n for n, c in enumerate(kept, start=2)}
    claims = [Claim(text=f"{label}: {value} ({section_name(citation.ref)}, page {citation.page}): “{citation.quote}”", citations=[1])]
    claims += [  # the field's sentence states the answer; what the search quoted beside it is more evidence
        Claim(text=c.text, citations=[renumber[n] for n in c.citations if n in renumber], more=True)
        for c in (answer.claims if not answer.abstained else [])
        if any(n in renumber for n in c.citations)
    ]
    citations = [citation.model_copy(update={"number": 1})] + [c.model_copy(update={"number": renumber[c.number]}) for c in kept]
    return answer.model_copy(update={
        "abstained": False,
        "lead": f"{label}: {value}. Found in {section_name(citation.ref)}, page {citation.page}.",
        "claims": claims,
        "citations": citations,
        "closest": [],
        "notes": answer.notes + [f"{label} as read from the contract when it was added; the sentence it comes from is quoted first."],
    })


def unless_unstated(answer: Answer, field: tuple[str, str], fields: ContractFields, closest: int, excerpt_chars: int) -> Answer:
    """"Not found" when the asked `field` is one ingest reads wherever a contract states it
    (`UNSTATED`), this contract states none, and no quote of the answer ("more evidence" too)
    states it in words no value could be read from. FUSION's supply agreement chooses no law,
    and its search answered "Which law governs the agreement?" with the clause on complying
    with the law: on topic, and no answer. What the search quoted is shown as the closest
    clauses, up to `closest`, so the reader can check."""
    label, attribute = field
    unstated = UNSTATED.get(attribute)
    if unstated is None or answer.abstained or getattr(fields, attribute) is not None:
        return answer
    if any(unstated.stated_by(" ".join(c.quote.split())) for c in answer.citations):  # "more evidence" too
        return answer
    stated = stating_numbers(answer.claims)
    shown = sorted(answer.citations, key=lambda c: c.number not in stated)[:closest]  # what it answered with first
    return answer.model_copy(update={
        "abstained": True,
        "lead": f"Not found: {unstated.reason}.",
        "claims": [],
        "citations": [],
        "closest": [
            Closest(
                doc_id=c.doc_id, file_name=c.file_name, clause_id=c.clause_id, ref=c.ref, heading=c.heading, page=c.page,
                excerpt=excerpt(c.quote, excerpt_chars), citation=c.model_copy(update={"number": number}),
            )
            for number, c in enumerate(shown, start=1)
        ],
        "notes": answer.notes + [f"{label}: ingest reads it wherever a contract states it, and read none in this one; the search's best clauses are shown as the closest."],
    })


def _value_and_citation(field, citer: Citer, clause: ClauseLookup, opening: list[Clause]) -> tuple[str, Citation] | None:
    if isinstance(field, str):  # the title: printed on the first page
        if not field.strip():
            return None
        # a title is often two words ("AGENCY AGREEMENT"): cited whole, it proves what it says
        whole = len(normalise(field).split())
        for candidate in opening:
            citation = citer.cite(candidate, field, min_words=min(whole, MIN_QUOTE_WORDS))
            if citation is not None:
                return field, citation
        return None
    values: list[FieldValue] = field if isinstance(field, list) else [field] if field is not None else []
    if not values:
        return None
    source = clause(values[0].clause_id)
    citation = citer.cite(source, values[0].quote) if source is not None else None
    if citation is None:
        return None
    return "; ".join(v.value for v in values), citation


def _same_words(a: Citation, b: Citation) -> bool:
    return a.clause_id == b.clause_id and a.char_start < b.char_end and b.char_start < a.char_end
