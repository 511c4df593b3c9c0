"""Fit the abstain decision on cuad_dev and print its trade-off curve.

    .venv/bin/python bench/calibrate_abstain.py [--questions FILE] [--db DIR] [--preset NAME] [--write]

For every question: retrieve (graph mode, as the app does), compute the abstain features,
and fit a logistic model of "answerable" on them (L2-regularised, Newton's method). Prints
abstain recall / false-abstain for a sweep of thresholds, picks the threshold with the widest margin to
both targets (abstain recall >= 0.80, false-abstain <= 0.20; the best balanced accuracy if
none meets both), and with --write saves it as the preset's `answer.abstain` settings
(engine/presets/PRESET.json; --preset, default `default`). Three quarters of cuad_dev is
unanswerable, so the curve is the honest picture: a lower threshold answers more and
abstains less.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from common import BENCH_DIR, BENCH_STORE, require_shared_data  # noqa: E402  (puts the project on sys.path)
from engine.answer.abstain import FEATURES, features  # noqa: E402
from engine.answer.evidence import Evidence  # noqa: E402
from engine.settings import PRESETS_DIR  # noqa: E402
from engine.eval.harness import DEFAULT_DATA, ensure_documents, load_questions  # noqa: E402
from engine.service import Library  # noqa: E402
from models.retrieval import Mode  # noqa: E402

TARGET_RECALL = 0.80  # abstain recall on unanswerable questions (issue 4)
MAX_FALSE_ABSTAIN = 0.20  # false-abstain on answerable ones


def collect(library: Library, questions, mapping) -> tuple[np.ndarray, np.ndarray, list[str]]:
    rows, labels, ids = [], [], []
    for number, question in enumerate(questions, start=1):
        doc_ids = [mapping[d] for d in question.docs]
        result = library.engine.run(question.question, doc_ids, mode=Mode.GRAPH, answer=False)
        if result.retrieval is None:  # an enumeration: answered from the fields, no abstain decision
            continue
        graphs = library.scope(doc_ids)
        found = features(Evidence.gather(result.retrieval, graphs, library.settings.answer))
        rows.append([found[name] for name in FEATURES])
        labels.append(1.0 if question.answerable else 0.0)
        ids.append(question.id)
        if number % 200 == 0:
            print(f"  {number}/{len(questions)} questions", file=sys.stderr)
    return np.array(rows), np.array(labels), ids


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> tuple[np.ndarray, float]:
    """Logistic regression by Newton's method; the bias is not regularised."""
    design = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(design.shape[1])
    penalty = np.eye(design.shape[1]) * l2
    penalty[-1, -1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        gradient = design.T @ (p - y) + penalty @ w
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def curve(support: np.ndarray, y: np.ndarray, thresholds) -> list[tuple[float, float, float]]:
    """(threshold, abstain recall on unanswerable, false-abstain on answerable)."""
    out = []
    for t in thresholds:
        abstain = support < t
        recall = float(abstain[y == 0].mean()) if (y == 0).any() else 0.0
        false = float(abstain[y == 1].mean()) if (y == 1).any() else 0.0
        out.append((float(t), recall, false))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", default=str(BENCH_DIR / "cuad_dev.jsonl"))
    parser.add_argument("--db", default=str(BENCH_STORE))
    parser.add_argument("--cache", default="/tmp/abstain_features.npz", help="reuse features computed by an earlier run")
    parser.add_argument("--preset", default="default", help="the preset whose answer.abstain settings --write replaces")
    parser.add_argument("--write", action="store_true", help="save the calibration into the preset file")
    args = parser.parse_args()

    require_shared_data()
    cache = Path(args.cache)
    if cache.is_file():
        saved = np.load(cache, allow_pickle=True)
        x, y = saved["x"], saved["y"]
        print(f"features from {cache} ({len(y)} questions)")
    else:
        library = Library(args.db, preset=args.preset)
        questions = load_questions(Path(args.questions))
        mapping = ensure_documents(library, questions, DEFAULT_DATA)
        x, y, ids = collect(library, questions, mapping)
        np.savez(cache, x=x, y=y, ids=np.array(ids))

    weights, bias = fit(x, y)
    support = 1.0 / (1.0 + np.exp(-(x @ weights + bias)))
    print(f"{len(y)} questions, {int(y.sum())} answerable")
    print("weights: " + ", ".join(f"{name} {w:+.2f}" for name, w in zip(FEATURES, weights)) + f", bias {bias:+.2f}")
    points = curve(support, y, np.round(np.arange(0.05, 0.96, 0.05), 2))
    print(f"\n{'threshold':>9}  {'abstain recall':>14}  {'false-abstain':>13}")
    for t, recall, false in points:
        print(f"{t:9.2f}  {recall:14.3f}  {false:13.3f}")
    fine = curve(support, y, np.round(np.arange(0.01, 0.99, 0.01), 2))
    feasible = [p for p in fine if p[1] >= TARGET_RECALL and p[2] <= MAX_FALSE_ABSTAIN]
    if feasible:  # the threshold with the widest margin to both targets
        threshold, recall, false = max(feasible, key=lambda p: min(p[1] - TARGET_RECALL, MAX_FALSE_ABSTAIN - p[2]))
    else:  # no threshold meets both: the best balanced accuracy
        threshold, recall, false = max(fine, key=lambda p: p[1] + (1 - p[2]))
    print(f"\nchosen threshold {threshold:.2f}: abstain recall {recall:.3f}, false-abstain {false:.3f}")
    if args.write:
        path = PRESETS_DIR / f"{args.preset}.json"
        preset = json.loads(path.read_text())
        preset.setdefault("answer", {}).setdefault("abstain", {}).update(
            weights={name: round(float(w), 4) for name, w in zip(FEATURES, weights)},
            bias=round(bias, 4), threshold=float(threshold), fitted_on=Path(args.questions).name,
        )
        path.write_text(json.dumps(preset, indent=2) + "\n")
        print(f"wrote answer.abstain into {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
