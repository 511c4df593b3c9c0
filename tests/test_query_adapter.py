"""The query adapter: a learnt linear map of the question's vector used for search only."""

from __future__ import annotations

import numpy as np
import pytest

from engine.query.query_adapter import MODEL_FILE, QueryAdapter, query_adapter, search_vector, use_query_adapter
from models.plan import CategoryGuess, QueryPlan


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


def test_without_a_model_file_the_vector_is_searched_as_it_is(tmp_path):
    vector = _unit(np.arange(1, 385, dtype=np.float32))
    assert QueryAdapter(tmp_path / "absent.npz").adapt(vector) is vector
    assert QueryAdapter(None).adapt(vector) is vector


def test_a_saved_adapter_maps_and_renormalises_the_vector(tmp_path):
    rng = np.random.default_rng(7)
    matrix = np.eye(384, dtype=np.float32) + 0.1 * rng.standard_normal((384, 384)).astype(np.float32)
    path = tmp_path / "adapter.npz"
    QueryAdapter.save(path, matrix, l2=0.01)
    vector = _unit(rng.standard_normal(384).astype(np.float32))
    adapted = QueryAdapter(path).adapt(vector)
    assert np.allclose(adapted, _unit(matrix @ vector), atol=1e-6)
    assert np.isclose(np.linalg.norm(adapted), 1.0)
    assert not adapted.flags.writeable  # shared with the scope: nobody may change it in place


def test_the_vector_moves_as_far_as_the_question_model_is_sure(tmp_path):
    """A question of a kind the adapter learnt (a CUAD category, read with confidence) is
    searched wholly adapted; one the question model cannot place is searched as typed; the
    setting turns the adapter off."""
    path = tmp_path / "adapter.npz"
    QueryAdapter.save(path, 2 * np.eye(384, dtype=np.float32)[::-1])  # reverses the vector's order
    vector = _unit(np.arange(1, 385, dtype=np.float32))
    plan = QueryPlan(question="Can they assign it?", scope=[], categories=[CategoryGuess(category="Anti-Assignment", probability=1.0)])
    unsure = plan.model_copy(update={"categories": [CategoryGuess(category="Anti-Assignment", probability=0.5)]})
    unknown = plan.model_copy(update={"categories": []})
    try:
        use_query_adapter(path)
        assert np.allclose(search_vector(vector, plan, adapt=True), vector[::-1])
        assert np.allclose(search_vector(vector, unsure, adapt=True), _unit(vector + vector[::-1]))
        assert search_vector(vector, unknown, adapt=True) is vector
        assert search_vector(vector, plan, adapt=False) is vector
    finally:
        use_query_adapter(MODEL_FILE)
    assert query_adapter().matrix is None or query_adapter().matrix.shape == (384, 384)


@pytest.mark.skipif(not MODEL_FILE.is_file(), reason="no query adapter shipped")
def test_the_shipped_adapter_stays_near_the_identity():
    """Fitted with an L2 pull toward the identity: it moves a question, it does not replace it."""
    matrix = query_adapter().matrix
    rng = np.random.default_rng(0)
    vectors = np.array([_unit(v) for v in rng.standard_normal((50, 384)).astype(np.float32)])
    cosines = [float(v @ query_adapter().adapt(v)) for v in vectors]
    assert matrix.shape == (384, 384)
    assert min(cosines) > 0.3
