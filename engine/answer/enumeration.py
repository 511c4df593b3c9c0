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
from engine.fields.jurisdiction import jurisdiction_key
from engine.query.field_query import counts
from models.answer import section_name
from models.clause import Clause
from models.enumeration import Enumeration, FieldQuery, ListedContract
from models.fields import ContractFields, FieldValue
from models.per_contract import ContractAnswer
from models.plan import CategoryGuess

ClauseLookup = Callable[[list[str]], dict[str, Clause]]  # clause ids -> the clauses found
_PREFETCHED = 40  # contracts whose pages are read together (a Citer holds 48)


def enumerate_contracts(
    query: FieldQuery, fields: list[ContractFields], names: dict[str, str], citer: Citer, clauses: ClauseLookup, cited: int | None = None
) -> Enumeration:
    """Every contract in `fields` that passes the query, each with the sentence that shows it,
    cited for the first `cited` of them (all when None): citing checks the sentence against
    its page, tens of milliseconds a contract, and a listing over hundreds of contracts shows
    its first rows while the rest are cited on request (cite_listed).
    `clauses(ids)` finds the clauses values were read from."""
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
        listed.append(
            ListedContract(
                doc_id=contract.doc_id, file=names[contract.doc_id], value="; ".join(values),
                clause_id=evidence.clause_id if evidence else None, quote=evidence.quote if evidence else None,
            )
        )
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
    listing = Enumeration(query=query, documents=listed, searched=searched, notes=notes)
    return cite_listed(listing, citer, clauses, cited)


def cite_listed(
    listing: Enumeration, citer: Citer, clauses: ClauseLookup, count: int | None = None, on_progress: Callable[[int, int], None] | None = None
) -> Enumeration:
    """The listing with its rows' evidence cited, in order, for the first `count` rows still
    waiting (all when None); a citation is numbered by its row. The rows' clauses and pages
    are read in one go rather than contract by contract."""
    waiting = [(number, row) for number, row in enumerate(listing.documents, start=1) if row.awaiting_citation][:count]
    found_clauses = clauses([row.clause_id for _, row in waiting])
    for done, (number, row) in enumerate(waiting, start=1):
        if done % _PREFETCHED == 1:  # the pages of this row's block of contracts, in one read
            citer.prefetch([row.doc_id for _, row in waiting[done - 1 : done - 1 + _PREFETCHED]])
        found = found_clauses.get(row.clause_id)
        citation = citer.cite(found, row.quote) if found is not None else None
        row.citation = citation.model_copy(update={"number": number}) if citation is not None else None
        if citation is None:  # the evidence no longer checks out: listed, but with nothing to cite
            row.clause_id = row.quote = None
        if on_progress is not None:
            on_progress(done, len(waiting))
    return listing


def _first_evidence(contract: ContractFields, categories: list[str]) -> FieldValue | None:
    evidence = contract.presence[categories[0]].evidence if categories else []
    return evidence[0] if evidence else None


def _year_matches(year: int, relation: str, asked: int) -> bool:
    return year == asked if relation == "in" else year < asked if relation == "before" else year > asked


def _is_type(contract: ContractFields, file_name: str, document_type: str) -> bool:
    """The contract's title (or file name) names the kind: "DISTRIBUTOR AGREEMENT" is a distributor agreement."""
    words = re.sub(r"[^a-z]+", " ", f"{contract.title} {file_name}".lower())
    return all(re.search(rf"\b{re.escape(w[:6])}", words) for w in document_type.split())


def listing_by_search(question: str, rows: list[ContractAnswer], meant: list[CategoryGuess], min_probability: float) -> Enumeration:
    """A "which / do any of these..." request no contract field settles, answered by asking each
    contract: the contracts whose own answer was not "Not found", each with its first quote."""
    sure = [g.category for g in meant[:1] if g.probability >= min_probability]
    listed = []
    for row in rows:
        if row.answer.abstained or not row.answer.citations:
            continue
        first = row.answer.citations[0]
        listed.append(ListedContract(doc_id=row.doc_id, file=row.file, value=f"found in {section_name(first.ref)}", citation=first))
    for number, listed_row in enumerate(listed, start=1):
        listed_row.citation = listed_row.citation.model_copy(update={"number": number})
    note = (
        f"No contract field holds {'“' + sure[0] + '”' if sure else 'this'}, so each of the {len(rows)} contracts was searched "
        "on its own and listed when its answer passed the evidence check (a contract without one says “Not found”)."
    )
    query = FieldQuery(question=question, kind="count" if counts(question) else "list", categories=sure)
    return Enumeration(query=query, documents=listed, searched=len(rows), notes=[note], method="search")
