"""Train the clause-presence model on the CUAD dev contracts and save it for ingest.

    .venv/bin/python bench/train_presence.py [--cache FILE] [--workers 2] [--hold-docs FILE --out FILE] [--folds-out DIR]

Per CUAD category, a logistic regression over TF-IDF word uni- and bigrams of the sentence
and its heading, and the words of its whole clause, scores each sentence of a contract; a
contract has the clause when its best sentence scores at least the category's threshold.
Sentences are labelled by the lawyers' spans (a sentence holding the start of a labelled span
is positive). Thresholds are chosen on 5-fold cross-validated dev scores (folds by contract),
then the model is refitted on all dev contracts. Test contracts are never read here:
bench/fields.py measures on them.

Writes engine/fields/presence_model.npz. `--hold-docs` (contract ids, one per line) leaves those
contracts out of training and `--out` writes the model elsewhere: a model that never read the
labels of the contracts an evaluation asks about, so that figures which use its scores
(retrieval's category arm, the abstain features) are out of sample by contract. `--folds-out`
also keeps the cross-validation's fold models (`DIR/fold<k>.npz`, with `DIR/contracts.json`
naming the contracts each one never read), so that a model trained on the presence model's
scores (bench/train_ranker.py --presence-folds) sees them as they are on a new contract, not
as on the contracts the presence model learnt from.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from common import cuad_labels, cuad_manifest, require_shared_data
from fields import load_clauses

from engine.fields.presence import (
    CATEGORIES, HEADING_MARK, MIN_RELIABLE_CONTRACTS, MIN_RELIABLE_F1, MODEL_FILE,
    contract_sentences, context_vectorizer, features, is_reliable, presence_text, sentence_vectorizer,
)
from engine.fields.sentences import split_sentences

MIN_POSITIVE_CONTRACTS = 5
REGULARISATION = 4.0  # C; 1 and 16 gave the same or lower mean cross-validated dev F1
FOLDS = 5


def labelled_sentences(contracts, parsed, labels):
    """(contract id, the sentence as the model reads it, categories whose labelled span starts in it)."""
    rows = []
    for contract in contracts:
        by_category = {r["category"]: r for r in labels.get(contract["id"], [])}
        spans = {
            category: [presence_text(a["text"])[:80] for a in row["answers"] if len(a["text"].split()) >= 3]
            for category, row in by_category.items()
            if category in CATEGORIES and row["answerable"]
        }
        for sentence in contract_sentences(split_sentences(parsed[contract["id"]])):
            plain = " ".join(word for word in sentence.text.split() if not word.startswith(HEADING_MARK))
            positive = {c for c, found in spans.items() if any(s[:60] in plain or (len(plain) > 30 and plain[:60] in s) for s in found)}
            rows.append((contract["id"], sentence, positive))
    return rows


def best_threshold(contract_ids, scores, truth: dict[str, bool]) -> tuple[float, float]:
    best_of = {}
    for contract_id, score in zip(contract_ids, scores):
        best_of[contract_id] = max(best_of.get(contract_id, 0.0), score)
    results = []
    for threshold in np.arange(0.30, 0.995, 0.02):
        tp = sum(1 for k, v in truth.items() if v and best_of.get(k, 0) >= threshold)
        fp = sum(1 for k, v in truth.items() if not v and best_of.get(k, 0) >= threshold)
        fn = sum(1 for k, v in truth.items() if v and best_of.get(k, 0) < threshold)
        f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        results.append((f1, float(threshold)))
    return max(results)


def _terms(vectorizer) -> np.ndarray:
    """The vocabulary in column order, as the model file keeps it."""
    return np.array(sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.get))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, help="parsed clauses kept by bench/fields.py --cache")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hold-docs", type=Path, help="contract ids to leave out of training, one per line")
    parser.add_argument("--out", type=Path, default=MODEL_FILE)
    parser.add_argument("--folds-out", type=Path, help="also write the cross-validation's fold models here")
    args = parser.parse_args()
    require_shared_data()
    started = time.perf_counter()
    held = set(args.hold_docs.read_text().split()) if args.hold_docs else set()
    dev = [c for c in cuad_manifest("dev") if c["labelled"] and c["id"] not in held]
    labels = cuad_labels()
    parsed = load_clauses(cuad_manifest(None), args.workers, args.cache)
    rows = labelled_sentences(dev, parsed, labels)
    sentences = [r[1] for r in rows]
    sentence_words = sentence_vectorizer(min_df=3, max_features=20000).fit([s.text for s in sentences])
    context_words = context_vectorizer(min_df=3, max_features=10000).fit([s.context for s in sentences])
    x = features(sentence_words, context_words, sentences)
    groups = np.array([r[0] for r in rows])
    coefficients, intercepts, thresholds, kept, cv_f1, dev_contracts = [], [], [], [], [], []
    splits = list(GroupKFold(FOLDS).split(x, groups=groups))  # the same contracts per fold for every category
    fold_coefficients, fold_intercepts = [[] for _ in splits], [[] for _ in splits]
    for category in CATEGORIES:
        y = np.array([category in r[2] for r in rows])
        truth = {c["id"]: any(r["category"] == category and r["answerable"] for r in labels.get(c["id"], [])) for c in dev}
        if sum(truth.values()) < MIN_POSITIVE_CONTRACTS or y.sum() < MIN_POSITIVE_CONTRACTS:
            print(f"{category:36} skipped: too few labelled contracts in dev")
            continue
        held_out = np.zeros(len(rows))
        for fold, (train, test) in enumerate(splits):
            model = LogisticRegression(C=REGULARISATION, class_weight="balanced", max_iter=3000).fit(x[train], y[train])
            held_out[test] = model.predict_proba(x[test])[:, 1]
            fold_coefficients[fold].append(model.coef_[0].astype(np.float32))
            fold_intercepts[fold].append(float(model.intercept_[0]))
        f1, threshold = best_threshold(groups, held_out, truth)
        model = LogisticRegression(C=REGULARISATION, class_weight="balanced", max_iter=3000).fit(x, y)
        coefficients.append(model.coef_[0].astype(np.float32))
        intercepts.append(float(model.intercept_[0]))
        thresholds.append(threshold)
        kept.append(category)
        cv_f1.append(f1)
        dev_contracts.append(sum(truth.values()))
        print(f"{category:36} cross-validated dev F1 {f1:.3f} at threshold {threshold:.2f}")
    save = functools.partial(
        np.savez_compressed, categories=np.array(kept), vocabulary=_terms(sentence_words), idf=sentence_words.idf_.astype(np.float32),
        context_vocabulary=_terms(context_words), context_idf=context_words.idf_.astype(np.float32),
        thresholds=np.array(thresholds), cv_f1=np.array(cv_f1), dev_contracts=np.array(dev_contracts),
    )
    save(args.out, coefficients=np.vstack(coefficients), intercepts=np.array(intercepts))
    if args.folds_out:
        # the vocabulary and idf are the whole model's: they come from unlabelled text, not from labels
        args.folds_out.mkdir(parents=True, exist_ok=True)
        never_read = {}
        for fold, (_, test) in enumerate(splits):
            save(args.folds_out / f"fold{fold}.npz", coefficients=np.vstack(fold_coefficients[fold]), intercepts=np.array(fold_intercepts[fold]))
            never_read[f"fold{fold}.npz"] = sorted(set(groups[test].tolist()))
        (args.folds_out / "contracts.json").write_text(json.dumps(never_read, indent=1))
        print(f"wrote {len(splits)} fold models to {args.folds_out}")
    flagged = [f1 for f1, contracts in zip(cv_f1, dev_contracts) if is_reliable(f1, contracts)]
    print(f"flagged in the app: {len(flagged)} categories (cross-validated dev F1 >= {MIN_RELIABLE_F1} in >= {MIN_RELIABLE_CONTRACTS} "
          f"dev contracts), their mean cross-validated dev F1 {np.mean(flagged):.3f}")
    print(f"mean cross-validated dev F1 {np.mean(cv_f1):.3f} over {len(kept)} categories; wrote {args.out} "
          f"({args.out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
