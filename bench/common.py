"""Paths and loaders shared by the benchmark scripts."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
if str(PROJECT_ROOT) not in sys.path:
    sys.path.insert(0, str(PROJECT_ROOT))

SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
CUAD = SHARED_DATA / "cuad"
BENCH_DIR = SHARED_DATA.parent / "bench"
BENCH_STORE = PROJECT_ROOT / "data" / "bench-store"

from engine.eval.folds import contract_id, fold_files, nda_contract_id  # noqa: E402  (after the path; contract_id and nda_contract_id re-exported)


def require_shared_data() -> None:
    if not CUAD.is_dir():
        sys.exit(f"error: the shared data set is not at {SHARED_DATA}; benchmarks need ../shared/data")


def cuad_manifest(split: str | None = "dev") -> list[dict]:
    rows = [json.loads(line) for line in (CUAD / "manifest.jsonl").open()]
    return [r for r in rows if split is None or r["split"] == split]


def cuad_labels() -> dict[str, list[dict]]:
    """Labels by contract id."""
    labels: dict[str, list[dict]] = {}
    for line in (CUAD / "labels.jsonl").open():
        row = json.loads(line)
        labels.setdefault(row["id"], []).append(row)
    return labels


CONTRACTNLI = SHARED_DATA / "contractnli"
NDA_PDFS = PROJECT_ROOT / "data" / "phrasings" / "contractnli" / "pdf"  # rendered by bench/phrasings/build.py
def contract_fold(contract: str, folds: int) -> int:
    """Which of `folds` contract folds a contract falls in: by a hash of its name, so every run
    and every script holding out by contract splits the same way."""
    return int(hashlib.sha1(contract.encode()).hexdigest(), 16) % folds


def contractnli_dev() -> dict:
    """ContractNLI's dev split: its NDAs (text, spans, annotations) and its 17 hypotheses."""
    return json.loads((CONTRACTNLI / "dev.json").read_text())


def nda_categories(data: dict | None = None) -> dict[str, str]:
    """ContractNLI hypothesis key -> the category name the question and presence models give it
    ("NDA: No reverse engineering")."""
    from engine.fields.presence import NDA_PREFIX  # here, not at the top: most benchmarks never load the model's libraries

    data = data or contractnli_dev()
    return {key: f"{NDA_PREFIX}{label['short_description']}" for key, label in data["labels"].items()}


def add_held_out_arguments(parser, questions_help: str, questions: list[str] | None = None) -> None:
    """The options of a script that fits on question files with models that never saw them:
    the questions (`questions` by default; required without), the store, the held-out
    question models, ranker, presence model and query adapter, and settings the run overrides."""
    from engine.eval.harness import DEFAULT_DATA

    parser.add_argument("--questions", nargs="+", default=questions, required=questions is None, help=questions_help)
    parser.add_argument("--db", default=str(BENCH_STORE))
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="folder the questions' doc paths are relative to")
    parser.add_argument("--fold-models", help="DIR/<style>.npz question models, each trained without its style")
    parser.add_argument("--ranker", help="a candidate ranker trained without these contracts (bench/train_ranker.py --held-out-model)")
    parser.add_argument("--presence-model", help="a presence model trained without these contracts (bench/train_presence.py --hold-docs)")
    parser.add_argument("--query-adapter", help="a query adapter fitted without these contracts (bench/train_query_adapter.py --held-out-model)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.NAME=VALUE", help="override one setting (repeatable), as engine eval --set")


def held_out_library(args, preset: str | None = None):
    """The library of `--db`, with the settings `--set` overrides and the held-out ranker,
    presence model and query adapter of `args` in use, and the question models by style (None without `--fold-models`)."""
    from engine.eval.harness import load_fold_models
    from engine.fields.presence import use_presence_model
    from engine.query.query_adapter import use_query_adapter
    from engine.query.rank import LearnedRanker
    from engine.service import Library
    from engine.settings import Settings, overrides, store_location

    library = Library(settings=Settings(store=store_location(args.db), preset=preset, **overrides(args.set)))
    if args.ranker:
        library.retriever.ranker = LearnedRanker(Path(args.ranker))
    if args.presence_model:
        use_presence_model(Path(args.presence_model))
    if args.query_adapter:
        use_query_adapter(Path(args.query_adapter))
    return library, (load_fold_models(Path(args.fold_models)) if args.fold_models else None)


def id_sample(questions: list, every: int) -> list:
    """One in `every` of the questions, chosen by a hash of the id, so every run takes the same ones."""
    return [q for q in questions if every <= 1 or int(hashlib.sha1(q.id.encode()).hexdigest(), 16) % every == 0]


class FoldModels:
    """Which of a model's fold files serves a contract: the one fitted without it (`DIR/contracts.json`
    names the contracts each file left out), `default` for a contract none left out. `use` puts
    a file in use."""

    def __init__(self, folder: Path | None, default: Path, use) -> None:
        self.default, self.use, self.current = default, use, None
        self.model_of: dict[str, Path] = fold_files(folder) if folder is not None else {}

    def use_for(self, doc_path: str) -> None:
        """Serve from now on with the model for this contract (the default for "")."""
        model = self.model_of.get(contract_id(doc_path), self.default)
        if model != self.current:
            self.use(model)
            self.current = model


class PresenceFolds(FoldModels):
    """Which presence model scores a contract: the fold model that never read its labels
    (bench/train_presence.py --folds-out)."""

    def __init__(self, folder: Path | None, default: Path) -> None:
        from engine.fields.presence import use_presence_model  # here: most benchmarks never load the model

        super().__init__(folder, default, use_presence_model)


class AdapterFolds(FoldModels):
    """Which query adapter moves a question about a contract: the one fitted without that
    contract's questions (bench/train_query_adapter.py --folds-out)."""

    def __init__(self, folder: Path | None, default: Path) -> None:
        from engine.query.query_adapter import use_query_adapter

        super().__init__(folder, default, use_query_adapter)
