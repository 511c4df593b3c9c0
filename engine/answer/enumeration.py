"""Answer "which contracts..." and "how many..." completely, from the contract fields.

Top-k retrieval cannot list every contract governed by New York law: one missed contract is a
wrong answer. These questions are compiled into a filter over every contract's fields (the
governing law, the clause categories present) and every contract in scope is checked; each
listed contract comes with the sentence that shows it, cited. A topic no field holds, or whose
presence flag is too unreliable to list by, is listed by asking each contract instead
(`listing_by_search`): held out by contract on the 20 sample contracts, change of control
listed so went from F1 0.455 by its flag to 0.934 (stop 57).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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
    notes = _unknown(query)
    listed: list[ListedContract] = []
    searched = len(fields)
    if not query.filters:  # only values no contract has: nothing to check
        return Enumeration(query=query, documents=[], searched=len(fields), notes=notes)
    fields = _of_type(query, fields, names, notes)
    for contract in fields:
        shown = _matched(contract, query)  # what matched, the first one cited
        if shown is None:
            continue
        values = [v.value for v in shown] + ([", ".join(query.categories)] if query.categories else [])
        evidence = shown[0] if shown else _first_evidence(contract, query.categories)
        listed.append(
            ListedContract(
                doc_id=contract.doc_id, file=names[contract.doc_id], value="; ".join(values),
                clause_id=evidence.clause_id if evidence else None, quote=evidence.quote if evidence else None,
            )
        )
    notes += _unchecked(query, fields, bool(listed))
    listing = Enumeration(query=query, documents=listed, searched=searched, notes=notes)
    return cite_listed(listing, citer, clauses, cited)


def passing_fields(query: FieldQuery, fields: list[ContractFields], names: dict[str, str]) -> tuple[list[str], list[str]]:
    """The contracts of `fields` that the query's field filters let through (kind of agreement,
    governing law, expiry, flagged categories), with notes on filters that could not be used:
    the contracts a `searched` category is then asked of."""
    notes = _unknown(query)
    fields = _of_type(query, fields, names, notes)
    passing = [c.doc_id for c in fields if _matched(c, query) is not None]
    return passing, notes + _unchecked(query, fields, bool(passing))


def _unknown(query: FieldQuery) -> list[str]:
    return [f"{value}: no contract's governing law is known by that name, so it was not used" for value in query.unknown]


def _unchecked(query: FieldQuery, fields: list[ContractFields], any_passed: bool) -> list[str]:
    """What the filters could not settle: a law no contract has, contracts with no end date."""
    notes = []
    if query.governing_law is not None and not any_passed:
        present = sorted({f.governing_law.value for f in fields if f.governing_law})
        notes.append(f"no contract in scope is governed by {query.governing_law} law; the laws found are: {', '.join(present) or 'none'}")
    if query.expires is not None:
        unknown = sum(1 for f in fields if f.expiry_year is None)
        if unknown:
            notes.append(
                f"{unknown} of {len(fields)} contracts give no end date (their term is a length counted from an event, "
                "renews until terminated, or is not stated), so they could not be checked"
            )
    return notes


def _of_type(query: FieldQuery, fields: list[ContractFields], names: dict[str, str], notes: list[str]) -> list[ContractFields]:
    """The contracts of the kind the query names; all of them, with a note, when none is."""
    if query.document_type is None:
        return fields
    typed = [f for f in fields if _is_type(f, names[f.doc_id], query.document_type)]
    if not typed:
        notes.append(f"no contract in scope is titled a {query.document_type} agreement, so the type was not used")
    return typed or fields


def _matched(contract: ContractFields, query: FieldQuery) -> list[FieldValue] | None:
    """The values by which a contract passes the query's law, category and expiry filters
    (None when it fails one)."""
    shown: list[FieldValue] = []
    if query.governing_law is not None:
        law = contract.governing_law
        if law is None or jurisdiction_key(law.value) != jurisdiction_key(query.governing_law):
            return None
        shown.append(law)
    if not all(contract.presence.get(c) is not None and contract.presence[c].present for c in query.categories):
        return None
    if query.expires is not None:
        year = contract.expiry_year
        if year is None or not _year_matches(year, query.expires, query.expiry_year):
            return None
        shown.append(contract.expiration)
    return shown


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


def listing_by_search(
    question: str, rows: list[ContractAnswer], meant: list[CategoryGuess], min_probability: float,
    query: FieldQuery | None = None, scope: int | None = None, notes: Sequence[str] = (),
) -> Enumeration:
    """A "which / do any of these..." request no contract field settles, answered by asking each
    contract: the contracts whose own answer was not "Not found", each with its first quote.
    `query` is the filter the request compiled to when it names a clause category whose flag
    is too unreliable to list by (`query.searched`); its other filters chose `rows` out of the
    `scope` contracts (all of them when None)."""
    listed = []
    for row in rows:
        if row.answer.abstained or not row.answer.citations:
            continue
        first = row.answer.citations[0]
        listed.append(ListedContract(doc_id=row.doc_id, file=row.file, value=f"found in {section_name(first.ref)}", citation=first))
    for number, listed_row in enumerate(listed, start=1):
        listed_row.citation = listed_row.citation.model_copy(update={"number": number})
    scope = len(rows) if scope is None else scope
    if rows:
        asked = f"each of the {len(rows)} contracts" + (" that passed the other filters" if len(rows) < scope else "")
        checked = f"{asked} was searched on its own and listed when its answer passed the evidence check (a contract without one says “Not found”)."
    else:
        checked = "each contract that passed the other filters would have been searched on its own; none did."
    if query is not None and query.searched:
        note = f"Contracts are not flagged for {query.searched} (too often misread to list by), so {checked}"
    else:
        sure = [g.category for g in meant[:1] if g.probability >= min_probability]
        query = FieldQuery(question=question, kind="count" if counts(question) else "list", categories=sure)
        note = f"No contract field holds {'“' + sure[0] + '”' if sure else 'this'}, so {checked}"
    return Enumeration(query=query, documents=listed, searched=scope, notes=[*notes, note], method="search")
