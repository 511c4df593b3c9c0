"""Boosted trees kept as arrays (the abstain decision; a trees ranker under measurement): they
must give the fitted model's own probabilities, since the arrays are read from scikit-learn's
internal node layout."""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

from engine.answer.abstain import TREES_DIR, support
from engine.boosted_trees import BoostedTrees, load_trees
from engine.settings import Settings


def test_the_arrays_give_the_fitted_models_probabilities(tmp_path):
    rng = np.random.default_rng(7)
    x = rng.random((600, 4))
    # an interaction a sum of features cannot state: support only when both hold
    y = ((x[:, 0] > 0.5) & (x[:, 1] < 0.4)) ^ (rng.random(600) < 0.1)
    model = HistGradientBoostingClassifier(max_depth=3, max_iter=40, learning_rate=0.1, random_state=0).fit(x, y)
    BoostedTrees.from_sklearn(model, ["a", "b", "c", "d"]).save(tmp_path / "trees.npz")
    trees = BoostedTrees.load(tmp_path / "trees.npz")
    rows = rng.random((200, 4))
    mine = [trees.probability(dict(zip("abcd", row))) for row in rows]
    assert np.allclose(mine, model.predict_proba(rows)[:, 1], atol=1e-9)
    # all rows at once, as a trees ranker scores a question's candidates
    assert np.allclose(trees.log_odds_rows(rows), model.decision_function(rows), atol=1e-9)


def test_the_shipped_abstain_decision_is_the_trees_file_the_preset_names():
    calibration = Settings().answer.abstain
    assert calibration.trees is not None and (TREES_DIR / calibration.trees).is_file()
    trees = load_trees(TREES_DIR / calibration.trees)
    nothing = {name: 0.0 for name in trees.names}
    stated = {**nothing, "best_sentence": 1.0, "scope_coverage": 1.0, "category_found": 1.0, "category_stated": 1.0,
              "category_probability": 0.9, "category_evidence": 0.9, "category_prior": 0.9, "topic_on_top": 1.0}
    assert support(calibration, nothing) < calibration.threshold < support(calibration, stated)
