"""Train the question -> CUAD category model (engine/query/meaning.py) and its lexicon.

    .venv/bin/python bench/train_question_model.py                    # writes engine/query/question_model.npz
    .venv/bin/python bench/train_question_model.py --hold-style scenario --hold-docs FILE --out /tmp/fold.npz

Training texts: the hand-written phrasings of bench/phrasings/cuad_categories.json (party
phrasings filled with stand-in names that vary), each category's standard wording and CUAD's
category description, each spelling-corrected as the pipeline corrects a question. Features:
the MiniLM vector of the text and its character n-grams; model: multinomial logistic
regression. Before fitting, the model is cross-validated by leaving each wording style out
(trained without any phrasing of that style, measured on it), and the mean and worst style
are printed: the style held out is wording the model never saw.

The lexicon is, per category, the words that set the lawyers' labelled spans of that category
apart from the spans of all others, counted by contract (a word one contract repeats does not
count), over the dev contracts (less `--hold-docs`, so an evaluation on those contracts is
out of sample).

`--hold-style` leaves a style out of the written model too (for cross-validating the whole
pipeline by style, bench/phrasings/pipeline_cv.py).
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import math
import random
import re
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sparse
from sklearn.linear_model import LogisticRegression

from common import SHARED_DATA, contractnli_dev, cuad_labels, cuad_manifest, nda_categories, nda_contract_id  # noqa: E402  (puts the project on sys.path)
from engine.embed import Embedder  # noqa: E402
from engine.query.meaning import CATEGORY_TYPES, MODEL_FILE, char_vectorizer  # noqa: E402
from engine.query.plan import STOPWORDS  # noqa: E402
from engine.text.matching import stem  # noqa: E402
from engine.text.spelling import spelling_corrector  # noqa: E402

PHRASINGS = Path(__file__).resolve().parent / "phrasings" / "cuad_categories.json"
NDA_PHRASINGS = Path(__file__).resolve().parent / "phrasings" / "contractnli.json"
TRAINING_ONLY = Path(__file__).resolve().parent / "phrasings" / "training_questions.json"  # never evaluated on
TRAIN = "train:"  # the style of a training-only question: "train:scenario" is left out with "scenario", never measured
C = 8.0  # inverse regularisation; 2, 4, 8, 16 compared leaving each style out (stop 31, 2,110 texts): 8 best on the mean and the worst style
CHAR_WEIGHT = 1.0  # of the character n-grams beside the embedding (0.5 and 1.0 compared: 1.0 better on typos)
LEXICON_SIZE = 8
MIN_CONTRACTS = 3  # a lexicon word occurs in the labelled spans of at least this many contracts
MIN_SHARE = 0.10  # ... and in at least this share of the contracts labelled with the category
STAND_INS = [("Acme", "Borealis"), ("Northwind", "Contoso"), ("Globex", "Initech"), ("Aduro", "Novartis"), ("Hooli", "Vandelay")]
_WORD = re.compile(r"[a-z]{3,}")


def descriptions() -> dict[str, str]:
    path = SHARED_DATA / "cuad" / "category_descriptions.csv"
    rows = csv.reader(path.open(encoding="utf-8-sig"))
    next(rows)
    return {row[0].removeprefix("Category: ").strip(): row[1].removeprefix("Description: ").strip() for row in rows if row}


def training_texts() -> list[tuple[str, str, str]]:
    """(category, style, text) for every phrasing, standard wording and description: the 41
    CUAD categories and the 17 ContractNLI hypotheses (an NDA's usual terms)."""
    categories = json.loads(PHRASINGS.read_text())["categories"]
    described = descriptions()
    chooser = random.Random(16)
    texts = []
    for name, entry in categories.items():
        texts.append((name, "standard", entry["cuad"]))
        if name in described:
            texts.append((name, "standard", f"{name}: {described[name]}"))
        for phrasing in entry["phrasings"]:
            party, other = chooser.choice(STAND_INS)
            texts.append((name, phrasing["style"], phrasing["text"].replace("{party}", party).replace("{other}", other)))
    names = nda_categories()
    for key, entry in json.loads(NDA_PHRASINGS.read_text())["hypotheses"].items():
        texts.append((names[key], "standard", entry["hypothesis"]))
        texts += [(names[key], phrasing["style"], phrasing["text"]) for phrasing in entry["phrasings"]]
    if TRAINING_ONLY.is_file():  # more varied examples, written for training alone; styled, so folds leave them out too
        extra = json.loads(TRAINING_ONLY.read_text())
        # one-contract questions, then requests over many contracts, whose frame ("which of our
        # agreements...", "list every...") must not read as a topic of its own
        for name, questions in [*extra["categories"].items(), *extra.get("listings", {}).items()]:
            for question in questions:
                party, other = chooser.choice(STAND_INS)
                texts.append((name, TRAIN + question["style"], question["text"].replace("{party}", party).replace("{other}", other)))
        for key, questions in extra["nda"].items():
            texts += [(names[key], TRAIN + question["style"], question["text"]) for question in questions]
    corrector = spelling_corrector()  # the pipeline reads a question as spelling-corrected: so is every text here
    return [(category, style, corrector.correct(text).text) for category, style, text in texts]


def features(embeddings: np.ndarray, chars: sparse.csr_matrix) -> sparse.csr_matrix:
    return sparse.hstack([sparse.csr_matrix(embeddings), CHAR_WEIGHT * chars], format="csr")


def fit(texts: list[str], embeddings: np.ndarray, labels: list[str]):
    vectorizer = char_vectorizer().fit(texts)
    model = LogisticRegression(C=C, max_iter=3000).fit(features(embeddings, vectorizer.transform(texts)), labels)
    return vectorizer, model


def cross_validate(items: list[tuple[str, str, str]], embeddings: np.ndarray) -> dict[str, tuple[float, float]]:
    """Leave each phrasing style out: top-1 and top-3 accuracy on the held-out style."""
    results = {}
    for held in sorted({style for _, style, _ in items if not style.startswith(TRAIN)} - {"standard"}):
        train = [i for i, item in enumerate(items) if item[1].removeprefix(TRAIN) != held]
        test = [i for i, item in enumerate(items) if item[1] == held]
        vectorizer, model = fit([items[i][2] for i in train], embeddings[train], [items[i][0] for i in train])
        probabilities = model.predict_proba(features(embeddings[test], vectorizer.transform([items[i][2] for i in test])))
        ranked = model.classes_[np.argsort(-probabilities, axis=1)]
        truth = [items[i][0] for i in test]
        results[held] = (
            float(np.mean([r[0] == t for r, t in zip(ranked, truth)])),
            float(np.mean([t in r[:3] for r, t in zip(ranked, truth)])),
        )
    return results


def lexicon(held_docs: set[str]) -> dict[str, list[str]]:
    """Per category, the words its labelled spans use and other categories' spans do not."""
    dev = {row["id"] for row in cuad_manifest("dev")} - held_docs
    contracts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)  # category -> stem -> contracts
    surface: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)  # stem -> word forms
    labelled: collections.Counter = collections.Counter()
    for doc_id, labels in cuad_labels().items():
        if doc_id not in dev:
            continue
        for label in labels:
            if not label["answerable"]:
                continue
            found = set()
            for answer in label["answers"]:
                for word in _WORD.findall(answer["text"].lower()):
                    if word not in STOPWORDS:
                        found.add(stem(word))
                        surface[stem(word)][word] += 1
            contracts[label["category"]].update(found)
            labelled[label["category"]] += 1
    return _distinctive(contracts, labelled, surface, list(CATEGORY_TYPES))


def _distinctive(contracts, labelled, surface, categories: list[str]) -> dict[str, list[str]]:
    """The words of each category's spans, by how much more often its contracts use them than
    the spans of all the categories do (a word in at least MIN_CONTRACTS contracts and
    MIN_SHARE of the category's)."""
    everywhere: collections.Counter = collections.Counter()
    for counts in contracts.values():
        everywhere.update(counts)
    total = sum(labelled.values())
    words: dict[str, list[str]] = {}
    for category in categories:
        counts, n = contracts.get(category, collections.Counter()), labelled.get(category, 0)
        scored = {
            s: (c / n) * math.log((c + 1) / n * total / (everywhere[s] + 1))
            for s, c in counts.items() if c >= MIN_CONTRACTS and c / n >= MIN_SHARE
        }
        best = sorted((s for s in scored if scored[s] > 0), key=lambda s: -scored[s])[:LEXICON_SIZE]
        words[category] = [surface[s].most_common(1)[0][0] for s in best]
    return words

def priors(held_docs: set[str]) -> dict[str, float]:
    """Per category, the share of dev contracts (less `held_docs`) that state it: the lawyers'
    labels for CUAD, the NDAs whose hypothesis is not NotMentioned for ContractNLI."""
    dev = {row["id"] for row in cuad_manifest("dev")} - held_docs
    stated: collections.Counter = collections.Counter()
    seen: collections.Counter = collections.Counter()
    for doc_id, labels in cuad_labels().items():
        if doc_id in dev:
            for label in labels:
                seen[label["category"]] += 1
                stated[label["category"]] += bool(label["answerable"])
    names = nda_categories()
    for nda in contractnli_dev()["documents"]:
        if nda_contract_id(nda["id"]) in held_docs:
            continue
        for key, annotation in nda["annotation_sets"][0]["annotations"].items():
            seen[names[key]] += 1
            stated[names[key]] += annotation["choice"] != "NotMentioned"
    return {category: stated[category] / seen[category] for category in seen if seen[category]}


def nda_lexicon(held_docs: set[str]) -> dict[str, list[str]]:
    """Per ContractNLI hypothesis, the words its evidence spans use and the other hypotheses'
    spans do not, counted by NDA, over the dev NDAs less `held_docs` (contractnli:<id>)."""
    data = contractnli_dev()
    names = nda_categories()
    contracts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    surface: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    labelled: collections.Counter = collections.Counter()
    for nda in data["documents"]:
        if nda_contract_id(nda["id"]) in held_docs:
            continue
        for key, annotation in nda["annotation_sets"][0]["annotations"].items():
            if annotation["choice"] == "NotMentioned" or not annotation["spans"]:
                continue
            found = set()
            for index in annotation["spans"]:
                start, end = nda["spans"][index]
                for word in _WORD.findall(nda["text"][start:end].lower()):
                    if word not in STOPWORDS:
                        found.add(stem(word))
                        surface[stem(word)][word] += 1
            contracts[names[key]].update(found)
            labelled[names[key]] += 1
    return _distinctive(contracts, labelled, surface, sorted(names.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=MODEL_FILE)
    parser.add_argument("--hold-style", action="append", default=[], help="leave this style out of the written model")
    parser.add_argument("--hold-docs", type=Path, help="file of contract ids (one per line) left out of the lexicon")
    parser.add_argument("--no-cv", action="store_true", help="skip the cross-validation report")
    args = parser.parse_args()
    items = training_texts()
    embeddings = Embedder().encode([text for _, _, text in items])
    if not args.no_cv:
        results = cross_validate(items, embeddings)
        print(f"question -> category, leaving each style out ({len(items)} texts, {len({c for c, _, _ in items})} categories)")
        print(f"{'held-out style':16} {'top-1':>7} {'top-3':>7}")
        for style, (top1, top3) in results.items():
            print(f"{style:16} {top1:>7.3f} {top3:>7.3f}")
        worst = min(results, key=lambda s: results[s][0])
        print(f"{'mean':16} {np.mean([r[0] for r in results.values()]):>7.3f} {np.mean([r[1] for r in results.values()]):>7.3f}"
              f"   worst top-1: {worst} {results[worst][0]:.3f}")
    held_docs = set(args.hold_docs.read_text().split()) if args.hold_docs else set()
    write_model(args.out, items, embeddings, set(args.hold_style), held_docs)


def write_model(
    out: Path, items: list[tuple[str, str, str]], embeddings: np.ndarray, held_styles: set[str], held_docs: set[str],
    keep_training: bool = False,
) -> None:
    """Fit on the texts of every style but `held_styles`, the lexicon on the dev contracts but
    `held_docs`, and save both where engine/query/meaning.py reads them. `keep_training` leaves
    out only the evaluation phrasings of `held_styles`, keeping the training-only questions of
    those styles, which other hands wrote: held out by phrasing rather than by style."""
    def held(style: str) -> bool:
        return (style if keep_training else style.removeprefix(TRAIN)) in held_styles

    keep = [i for i, item in enumerate(items) if not held(item[1])]
    vectorizer, model = fit([items[i][2] for i in keep], embeddings[keep], [items[i][0] for i in keep])
    words = lexicon(held_docs) | nda_lexicon(held_docs)
    categories = [str(c) for c in model.classes_]
    flat = [w for c in categories for w in words.get(c, [])]
    stated = priors(held_docs)
    offsets = np.cumsum([0] + [len(words.get(c, [])) for c in categories])
    vocabulary = sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.get)
    dimension = embeddings.shape[1]
    np.savez_compressed(
        out,
        categories=np.array(categories),
        embedding_coefficients=model.coef_[:, :dimension].astype(np.float32),
        char_coefficients=(CHAR_WEIGHT * model.coef_[:, dimension:]).astype(np.float32),
        intercepts=model.intercept_.astype(np.float32),
        char_vocabulary=np.array(vocabulary),
        char_idf=vectorizer.idf_.astype(np.float32),
        lexicon_words=np.array(flat),
        lexicon_offsets=offsets,
        priors=np.array([stated.get(c, 0.5) for c in categories], dtype=np.float32),
    )
    print(f"wrote {out}: {len(categories)} categories, {len(vocabulary)} character n-grams, lexicon of {len(flat)} words"
          + (f" (styles left out: {', '.join(sorted(held_styles))})" if held_styles else "")
          + (f" ({len(held_docs)} contracts left out of the lexicon)" if held_docs else ""))

if __name__ == "__main__":
    main()
