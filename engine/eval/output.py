"""A question's result as one output line of ../shared/bench/FORMAT.md, whichever path
answered it: an answer (or an abstention, citing the closest clauses it shows), retrieval
alone, or an enumeration (one citation per listed contract)."""

from __future__ import annotations

from collections.abc import Callable

from engine.eval.scores import Citation, ContextPassage, Output
from models.answer import Answer
from models.answer import Citation as AnswerCitation
from models.enumeration import Enumeration
from models.per_contract import PerContract
from models.result import QueryResult

DocName = Callable[[str], str]  # doc_id -> the path or file name the output names it by


def to_output(question_id: str, result: QueryResult, doc_name: DocName) -> Output:
    stamp = {"id": question_id, "preset": result.preset, "settings_hash": result.settings_hash, "seconds": result.seconds}
    if result.enumeration is not None:
        return _enumeration_output(result.enumeration, doc_name, stamp)
    if result.per_contract is not None:
        return _per_contract_output(result.per_contract, doc_name, stamp)
    context = [ContextPassage(doc=doc_name(p.doc_id), page=p.page, text=p.text) for p in result.retrieval.passages]
    answer = result.answer
    if answer is None:
        return Output(**stamp, context=context)
    return Output(
        **stamp,
        abstained=answer.abstained,
        answer=None if answer.abstained else answer.text(),
        context=context,
        citations=_lines(_cited(answer), doc_name, set() if answer.abstained else answer.more_evidence),
    )


def _enumeration_output(listing: Enumeration, doc_name: DocName, stamp: dict) -> Output:
    """Listing no contract is the enumeration's "not found"; the context is each listed
    contract's cited sentence, the evidence the listing rests on."""
    citations = listing.citations
    names = "; ".join(d.file for d in listing.documents)
    return Output(
        **stamp,
        abstained=not listing.documents,
        answer=f"{listing.headline()} {names}".strip() if listing.documents else None,
        context=[ContextPassage(doc=doc_name(c.doc_id), page=c.page, text=c.quote) for c in citations],
        citations=_lines(citations, doc_name),
    )


def _per_contract_output(answers: PerContract, doc_name: DocName, stamp: dict) -> Output:
    """Each contract's answer: the first quote of each that found one; none found is "not found"."""
    found = answers.found
    context = [
        ContextPassage(doc=doc_name(c.doc_id), page=c.page, text=c.quote) for row in found for c in row.answer.citations
    ]
    text = " ".join(f"{row.file}: {row.answer.text()}" for row in found)
    return Output(**stamp, abstained=not found, answer=text or None, context=context, citations=_lines(answers.citations, doc_name))


def _lines(citations: list[AnswerCitation], doc_name: DocName, more: set[int] = frozenset()) -> list[Citation]:
    """One line per page (a quote across a page break is printed on each page in part); `more`:
    the numbers of citations folded as more evidence."""
    return [
        Citation(doc=doc_name(c.doc_id), page=part.page, quote=part.text, more=c.number in more) for c in citations for part in c.parts
    ]


def _cited(answer: Answer) -> list[AnswerCitation]:
    """An abstention cites the closest clauses it shows, for the reader to check."""
    if answer.abstained:
        return [c.citation for c in answer.closest if c.citation is not None]
    return answer.citations
