"""What retrieval hands the answerer: passages, each saying why it is there."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from models.plan import QueryPlan


class Mode(StrEnum):
    KEYWORD = "keyword"
    VECTOR = "vector"
    HYBRID = "hybrid"  # keyword + vector, fused; no graph
    GRAPH = "graph"  # hybrid anchors, injected anchors and the graph walk (the default)


class Step(BaseModel):
    """One edge of a graph path, as the walk took it."""

    edge: str  # REFERENCES | DEFINES | PARENT_OF
    direction: str  # "out" (the clause it came from cites/uses/contains this one) or "in"
    via_ref: str  # the clause it came from
    label: str = ""  # the term or reference text of the edge

    def describe(self) -> str:
        return {
            ("REFERENCES", "out"): f"cited by {self.via_ref}",
            ("REFERENCES", "in"): f"cites {self.via_ref}",
            ("DEFINES", "out"): f"defines “{self.label}” used in {self.via_ref}",
            ("DEFINES", "in"): f"uses “{self.label}” defined in {self.via_ref}",
            ("PARENT_OF", "out"): f"part of {self.via_ref}",
            ("PARENT_OF", "in"): f"contains {self.via_ref}",
        }.get((self.edge, self.direction), f"linked to {self.via_ref}")


class Why(BaseModel):
    """How a passage was found: as an anchor (which arm, at what rank) or through the graph."""

    kind: str  # "anchor" | "named" (the question names it) | "graph"
    arms: dict[str, int] = Field(default_factory=dict, description="arm -> rank (1-based) for anchors")
    edge: str | None = None  # REFERENCES | DEFINES | PARENT_OF, for graph passages: the last step
    direction: str | None = None  # "out" (the anchor cites/uses/contains it) or "in"
    via_ref: str | None = None  # the clause it was reached from
    hops: int = 0
    label: str = ""  # the term or reference text of the edge
    path: list[Step] = Field(default_factory=list, description="the steps before the last, from the anchor on")

    def last_step(self) -> Step | None:
        if self.kind != "graph" or not self.edge:
            return None
        return Step(edge=self.edge, direction=self.direction or "", via_ref=self.via_ref or "", label=self.label)

    def describe(self) -> str:
        """The chain back to the anchor, so a term used inside another term's definition says
        which definition and which clause it serves: 'defines “Holding Company” used in 9.1
        "G-Cloud Services", which defines “G-Cloud Services” used in 1.10 (2 hops)'."""
        if self.kind == "named":
            return f"named in the question ({self.label})"
        if self.kind == "anchor":
            ranks = ", ".join(f"{arm} #{rank}" for arm, rank in self.arms.items())
            return f"search hit ({ranks})"
        last = self.last_step()
        steps = [last, *reversed(self.path)] if last else list(reversed(self.path))
        chain = ", which ".join(step.describe() for step in steps) or "linked"
        return f"{chain} ({self.hops} hop{'s' if self.hops != 1 else ''})"


class Passage(BaseModel):
    """A stretch of one clause, exactly as it stands in the document text."""

    doc_id: str
    clause_id: str
    ref: str
    heading: str = ""
    page: int = Field(ge=1, description="page the passage starts on")
    page_end: int = Field(ge=1)
    char_start: int = Field(ge=0, description="offset in the document text")
    char_end: int = Field(ge=0)
    text: str
    score: float
    similarity: float = 0.0
    why: Why
    trimmed: bool = False  # a long clause cut to the part that matters
    rank: int | None = Field(
        default=None, description="place by likelihood alone (0 = likeliest) when the context is in another order; None: its place in it"
    )


class Retrieval(BaseModel):
    plan: QueryPlan
    mode: Mode
    passages: list[Passage]
    budget: int
    seconds: float
    timings: dict[str, float] = Field(default_factory=dict)
    considered: list[str] = Field(default_factory=list, description="every clause the search or the walk reached")

    def ranked_passages(self) -> list[Passage]:
        """The passages likeliest first. `passages` is the context's reading order, which may put
        a short likely definition before a long likelier clause to fit the budget; what the
        answerer weighs (the top passages, the best sentences) follows likelihood."""
        places = [p.rank if p.rank is not None else index for index, p in enumerate(self.passages)]
        return [p for _, p in sorted(zip(places, self.passages), key=lambda r: r[0])]
