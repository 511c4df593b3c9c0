"""Train a static embedding model whose clause vectors live in MiniLM's space (issue 18).

    .venv/bin/python bench/train_static_embedding.py [--contracts 150] [--epochs 20] [--out FILE]

Embedding clauses with MiniLM is most of ingest time on two cores; a static model (one vector
per token, a text's vector is the mean of its tokens') encodes thousands of texts a second.
Distilled alone (each token read by MiniLM on its own, model2vec's recipe) it loses up to 0.07
recall on the retrieval benchmarks. Trained further so that the mean of a text's token vectors
matches MiniLM's vector of the same text (cosine), its vectors share MiniLM's space: clauses are
embedded statically at ingest, and a question, one text, is still read by MiniLM.

Training texts are the paragraphs of dev contracts that no benchmark question uses (so every
retrieval benchmark stays out of sample), each encoded by the bundled MiniLM as the target. The
start is the distilled token vectors weighted by smoothed idf over those paragraphs; training
pulls toward the targets with a small penalty for leaving the start (tokens the paragraphs never
use keep their distilled vectors). A tenth of the paragraphs is held out to report the cosine.
Writes a float32 .npy (vocabulary x 384) that `sentence_transformers.models.StaticEmbedding`
reads with the bundled MiniLM tokenizer.
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

BENCHMARKS = [BENCH_DIR / "cuad_dev.jsonl", BENCH_DIR / "multihop_dev.jsonl", PROJECT_ROOT / "bench" / "multihop" / "dev_extra.jsonl"]
PENALTY = 1e-3  # squared distance from the distilled start, per token row
LEARNING_RATE = 1e-2
BATCH = 256
_PARAGRAPH = re.compile(r"\n\s*\n|(?<=[.;:])\n(?=[A-Z0-9(])")


def unused_dev_contracts(count: int) -> list[Path]:
    """`count` dev contracts no benchmark question asks about, in a fixed random order."""
    used = {Path(doc).name for path in BENCHMARKS for line in path.open() for doc in json.loads(line)["docs"]}
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


def token_outputs(embedder: Embedder) -> np.ndarray:
    """Each vocabulary token read by MiniLM alone ([CLS] token [SEP], mean-pooled)."""
    import torch

    model = embedder._load()
    tokenizer = model.tokenizer
    transformer = model[0].auto_model
    ids = sorted(tokenizer.get_vocab().values())
    outputs = np.zeros((len(ids), embedder.dimension), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(ids), 2048):
            batch = torch.tensor([[tokenizer.cls_token_id, i, tokenizer.sep_token_id] for i in ids[start : start + 2048]])
            hidden = transformer(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state
            outputs[start : start + 2048] = hidden.mean(dim=1).numpy()
    return outputs


def train(token_ids: list[list[int]], targets: np.ndarray, start: np.ndarray, epochs: int) -> np.ndarray:
    import torch

    torch.manual_seed(0)
    initial = torch.from_numpy(start)
    bag = torch.nn.EmbeddingBag.from_pretrained(initial.clone(), freeze=False, mode="mean")
    optimiser = torch.optim.Adam(bag.parameters(), lr=LEARNING_RATE)
    wanted = torch.from_numpy(targets)
    rows = np.arange(len(token_ids))
    held_out, training = rows[::10], np.setdiff1d(rows, rows[::10])

    def distance(batch: np.ndarray) -> torch.Tensor:
        flat = torch.tensor([t for r in batch for t in token_ids[r]])
        offsets = torch.tensor(np.cumsum([0] + [len(token_ids[r]) for r in batch[:-1]]))
        vectors = torch.nn.functional.normalize(bag(flat, offsets), dim=1)
        return 1 - (vectors * wanted[batch]).sum(dim=1).mean()

    with torch.no_grad():
        print(f"start: held-out cosine to MiniLM {1 - float(distance(held_out)):.3f}", flush=True)
    for epoch in range(epochs):
        np.random.default_rng(epoch).shuffle(training)
        for first in range(0, len(training), BATCH):
            loss = distance(training[first : first + BATCH]) + PENALTY * ((bag.weight - initial) ** 2).sum(dim=1).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        with torch.no_grad():
            print(f"epoch {epoch + 1}: held-out cosine to MiniLM {1 - float(distance(held_out)):.3f}", flush=True)
    return bag.weight.detach().numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contracts", type=int, default=150)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path("static-minilm.npy"))
    args = parser.parse_args()
    require_shared_data()
    embedder = Embedder()
    started = time.perf_counter()
    texts = [text for path in unused_dev_contracts(args.contracts) for text in paragraphs(path, embedder)]
    print(f"{len(texts)} paragraphs from {args.contracts} dev contracts no benchmark uses", flush=True)
    targets = embedder.encode(texts)
    print(f"MiniLM targets in {time.perf_counter() - started:.0f} s", flush=True)
    tokenizer = embedder._load().tokenizer
    token_ids = [tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"] for text in texts]
    frequency = np.zeros(len(tokenizer.get_vocab()))
    for ids in token_ids:
        frequency[list(set(ids))] += 1
    idf = np.log((len(token_ids) + 1) / (frequency + 1)) + 1
    start = (token_outputs(embedder) * idf[:, None]).astype(np.float32)
    weights = train(token_ids, targets, start, args.epochs)
    np.save(args.out, weights)
    print(f"wrote {args.out} ({weights.shape[0]} tokens x {weights.shape[1]}) in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
