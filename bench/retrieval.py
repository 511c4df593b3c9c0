"""Retrieval quality and speed: the four modes and the plain LlamaIndex pipeline, side by side.

    .venv/bin/python bench/retrieval.py [--db data/bench-store] [--sets multihop_dev cuad_dev] [--presence-folds DIR]

Runs every question set of ../shared/bench (and bench/multihop/dev_extra.jsonl) through the
evaluation harness in each mode (keyword, vector, hybrid, graph; graph once more ranked by the
hand-set formula instead of the learned ranker) and through the plain LlamaIndex baseline (PyMuPDF pages,
default SentenceSplitter, same embedding model, top chunks filling the budget), all in
one run, and prints FORMAT.md's scores: evidence recall and completeness at 4k and 8k
characters, by question type and hops, with p50/p95 retrieval time. Documents missing
from the store are ingested first (the store is kept for the next run).

The shipped learned ranker was trained on these dev sets, so the graph column is in sample.
The `graph-held-out` column beside it is the same pipeline with each question's candidates
ranked by a ranker trained without its contract (5 folds by contract over every dev set,
`bench/train_ranker.py`'s training): that one is the result. The ranker reads the presence
model's clause scores, and the shipped presence model read the dev contracts' labels: with
`--presence-folds DIR` (bench/train_presence.py --folds-out) every contract of the held-out
column, in training and in the run, is scored by the fold model that never read its labels.
"""

from __future__ import annotations

import argparse
import collections
import tempfile
import time
from pathlib import Path

from common import BENCH_DIR, BENCH_STORE, PROJECT_ROOT, SHARED_DATA, require_shared_data
from baseline import BaselineRetriever
import train_ranker

from engine.eval.scores import Output, Question, Scores, by_hops, by_type, score
from engine.eval.harness import ensure_documents, load_questions, report, run
from engine.query.rank import LearnedRanker
from engine.service import Library
from models.retrieval import Mode

BASELINE = "llamaindex"
FORMULA = "graph-formula"  # graph mode ranked by the hand-set walk formula instead of the learned ranker
HELD_OUT = "graph-held-out"  # graph mode ranked by rankers trained without the question's contract
COLUMNS = [Mode.KEYWORD.value, Mode.VECTOR.value, Mode.HYBRID.value, Mode.GRAPH.value, HELD_OUT, FORMULA, BASELINE]
FOLDS = 5
OWN_SETS = {"dev_extra": PROJECT_ROOT / "bench" / "multihop" / "dev_extra.jsonl"}  # hand-checked here, beside ../shared/bench's


def run_baseline(retriever: BaselineRetriever, questions: list[Question]) -> dict[str, Output]:
    outputs: dict[str, Output] = {}
    for question in questions:
        started = time.perf_counter()
        context = retriever.context(question.question, question.docs)
        outputs[question.id] = Output(id=question.id, context=context, seconds=time.perf_counter() - started)
    return outputs


def side_by_side(title: str, columns: dict[str, Scores]) -> str:
    header = f"{title:24}" + "".join(f"{name:>16}" for name in columns)
    lines = [header, "-" * len(header)]
    rows = [
        ("recall@4k", lambda s: s.recall[4000]),
        ("recall@8k", lambda s: s.recall[8000]),
        ("complete@4k", lambda s: s.complete[4000]),
        ("complete@8k", lambda s: s.complete[8000]),
    ]
    for name, value in rows:
        lines.append(f"{name:24}" + "".join(f"{value(s):>16.3f}" for s in columns.values()))
    lines.append(f"{'p50 ms':24}" + "".join(f"{1000 * (s.p50_seconds or 0):>16.0f}" for s in columns.values()))
    lines.append(f"{'p95 ms':24}" + "".join(f"{1000 * (s.p95_seconds or 0):>16.0f}" for s in columns.values()))
    return "\n".join(lines)


def groups_table(title: str, groups: dict[str, dict[str, Scores]], budget: int = 8000) -> str:
    """recall / complete at `budget` for each group (type or hops) and pipeline."""
    names = list(groups)
    header = f"{title + f' (recall / complete @{budget // 1000}k)':40}" + "".join(f"{name:>15}" for name in names)
    lines = [header, "-" * len(header)]
    keys = sorted({key for by_group in groups.values() for key, s in by_group.items() if s.answerable})
    for key in keys:
        cells = []
        for name in names:
            s = groups[name].get(key)
            cells.append(f"{s.recall[budget]:.2f} / {s.complete[budget]:.2f}" if s and s.answerable else "-")
        n = next((g[key].answerable for g in groups.values() if key in g), 0)
        lines.append(f"{f'{key} (n={n})':40}" + "".join(f"{c:>15}" for c in cells))
    return "\n".join(lines)


def held_out_rankers(library: Library, folder: Path, presence: train_ranker.PresenceFolds) -> dict[str, LearnedRanker]:
    """Contract -> a ranker trained on every dev set's questions but those of its fold of
    contracts (a contract no question trained on gets the first fold's)."""
    items = []
    for name in train_ranker.DEFAULT_SETS:
        questions = train_ranker.set_questions(name)
        mapping = ensure_documents(library, questions, SHARED_DATA)
        print(f"held-out rankers: collecting {name}", flush=True)
        items += train_ranker.collect(library, questions, mapping, source=name, presence=presence)
    rankers: dict[str, LearnedRanker] = {}
    first = None
    for number, contracts in enumerate(train_ranker.folds_of(items, FOLDS)):
        train = [i for i in items if i.group not in contracts]
        weights = train_ranker.multi_hop_weights(train)
        path = folder / f"ranker-{number}.npz"
        train_ranker.save(path, train_ranker.fit(train, weights, train_ranker.SHIPPED_KIND))
        ranker = LearnedRanker(path)
        first = first or ranker
        rankers.update(dict.fromkeys(contracts, ranker))
    return collections.defaultdict(lambda: first, rankers)


def run_held_out(library: Library, questions: list[Question], mapping: dict[str, str], rankers: dict[str, LearnedRanker],
                 presence: train_ranker.PresenceFolds):
    """The graph mode, each question ranked by the ranker that never saw its contract, over the
    presence scores of the model that never read its labels; one contract at a time."""
    shipped = library.retriever.ranker
    outputs, retrievals = {}, {}
    try:
        for contract in dict.fromkeys(q.docs[0] for q in questions):
            library.retriever.ranker = rankers[contract]
            presence.use_for(contract)
            asked = [q for q in questions if q.docs[0] == contract]
            more_outputs, more_retrievals = run(library, asked, mapping, Mode.GRAPH)
            outputs.update(more_outputs)
            retrievals.update(more_retrievals)
    finally:
        library.retriever.ranker = shipped
        presence.use_for("")  # back to the shipped model for the other columns
    return {q.id: outputs[q.id] for q in questions}, retrievals


def bench_set(library: Library, name: str, baseline_dir: Path, rankers: dict[str, LearnedRanker], presence: train_ranker.PresenceFolds) -> None:
    questions = load_questions(OWN_SETS.get(name, BENCH_DIR / f"{name}.jsonl"))
    mapping = ensure_documents(library, questions, SHARED_DATA, say=lambda line: print("  " + line, flush=True))
    overall: dict[str, Scores] = {}
    types: dict[str, dict[str, Scores]] = {}
    hops: dict[str, dict[str, Scores]] = {}
    misses = {}
    shipped = library.engine.settings
    formula = shipped.model_copy(update={"retrieval": shipped.retrieval.model_copy(update={"ranking": "formula"})})
    for column, mode, settings in [(m.value, m, shipped) for m in (Mode.KEYWORD, Mode.VECTOR, Mode.HYBRID, Mode.GRAPH)] + [(FORMULA, Mode.GRAPH, formula)]:
        library.engine.settings = settings
        try:
            outputs, retrievals = run(library, questions, mapping, mode)
        finally:
            library.engine.settings = shipped
        result = report(library, questions, outputs, retrievals, mapping, mode)
        overall[column], types[column], hops[column] = result.overall, result.by_type, result.by_hops
        misses[column] = result.misses
        if mode is Mode.GRAPH and column == Mode.GRAPH.value:
            outputs, retrievals = run_held_out(library, questions, mapping, rankers, presence)
            result = report(library, questions, outputs, retrievals, mapping, mode)
            overall[HELD_OUT], types[HELD_OUT], hops[HELD_OUT] = result.overall, result.by_type, result.by_hops
            misses[HELD_OUT] = result.misses
    files = {doc: SHARED_DATA / doc for doc in sorted({d for q in questions for d in q.docs})}
    baseline = BaselineRetriever(files, baseline_dir / name)
    outputs = run_baseline(baseline, questions)
    overall[BASELINE] = score(questions, outputs)
    types[BASELINE] = by_type(questions, outputs)
    hops[BASELINE] = by_hops(questions, outputs)

    answerable = overall[Mode.GRAPH.value].answerable
    print(f"\n{name}: {len(questions)} questions, {answerable} answerable, {len(files)} contracts")
    print(side_by_side("", overall))
    print()
    print(groups_table("by type", types))
    print()
    print(groups_table("by hops", hops))
    print("\nevidence missed at 8k (not reachable / reached but ranked out / not in any one clause):")
    for mode, miss in misses.items():
        print(f"  {mode:14} {miss.not_reachable:4d} {miss.ranked_out:4d} {miss.not_located:4d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=str(BENCH_STORE), help="store for the benchmark's documents")
    parser.add_argument("--sets", nargs="+", default=["multihop_dev", "dev_extra", "cuad_dev"],
                        help=f"question sets in ../shared/bench, or {', '.join(OWN_SETS)} (bench/multihop)")
    parser.add_argument("--presence-folds", type=Path, help="presence fold models for the held-out column (bench/train_presence.py --folds-out)")
    args = parser.parse_args()
    require_shared_data()
    library = Library(Path(args.db))
    print("Retrieval on the dev question sets (one run, this machine; times without an LLM)")
    with tempfile.TemporaryDirectory() as tmp:
        presence = train_ranker.PresenceFolds(args.presence_folds, train_ranker.PRESENCE_MODEL)
        rankers = held_out_rankers(library, Path(tmp), presence)
        presence.use_for("")  # the other columns score with the shipped presence model
        for name in args.sets:
            bench_set(library, name, Path(tmp), rankers, presence)


if __name__ == "__main__":
    main()
