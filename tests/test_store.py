"""Ingest into LanceDB: rows, vectors, windows, indexes, re-ingest and delete."""

from __future__ import annotations

import numpy as np
import pytest
import pyarrow as pa

from engine.embed import MAX_TOKENS
from engine.errors import EmbeddingMismatchError
from engine.ingest import pipeline
from engine.service import Library
from engine.settings import Settings
from engine.store.clause_store import ClauseStore
from engine.store.table_schemas import CLAUSES_SCHEMA
from models.clause import ClauseKind
from models.document import IngestStatus
from models.fields import ContractFields
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA


def _by_name(library: Library, name: str):
    return next(d for d in library.documents() if d.file_name == name)


def test_samples_are_stored_with_their_summaries(sample_library, gcloud):
    documents = {d.file_name: d for d in sample_library.documents()}
    assert set(documents) == {GCLOUD.name, MUTUAL_NDA.name, "NDA__contractors__draft.pdf"}
    document = documents[GCLOUD.name]
    assert document.title == "G-CLOUD 8 FRAMEWORK AGREEMENT"
    assert document.pages == 31 and document.clauses == len(gcloud.graph.clauses)
    assert document.definitions == len(gcloud.graph.definitions)
    assert document.embedding_model == "all-MiniLM-L6-v2"
    assert document.clause_types["limitation_of_liability"] >= 5
    assert sample_library.pdf_path(document.doc_id).read_bytes() == GCLOUD.read_bytes()


def test_stored_graph_matches_the_parsed_graph(sample_library, gcloud):
    detail = sample_library.detail(GCLOUD.name)
    stored = {c.path: c for c in detail.clauses}
    assert stored["9.2.2.1"].parent_ref == "9.2.2" and stored["9.2.2.1"].level == 4
    assert stored["4.6.1"].text == gcloud.clause("4.6.1").text
    assert len(detail.edges) == len(gcloud.graph.edges)
    assert {d.term for d in detail.definitions} == {d.term for d in gcloud.graph.definitions}
    assert [c.order for c in detail.clauses] == list(range(len(detail.clauses)))


def test_vectors_are_normalised_and_long_clauses_get_windows(sample_library):
    document = _by_name(sample_library, GCLOUD.name)
    table = sample_library.store.table("clauses")
    rows = table.search().where(f"doc_id = '{document.doc_id}'").select(["clause_id", "text", "vector", "embedding_model"]).limit(1000).to_list()
    vectors = np.array([r["vector"] for r in rows])
    assert vectors.shape[1] == 384 and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert {r["embedding_model"] for r in rows} == {"all-MiniLM-L6-v2"}
    windows = sample_library.store.windows(document.doc_id)
    texts = {r["clause_id"]: r["text"] for r in rows}
    long_clauses = [cid for cid, text in texts.items() if len(text.split()) > 260]
    assert long_clauses, "the G-Cloud agreement has clauses longer than the model's window"
    for clause_id in long_clauses:
        mine = sorted((w for w in windows if w["clause_id"] == clause_id), key=lambda w: w["window"])
        assert mine and mine[0]["window"] == 0 and mine[0]["char_start"] == 0
        assert mine[-1]["char_end"] == len(texts[clause_id])  # the tail of the clause is embedded too
        assert all(w["text"].count(" ") < MAX_TOKENS for w in mine)


def test_full_text_and_vector_search_find_the_right_clause(sample_library):
    document = _by_name(sample_library, GCLOUD.name)
    table = sample_library.store.table("clauses")
    hits = (
        table.search("MI Failures", query_type="fts", fts_columns="text")
        .where(f"doc_id = '{document.doc_id}'", prefilter=True).select(["path"]).limit(5).to_list()
    )
    assert "6.9" in [h["path"] for h in hits]
    query = sample_library.embedder.encode(["limit on each party's total liability"])[0]
    nearest = table.search(query).where(f"doc_id = '{document.doc_id}'", prefilter=True).select(["path"]).limit(3).to_list()
    assert any(h["path"].startswith("4.6") for h in nearest)


def test_compacting_keeps_every_row_and_the_search_indexes(tmp_path):
    """A long batch compacts the store every hundred contracts (Library.ingest_many): the files
    of the documents and pages tables merge; rows and what keyword search finds do not change."""
    library = Library(tmp_path / "store", settings=Settings(store=tmp_path / "store", ingest={"vectors": "quick"}))
    library.ingest_paths([GCLOUD, MUTUAL_NDA])
    library.ingest_file(HIGHWAYS_NDA)  # one more file in every table
    rows = {name: library.store.table(name).count_rows() for name in ("clauses", "windows", "edges", "pages", "documents", "fields")}
    assert [len(library.store.table(name).to_lance().get_fragments()) for name in ("documents", "pages")] == [2, 2]
    library.store.compact()
    assert [len(library.store.table(name).to_lance().get_fragments()) for name in ("documents", "pages")] == [1, 1]
    assert {name: library.store.table(name).count_rows() for name in rows} == rows
    assert rows["documents"] == 3
    hits = library.store.table("clauses").search("MI Failures", query_type="fts", fts_columns="text").select(["path", "doc_id"]).limit(3).to_list()
    assert (hits[0]["path"], hits[0]["doc_id"]) == ("6.9", _by_name(library, GCLOUD.name).doc_id)
    highways = _by_name(library, HIGHWAYS_NDA.name)
    assert len(library.store.clauses(highways.doc_id)) == highways.clauses


def test_word_boxes_are_stored_per_page(sample_library):
    document = _by_name(sample_library, GCLOUD.name)
    page = sample_library.store.pages(document.doc_id)[8]
    assert page.page == 9 and "125% of the Management Charge" in page.text
    words = [page.text[start - page.text_start : end - page.text_start] for start, end, *_ in page]
    index = words.index("125%")
    start, end, x0, y0, x1, y1 = page[index]
    assert 0 < x0 < x1 < page.width and 0 < y0 < y1 < page.height


def test_same_bytes_again_is_a_no_op(sample_library):
    outcome = sample_library.ingest_file(MUTUAL_NDA)
    assert outcome.status is IngestStatus.UNCHANGED and "already in the library" in outcome.message
    assert len(sample_library.documents()) == 3


def test_new_parser_version_reingests_and_delete_removes_everything(tmp_path, monkeypatch):
    library = Library(tmp_path / "store")
    first = library.ingest_file(MUTUAL_NDA)
    assert first.status is IngestStatus.INGESTED and first.clauses == 14
    monkeypatch.setattr(pipeline, "PARSER_VERSION", "test-next")
    again = library.ingest_file(MUTUAL_NDA)
    assert again.status is IngestStatus.INGESTED
    [document] = library.documents()
    assert document.parser_version == "test-next"
    assert len(library.store.clauses(document.doc_id)) == 14  # replaced, not duplicated

    library.delete(MUTUAL_NDA.name)
    assert library.documents() == []
    for table in ("clauses", "windows", "edges", "pages"):
        assert library.store.table(table).count_rows() == 0, table
    assert not library.pdf_path(document.doc_id).exists()


def test_a_store_embedded_by_another_model_is_refused_on_open(tmp_path):
    library = Library(tmp_path / "store")
    library.quick_embedder.model_name = "all-MiniLM-L12-v2"  # as if another Clausegraph had built the store
    assert library.ingest_file(MUTUAL_NDA).status is IngestStatus.INGESTED
    assert {d.embedding_model for d in library.documents()} == {"all-MiniLM-L12-v2"}
    with pytest.raises(EmbeddingMismatchError) as refused:
        Library(tmp_path / "store")
    message = str(refused.value)
    assert "embedded with all-MiniLM-L12-v2" in message and "embeds with all-MiniLM-L6-v2" in message
    assert "new store" in message  # and what to do about it


def test_rows_left_by_an_interrupted_ingest_are_removed_on_open(tmp_path):
    store = ClauseStore(tmp_path / "store")
    row = {name: None for name in CLAUSES_SCHEMA.names}
    row.update(clause_id="dead:1", doc_id="dead", ref="1", path="1", level=1, kind=ClauseKind.SECTION.value,
               text="orphan", order=0, page_start=1, page_end=1, char_start=0, char_end=6,
               topics=[], defines=[], terms_used=[], vector=[0.0] * 384)
    store.table("clauses").add(pa.Table.from_pylist([row], schema=CLAUSES_SCHEMA))
    assert store.table("clauses").count_rows() == 1
    reopened = ClauseStore(tmp_path / "store")
    assert reopened.table("clauses").count_rows() == 0


def test_a_contract_is_found_by_a_unique_prefix_of_its_file_name(sample_library):
    from engine.errors import NotFoundError

    assert sample_library.find("g-cloud").file_name == GCLOUD.name
    assert sample_library.find("EXAMPLE-mutual").file_name == MUTUAL_NDA.name  # case aside, as the app's search
    with pytest.raises(NotFoundError, match="no document matches 'Conformis'"):
        sample_library.find("Conformis")


def test_a_contract_another_session_deletes_mid_question_has_no_fields_and_gets_no_orphan_row(tmp_path):
    """bench/soak.py found it: a question held a contract's graph, another session deleted the
    contract, and reading its fields again raised IndexError (and would have stored a row of
    no contract)."""
    asking = Library(settings=Settings(store=tmp_path / "store", ingest={"vectors": "quick"}))
    doc_id = asking.ingest_file(MUTUAL_NDA).doc_id
    assert asking.graph(doc_id).document.file_name == MUTUAL_NDA.name  # the question's graph, held
    Library(settings=Settings(store=tmp_path / "store", ingest={"vectors": "quick"})).delete(MUTUAL_NDA.name)
    assert asking.engine.fields.of([doc_id]) == [ContractFields(doc_id=doc_id)]
    assert asking.store.table("fields").count_rows() == 0
