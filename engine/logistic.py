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
    def from_stored(cls, stored, prefix: str = "") -> StandardisedLogistic:
        """The model of an opened file (`arrays`' keys, each after `prefix`), for a reader that
        looked in it first: one file may hold two models under different prefixes."""
        def get(key: str) -> np.ndarray:
            return stored[prefix + key]

        return cls([str(n) for n in get("features")], get("mean"), get("scale"), get("coefficients"), float(get("intercept")))

    def arrays(self, prefix: str = "") -> dict[str, np.ndarray]:
        arrays = {"features": np.array(self.names), "mean": self.mean, "scale": self.scale, "coefficients": self.coefficients, "intercept": np.array(self.intercept)}
        return {prefix + key: value for key, value in arrays.items()}

    def save(self, path: Path) -> None:
        np.savez(path, **self.arrays())

    def log_odds(self, matrix: np.ndarray) -> np.ndarray:
        """Each row's log-odds."""
        return ((matrix - self.mean) / self.scale) @ self.coefficients + self.intercept
