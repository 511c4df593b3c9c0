"""One contract's answer to one grid column: from its stored fields when they hold it, else
from the one question pipeline, asked of that contract alone.

The fields come first because they are already there (read at ingest, each value with its
sentence) and, for a topic with a CUAD category, they hold the clause-presence model's
contract-level call, which is what a review needs: a retrieval answers "what does the best
clause say", not "is there such a clause". So a category the model does not find is "not
found", not asked again: on 60 dev contracts, asking the pipeline where the model found
nothing added about 26 found verdicts, of which none was a labelled clause, and took mean F1 over the 11
labelled rules from 0.923 to 0.879 (bench/review.py; stop 27's note). That was in sample;
held out by contract (`bench/review.py --presence-folds`, 99 dev contracts) it is 0.851 without
the fallback against 0.847 with it. Topics without a
category (governing law when no field holds it, the term) and the user's own questions are
asked, and the abstention decision says whether the contract answers. Every citation is made
by the Citer, so every quote is checked against the contract's text and pages.
"""

from __future__ import annotations

from datetime import UTC, datetime

from engine.pipeline import QueryEngine
from engine.review.lengths import length_in
from engine.review.topics import TOPICS, Reads, Topic
from models.answer import Answer, Citation, section_name
from models.fields import ContractFields, FieldValue
from models.review import GridCell, GridColumn, Source

SHORT_ANSWER = 240  # characters of a sentence shown in a cell; the citation holds the whole quote
EVIDENCE_CITED = 2  # quotes kept per cell


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHORT_ANSWER else text[: SHORT_ANSWER - 1].rsplit(" ", 1)[0] + "…"


def _where(value: FieldValue) -> str:
    return f"{section_name(value.ref)}, page {value.page}"


class CellFiller:
    def __init__(self, engine: QueryEngine) -> None:
        self.engine = engine  # its `fields` too: a benchmark swaps in fields read by a held-out model

    def fill(self, column: GridColumn, doc_id: str) -> GridCell:
        topic = TOPICS.get(column.topic) if column.topic else None
        if topic is not None:
            cell = self._from_fields(topic, column, self.engine.fields.of([doc_id])[0])
            if cell is not None:
                return cell
            if topic.category is not None:
                why = (f"Not found: the clause model read every sentence of the contract and none reads as a "
                       f"“{topic.category}” clause.")
                return GridCell(doc_id=doc_id, column=column.id, found=False, source=Source.CLAUSE_MODEL, why=why, made_at=datetime.now(UTC))
        return self._asked(column, doc_id)

    # ---------------------------------------------------------------- the stored fields

    def _from_fields(self, topic: Topic, column: GridColumn, fields: ContractFields) -> GridCell | None:
        value = getattr(fields, topic.field) if topic.field else None
        if value is not None:
            citations = self._cite([value])
            if citations:
                why = f"Read from {_where(value)} when the contract was ingested."
                return self._cell(fields.doc_id, column, Source.FIELD, value.value, why, citations)
        presence = fields.presence.get(topic.category) if topic.category else None
        if presence is not None and presence.present and presence.evidence:
            citations = self._cite(presence.evidence[:EVIDENCE_CITED])
            if citations:
                first = presence.evidence[0]
                answer = _short(first.quote)
                if topic.reads is Reads.LENGTH and (length := length_in(first.quote)) is not None:
                    answer = f"{length}: {answer}"
                why = f"The clause model finds a clause on {topic.label.lower()} in {_where(first)}."
                return self._cell(fields.doc_id, column, Source.CLAUSE_MODEL, answer, why, citations)
        return None

    def _cite(self, values: list[FieldValue]) -> list[Citation]:
        citations = []
        for value in values:
            citation = self.engine.cite_field(value)
            if citation is not None:
                citations.append(citation.model_copy(update={"number": len(citations) + 1}))
        return citations

    # ---------------------------------------------------------------- the question pipeline

    def _asked(self, column: GridColumn, doc_id: str) -> GridCell:
        result = self.engine.run(column.question, [doc_id], cite_all=True)
        answer = result.answer
        if answer is None or answer.abstained or not answer.citations:
            closest = f" The closest clause was {section_name(answer.closest[0].ref)}." if answer is not None and answer.closest else ""
            why = f"Not found: searched the contract for “{column.question}”.{closest}"
            return GridCell(doc_id=doc_id, column=column.id, found=False, why=why, made_at=datetime.now(UTC))
        stating = _stating_citations(answer)[:EVIDENCE_CITED]
        text = _short(stating[0].quote)
        why = f"Answered by searching the contract: {section_name(stating[0].ref)}, page {stating[0].page}."
        return self._cell(doc_id, column, Source.SEARCH, text, why, stating)

    @staticmethod
    def _cell(doc_id: str, column: GridColumn, source: Source, answer: str, why: str, citations: list[Citation]) -> GridCell:
        return GridCell(
            doc_id=doc_id, column=column.id, found=True, source=source, answer=answer, why=why, citations=citations, made_at=datetime.now(UTC)
        )


def _stating_citations(answer: Answer) -> list[Citation]:
    """The answer's citations that state it, in its order, renumbered from 1."""
    folded = answer.more_evidence
    stating = [c for c in answer.citations if c.number not in folded] or answer.citations
    return [c.model_copy(update={"number": n}) for n, c in enumerate(stating, start=1)]
