"""A question over several contracts that is not a listing, answered contract by contract.

"What is the notice period for termination?" with twelve contracts in scope has twelve
answers; picking the one contract whose clause ranked best would hide the other eleven.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from models.answer import Answer, Citation


class ContractAnswer(BaseModel):
    doc_id: str
    file: str = Field(description="the ingested file's name")
    answer: Answer


class PerContract(BaseModel):
    question: str
    rows: list[ContractAnswer] = Field(description="every contract in scope, in scope order")
    notes: list[str] = Field(default_factory=list)

    @property
    def found(self) -> list[ContractAnswer]:
        return [row for row in self.rows if not row.answer.abstained]

    @property
    def missing(self) -> list[ContractAnswer]:
        return [row for row in self.rows if row.answer.abstained]

    def headline(self) -> str:
        return f"Found in {len(self.found)} of {len(self.rows)} contracts, each answered on its own."

    @property
    def cited(self) -> list[tuple[ContractAnswer, Citation]]:
        """Each contract with an answer and its first citation, numbered across the contracts."""
        firsts = [(row, row.answer.citations[0]) for row in self.found if row.answer.citations]
        return [(row, citation.model_copy(update={"number": n})) for n, (row, citation) in enumerate(firsts, start=1)]

    @property
    def citations(self) -> list[Citation]:
        return [citation for _, citation in self.cited]
