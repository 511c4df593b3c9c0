"""A logistic regression over standardised features, kept as arrays.

The candidate ranking (engine/query/rank.py) and the first-quote choice (engine/answer/lead.py)
are both fitted with scikit-learn by a bench script and read at run time without it: the file
holds the feature names, each feature's mean and scale, the coefficients and the intercept,
and loads with `allow_pickle=False`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


class StandardisedLogistic:
    def __init__(self, names: list[str], mean: np.ndarray, scale: np.ndarray, coefficients: np.ndarray, intercept: float) -> None:
        self.names = names
        self.mean, self.scale, self.coefficients, self.intercept = mean, scale, coefficients, intercept

    @classmethod
    def from_sklearn(cls, model, names: list[str], mean: np.ndarray, scale: np.ndarray) -> StandardisedLogistic:
        """A fitted binary LogisticRegression that read `(matrix - mean) / scale`."""
        return cls(list(names), mean, scale, model.coef_[0], float(model.intercept_[0]))

    @classmethod
    def from_stored(cls, stored) -> StandardisedLogistic:
        """The model of an opened file (`save`'s arrays), for a reader that looked in it first."""
        return cls([str(n) for n in stored["features"]], stored["mean"], stored["scale"], stored["coefficients"], float(stored["intercept"]))

    def save(self, path: Path) -> None:
        np.savez(path, features=np.array(self.names), mean=self.mean, scale=self.scale, coefficients=self.coefficients, intercept=np.array(self.intercept))

    def log_odds(self, matrix: np.ndarray) -> np.ndarray:
        """Each row's log-odds."""
        return ((matrix - self.mean) / self.scale) @ self.coefficients + self.intercept
