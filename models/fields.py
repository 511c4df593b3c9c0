"""Per-contract fields extracted at ingest, each value with the clause and words it came from."""

from __future__ import annotations

from pydantic import BaseModel, Field


def full_year(year: int) -> int:
    """A year as contracts and CUAD write it in short dates: 08 -> 2008, 98 -> 1998, 2011 stays."""
    return year if year > 100 else (2000 + year if year < 50 else 1900 + year)


class FieldValue(BaseModel):
    """One extracted value and where the contract says it."""

    value: str
    clause_id: str
    ref: str
    page: int
    quote: str = Field(description="the sentence the value was read from, verbatim from the clause text")


class Presence(BaseModel):
    """Whether the contract has a clause of one kind, and the clauses that show it."""

    present: bool
    clause_ids: list[str] = Field(default_factory=list)
    evidence: list[FieldValue] = Field(default_factory=list, description="the first sentences that show it")


class ContractFields(BaseModel):
    doc_id: str
    title: str = ""
    document_type: str = Field(default="", description="the agreement family its title names, e.g. 'License'")
    parties: list[FieldValue] = Field(default_factory=list, description="value: 'Name (“Alias”)', from the sentence that introduces them")
    governing_law: FieldValue | None = None  # value: a jurisdiction name, e.g. "New York", "Ontario, Canada"
    agreement_date: FieldValue | None = Field(default=None, description="value: 'm/d/yy', the date the opening gives the contract")
    effective_date: FieldValue | None = Field(default=None, description="value: 'm/d/yy'; the agreement date when no other is named")
    renewal_term: FieldValue | None = Field(default=None, description="value: e.g. 'successive 1 year', how long each renewal runs")
    expiration: FieldValue | None = Field(default=None, description="value: 'm/d/yy', 'perpetual', or the term's length as written")
    presence: dict[str, Presence] = Field(default_factory=dict, description="category name -> presence")

    @property
    def expiry_year(self) -> int | None:
        """The year the contract ends, when its expiration is a date ("12/31/25" -> 2025)."""
        if self.expiration is None or self.expiration.value.count("/") != 2:
            return None
        return full_year(int(self.expiration.value.rsplit("/", 1)[1]))
