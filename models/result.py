"""What the one question pipeline returns: how the question was read and what answered it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from models.answer import Answer
from models.enumeration import Enumeration
from models.per_contract import PerContract
from models.plan import QueryPlan
from models.retrieval import Retrieval


class QueryResult(BaseModel):
    """One question's path: the plan and the retrieval with the answer, or, for a question
    over every contract ("which contracts..."), the enumeration from the contract fields."""

    question: str
    preset: str = Field(description="the settings preset the question ran with")
    settings_hash: str = Field(description="Settings.fingerprint(): the exact numbers it ran with")
    plan: QueryPlan | None = Field(default=None, description="None for an enumeration, which is planned as a field filter")
    retrieval: Retrieval | None = None
    answer: Answer | None = Field(default=None, description="None for an enumeration, or when only retrieval was asked for")
    enumeration: Enumeration | None = None
    per_contract: PerContract | None = Field(
        default=None, description="a question over several contracts answered for each; `answer` is then the best-supported one"
    )
    quick_vectors: list[str] = Field(
        default_factory=list,
        description="contracts searched before their full vectors were made (quick static vectors; engine/vectors.py)",
    )
    seconds: float = 0.0

    @property
    def shown(self) -> Answer | Enumeration | PerContract | None:
        """What the user sees: the enumeration, the answers per contract, or the answer."""
        if self.enumeration is not None:
            return self.enumeration
        return self.per_contract if self.per_contract is not None else self.answer
