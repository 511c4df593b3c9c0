"""Fit the query adapter (engine/query/query_adapter.py), cross-validated by contract, and print
how near the search vector brings each question's answering clause, per wording style.

    .venv/bin/python bench/train_query_adapter.py --data data/phrasings \\
        --questions data/phrasings/training_cuad.jsonl data/phrasings/training_contractnli.jsonl \\
        [--measure FILE ...] [--db DIR] [--cache FILE] [--write] [--hold-docs FILE --held-out-model FILE]
        [--folds-out DIR]

Each answerable question is paired with the clauses of its contract that hold a lawyers' span
(a shared word 5-gram, the harness's test of a quote on gold) and contrasted with every other
clause and window of that contract: the adapter `A = I + D` is fitted so that, after `A`, the
question's vector is nearest to its answering clauses (softmax over the contract at temperature
TAU, L2 penalty `l2 * |D|^2` holding it near the identity). The question is embedded as the
retriever embeds it: the parties' names put as roles (`without_parties`).

`--questions` are the training-only phrasings (bench/phrasings/build.py): written by writers
who never saw an evaluation phrasing, so no measured wording is fitted. The penalty is chosen
by cross-validation grouped by contract (CONTRACT_FOLDS) over them; the table shows, per style,
the clause rank of the best answering clause (recall at 5 and 10, MRR) with the plain vector and
with the held-out adapter, and the worst style. `--measure` files (the evaluation phrasings, the
multi-hop sets) are scored with an adapter fitted on the training questions of the other
contracts only. Leaving a style out of training (`--leave-style-out`) fits one adapter per style.
`--folds-out` keeps one adapter per contract fold, for training the ranker on adapted
similarities no training contract's own questions shaped (bench/train_ranker.py --query-adapter-folds).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from common import BENCH_STORE, contract_fold, contract_id, require_shared_data  # noqa: E402  (puts the project on sys.path)
from engine.eval.harness import DEFAULT_DATA, ensure_documents, load_questions  # noqa: E402
from engine.eval.scores import quoted  # noqa: E402
from engine.query.plan import without_parties  # noqa: E402
from engine.query.query_adapter import MODEL_FILE, QueryAdapter  # noqa: E402
from engine.service import Library  # noqa: E402

CONTRACT_FOLDS = 5
TAU = 0.05  # softmax temperature over a contract's clauses (cosines)
EPOCHS = 10
BATCH = 64
L2_GRID = (0.1, 0.01, 0.001)


@dataclass
class Item:
    """One answerable question: its search vector's input, its contract and answering clauses."""

    id: str
    source: str  # the question file
    style: str
    contract: str
    doc_id: str
    gold: list[int]  # rows of the contract's clauses


@dataclass
class ContractVectors:
    """Every clause vector and window vector of the contracts, and which clause each belongs to."""

    vectors: np.ndarray
    owner: np.ndarray  # clause row of each vector
    rows_of: dict[str, np.ndarray]  # doc_id -> indexes into vectors


def collect(library: Library, files: list[Path], data: Path) -> tuple[list[Item], np.ndarray, ContractVectors]:
    questions = [(path.name, q) for path in files for q in load_questions(path)]
    mapping = ensure_documents(library, [q for _, q in questions], data, say=lambda _: None)
    documents = {d.doc_id: d for d in library.store.documents()}
    clause_rows = library.store.table("clauses").to_arrow().select(["clause_id", "doc_id", "text", "vector"]).to_pylist()
    wanted = set(mapping.values())
    clause_rows = [r for r in clause_rows if r["doc_id"] in wanted]
    row_of = {r["clause_id"]: i for i, r in enumerate(clause_rows)}
    windows = [r for r in library.store.table("windows").to_arrow().select(["clause_id", "vector"]).to_pylist() if r["clause_id"] in row_of]
    vectors = np.array([r["vector"] for r in clause_rows] + [w["vector"] for w in windows], dtype=np.float32)
    owner = np.array(list(range(len(clause_rows))) + [row_of[w["clause_id"]] for w in windows])
    doc_of_row = np.array([r["doc_id"] for r in clause_rows])
    rows_of = {d: np.where(doc_of_row[owner] == d)[0] for d in wanted}
    clauses_of = {d: np.where(doc_of_row == d)[0].tolist() for d in wanted}  # doc_id -> its clause rows

    items, texts = [], []
    for source, question in questions:
        if not question.answerable or not question.evidence:
            continue
        doc_id = mapping[question.docs[0]]
        gold = [i for i in clauses_of[doc_id] if any(quoted(e.text, [clause_rows[i]["text"]]) for e in question.evidence)]
        if not gold:
            continue
        graph = library.graphs.get(documents[doc_id])
        items.append(Item(question.id, source, question.style or "", contract_id(question.docs[0]), doc_id, gold))
        texts.append(without_parties(question.question, graph.party_names))
    print(f"{len(items)} answerable questions with an answering clause, {len(wanted)} contracts; embedding them", file=sys.stderr)
    return items, library.embedder.encode(texts), ContractVectors(vectors, owner, rows_of)


def fit(items: list[Item], questions: np.ndarray, contracts: ContractVectors, l2: float, epochs: int = EPOCHS) -> np.ndarray:
    import torch  # here: only fitting needs it

    torch.manual_seed(0)
    dimension = questions.shape[1]
    delta = torch.zeros(dimension, dimension, requires_grad=True)
    optimiser = torch.optim.Adam([delta], lr=2e-3)
    vectors = torch.tensor(contracts.vectors)
    positives = [torch.tensor(np.isin(contracts.owner[contracts.rows_of[i.doc_id]], i.gold)) for i in items]
    for epoch in range(epochs):
        order = np.random.default_rng(epoch).permutation(len(items))
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            adapted = torch.nn.functional.normalize(torch.tensor(questions[batch]) @ (torch.eye(dimension) + delta).T, dim=1)
            loss = torch.zeros(())
            for k, index in enumerate(batch):
                logits = vectors[contracts.rows_of[items[index].doc_id]] @ adapted[k] / TAU
                loss = loss - (torch.logsumexp(logits[positives[index]], 0) - torch.logsumexp(logits, 0))
            loss = loss / len(batch) + l2 * (delta**2).sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return (torch.eye(dimension) + delta).detach().numpy()


def answer_ranks(items: list[Item], questions: np.ndarray, contracts: ContractVectors, matrix: np.ndarray | None) -> np.ndarray:
    """Rank (1 = first) of each question's best answering clause among its contract's clauses,
    a clause scored by its best vector, as the vector arm scores it."""
    ranks = []
    for item, vector in zip(items, questions):
        if matrix is not None:
            vector = matrix @ vector
            vector = vector / np.linalg.norm(vector)
        rows = contracts.rows_of[item.doc_id]
        best: dict[int, float] = defaultdict(lambda: -2.0)
        for clause, similarity in zip(contracts.owner[rows], contracts.vectors[rows] @ vector):
            best[clause] = max(best[clause], float(similarity))
        order = sorted(best, key=lambda c: -best[c])
        ranks.append(1 + min(order.index(g) for g in item.gold))
    return np.array(ranks)


def cross_validated(items, questions, contracts, l2: float, leave_style_out: bool = False) -> np.ndarray:
    """Each question's rank under an adapter fitted without its contract fold (and its style)."""
    ranks = np.zeros(len(items), dtype=int)
    for fold in range(CONTRACT_FOLDS):
        for style in sorted({i.style for i in items}) if leave_style_out else [None]:
            held = [k for k, i in enumerate(items) if contract_fold(i.contract, CONTRACT_FOLDS) == fold and style in (None, i.style)]
            train = [k for k, i in enumerate(items) if contract_fold(i.contract, CONTRACT_FOLDS) != fold and (style is None or i.style != style)]
            if held:
                matrix = fit([items[k] for k in train], questions[train], contracts, l2)
                ranks[held] = answer_ranks([items[k] for k in held], questions[held], contracts, matrix)
    return ranks


def write_folds(folder: Path, items: list[Item], questions: np.ndarray, contracts: ContractVectors, l2: float) -> None:
    """One adapter per contract fold, fitted without it: a model trained on what the adapter
    gives (the ranker) reads a training contract's questions as moved by the adapter that never
    saw that contract, as sure as a new contract's (bench/common.py's AdapterFolds picks it)."""
    folder.mkdir(parents=True, exist_ok=True)
    left_out: dict[str, list[str]] = {}
    for fold in range(CONTRACT_FOLDS):
        train = [k for k, i in enumerate(items) if contract_fold(i.contract, CONTRACT_FOLDS) != fold]
        name = f"fold{fold}.npz"
        QueryAdapter.save(folder / name, fit([items[k] for k in train], questions[train], contracts, l2), l2=l2)
        left_out[name] = sorted({i.contract for i in items} - {items[k].contract for k in train})
    (folder / "contracts.json").write_text(json.dumps(left_out, indent=1))
    print(f"wrote {CONTRACT_FOLDS} fold adapters to {folder}")


def table(title: str, items: list[Item], plain: np.ndarray, adapted: np.ndarray) -> None:
    print(f"\n{title}")
    print(f"{'style':10} {'n':>5}  {'r@5 plain':>9} {'adapted':>8}  {'r@10 plain':>10} {'adapted':>8}  {'MRR plain':>9} {'adapted':>8}")
    groups = sorted({i.style or i.source for i in items})
    worst = None
    for group in groups + ["all"]:
        m = np.array([group == "all" or (i.style or i.source) == group for i in items])
        row = [(plain[m] <= 5).mean(), (adapted[m] <= 5).mean(), (plain[m] <= 10).mean(), (adapted[m] <= 10).mean(), (1 / plain[m]).mean(), (1 / adapted[m]).mean()]
        print(f"{group:10} {m.sum():>5}  {row[0]:>9.3f} {row[1]:>8.3f}  {row[2]:>10.3f} {row[3]:>8.3f}  {row[4]:>9.3f} {row[5]:>8.3f}")
        if group != "all" and (worst is None or row[5] < worst[1]):
            worst = (group, row[5], row[4])
    if worst and len(groups) > 1:
        print(f"worst group by adapted MRR: {worst[0]} {worst[2]:.3f} -> {worst[1]:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", nargs="+", type=Path, required=True, help="training-only question files (fitted on)")
    parser.add_argument("--measure", nargs="*", type=Path, default=[], help="question files scored with adapters fitted without their contracts")
    parser.add_argument("--db", default=str(BENCH_STORE))
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder the questions' doc paths are relative to")
    parser.add_argument("--l2", nargs="+", type=float, default=list(L2_GRID), help="penalties cross-validated; the best mean MRR is used")
    parser.add_argument("--leave-style-out", action="store_true", help="also cross-validate leaving each wording style out of training")
    parser.add_argument("--cache", type=Path, help="collected questions and vectors (.pkl): read if it exists, else written")
    parser.add_argument("--hold-docs", type=Path, help="contract ids (one per line) left out of --held-out-model")
    parser.add_argument("--held-out-model", type=Path, help="an adapter fitted without the --hold-docs contracts, for engine eval --query-adapter")
    parser.add_argument("--folds-out", type=Path, help="DIR/fold<k>.npz, each fitted without one contract fold, and DIR/contracts.json naming them")
    parser.add_argument("--write", action="store_true", help=f"save the adapter fitted on every training question to {MODEL_FILE}")
    args = parser.parse_args()
    require_shared_data()

    if args.cache and args.cache.is_file():
        items, questions, contracts = pickle.loads(args.cache.read_bytes())
    else:
        items, questions, contracts = collect(Library(args.db), args.questions + args.measure, args.data)
        if args.cache:
            args.cache.write_bytes(pickle.dumps((items, questions, contracts)))
    measured_files = {p.name for p in args.measure}
    train = [k for k, i in enumerate(items) if i.source not in measured_files]
    measured = [k for k, i in enumerate(items) if i.source in measured_files]
    training_items = [items[k] for k in train]
    plain = answer_ranks(training_items, questions[train], contracts, None)

    by_l2 = {}
    for l2 in args.l2:
        by_l2[l2] = cross_validated(training_items, questions[train], contracts, l2)
        print(f"l2 {l2:g}: cross-validated MRR {(1 / by_l2[l2]).mean():.3f} (plain {(1 / plain).mean():.3f})", file=sys.stderr)
    chosen = max(args.l2, key=lambda l2: (1 / by_l2[l2]).mean())
    table(f"training questions, held out by {CONTRACT_FOLDS} contract folds, l2 {chosen:g} (best of {', '.join(f'{v:g}' for v in args.l2)})",
          training_items, plain, by_l2[chosen])
    if args.leave_style_out:
        table("the same, each style also left out of training", training_items, plain,
              cross_validated(training_items, questions[train], contracts, chosen, leave_style_out=True))
    if measured:
        measured_items = [items[k] for k in measured]
        held_contracts = {i.contract for i in measured_items}
        kept = [k for k in train if items[k].contract not in held_contracts]
        matrix = fit([items[k] for k in kept], questions[kept], contracts, chosen)
        table(f"measured questions, adapter fitted on the training questions of {len({items[k].contract for k in kept})} other contracts",
              measured_items, answer_ranks(measured_items, questions[measured], contracts, None),
              answer_ranks(measured_items, questions[measured], contracts, matrix))
    if args.hold_docs and args.held_out_model:
        held = set(args.hold_docs.read_text().split())
        kept = [k for k in train if items[k].contract not in held]
        QueryAdapter.save(args.held_out_model, fit([items[k] for k in kept], questions[kept], contracts, chosen), l2=chosen)
        print(f"wrote {args.held_out_model} (fitted on {len(kept)} questions, without the contracts of {args.hold_docs})")
    if args.folds_out:
        write_folds(args.folds_out, training_items, questions[train], contracts, chosen)
    if args.write:
        QueryAdapter.save(MODEL_FILE, fit(training_items, questions[train], contracts, chosen), l2=chosen)
        print(f"wrote {MODEL_FILE} (fitted on {len(train)} questions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
