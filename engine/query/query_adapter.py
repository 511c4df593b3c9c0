"""The question's vector for search, moved toward where contracts say what such questions ask.

MiniLM places a question near text worded like it: "If a big company buys us, does that affect
this contract?" lands by clauses about buying, not by the change-of-control clause, and a
question is never worded like the clause that answers it. A linear map of the question's vector
(the adapter, `A`, near the identity) learnt from many questions and the clauses that answer
them closes that gap without touching the clauses' vectors, so no contract is embedded again.
It was fitted by `bench/train_query_adapter.py` on hand-written training-only questions in seven
wording styles (CUAD categories and ContractNLI terms), each paired with the clauses holding the
lawyers' spans and contrasted with the other clauses of its contract, and cross-validated by
contract.

Only the vector arm searches with the adapted vector. The question model, the clauses'
similarities that the walk, the ranking and the abstain decision read, and the window a long
clause is cut to all keep the plain vector: those models were fitted on its similarities, and
when they read the adapted ones instead, held-out multi-hop completeness fell (0.760 -> 0.719
at 8k) and party-named questions were refused more often, for a larger gain on single-clause
questions that a ranker refitted with a cross-fitted adapter may yet keep.

The adapter learnt the kinds of question it was shown: the CUAD categories and an NDA's usual
terms. A question about something else ("what does Section 4.2's 'Remaining Exposure' depend
on?") is moved toward those topics and away from its own words. So the search vector moves by
how sure the question model is that the question is of a known kind: the plain vector blended
with the adapted one, weighted by the top category's probability.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from models.plan import QueryPlan

MODEL_FILE = Path(__file__).with_name("query_adapter.npz")
_model_file = MODEL_FILE


class QueryAdapter:
    """`adapt(v)` = A v, normalised; the identity when no model file is present."""

    def __init__(self, path: Path | None) -> None:
        self.matrix: np.ndarray | None = None
        if path is not None and path.is_file():
            self.matrix = np.load(path, allow_pickle=False)["matrix"].astype(np.float32)

    def adapt(self, vector: np.ndarray, weight: float = 1.0) -> np.ndarray:
        """The vector moved by `weight` (0: as it is; 1: wholly adapted) toward A v, normalised."""
        if self.matrix is None or weight <= 0:
            return vector
        blended = (1 - weight) * vector + weight * _unit(self.matrix @ vector)
        adapted = _unit(blended) if blended.any() else vector.copy()
        adapted.setflags(write=False)
        return adapted

    @staticmethod
    def save(path: Path, matrix: np.ndarray, **facts) -> None:
        np.savez_compressed(path, matrix=matrix.astype(np.float32), **facts)


def _unit(vector: np.ndarray) -> np.ndarray:
    """The vector at length 1 (a zero vector stays zero)."""
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


@cache
def query_adapter() -> QueryAdapter:
    return QueryAdapter(_model_file)


def use_query_adapter(path: Path | None) -> None:
    """Adapt with another model file from now on (None: no adapter): a benchmark's adapter fitted
    without the contracts it asks about (bench/train_query_adapter.py --hold-docs)."""
    global _model_file
    _model_file = path
    query_adapter.cache_clear()


def search_vector(question_vector: np.ndarray, plan: QueryPlan, adapt: bool) -> np.ndarray:
    """The vector the vector arm searches with: adapted as far as the question model is sure
    the question is of a kind the adapter learnt."""
    if not adapt or not plan.categories:
        return question_vector
    return query_adapter().adapt(question_vector, max(g.probability for g in plan.categories))
