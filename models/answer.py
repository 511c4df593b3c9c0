"""What the answerer returns: claims that quote the contract, or a reasoned abstention."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from models.plan import QueryPlan
from models.retrieval import Passage


def section_name(ref: str) -> str:
    """"12.4" -> "Section 12.4"; "Schedule B" and "Preamble" stay as they are."""
    return f"Section {ref}" if ref[:1].isdigit() else ref


class Rect(BaseModel):
    """One highlight rectangle in PDF points (origin top left, as PyMuPDF measures)."""

    page: int = Field(ge=1)
    x0: float
    y0: float
    x1: float
    y1: float


class QuotePart(BaseModel):
    """The part of a quote printed on one page (a quote across a page break has two)."""

    page: int = Field(ge=1)
    text: str


class Citation(BaseModel):
    """A verbatim quote of one clause, located in the document and on the page."""

    number: int = Field(default=0, ge=0, description="1-based, in the order the answer cites it")
    doc_id: str
    file_name: str
    clause_id: str
    ref: str
    heading: str = ""
    page: int = Field(ge=1, description="page the quote starts on")
    page_end: int = Field(ge=1)
    quote: str = Field(description="exactly the document text at char_start:char_end")
    char_start: int = Field(ge=0, description="offset in the document text")
    char_end: int = Field(ge=0)
    rects: list[Rect] = Field(default_factory=list, description="one per line of quoted words, across pages")
    parts: list[QuotePart] = Field(default_factory=list, description="the quote page by page, each printed verbatim there")


class Claim(BaseModel):
    """One statement of the answer and the quotes that support it."""

    text: str
    citations: list[int] = Field(description="numbers of the answer's citations")
    more: bool = Field(default=False, description="more evidence, folded under the answer: it supports or surrounds the answer rather than stating it")

    def line(self) -> str:
        """"- text [1][2]", as the answer's plain text lists it."""
        return f"- {self.text} {''.join(f'[{n}]' for n in self.citations)}".rstrip()


def stating_numbers(claims: list[Claim]) -> set[int]:
    """Numbers of the citations the claims that state the answer make (not "more evidence")."""
    return {n for claim in claims if not claim.more for n in claim.citations}


class Closest(BaseModel):
    """A clause shown with an abstention, so the user can check for themselves."""

    doc_id: str
    file_name: str
    clause_id: str
    ref: str
    heading: str = ""
    page: int
    excerpt: str
    citation: Citation | None = Field(default=None, description="its best sentence, checked, to open in the viewer")


class Trail(BaseModel):
    """How one passage of the context was found: the search itself, or a graph edge from which clause."""

    doc_id: str
    clause_id: str
    ref: str
    heading: str = ""
    page: int
    how: str = Field(description="e.g. 'search hit (vector #1, keyword #3)' or 'defines “Cause” used in 8.1 (1 hop)'")
    edge: str | None = Field(default=None, description="REFERENCES | DEFINES | PARENT_OF when the graph walk found it")
    via_ref: str | None = None


class BackendKind(StrEnum):
    EXTRACTIVE = "extractive"
    OLLAMA = "ollama"
    OPENAI = "openai"


class Answer(BaseModel):
    question: str
    backend: BackendKind
    model: str | None = None  # the model that answered, for ollama/openai
    abstained: bool
    lead: str = Field(description="one line: what was found, or what was looked for and not found")
    claims: list[Claim] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    closest: list[Closest] = Field(default_factory=list, description="with an abstention: the nearest clauses")
    support: float = Field(default=0.0, description="calibrated probability that the evidence answers the question")
    notes: list[str] = Field(default_factory=list, description="fallbacks, dropped quotes, retries")
    plan: QueryPlan | None = None
    trail: list[Trail] = Field(default_factory=list, description="the context passages, best first, and how each was found")
    seconds: float = 0.0

    @property
    def answered_by(self) -> str:
        return f"{self.backend.value}:{self.model}" if self.model else self.backend.value

    @property
    def backend_label(self) -> str:
        """Who answered, in words the user reads next to the answer."""
        if self.backend is BackendKind.EXTRACTIVE:
            return "extractive (no language model: the contract's own sentences)"
        return f"{self.backend.value} model {self.model}"

    def text(self) -> str:
        """The answer as plain text: the lead, then each claim with its citation numbers, more evidence last."""
        lines = [self.lead] + [claim.line() for claim in self.stating_claims]
        if self.more_claims:
            lines += ["More evidence:"] + [claim.line() for claim in self.more_claims]
        return "\n".join(lines)

    @property
    def stating_claims(self) -> list[Claim]:
        return [c for c in self.claims if not c.more]

    @property
    def more_claims(self) -> list[Claim]:
        return [c for c in self.claims if c.more]

    @property
    def opening(self) -> list[Citation]:
        """The first claim's citations: its quote, and the items of a list it opens
        ("... may terminate this Agreement if:" over (a), (b)), which say nothing apart."""
        by_number = {c.number: c for c in self.citations}
        first = self.claims[0].citations if self.claims else [c.number for c in self.citations[:1]]
        return [by_number[n] for n in first if n in by_number]

    def opening_quotes(self, limit: int) -> str:
        """The opening's quotes on one line, each in quotation marks and cut at `limit`
        characters: what a per-contract row shows of its answer."""
        return " ".join(f"“{' '.join(c.quote.split())[:limit]}”" for c in self.opening)

    @property
    def more_evidence(self) -> set[int]:
        """Numbers of the citations only "more evidence" claims make."""
        return {n for c in self.claims if c.more for n in c.citations} - stating_numbers(self.claims)


# ------------------------------------------------------------------ model output schema


class DraftQuote(BaseModel):
    """A quote the model says supports a claim, by passage number."""

    passage: int = Field(description="the number of the passage quoted, as in [P3] -> 3")
    quote: str = Field(description="words copied exactly from that passage")


class DraftClaim(BaseModel):
    statement: str = Field(description="one sentence answering part of the question")
    quotes: list[DraftQuote] = Field(default_factory=list)


class DraftAnswer(BaseModel):
    """The JSON a language model must return (Ollama `format`, or OpenAI JSON mode)."""

    verdict: Literal["answered", "not_stated"] = Field(description="not_stated when the passages do not answer")
    claims: list[DraftClaim] = Field(default_factory=list)


class SearchHit(BaseModel):
    """One search result, evidence first: the passage, where it sits, and its opening words cited."""

    passage: Passage
    file_name: str
    section_path: list[str] = Field(description="refs from the top-level section down to this clause")
    clause_type: str
    citation: Citation | None = None
