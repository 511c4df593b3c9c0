"""Progressive availability (issue 18): a new contract is searchable by keyword, graph and quick
vectors at once, its MiniLM vectors follow, and answers say which they were made with."""

from __future__ import annotations

import numpy as np
import pytest

from engine import minilm_onnx
from engine.embed import MAX_TOKENS, MODEL_NAME, ONNX_PATH, Embedder, model_dir
from engine.service import Library
from engine.static_embed import STATIC_MODEL_NAME, StaticEmbedder
from models.document import IngestStatus
from models.retrieval import Mode
from tests.conftest import GCLOUD, MUTUAL_NDA


@pytest.fixture
def quick_library(tmp_path):
    """The mutual NDA ingested, its full vectors not yet made (nothing woke the worker)."""
    library = Library(tmp_path / "store")
    assert library.settings.ingest.vectors == "progressive"
    assert library.ingest_file(MUTUAL_NDA).status is IngestStatus.INGESTED
    return library


QUESTIONS = [
    "Which law governs this agreement?",
    "non-compete?",
    "If we are acquired, does the other side have to agree before the contract passes to the buyer? " * 12,  # past 256 tokens
]


def test_questions_are_embedded_by_the_onnx_export_as_sentence_transformers_embeds_them():
    """Stored vectors come from sentence-transformers, questions from the export: one space."""
    embedder = Embedder()
    network = embedder.question_network()
    assert network is not None and ONNX_PATH.is_file()
    assert np.abs(network.encode(QUESTIONS) - embedder.encode(QUESTIONS)).max() < minilm_onnx.TOLERANCE
    assert np.array_equal(embedder.encode_question(QUESTIONS[0]), network.encode(QUESTIONS[:1])[0])


def test_an_export_that_does_not_give_the_same_vectors_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(minilm_onnx, "TOLERANCE", 0.0)  # float noise (about 1e-7) now counts as a mismatch
    target = tmp_path / "minilm.onnx"
    with pytest.raises(minilm_onnx.ExportMismatch, match="differs from sentence-transformers"):
        minilm_onnx.export(Embedder()._load(), target, model_dir(), MAX_TOKENS)
    assert list(tmp_path.iterdir()) == []  # neither the file nor a partial one


def test_windows_are_cut_alike_by_both_embedders(gcloud):
    """Quick vectors are replaced row for row, so both models must cut a clause the same way."""
    full, quick = Embedder(), StaticEmbedder()
    longest = max(gcloud.graph.clauses, key=lambda c: len(c.text))
    assert len(full.windows(longest.text, longest.heading)) > 1
    assert quick.windows(longest.text, longest.heading) == full.windows(longest.text, longest.heading)


def test_quick_vectors_live_in_minilm_space():
    """A question read by MiniLM is compared with clause vectors made by the static model."""
    texts = [
        "This Agreement shall be governed by and construed in accordance with the laws of the State of New York.",
        "Either party may terminate this Agreement for convenience upon ninety (90) days prior written notice.",
        "The Receiving Party shall hold the Confidential Information in strict confidence.",
    ]
    full, quick = Embedder().encode(texts), StaticEmbedder().encode(texts)
    similarity = quick @ full.T
    assert np.all(np.diag(similarity) > 0.75)  # each text lands near its own MiniLM vector
    assert np.all(np.argmax(similarity, axis=1) == np.arange(len(texts)))  # and nearer it than to the others'
    assert np.allclose(np.linalg.norm(quick, axis=1), 1.0, atol=1e-5)


def test_a_new_contract_is_searchable_before_its_full_vectors_exist(quick_library):
    [document] = quick_library.documents()
    assert document.embedding_model == STATIC_MODEL_NAME
    status = quick_library.vector_status()
    assert status.ready == 0 and status.pending == [MUTUAL_NDA.name]

    keyword = quick_library.search("Confidential Information return or destroy", mode=Mode.KEYWORD)
    assert keyword.passages and all(p.doc_id == document.doc_id for p in keyword.passages)
    result = quick_library.ask("How long do the confidentiality obligations last?")
    assert result.quick_vectors == [MUTUAL_NDA.name]
    assert any("before full vectors were ready" in note for note in result.answer.notes)


def test_full_vectors_replace_quick_ones_row_for_row(quick_library):
    [document] = quick_library.documents()
    clauses = {c.clause_id: c for c in quick_library.store.clauses(document.doc_id)}
    windows_before = quick_library.store.windows(document.doc_id)
    quick_library.complete_vectors_in_background()
    status = quick_library.wait_for_vectors(timeout=300)
    assert status.complete and status.ready == 1 and status.error is None

    [document] = quick_library.documents()
    assert document.embedding_model == MODEL_NAME
    parts = quick_library.store.graph_parts([document.doc_id])[document.doc_id]
    ids, vectors = [c.clause_id for c in parts.clauses], np.stack(parts.vectors)
    assert sorted(ids) == sorted(clauses)  # the same rows, no more and no fewer
    split = {w["clause_id"] for w in windows_before}
    whole = [cid for cid in ids if cid not in split]
    expected = Embedder().encode([clauses[cid].text for cid in whole])
    got = vectors[[ids.index(cid) for cid in whole]]
    assert np.allclose(got, expected, atol=1e-4)  # exactly what an ingest with MiniLM stores
    windows_after = quick_library.store.windows(document.doc_id, vectors=True)
    assert len(windows_after) == len(windows_before)
    assert {w["embedding_model"] for w in windows_after} <= {MODEL_NAME}
    table = quick_library.store.table("clauses")
    hits = table.search("Confidential Information", query_type="fts").select(["clause_id"]).limit(3).to_list()
    assert hits  # keyword search still finds the rewritten rows

    result = quick_library.ask("How long do the confidentiality obligations last?")
    assert result.quick_vectors == []
    assert not any("full vectors" in note for note in result.answer.notes)


def test_a_quick_only_library_never_makes_full_vectors(tmp_path):
    library = Library(tmp_path / "store", preset="large-library")
    assert library.settings.ingest.vectors == "quick" and not library.makes_full_vectors
    assert library.ingest_paths([GCLOUD])[0].status is IngestStatus.INGESTED
    assert library.wait_for_vectors(timeout=5).pending == [GCLOUD.name]
    result = library.ask("What is the limit of each party's liability?")
    assert any("quick vectors only" in note for note in result.answer.notes)
