"""Train a static embedding model whose clause vectors live in MiniLM's space (issue 18).

    .venv/bin/python bench/train_static_embedding.py --out FILE [--form scale-map|tokens] [--contracts 150]
                                                     [--epochs 20] [--targets CACHE.npz]

Embedding clauses with MiniLM is most of ingest time on two cores; a static model (one vector
per token, a text's vector is the mean of its tokens') encodes thousands of texts a second.
Distilled alone (each token read by MiniLM on its own, model2vec's recipe) it loses up to 0.07
recall on the retrieval benchmarks. Trained further so that the mean of a text's token vectors
matches MiniLM's vector of the same text (cosine), its vectors share MiniLM's space: clauses are
embedded statically at ingest, and a question, one text, is still read by MiniLM.

Training texts are the paragraphs of dev contracts that no benchmark question uses (so every
retrieval benchmark stays out of sample), each encoded by the bundled MiniLM as the target. The
start is the distilled token vectors weighted by smoothed idf over those paragraphs; training
pulls toward the targets. A tenth of the paragraphs is held out to report the cosine.

Two forms (`--form`):
- `tokens`: every token's vector is trained, with a small penalty for leaving the start (tokens
  the paragraphs never use keep their distilled vectors); writes the table, a float32 .npy
  (vocabulary x 384) that `sentence_transformers.models.StaticEmbedding` reads with the bundled
  MiniLM tokenizer;
- `scale-map`: only a scale per token and one 384 x 384 map shared by all are trained, over the
  distilled vectors without weights; writes those (.npz, under 1 MB), so the table can be rebuilt
  from the bundled MiniLM wherever the app is set up, with no contract text at hand.

`--targets FILE` keeps the paragraphs and their MiniLM vectors (most of the run's time) for the
next run.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from pathlib import Path

import numpy as np

from common import BENCH_DIR, CUAD, PROJECT_ROOT, cuad_manifest, require_shared_data

from engine.embed import Embedder
from engine.static_embed import token_outputs

BENCHMARKS = [BENCH_DIR / "cuad_dev.jsonl", BENCH_DIR / "multihop_dev.jsonl", PROJECT_ROOT / "bench" / "multihop" / "dev_extra.jsonl"]
PENALTY = 1e-3  # squared distance from the distilled start, per token row
LEARNING_RATE = 1e-2
BATCH = 256
_PARAGRAPH = re.compile(r"\n\s*\n|(?<=[.;:])\n(?=[A-Z0-9(])")


def unused_dev_contracts(count: int) -> list[Path]:
    """`count` dev contracts no benchmark question asks about, in a fixed random order."""
    used = {Path(doc).name for path in BENCHMARKS for line in path.read_text().splitlines() for doc in json.loads(line)["docs"]}
    free = sorted(row["file"] for row in cuad_manifest("dev") if Path(row["file"]).name not in used)
    random.Random(0).shuffle(free)
    return [CUAD / file for file in free[:count]]


def paragraphs(path: Path, embedder: Embedder) -> list[str]:
    """A contract's paragraphs (from its page text), cut into windows MiniLM reads whole."""
    import pymupdf

    with pymupdf.open(path) as pdf:
        text = "\n".join(page.get_text() for page in pdf)
    found = (re.sub(r"\s+", " ", part).strip() for part in _PARAGRAPH.split(text))
    return [window.text for part in found if len(part) > 60 for window in embedder.windows(part, "")]


def train(token_ids: list[list[int]], targets: np.ndarray, outputs: np.ndarray, idf: np.ndarray, form: str, epochs: int) -> dict[str, np.ndarray]:
    """The trained parameters of `form`: {"table"} for tokens, {"scale", "map"} for scale-map."""
    import torch

    torch.manual_seed(0)
    base = torch.from_numpy(outputs)
    if form == "tokens":
        initial = base * torch.from_numpy(idf.astype(np.float32))[:, None]
        parameters = {"table": torch.nn.Parameter(initial.clone())}

        def rows(tokens: torch.Tensor) -> torch.Tensor:
            return parameters["table"][tokens]

        def penalty() -> torch.Tensor:
            return PENALTY * ((parameters["table"] - initial) ** 2).sum(dim=1).mean()
    else:
        parameters = {"scale": torch.nn.Parameter(torch.from_numpy(idf.astype(np.float32))), "map": torch.nn.Parameter(torch.eye(base.shape[1]))}

        def rows(tokens: torch.Tensor) -> torch.Tensor:
            return (base[tokens] * parameters["scale"][tokens, None]) @ parameters["map"]

        def penalty() -> torch.Tensor:
            return torch.zeros(())

    optimiser = torch.optim.Adam(parameters.values(), lr=LEARNING_RATE)
    wanted = torch.from_numpy(targets)
    every = np.arange(len(token_ids))
    held_out, training = every[::10], np.setdiff1d(every, every[::10])

    def distance(batch: np.ndarray) -> torch.Tensor:
        """Mean cosine distance to MiniLM over a batch, with only the batch's tokens' rows built."""
        used, local = np.unique([t for r in batch for t in token_ids[r]], return_inverse=True)
        offsets = torch.tensor(np.cumsum([0] + [len(token_ids[r]) for r in batch[:-1]]))
        bags = torch.nn.functional.embedding_bag(torch.from_numpy(local), rows(torch.from_numpy(used)), offsets, mode="mean")
        vectors = torch.nn.functional.normalize(bags, dim=1)
        return 1 - (vectors * wanted[batch]).sum(dim=1).mean()

    with torch.no_grad():
        print(f"start: held-out cosine to MiniLM {1 - float(distance(held_out)):.3f}", flush=True)
    for epoch in range(epochs):
        np.random.default_rng(epoch).shuffle(training)
        for first in range(0, len(training), BATCH):
            loss = distance(training[first : first + BATCH]) + penalty()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        with torch.no_grad():
            print(f"epoch {epoch + 1}: held-out cosine to MiniLM {1 - float(distance(held_out)):.3f}", flush=True)
    return {name: value.detach().numpy() for name, value in parameters.items()}


def corpus(count: int, embedder: Embedder, cache: Path | None) -> tuple[list[str], np.ndarray]:
    """The training paragraphs and their MiniLM vectors, from `cache` when it holds them."""
    if cache is not None and cache.is_file():
        stored = np.load(cache, allow_pickle=False)
        if int(stored["contracts"]) == count:
            return [str(t) for t in stored["texts"]], stored["vectors"]
    texts = [text for path in unused_dev_contracts(count) for text in paragraphs(path, embedder)]
    print(f"{len(texts)} paragraphs from {count} dev contracts no benchmark uses", flush=True)
    vectors = embedder.encode(texts)
    if cache is not None:
        np.savez(cache, texts=np.array(texts), vectors=vectors, contracts=np.array(count))
    return texts, vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contracts", type=int, default=150)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--form", choices=["scale-map", "tokens"], default="scale-map")
    parser.add_argument("--targets", type=Path, help="cache of the paragraphs and their MiniLM vectors (.npz)")
    parser.add_argument("--out", type=Path, required=True, help=".npz for scale-map, .npy for tokens")
    args = parser.parse_args()
    require_shared_data()
    embedder = Embedder()
    started = time.perf_counter()
    texts, targets = corpus(args.contracts, embedder, args.targets)
    print(f"{len(texts)} paragraphs and their MiniLM vectors in {time.perf_counter() - started:.0f} s", flush=True)
    tokenizer = embedder._load().tokenizer
    token_ids = [tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"] for text in texts]
    frequency = np.zeros(len(tokenizer.get_vocab()))
    for ids in token_ids:
        frequency[list(set(ids))] += 1
    idf = np.log((len(token_ids) + 1) / (frequency + 1)) + 1
    trained = train(token_ids, targets, token_outputs(embedder), idf, args.form, args.epochs)
    if args.form == "tokens":
        np.save(args.out, trained["table"])
    else:
        np.savez(args.out, **trained)
    print(f"wrote {args.out} ({', '.join(f'{k} {v.shape}' for k, v in trained.items())}) in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
