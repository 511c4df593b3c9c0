"""Can meaning map a question to its CUAD category when the wording is new? Measured with
cross-validation grouped by wording style: each style's phrasings are classified by a model
built without any phrasing of that style.

    .venv/bin/python bench/phrasings/category_cv.py

The model is the simplest one that carries meaning: the local embedding model (MiniLM) and,
per category, the centroid of its training texts (the other styles' phrasings, with or
without CUAD's category description and cuad_dev's own wording); a question goes to the
nearest centroid. Prints top-1 and top-3 accuracy per held-out style, the mean and the worst.
This is the measurement issue 16's planner work starts from; nothing here is tuned.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from engine.embed import Embedder  # noqa: E402

SHARED = HERE.parent.parent.parent / "shared" / "data"
PARTIES = {"{party}": "Acme", "{other}": "Borealis"}  # stand-in names for the party style


def _filled(text: str) -> str:
    for placeholder, name in PARTIES.items():
        text = text.replace(placeholder, name)
    return text


def _descriptions() -> dict[str, str]:
    path = SHARED / "cuad" / "category_descriptions.csv"
    if not path.is_file():
        return {}
    rows = csv.reader(path.open(encoding="utf-8-sig"))
    next(rows)
    return {row[0].removeprefix("Category: ").strip(): row[1].removeprefix("Description: ").strip() for row in rows if row}


def main() -> None:
    categories = json.loads((HERE / "cuad_categories.json").read_text())["categories"]
    names = list(categories)
    descriptions = _descriptions()
    items = [(name, p["style"], _filled(p["text"])) for name in names for p in categories[name]["phrasings"]]
    extra = {name: [categories[name]["cuad"]] + ([f"{name}: {descriptions[name]}"] if name in descriptions else []) for name in names}
    embedder = Embedder()
    vectors = embedder.encode([text for _, _, text in items])
    extra_vectors = {name: embedder.encode(texts) for name, texts in extra.items()}
    styles = sorted({style for _, style, _ in items})
    for with_extra in (False, True):
        print(f"\nnearest category centroid, trained on the other styles' phrasings{' + description + cuad wording' if with_extra else ''}")
        print(f"{'held-out style':16} {'n':>4} {'top-1':>7} {'top-3':>7}")
        results = {}
        for held in styles:
            train = [i for i, (_, style, _) in enumerate(items) if style != held]
            test = [i for i, (_, style, _) in enumerate(items) if style == held]
            centroids = []
            for name in names:
                rows = [vectors[i] for i in train if items[i][0] == name]
                if with_extra:
                    rows += list(extra_vectors[name])
                centroid = np.mean(rows, axis=0)
                centroids.append(centroid / np.linalg.norm(centroid))
            scores = vectors[test] @ np.array(centroids).T
            ranked = np.argsort(-scores, axis=1)
            truth = np.array([names.index(items[i][0]) for i in test])
            top1 = float(np.mean(ranked[:, 0] == truth))
            top3 = float(np.mean([t in r[:3] for t, r in zip(truth, ranked)]))
            results[held] = (top1, top3)
            print(f"{held:16} {len(test):>4} {top1:>7.3f} {top3:>7.3f}")
        mean1 = np.mean([r[0] for r in results.values()])
        worst = min(results, key=lambda s: results[s][0])
        print(f"{'mean':16} {'':>4} {mean1:>7.3f} {np.mean([r[1] for r in results.values()]):>7.3f}   worst top-1: {worst} {results[worst][0]:.3f}")


if __name__ == "__main__":
    main()
