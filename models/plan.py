"""What the planner makes of a question before any search runs."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from models.clause import ClauseType


class Intent(StrEnum):
    LOOKUP = "lookup"  # what does the contract say about X
    DEFINITION = "definition"  # what does "Cause" mean
    SECTION_REFERENCE = "section_reference"  # what does Section 6 say
    ENUMERATE = "enumerate"  # which contracts ..., list every ...


class PageRange(BaseModel):
    first: int = Field(ge=1)
    last: int = Field(ge=1)


class Filters(BaseModel):
    """Hard pre-filters: a clause that does not pass them is never searched."""

    clause_types: list[ClauseType] = Field(default_factory=list)
    section_refs: list[str] = Field(default_factory=list)
    pages: PageRange | None = None


class SectionMention(BaseModel):
    """A section the question names, resolved to a clause of a document in scope."""

    text: str  # as written: "Section 6", "clause 8.1(b)"
    doc_id: str
    clause_id: str
    ref: str


class TermMention(BaseModel):
    """A defined term of a document in scope that the question uses."""

    term: str
    doc_id: str
    clause_id: str  # its defining clause


class CategoryGuess(BaseModel):
    """A CUAD category the question is about, by meaning (engine/query/meaning.py)."""

    category: str
    probability: float = Field(ge=0.0, le=1.0)
    words: list[str] = Field(default_factory=list, description="the words contracts use for it (the model's lexicon)")
    prior: float = Field(default=0.5, ge=0.0, le=1.0, description="share of dev contracts that state it")


class QueryPlan(BaseModel):
    question: str
    read_as: str = Field(
        default="", description="the question as its meaning is read and its vector searched: parties as roles, no title"
    )
    scope: list[str] = Field(description="doc_ids the question is about")
    parts: list[str] = Field(
        default_factory=list, description="the separate asks of a question that asks more than one (read_as split); empty when it asks one"
    )
    filters: Filters = Field(default_factory=Filters)
    intent: Intent = Intent.LOOKUP
    topics: list[ClauseType] = Field(default_factory=list, description="clause types the question is about (soft)")
    categories: list[CategoryGuess] = Field(default_factory=list, description="CUAD categories by meaning, likeliest first")
    sections: list[SectionMention] = Field(default_factory=list)
    terms: list[TermMention] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list, description="the question's own search words and the terms it uses")
    expansions: list[str] = Field(default_factory=list, description="contract synonyms of the keywords, weighted lower")
    meaning_words: list[str] = Field(
        default_factory=list, description="those of the expansions that come from the likely categories' lexicon, not the question's words"
    )
    notes: list[str] = Field(default_factory=list, description="what the planner decided and why")
    dropped: list[str] = Field(default_factory=list, description="values a model proposed that exist nowhere in scope")

    def literal(self) -> QueryPlan:
        """The plan without the words its meaning added: what a search for the typed words reads."""
        if not self.meaning_words:
            return self
        meant = set(self.meaning_words)
        return self.model_copy(update={"expansions": [w for w in self.expansions if w not in meant], "meaning_words": []})


class ProposedFilters(BaseModel):
    """What a language model may propose for a question; checked against the store before use."""

    clause_types: list[str] = Field(default_factory=list, description="clause types the question is about")
    sections: list[str] = Field(default_factory=list, description="section numbers the question refers to, e.g. 8.1(b)")
    defined_terms: list[str] = Field(default_factory=list, description="defined terms of the contract the question relies on")
