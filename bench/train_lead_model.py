"""Fit the model that chooses an answer's first quote (engine/answer/lead.py), cross-validated
by wording style and by contract, and print how often the first quote lies on a lawyers' span.

    .venv/bin/python bench/train_lead_model.py --data data/phrasings \\
        --questions data/phrasings/cuad_phrasings.jsonl data/phrasings/contractnli_dev.jsonl \\
        --training-questions data/phrasings/training_cuad.jsonl data/phrasings/training_contractnli.jsonl \\
        --fold-models DIR --ranker FILE --presence-model FILE [--db DIR] [--cache FILE] [--write]

For every answerable question: retrieve (graph mode, as the app does), cut the top passages into
sentences (engine/answer/evidence.py), and describe each candidate for the first quote
(`lead_features`); a candidate is right when it shares a word 5-gram with a gold span, the
harness's own test of a quote on gold. `--questions` are measured; `--training-questions`
(the training-only phrasings, bench/phrasings/build.py) only train, except questions in no
wording style (the multi-hop sets), which are measured held out by contract wherever they come. For the figures to be
held out the question models (`--fold-models`), the ranker and the presence model must not
have seen these questions' wording or contracts.

Cross-validation: each measured question is decided by a model fitted on the questions (both
kinds) of the other wording styles over the other contracts (four folds of contracts), with the
app's own rule on top (`lead.pick`: a rules' choice of the question's category stands). The
table compares, per question set and style, the rules' first quote, the learned one and the
best possible (some candidate is on gold), over the answerable questions. `--write` fits on
every question and saves engine/answer/lead_model.npz; `--fold-models-out DIR` saves one model
per style fitted without it, for `engine eval --lead-folds DIR` to measure the whole pipeline.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from common import add_held_out_arguments, contract_fold, held_out_library, require_shared_data  # noqa: E402  (puts the project on sys.path)
from engine.answer.evidence import Evidence  # noqa: E402
from engine.answer.extractive import main_candidates, quote_end, rules_order  # noqa: E402
from engine.answer.lead import FEATURES, MODEL_FILE, RULES_COLUMN, lead_candidates, lead_features, pick  # noqa: E402
from engine.eval.harness import ensure_documents, load_questions, wording_folds  # noqa: E402
from engine.eval.scores import quoted  # noqa: E402
from engine.logistic import StandardisedLogistic  # noqa: E402
from engine.service import Library  # noqa: E402
from models.retrieval import Mode  # noqa: E402

CONTRACT_FOLDS = 4
L2 = 1.0  # sklearn's C; 0.1 and 10 gave the same held-out figures


def collect(library: Library, questions, mapping, folds, measured: bool) -> list[dict]:
    """One entry per answerable question with candidates: its feature rows and their labels."""
    entries = []
    settings = library.settings.answer
    with wording_folds(library, folds) as read_as:
        for number, question in enumerate(questions, start=1):
            if number % 500 == 0:
                print(f"  {number}/{len(questions)} questions", file=sys.stderr)
            if not question.answerable or not question.evidence:
                continue
            read_as(question.style)
            doc_ids = [mapping[d] for d in question.docs]
            result = library.engine.run(question.question, doc_ids, mode=Mode.GRAPH, answer=False)
            if result.retrieval is None:  # an enumeration: answered from the fields
                continue
            evidence = Evidence.gather(result.retrieval, library.scope(doc_ids), settings, library.engine.answerer.meaning)
            candidates = main_candidates(evidence)
            ordered = rules_order(evidence, candidates)
            ranked = lead_candidates(candidates)
            if not ranked:
                continue
            quotes = [s.clause.text[s.start : quote_end(s, settings.extractive.max_quote_chars)] for s in ranked]
            labels = [any(quoted(e.text, [quote]) for e in question.evidence) for quote in quotes]
            entries.append({
                "id": question.id, "style": question.style or "", "contract": question.docs[0], "measured": measured,
                "x": lead_features(evidence, ranked, ordered[0] if ordered else None), "y": np.array(labels, dtype=float),
            })
    return entries


def fit(entries: list[dict]) -> tuple[StandardScaler, LogisticRegression]:
    x = np.vstack([e["x"] for e in entries])
    y = np.concatenate([e["y"] for e in entries])
    scaler = StandardScaler().fit(x)
    scaler.scale_[scaler.scale_ == 0] = 1.0  # a feature constant in training (possible in a small fold) adds nothing
    return scaler, LogisticRegression(C=L2, max_iter=3000).fit(scaler.transform(x), y)


def cross_validate(entries: list[dict]) -> dict[str, int]:
    """question id -> index of the candidate a model fitted without its style and contract fold
    picks. Questions in no style (the multi-hop sets, each worded its own way) are measured
    too, held out by contract alone."""
    picked = {}
    measured = [e for e in entries if e["measured"] or not e["style"]]
    for style in sorted({e["style"] for e in measured}):
        for fold in range(CONTRACT_FOLDS):
            held = [e for e in measured if e["style"] == style and contract_fold(e["contract"], CONTRACT_FOLDS) == fold]
            train = [e for e in entries if (e["style"] != style or not style) and contract_fold(e["contract"], CONTRACT_FOLDS) != fold]
            if not held:
                continue
            scaler, model = fit(train)
            for entry in held:
                picked[entry["id"]] = pick(model.decision_function(scaler.transform(entry["x"])), entry["x"])
    return picked


def rules_right(entry: dict) -> bool:
    """Whether the rules' first quote (the candidate `lead_features` marks) is on gold."""
    chosen = entry["x"][:, RULES_COLUMN]
    return bool(chosen.any() and entry["y"][int(np.argmax(chosen))] > 0)


def report(entries: list[dict], picked: dict[str, int]) -> None:
    measured = [e for e in entries if e["id"] in picked]
    sets = sorted({question_set(e) for e in measured})
    print(f"\nfirst quote on a gold span, answerable questions (held out by style x {CONTRACT_FOLDS} contract folds)")
    print(f"{'set':10} {'style':10} {'n':>5} {'rules':>7} {'learned':>8} {'possible':>9}")
    for name in sets:
        in_set = [e for e in measured if question_set(e) == name]
        rows = {}
        for style in sorted({e["style"] for e in in_set} - {""}) + ["all"]:
            group = [e for e in in_set if style == "all" or e["style"] == style]
            rules = np.mean([rules_right(e) for e in group])
            learned = np.mean([e["y"][picked[e["id"]]] > 0 for e in group])
            possible = np.mean([e["y"].any() for e in group])
            rows[style] = (rules, learned)
            print(f"{name:10} {style:10} {len(group):>5} {rules:>7.3f} {learned:>8.3f} {possible:>9.3f}")
        styles = {s: v for s, v in rows.items() if s != "all"}
        if styles:
            worst_rules, worst_learned = min(styles, key=lambda s: styles[s][0]), min(styles, key=lambda s: styles[s][1])
            print(f"{name:10} worst style: rules {styles[worst_rules][0]:.3f} ({worst_rules}), learned {styles[worst_learned][1]:.3f} ({worst_learned})")
        better = sum(e["y"][picked[e["id"]]] > 0 and not rules_right(e) for e in in_set)
        worse = sum(rules_right(e) and not e["y"][picked[e["id"]]] > 0 for e in in_set)
        print(f"{name:10} the learned choice is right where the rules' is not on {better} questions, and wrong where it is right on {worse}")


def _save_cache(path: str | None, entries: list[dict]) -> None:
    """Candidate rows of every question in one array, with the question each row belongs to."""
    if path is None:
        return
    np.savez(
        path, features=np.array(FEATURES), x=np.vstack([e["x"] for e in entries]), y=np.concatenate([e["y"] for e in entries]),
        question=np.concatenate([np.full(len(e["y"]), i) for i, e in enumerate(entries)]),
        **{key: np.array([e[key] for e in entries]) for key in ("id", "style", "contract", "measured")},
    )


def _load_cache(path: str | None) -> list[dict] | None:
    if path is None or not Path(path).is_file():
        return None
    stored = np.load(path, allow_pickle=False)
    if list(stored["features"]) != FEATURES:
        sys.exit(f"error: {path} holds other features; delete it to collect again")
    rows = stored["question"]
    entries = []
    for i in range(len(stored["id"])):
        entry = {key: stored[key][i].item() for key in ("id", "style", "contract", "measured")}
        entries.append({**entry, "x": stored["x"][rows == i], "y": stored["y"][rows == i]})
    print(f"candidates from {path}")
    return entries


def question_set(entry: dict) -> str:
    if not entry["style"]:
        return "multi-hop"
    return "contractnli" if entry["id"].startswith("cnli") else "cuad"


def save(entries: list[dict], path: Path) -> None:
    scaler, model = fit(entries)
    StandardisedLogistic.from_sklearn(model, FEATURES, scaler.mean_, scaler.scale_).save(path)
    print(f"\nwrote {path}, fitted on {len(entries)} questions: " + ", ".join(f"{n} {w:+.2f}" for n, w in zip(FEATURES, model.coef_[0])))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_held_out_arguments(parser, "question files measured (and trained on, in the other folds)")
    parser.add_argument("--training-questions", nargs="*", default=[], help="question files only trained on")
    parser.add_argument("--cache", help="candidates file (.npz): read if it exists, else written after collecting")
    parser.add_argument("--write", action="store_true", help=f"save the model fitted on every question to {MODEL_FILE}")
    parser.add_argument("--fold-models-out", metavar="DIR", help="save one model per wording style, fitted without that style, as DIR/<style>.npz (engine eval --lead-folds)")
    args = parser.parse_args()

    require_shared_data()
    entries = _load_cache(args.cache)
    if entries is None:
        library, folds = held_out_library(args)
        measured = [q for path in args.questions for q in load_questions(Path(path))]
        training = [q for path in args.training_questions for q in load_questions(Path(path))]
        mapping = ensure_documents(library, measured + training, Path(args.data))
        entries = collect(library, measured, mapping, folds, True) + collect(library, training, mapping, folds, False)
        _save_cache(args.cache, entries)
    print(f"{sum(e['measured'] for e in entries)} measured and {sum(not e['measured'] for e in entries)} training-only "
          f"answerable questions, {len({e['contract'] for e in entries})} contracts")
    report(entries, cross_validate(entries))
    if args.write:
        save(entries, MODEL_FILE)
    if args.fold_models_out:
        folder = Path(args.fold_models_out)
        folder.mkdir(parents=True, exist_ok=True)
        for style in sorted({e["style"] for e in entries if e["measured"]}):
            save([e for e in entries if e["style"] != style], folder / f"{style}.npz")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
