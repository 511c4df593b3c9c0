"""MiniLM through ONNX Runtime, for questions: a new process answers without importing torch.

A process that asks one question spent about 4 s importing torch, transformers and
sentence-transformers to embed ten words (issue 18's cold start). ONNX Runtime, already
installed for PyMuPDF's layout model, runs the same network from an export of the bundled
MiniLM after 0.3 s of import and load, and gives the same vectors to 1e-6: `export` checks
that before it keeps the file, and the tests check it again. The export is made once per
machine at setup (or on first use) into `data/models/`, from the bundled weights, offline.

Batches of clause windows keep sentence-transformers: on these two cores it reads them
faster (67 against 51 texts a second, measured on CUAD paragraphs), and an ingest loads
torch anyway.
"""

from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path

import numpy as np

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_CHECKED = (
    "What is the governing law?",
    "If we are acquired, does the other side have to agree before the contract moves to the new owner?",
    "Licensee shall not assign this Agreement without the prior written consent of Licensor. " * 30,
)
TOLERANCE = 1e-5  # largest difference from sentence-transformers' vector that counts as the same


class ExportMismatch(RuntimeError):
    """The exported network does not give sentence-transformers' vectors, so it is not used."""


class OnnxMiniLM:
    """Mean-pooled, normalised MiniLM vectors from the exported network; thread-safe."""

    def __init__(self, onnx_path: Path, model_dir: Path, max_tokens: int) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # warnings about unused initialisers are not the user's business
        self._session = onnxruntime.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        # A tokenizer of its own whose settings are fixed here, so threads share it safely.
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.enable_padding()

    def encode(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        (hidden,) = self._session.run(None, dict(zip(_INPUTS, (ids, mask, np.zeros_like(ids)))))
        summed = (hidden * mask[..., None]).sum(axis=1)
        means = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        return (means / np.linalg.norm(means, axis=1, keepdims=True)).astype(np.float32)


def export(sentence_transformer, onnx_path: Path, model_dir: Path, max_tokens: int) -> None:
    """Write the network of a loaded sentence-transformers MiniLM to `onnx_path`, whole or not
    at all, after checking that it gives the same vectors (ExportMismatch if it does not)."""
    import torch

    transformer = sentence_transformer[0].auto_model

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.transformer(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    partial = onnx_path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.partial")
    example = torch.ones((1, 8), dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on shapes it fixes; the check below is what counts
            torch.onnx.export(
                LastHiddenState().eval(),
                (example, example, torch.zeros_like(example)),
                str(partial),
                input_names=list(_INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes={name: axes for name in (*_INPUTS, "last_hidden_state")},
                opset_version=17,
                dynamo=False,
            )
        exported = OnnxMiniLM(partial, model_dir, max_tokens).encode(list(_CHECKED))
        expected = sentence_transformer.encode(list(_CHECKED), normalize_embeddings=True, convert_to_numpy=True)
        difference = float(np.abs(exported - expected).max())
        if difference > TOLERANCE:
            raise ExportMismatch(f"the exported MiniLM differs from sentence-transformers by {difference:.2g}")
        partial.replace(onnx_path)
    finally:
        partial.unlink(missing_ok=True)
