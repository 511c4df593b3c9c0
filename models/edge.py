"""An edge of the clause graph."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel


class EdgeType(StrEnum):
    PARENT_OF = "PARENT_OF"  # a clause to each of its subclauses
    DEFINES = "DEFINES"  # the clause defining a term to each clause using it
    REFERENCES = "REFERENCES"  # a clause to the clause it cites ("subject to Section 8.2")


class Edge(BaseModel):
    """A directed edge between two clauses of one document.

    An unresolved cross-reference is kept as an edge with no `dst`, so it can be shown
    and counted rather than silently dropped.
    """

    doc_id: str
    type: EdgeType
    src: str
    dst: str | None
    src_ref: str
    dst_ref: str | None
    label: str = ""  # the term (DEFINES) or the reference as written (REFERENCES)

    @property
    def resolved(self) -> bool:
        return self.dst is not None
