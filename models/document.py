"""A contract in the library, and what ingesting it reports."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from models.clause import Clause
from models.edge import Edge


class Document(BaseModel):
    """One ingested contract: its identity and a summary of its clause graph."""

    doc_id: str = Field(description="sha256 of the file's bytes")
    file_name: str
    title: str
    pages: int = Field(ge=1)
    clauses: int = Field(ge=0)
    definitions: int = Field(ge=0)
    references_resolved: int = Field(ge=0)
    references_unresolved: int = Field(ge=0)
    clause_types: dict[str, int] = Field(default_factory=dict, description="clause type -> count")
    pages_without_text: list[int] = Field(default_factory=list)
    parser_version: str
    embedding_model: str
    ingested_at: datetime
    ingest_seconds: float = 0.0
    size_bytes: int = 0


class Definition(BaseModel):
    """A defined term and the clause that defines it."""

    term: str
    clause_id: str
    ref: str


class DocumentDetail(BaseModel):
    """A document with its whole clause graph, as `engine show` prints it."""

    document: Document
    clauses: list[Clause]
    definitions: list[Definition]
    edges: list[Edge]


class IngestStatus(StrEnum):
    INGESTED = "ingested"
    UNCHANGED = "unchanged"  # the same bytes were already in the store
    FAILED = "failed"


class IngestOutcome(BaseModel):
    """What happened to one file in an ingest run."""

    file_name: str
    status: IngestStatus
    message: str = ""
    doc_id: str | None = None
    pages: int = 0
    clauses: int = 0
    definitions: int = 0
    references_resolved: int = 0
    references_unresolved: int = 0
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
