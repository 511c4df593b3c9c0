"""Quick clause vectors in MiniLM's space: a static embedding model for ingest (issue 18).

MiniLM reads about 14 paragraphs a second on two cores, which made embedding most of ingest
time. A static model gives each token one vector and a text the mean of its tokens' vectors:
thousands of texts a second. This one is trained (bench/train_static_embedding.py) so that the
mean lands near MiniLM's own vector of the same text (held-out cosine 0.85), so its clause
vectors are searched with the question's MiniLM vector, and a contract whose quick vectors are
later replaced by MiniLM's (engine/vectors.py) is searched the same way throughout.

What ships is small (`static_embed.npz`, 0.7 MB): a scale per token and one 384 x 384 map.
The token table is those applied to each vocabulary token as read by the bundled MiniLM alone;
it is built from the bundled model on first use or at setup (about 15 s) and kept in
`data/models/`, so nothing is downloaded and no contract text is needed to rebuild it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np

from engine.embed import DIMENSION, MODEL_NAME, MODELS_DIR, Embedder, ProgressCallback, TextWindow, minilm_tokenizer, split_windows

PARAMETERS = Path(__file__).with_name("static_embed.npz")
TABLE_DIR = MODELS_DIR
_BATCH = 2048  # texts tokenised per call; progress is reported per batch


def _digest() -> str:
    return hashlib.sha256(PARAMETERS.read_bytes()).hexdigest()[:10]


#: Stored with every quick vector: which trained parameters made it (a retrained model is another model).
STATIC_MODEL_NAME = f"{MODEL_NAME}-static-{_digest()}"


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


def build_table(path: Path) -> np.ndarray:
    """The token table from the shipped parameters and the bundled MiniLM, written to `path`
    whole or not at all (another process may be reading the folder)."""
    parameters = np.load(PARAMETERS)
    table = ((token_outputs(Embedder()) * parameters["scale"][:, None]) @ parameters["map"]).astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.partial.npy")
    np.save(partial, table)
    partial.replace(path)
    return table


class StaticEmbedder:
    """Encodes clause text with the static model; same windows, dimension and space as MiniLM."""

    _lock = threading.Lock()
    _table: np.ndarray | None = None

    def __init__(self, overlap_tokens: int = 32, table_dir: Path = TABLE_DIR) -> None:
        self.overlap_tokens = overlap_tokens
        self.table_path = table_dir / f"{STATIC_MODEL_NAME}.npy"
        self.model_name = STATIC_MODEL_NAME
        self.dimension = DIMENSION

    def table(self) -> np.ndarray:
        """The token table, built once per machine and loaded once per process."""
        with self._lock:
            if StaticEmbedder._table is None:
                StaticEmbedder._table = np.load(self.table_path) if self.table_path.is_file() else build_table(self.table_path)
            return StaticEmbedder._table

    def windows(self, text: str, heading: str) -> list[TextWindow]:
        return split_windows(text, heading, self.overlap_tokens)

    def encode(self, texts: list[str], progress: ProgressCallback | None = None) -> np.ndarray:
        """Normalised vectors, one row per text: the mean of its tokens' rows of the table."""
        return self._mean_vectors([None] * len(texts), texts, progress)

    def encode_windows(self, windows: list[TextWindow], progress: ProgressCallback | None = None) -> np.ndarray:
        """Vectors of clause windows, one row each; a window whose tokens cutting read already
        (a clause short enough to be one window, most of them) is not tokenised again."""
        return self._mean_vectors([w.token_ids for w in windows], [w.text for w in windows], progress)

    def _mean_vectors(self, known: list[list[int] | None], texts: list[str], progress: ProgressCallback | None) -> np.ndarray:
        from scipy.sparse import csr_matrix

        table = self.table()
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), _BATCH):
            ids = known[start : start + _BATCH]
            unread = [i for i, row in enumerate(ids) if row is None]
            read = minilm_tokenizer().encode_batch([texts[start + i] for i in unread], add_special_tokens=False) if unread else []
            for i, encoding in zip(unread, read):
                ids[i] = encoding.ids
            lengths = np.array([len(row) for row in ids])
            # Each text's mean token vector as one sparse product (texts x vocabulary, 1/length
            # per token) with the table: no copy of a row per token, as a gather would make.
            weights = np.repeat(1.0 / np.maximum(lengths, 1), lengths).astype(np.float32)
            bags = csr_matrix((weights, np.concatenate(ids or [[]]).astype(np.int64), np.r_[0, np.cumsum(lengths)]), shape=(len(ids), len(table)))
            means = np.asarray(bags @ table)
            norms = np.linalg.norm(means, axis=1, keepdims=True)
            vectors[start : start + len(ids)] = np.where(norms > 0, means / np.maximum(norms, 1e-12), 0.0)  # an empty text stays zero
            if progress:
                progress(min(start + _BATCH, len(texts)), len(texts))
        return vectors


class QuestionLikeness:
    """How close in meaning sentences are to a question: the question's MiniLM vector (the
    search made it already) against each sentence's quick vector. Cheap enough for every
    candidate sentence of an answer: some 2,000 a second here, against 90 for MiniLM."""

    def __init__(self, embedder: Embedder, quick: StaticEmbedder) -> None:
        self.embedder, self.quick = embedder, quick

    def __call__(self, question: str, texts: list[str]) -> np.ndarray:
        return self.quick.encode(texts) @ self.embedder.encode_question(question)


if __name__ == "__main__":  # `make setup`: build the token table once, so the first ingest does not wait for it
    embedder = StaticEmbedder()
    if not embedder.table_path.is_file():
        print(f"building the quick-vector table from the bundled MiniLM: {embedder.table_path}")
    embedder.table()
