"""Train the clause-presence model on the CUAD dev contracts and save it for ingest.

    .venv/bin/python bench/train_presence.py [--cache FILE] [--workers 2] [--hold-docs FILE --out FILE] [--folds-out DIR]

Per CUAD category, a logistic regression over TF-IDF word uni- and bigrams of the sentence
and its heading, and the words of its whole clause, scores each sentence of a contract; a
contract has the clause when its best sentence scores at least the category's threshold.
Sentences are labelled by the lawyers' spans (a sentence holding the start of a labelled span
is positive). Thresholds are chosen on 5-fold cross-validated dev scores (folds by contract),
then the model is refitted on all dev contracts. Test contracts are never read here:
bench/fields.py measures on them.

Beside CUAD's categories, the 17 terms ContractNLI asks of an NDA ("NDA: Sharing with
employees") are learnt the same way from its dev NDAs (rendered by bench/phrasings/build.py),
a sentence positive when an evidence span of a hypothesis the NDA entails or contradicts
starts in it, an NDA stating the term when that hypothesis is not NotMentioned. They are
trained on NDAs alone (a commercial contract's confidentiality clause is no negative for
"sharing with employees") and over the CUAD vocabulary, so CUAD's columns stay as they were;
questions read them through the category arm and the abstain decision, never as a contract's
flags. Each term also learns from hand-written sentences (bench/phrasings/nda_term_examples.json:
per term 40 that state it, entailing or contradicting the hypothesis, and 40 on the nearest
subjects that do not), which join every fold's training and weigh as one NDA sentence each.
The 61 dev NDAs hold few sentences of some terms and fewer NDAs that leave a term unstated;
three writers who never read a ContractNLI NDA wrote them from the hypotheses (stop 66). The
terms' mean cross-validated F1 went 0.835 -> 0.868 (weights 0.5 and 2 alike: 0.868, 0.867):
"No reverse engineering" 0.77 -> 0.93, "No solicitation" 0.80 -> 0.90, "Permissible copy"
0.54 -> 0.64, "Return of confidential information" 0.48 -> 0.53; "Survival of obligations"
lost 0.89 -> 0.86.

Writes engine/fields/presence_model.npz. `--hold-docs` (contract ids, one per line; an NDA as
contractnli:<id>) leaves those contracts out of training and `--out` writes the model
elsewhere: a model that never read the labels of the contracts an evaluation asks about, so
that figures which use its scores (retrieval's category arm, the abstain features) are out of
sample by contract. `--folds-out`
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
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import scipy.sparse as sparse
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from common import NDA_PDFS, contractnli_dev, cuad_labels, cuad_manifest, nda_categories, nda_contract_id, require_shared_data
from fields import load_clauses

from engine.fields.presence import (
    CATEGORIES, HEADING_MARK, MIN_RELIABLE_CONTRACTS, MIN_RELIABLE_F1, MODEL_FILE, NDA_PREFIX,
    ScoredSentence, contract_sentences, context_vectorizer, features, is_reliable, presence_text, sentence_vectorizer,
)
from engine.fields.sentences import split_sentences
from engine.ingest.parse import parse_contract

MIN_POSITIVE_CONTRACTS = 5
NDA_EXAMPLES = Path(__file__).parent / "phrasings" / "nda_term_examples.json"
Examples = dict[str, tuple[sparse.csr_matrix, np.ndarray]]  # per category: example sentences' features, and 1 where one states it
REGULARISATION = 4.0  # C; 1 and 16 gave the same or lower mean cross-validated dev F1
FOLDS = 5


def labelled_sentences(contracts, parsed, labels):
    """(contract id, the sentence as the model reads it, categories whose labelled span starts in it)."""
    rows = []
    for contract in contracts:
        by_category = {r["category"]: r for r in labels.get(contract["id"], [])}
        spans = {
            category: [a["text"] for a in row["answers"]]
            for category, row in by_category.items()
            if category in CATEGORIES and row["answerable"]
        }
        rows += _labelled(contract["id"], parsed[contract["id"]], spans)
    return rows


def _labelled(contract_id: str, clauses, spans: dict[str, list[str]]):
    """A contract's sentences, each with the categories one of whose spans starts in it."""
    starts = {c: [presence_text(text)[:80] for text in texts if len(text.split()) >= 3] for c, texts in spans.items()}
    rows = []
    for sentence in contract_sentences(split_sentences(clauses)):
        plain = " ".join(word for word in sentence.text.split() if not word.startswith(HEADING_MARK))
        positive = {c for c, found in starts.items() if any(s[:60] in plain or (len(plain) > 30 and plain[:60] in s) for s in found)}
        rows.append((contract_id, sentence, positive))
    return rows


def _nda_clauses(nda_id: int):
    """An NDA's clauses, parsed and structured as ingest does."""
    pdf = NDA_PDFS / f"{nda_id}.pdf"
    return parse_contract(pdf.read_bytes(), pdf.name).graph.clauses


def nda_sentences(held: set[str], workers: int):
    """The dev NDAs' sentences labelled with the terms whose evidence starts in them, and per
    term, which NDAs state it (entail or contradict it rather than not mention it)."""
    data = contractnli_dev()
    names = nda_categories(data)
    ndas = [nda for nda in data["documents"] if nda_contract_id(nda["id"]) not in held]
    missing = [nda["id"] for nda in ndas if not (NDA_PDFS / f"{nda['id']}.pdf").is_file()]
    if missing:
        raise SystemExit(f"error: {len(missing)} ContractNLI PDFs are not in {NDA_PDFS}; build them with bench/phrasings/build.py")
    with ProcessPoolExecutor(workers) as pool:
        parsed = dict(zip([nda["id"] for nda in ndas], pool.map(_nda_clauses, [nda["id"] for nda in ndas])))
    rows, truth = [], {category: {} for category in names.values()}
    for nda in ndas:
        doc_id = nda_contract_id(nda["id"])
        stated = {names[key]: a for key, a in nda["annotation_sets"][0]["annotations"].items() if a["choice"] != "NotMentioned"}
        for category in truth:
            truth[category][doc_id] = category in stated
        spans = {c: [nda["text"][slice(*nda["spans"][i])] for i in a["spans"]] for c, a in stated.items()}
        rows += _labelled(doc_id, parsed[nda["id"]], spans)
    return rows, truth


def nda_examples(sentence_words, context_words) -> Examples:
    """Per NDA term, the hand-written example sentences' features (each read as a clause of its
    own, without a heading) and labels: 1 when it states the term, 0 when it does not."""
    examples = {}
    for term, written in json.loads(NDA_EXAMPLES.read_text()).items():
        texts = written["states"] + written["silent"]
        sentences = [ScoredSentence(None, plain, plain) for plain in map(presence_text, texts)]
        labels = np.array([1] * len(written["states"]) + [0] * len(written["silent"]))
        examples[f"{NDA_PREFIX}{term}"] = (features(sentence_words, context_words, sentences), labels)
    return examples


class CategoryTable:
    """Labelled sentences of one corpus (CUAD's contracts or ContractNLI's NDAs), their features
    and folds by contract: each corpus's categories are learnt from its own contracts alone,
    and from `examples` (per category, sentences that belong to no contract and so join every
    fold's training)."""

    def __init__(self, rows, truth: dict[str, dict[str, bool]], sentence_words, context_words, examples: Examples | None = None) -> None:
        self.rows, self.truth = rows, truth
        self.x = features(sentence_words, context_words, [r[1] for r in rows])
        self.groups = np.array([r[0] for r in rows])
        # the same contracts per fold for every category
        self.splits = list(GroupKFold(FOLDS).split(self.x, groups=self.groups))
        self.examples = examples or {}

    def fit(self, category: str, y: np.ndarray, rows: np.ndarray | None = None) -> LogisticRegression:
        """The category's model on `rows` of the table (all when None) and its examples."""
        x, labels = (self.x, y) if rows is None else (self.x[rows], y[rows])
        if category in self.examples:
            extra, extra_labels = self.examples[category]
            x, labels = sparse.vstack([x, extra], format="csr"), np.concatenate([labels, extra_labels])
        return LogisticRegression(C=REGULARISATION, class_weight="balanced", max_iter=3000).fit(x, labels)


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
    parsed = load_clauses(cuad_manifest("dev"), args.workers, args.cache)  # every dev contract, so one cache serves any --hold-docs; test contracts are never read here
    rows = labelled_sentences(dev, parsed, labels)
    sentences = [r[1] for r in rows]
    sentence_words = sentence_vectorizer(min_df=3, max_features=20000).fit([s.text for s in sentences])
    context_words = context_vectorizer(min_df=3, max_features=10000).fit([s.context for s in sentences])
    cuad_truth = {
        category: {c["id"]: any(r["category"] == category and r["answerable"] for r in labels.get(c["id"], [])) for c in dev}
        for category in CATEGORIES
    }
    nda_rows, nda_truth = nda_sentences(held, args.workers)
    tables = [
        CategoryTable(rows, cuad_truth, sentence_words, context_words),
        CategoryTable(nda_rows, nda_truth, sentence_words, context_words, nda_examples(sentence_words, context_words)),
    ]
    coefficients, intercepts, thresholds, kept, cv_f1, dev_contracts = [], [], [], [], [], []
    fold_coefficients, fold_intercepts = [[] for _ in range(FOLDS)], [[] for _ in range(FOLDS)]
    for table in tables:
        for category, truth in table.truth.items():
            y = np.array([category in r[2] for r in table.rows])
            if sum(truth.values()) < MIN_POSITIVE_CONTRACTS or y.sum() < MIN_POSITIVE_CONTRACTS:
                print(f"{category:36} skipped: too few labelled contracts in dev")
                continue
            held_out = np.zeros(len(table.rows))
            for fold, (train, test) in enumerate(table.splits):
                model = table.fit(category, y, train)
                held_out[test] = model.predict_proba(table.x[test])[:, 1]
                fold_coefficients[fold].append(model.coef_[0].astype(np.float32))
                fold_intercepts[fold].append(float(model.intercept_[0]))
            f1, threshold = best_threshold(table.groups, held_out, truth)
            model = table.fit(category, y)
            coefficients.append(model.coef_[0].astype(np.float32))
            intercepts.append(float(model.intercept_[0]))
            thresholds.append(threshold)
            kept.append(category)
            cv_f1.append(f1)
            dev_contracts.append(sum(truth.values()))
            stated = sum(truth.values())  # beside "every contract has it": a term most NDAs state is easy to F1
            print(f"{category:36} cross-validated dev F1 {f1:.3f} at threshold {threshold:.2f} ({stated} of {len(truth)} contracts, "
                  f"F1 if all were flagged {2 * stated / (stated + len(truth)):.3f})")
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
        for fold in range(FOLDS):
            save(args.folds_out / f"fold{fold}.npz", coefficients=np.vstack(fold_coefficients[fold]), intercepts=np.array(fold_intercepts[fold]))
            never_read[f"fold{fold}.npz"] = sorted({g for table in tables for g in table.groups[table.splits[fold][1]].tolist()})
        (args.folds_out / "contracts.json").write_text(json.dumps(never_read, indent=1))
        print(f"wrote {FOLDS} fold models to {args.folds_out}")
    flagged = [f1 for c, f1, contracts in zip(kept, cv_f1, dev_contracts) if c in CATEGORIES and is_reliable(f1, contracts)]
    print(f"flagged in the app: {len(flagged)} categories (cross-validated dev F1 >= {MIN_RELIABLE_F1} in >= {MIN_RELIABLE_CONTRACTS} "
          f"dev contracts), their mean cross-validated dev F1 {np.mean(flagged):.3f}")
    for name, table in zip(("CUAD", "NDA"), tables):
        scores = [f1 for c, f1 in zip(kept, cv_f1) if c in table.truth]
        print(f"{name}: mean cross-validated dev F1 {np.mean(scores):.3f} over {len(scores)} categories")
    print(f"wrote {args.out} "
          f"({args.out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
