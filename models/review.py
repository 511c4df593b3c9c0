"""The review grid and the playbook review (issue 19).

A grid asks the same questions of every contract in scope: one row per contract, one column
per question, each cell a short answer with the quotes that support it. A playbook states the
team's standard positions as rules; a review judges each contract rule by rule, green, amber
or red, with the clause and quote that decided it, or with what was searched when nothing was
found.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from models.answer import Citation

RULE_ID = r"^[a-z][a-z0-9_]*$"


# ------------------------------------------------------------------ the grid


class GridColumn(BaseModel):
    """One question asked of every contract: a preset topic or the user's own words."""

    id: str = Field(description="the topic's id for a preset column; 'q-' and a digest of the question for a free one")
    label: str = Field(description="the column's heading")
    question: str
    topic: str | None = Field(default=None, description="the preset topic the column asks about, if any")


class Source(StrEnum):
    """Where a cell's answer came from."""

    FIELD = "field"  # a contract field read at ingest (a governing law, a renewal term...)
    CLAUSE_MODEL = "clause_model"  # the clause-presence model's sentences for the topic's category
    SEARCH = "search"  # the question pipeline, asked of this contract alone


class GridCell(BaseModel):
    """One contract's answer to one column's question."""

    doc_id: str
    column: str = Field(description="the column's id")
    found: bool = Field(description="whether the contract answers the question")
    source: Source = Source.SEARCH
    answer: str = Field(default="", description="a field value or the best sentence; empty when not found")
    why: str = Field(description="how the answer was found, or what was searched when it was not")
    citations: list[Citation] = Field(default_factory=list, description="each checked verbatim against the contract")
    made_at: datetime | None = None


class GridRow(BaseModel):
    doc_id: str
    file: str
    cells: dict[str, GridCell] = Field(default_factory=dict, description="column id -> cell; a column not filled yet is absent")


class Grid(BaseModel):
    """The store's review grid, as it is kept: its columns in order and a row per contract."""

    columns: list[GridColumn] = Field(default_factory=list)
    rows: list[GridRow] = Field(default_factory=list)

    def cell(self, doc_id: str, column: str) -> GridCell | None:
        return next((row.cells.get(column) for row in self.rows if row.doc_id == doc_id), None)

    @property
    def missing(self) -> int:
        """Cells not filled yet."""
        return sum(1 for row in self.rows for column in self.columns if column.id not in row.cells)


# ------------------------------------------------------------------ the playbook


class Expect(StrEnum):
    REQUIRED = "required"  # the contract must have a clause on the topic
    FORBIDDEN = "forbidden"  # it must not
    ALLOWED_VALUES = "allowed_values"  # the topic's value must be one of `values`
    AT_MOST = "at_most"  # the topic's length must be at most `bound`
    AT_LEAST = "at_least"  # ... at least `bound`


class Status(StrEnum):
    GREEN = "green"  # meets the standard
    AMBER = "amber"  # deviates within tolerance, or needs a look
    RED = "red"  # breaches it


class Severity(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Unit(StrEnum):
    DAYS = "days"
    MONTHS = "months"
    YEARS = "years"


class Length(BaseModel):
    """A length of time as a playbook states it: `{amount: 12, unit: months}`."""

    model_config = ConfigDict(extra="forbid")

    amount: float = Field(gt=0)
    unit: Unit

    @property
    def days(self) -> float:
        return self.amount * {Unit.DAYS: 1, Unit.MONTHS: 365 / 12, Unit.YEARS: 365}[self.unit]

    def __str__(self) -> str:
        amount = int(self.amount) if self.amount == int(self.amount) else self.amount
        return f"{amount} {self.unit.value[:-1] if amount == 1 else self.unit.value}"


class Rule(BaseModel):
    """One standard position. Which topics exist is the engine's to check (engine/review/topics.py)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=RULE_ID, description="e.g. governing_law")
    topic: str | None = Field(default=None, description="what the rule is about, one of the engine's topics")
    question: str | None = Field(default=None, description="or a question of the team's own, asked of each contract")
    expect: Expect
    severity: Severity = Severity.MEDIUM
    values: list[str] = Field(default_factory=list, description="allowed_values: the values accepted")
    bound: Length | None = Field(default=None, description="at_most / at_least: the limit")
    tolerance: Length | None = Field(default=None, description="at_most / at_least: beyond the bound up to here is amber, not red")
    missing: Status | None = Field(default=None, description="the verdict when the topic is not found; by default red for "
                                   "required, green for forbidden, amber otherwise")
    description: str = ""

    @model_validator(mode="after")
    def _complete(self) -> Rule:
        asks = self.question is not None and bool(self.question.strip())
        if self.topic is None and not asks:
            raise ValueError("a rule needs a `topic` (one of the engine's topics) or a `question` of your own")
        if self.topic is not None and asks:
            raise ValueError("a rule has a `topic` or a `question`, not both")
        if self.expect is Expect.ALLOWED_VALUES and not self.values:
            raise ValueError("expect: allowed_values needs a non-empty `values` list")
        if self.expect in (Expect.AT_MOST, Expect.AT_LEAST):
            if self.bound is None:
                raise ValueError(f"expect: {self.expect.value} needs a `bound`, e.g. {{amount: 12, unit: months}}")
            if self.tolerance is not None:
                beyond = self.tolerance.days > self.bound.days if self.expect is Expect.AT_MOST else self.tolerance.days < self.bound.days
                if not beyond:
                    raise ValueError(f"`tolerance` must lie beyond the bound ({'above' if self.expect is Expect.AT_MOST else 'below'} {self.bound})")
        elif self.bound is not None or self.tolerance is not None:
            raise ValueError(f"`bound` and `tolerance` only apply to at_most and at_least, not {self.expect.value}")
        return self

    @property
    def if_missing(self) -> Status:
        if self.missing is not None:
            return self.missing
        return {Expect.REQUIRED: Status.RED, Expect.FORBIDDEN: Status.GREEN}.get(self.expect, Status.AMBER)


class Playbook(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    rules: list[Rule] = Field(min_length=1)

    @field_validator("rules")
    @classmethod
    def _distinct(cls, rules: list[Rule]) -> list[Rule]:
        seen: set[str] = set()
        for rule in rules:
            if rule.id in seen:
                raise ValueError(f"two rules have the id {rule.id!r}")
            seen.add(rule.id)
        return rules


# ------------------------------------------------------------------ the review


class Verdict(BaseModel):
    rule: str
    topic: str = Field(description="the rule's topic, or the grid column id of its question")
    severity: Severity
    status: Status
    found: bool = Field(description="whether the contract has a clause on the rule's topic")
    source: Source | None = Field(default=None, description="where the topic was found; None when it was not")
    value: str = Field(default="", description="what the contract says, shortly: a field value, a length, or its sentence")
    why: str = Field(description="why this status: the standard and what the contract says, or what was searched")
    citations: list[Citation] = Field(default_factory=list)


class ContractReview(BaseModel):
    doc_id: str
    file: str
    verdicts: list[Verdict]

    def status_of(self, rule: str) -> Status | None:
        return next((v.status for v in self.verdicts if v.rule == rule), None)


class Review(BaseModel):
    playbook: str = Field(description="the playbook's name")
    rules: list[Rule]
    contracts: list[ContractReview]
