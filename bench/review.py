"""Score the playbook review's `found` against CUAD's labels, and time a review grid (issue 19).

    .venv/bin/python bench/review.py [--db DIR] [--split dev|test] [--n 60] [--grid 40] [--presence-folds DIR]

For each CUAD-labelled rule of the default playbook, a contract's verdict says whether it has a
clause on the rule's topic (`found`); the lawyers' labels say whether it does (the category is
answerable). Printed per rule: precision, recall and F1 (the contract fields and the
clause-presence model decide; the question pipeline only for a topic without a category), with
the mean and the worst rule, and how many found verdicts came from each source. Every citation
of every verdict is checked to be the clause's own words.

Read the dev figures with care: the clause-presence model was trained on the dev contracts,
so its part of the dev figures is in sample (its cross-validated F1 per category is printed
beside them, from the model file). `--presence-folds DIR` (bench/train_presence.py
--folds-out) holds them out: each contract's fields are read again by the fold model that never
read its labels, which is what the shipped model does for a contract it has never seen. The test
split is the held-out result; look at it once.

`--grid N` also fills the 13 preset columns over N contracts (without keeping the cells) and
prints the seconds it took.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from common import CUAD, cuad_labels, cuad_manifest, require_shared_data

from engine.eval.harness import fold_presence_models
from engine.fields.presence import presence_model
from engine.fields.stored import FieldsReadNow
from engine.review.desk import preset_columns
from engine.review.playbook import load_playbook
from engine.review.topics import TOPICS
from engine.service import Library
from models.review import Source

#: playbook rule -> the CUAD category that labels it
LABELLED = {
    "governing_law": "Governing Law", "liability_cap": "Cap On Liability", "uncapped_liability": "Uncapped Liability",
    "anti_assignment": "Anti-Assignment", "change_of_control": "Change Of Control", "exclusivity": "Exclusivity",
    "non_compete": "Non-Compete", "audit_rights": "Audit Rights", "insurance": "Insurance",
    "termination_for_convenience": "Termination For Convenience", "auto_renewal": "Renewal Term",
}


def _f1(pairs: list[tuple[bool, bool]]) -> tuple[float, float, float]:
    tp = sum(p and g for p, g in pairs)
    predicted, gold = sum(p for p, _ in pairs), sum(g for _, g in pairs)
    precision = tp / predicted if predicted else 1.0
    recall = tp / gold if gold else 1.0
    return precision, recall, (2 * precision * recall / (precision + recall) if precision + recall else 0.0)


def contracts(library: Library, split: str, n: int | None) -> list[tuple[str, str, str]]:
    """(CUAD id, file, doc_id) of the split's labelled contracts: those the store holds first, the rest ingested."""
    rows = sorted((r for r in cuad_manifest(split) if r.get("labelled", True)), key=lambda r: r["id"])
    held = {d.file_name: d.doc_id for d in library.documents()}
    rows.sort(key=lambda r: r["file"].rsplit("/", 1)[-1] not in held)
    chosen = []
    for row in rows[:n] if n else rows:
        name = row["file"].rsplit("/", 1)[-1]
        if name not in held:
            outcome = library.ingest_file(CUAD / row["file"])
            print(f"  ingested {name}: {outcome.status.value}", flush=True)
            held[name] = outcome.doc_id
        chosen.append((row["id"], row["file"], held[name]))
    return chosen


def main() -> None:
    require_shared_data()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="store holding (or to hold) the contracts; default data/bench-store")
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--n", type=int, help="contracts scored (default: every labelled contract of the split)")
    parser.add_argument("--grid", type=int, default=0, metavar="N", help="also time the 13 preset columns over N contracts")
    parser.add_argument("--presence-folds", type=Path, metavar="DIR", help="read each contract's fields with the presence fold model that never read its labels")
    args = parser.parse_args()

    from common import BENCH_STORE

    library = Library(args.db or BENCH_STORE)
    chosen = contracts(library, args.split, args.n)
    if args.presence_folds:
        library.engine.fields = FieldsReadNow(library.graph, fold_presence_models(args.presence_folds, {file: doc_id for _, file, doc_id in chosen}))
        print(f"contract fields read by the fold models of {args.presence_folds}, each contract's by the one that never read its labels")
    labels = cuad_labels()
    playbook = load_playbook()
    started = time.perf_counter()
    review = library.reviews.review(playbook, [doc_id for _, _, doc_id in chosen], reuse_grid=False)
    seconds = time.perf_counter() - started
    by_doc = {c.doc_id: c for c in review.contracts}

    shipped: dict[str, list[tuple[bool, bool]]] = {rule: [] for rule in LABELLED}
    sources: list[Source] = []
    cited = verbatim = 0
    for cuad_id, _, doc_id in chosen:
        answerable = {row["category"]: row["answerable"] for row in labels[cuad_id]}
        for verdict in by_doc[doc_id].verdicts:
            for citation in verdict.citations:
                clause = library.engine.clause(citation.clause_id)
                cited += 1
                verbatim += clause is not None and citation.quote in clause.text
            if verdict.rule not in LABELLED:
                continue
            gold = bool(answerable.get(LABELLED[verdict.rule]))
            shipped[verdict.rule].append((verdict.found, gold))
            if verdict.found and verdict.source is not None:
                sources.append(verdict.source)

    model = presence_model()
    held_out = "held out by contract" if args.presence_folds else "in sample" if args.split == "dev" else "held out"
    print(f"\n{len(chosen)} {args.split} contracts ({held_out}), default playbook, review in {seconds:.1f} s")
    print(f"{'rule':30} {'gold':>5} {'precision':>10} {'recall':>8} {'F1':>7} {'clause model cv F1':>19}")
    figures = []
    for rule in LABELLED:
        gold = sum(g for _, g in shipped[rule])
        precision, recall, f1 = _f1(shipped[rule])
        figures.append((f1, rule))
        category = TOPICS[playbook_topic(playbook, rule)].category
        cv = f"{model.cv_f1[category]:.3f}" if category in model.cv_f1 else "—"
        print(f"{rule:30} {gold:5d} {precision:10.3f} {recall:8.3f} {f1:7.3f} {cv:>19}")
    worst = min(figures)
    print(f"mean F1 {sum(f for f, _ in figures) / len(figures):.3f}, worst rule {worst[1]} {worst[0]:.3f}")
    print("found verdicts by source: " + ", ".join(f"{s.value} {sources.count(s)}" for s in Source))
    print(f"citations quoting their clause verbatim: {verbatim}/{cited}")

    if args.grid:
        doc_ids = [doc_id for _, _, doc_id in chosen[: args.grid]]
        started = time.perf_counter()
        grid = library.reviews.fill(doc_ids, columns=preset_columns())
        cells = sum(len(row.cells) for row in grid.rows)
        print(f"grid: {len(grid.columns)} columns x {len(grid.rows)} contracts = {cells} cells in {time.perf_counter() - started:.1f} s")
        sources = [cell.source for row in grid.rows for cell in row.cells.values() if cell.found]
        print("  found cells by source: " + ", ".join(f"{s.value} {sources.count(s)}" for s in Source))


def playbook_topic(playbook, rule_id: str) -> str:
    return next(rule.topic for rule in playbook.rules if rule.id == rule_id)


if __name__ == "__main__":
    main()
