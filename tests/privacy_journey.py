"""What a user does, end to end, for tests/test_privacy.py to run under the network guard.

    python -m tests.network_guard --record FILE --allow HOST:PORT -m tests.privacy_journey STORE MODEL_URL

Ingests a sample contract (the embedding model loads from its package), searches, asks
with no model, lists the model host's models and asks through it; then, as a control, tries
to reach an outside address and to look up a name, which the guard must refuse. Prints what
it saw as one JSON object.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

from engine.llm import Backend, LLMSpec
from engine.service import Library
from engine.settings import SAMPLES_DIR

CONTRACT = "Example-Mutual-Non-Disclosure-Agreement.pdf"
QUESTION = "Which law governs this agreement?"
OUTSIDE = ("10.255.255.1", 80)  # a non-routable address: only the guard can refuse it at once
OUTSIDE_NAME = "huggingface.co"


def _refused(attempt) -> str:
    try:
        attempt()
    except PermissionError as error:
        return str(error)
    except OSError as error:
        return f"not refused by the guard: {error}"
    return "not refused: it went through"


def _connect(address: tuple[str, int]) -> None:
    with socket.socket() as sock:
        sock.settimeout(2)
        sock.connect(address)


def main(store: Path, model_url: str) -> dict:
    library = Library(store)
    outcomes = library.ingest_paths([SAMPLES_DIR / CONTRACT])
    library.wait_for_vectors()  # answers from full vectors, as after any upload settles
    hits = library.search(QUESTION).passages
    extractive = library.ask(QUESTION).answer
    library.use_llm(LLMSpec(backend=Backend.OLLAMA, model="tiny:latest", url=model_url, timeout=10))
    host = library.model_host()
    with_model = library.ask(QUESTION).answer
    return {
        "ingested": [o.status.value for o in outcomes],
        "search_hits": len(hits),
        "extractive": {"backend": extractive.backend.value, "refs": [c.ref for c in extractive.citations]},
        "host_models": host.models,
        "model": {"backend": with_model.backend.value, "refs": [c.ref for c in with_model.citations], "notes": with_model.notes},
        "control": {
            "connect": _refused(lambda: _connect(OUTSIDE)),
            "lookup": _refused(lambda: socket.getaddrinfo(OUTSIDE_NAME, 443)),
        },
    }


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), sys.argv[2])))
