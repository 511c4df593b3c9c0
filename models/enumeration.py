"""Corpus-wide questions ("which contracts...", "how many...") and their complete answers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from models.answer import Citation


class FieldQuery(BaseModel):
    """What an enumeration question asks for, as a filter over the contract fields."""

    question: str
    kind: Literal["list", "count"] = "list"
    governing_law: str | None = Field(default=None, description="a jurisdiction name from the gazetteer")
    document_type: str | None = Field(default=None, description="a kind of agreement the question names, e.g. 'distributor'")
    categories: list[str] = Field(default_factory=list, description="clause categories every listed contract must have")
    expires: Literal["in", "before", "after"] | None = Field(default=None, description="how the expiry year is compared")
    expiry_year: int | None = None
    unknown: list[str] = Field(default_factory=list, description="values the question names that the planner cannot use")
    searched: str | None = Field(
        default=None,
        description="a clause category no contract flag lists reliably: each contract passing the other filters is searched for it "
        "and listed when its answer passes the evidence check",
    )

    @property
    def filters(self) -> bool:
        """Whether the question asks for anything the fields can check."""
        return bool(self.categories) or self.governing_law is not None or self.expires is not None


class ListedContract(BaseModel):
    doc_id: str
    file: str = Field(description="the ingested file's name")
    value: str = Field(description="what matched: the jurisdiction, or the clause categories found")
    citation: Citation | None = None
    clause_id: str | None = Field(default=None, description="the clause of the sentence that shows it, as the contract's fields keep it")
    quote: str | None = Field(default=None, description="that sentence; `citation` holds it checked against the page")

    @property
    def awaiting_citation(self) -> bool:
        """Listed with evidence that is not cited yet: a long listing cites its first rows at
        once and the rest when asked (Library.cite_listing)."""
        return self.citation is None and self.clause_id is not None and self.quote is not None


class Enumeration(BaseModel):
    query: FieldQuery
    documents: list[ListedContract]
    searched: int = Field(description="contracts in scope, all of which were checked")
    notes: list[str] = Field(default_factory=list, description="values asked for that no contract has, and the like")
    method: Literal["fields", "search"] = Field(
        default="fields", description="fields: read from the contract fields; search: each contract searched and checked on its own"
    )

    def headline(self) -> str:
        """"3 of 75 contracts titled distributor agreements and with Audit Rights." """
        query = self.query
        type_used = query.document_type and not any("type was not used" in note for note in self.notes)
        asked = [f"titled {query.document_type} agreements"] if type_used else []
        asked += [f"governed by the law of {query.governing_law}"] if query.governing_law else []
        asked += [f"with {category}" for category in query.categories]
        asked += [f"expiring {query.expires} {query.expiry_year}"] if query.expires else []
        asked += [f"where the search found {query.searched}"] if query.searched else []
        if self.method == "search" and not asked:
            asked = ["where the search found it"]
        return f"{len(self.documents)} of {self.searched} contracts " + (" and ".join(asked) or "match") + "."

    @property
    def citations(self) -> list[Citation]:
        return [d.citation for d in self.documents if d.citation is not None]

    @property
    def awaiting_citation(self) -> int:
        """How many listed contracts have evidence not cited yet."""
        return sum(d.awaiting_citation for d in self.documents)
