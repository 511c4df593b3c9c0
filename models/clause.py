"""A clause: one node of a contract's clause graph."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class ClauseKind(StrEnum):
    """What part of the document a clause is, by its form rather than its subject."""

    PREAMBLE = "preamble"
    RECITALS = "recitals"
    TOC = "toc"
    ARTICLE = "article"
    SECTION = "section"
    SUBCLAUSE = "subclause"
    DEFINITION = "definition"  # one entry of a definitions list: "Affiliate" means ...
    SCHEDULE = "schedule"
    SIGNATURES = "signatures"


class ClauseType(StrEnum):
    """What a clause is about, assigned by rules at ingest."""

    DEFINITIONS = "definitions"
    TERM_TERMINATION = "term_termination"
    RENEWAL = "renewal"
    PAYMENT = "payment"
    CONFIDENTIALITY = "confidentiality"
    INDEMNIFICATION = "indemnification"
    LIMITATION_OF_LIABILITY = "limitation_of_liability"
    WARRANTY = "warranty"
    GOVERNING_LAW = "governing_law"
    DISPUTE_RESOLUTION = "dispute_resolution"
    ASSIGNMENT = "assignment"
    CHANGE_OF_CONTROL = "change_of_control"
    NON_COMPETE = "non_compete"
    EXCLUSIVITY = "exclusivity"
    IP_OWNERSHIP = "ip_ownership"
    LICENSE_GRANT = "license_grant"
    AUDIT = "audit"
    INSURANCE = "insurance"
    FORCE_MAJEURE = "force_majeure"
    NOTICES = "notices"
    PARTIES = "parties"
    SIGNATURES = "signatures"
    OTHER = "other"


class Clause(BaseModel):
    """One clause, with its place in the tree and in the document's text.

    `text` is exactly `document_text[char_start:char_end]`, so any quote found in it maps
    back to word boxes on the page.
    """

    clause_id: str = Field(description="<doc_id>:<path>, unique in the store")
    doc_id: str
    ref: str = Field(description="the number as printed: 12.3, 8.1(b), Article III, Schedule A")
    path: str = Field(description="ref, prefixed by its schedule where numbering restarts")
    heading: str = ""
    parent_id: str | None = None
    parent_ref: str | None = None
    level: int = Field(ge=1)
    kind: ClauseKind
    clause_type: ClauseType = ClauseType.OTHER
    topics: list[ClauseType] = Field(default_factory=list, description="every type the rules matched")
    order: int = Field(ge=0, description="position in reading order")
    text: str
    page_start: int = Field(ge=1)
    page_end: int = Field(ge=1)
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)
    defines: list[str] = Field(default_factory=list, description="terms this clause defines")
    terms_used: list[str] = Field(default_factory=list, description="defined terms this clause uses")
