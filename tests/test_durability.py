"""Crashes and concurrency: an ingest killed with -9 leaves its document whole or absent, and
the store opens and takes it again; writers in other processes and threads take turns while
readers keep answering and see what the others wrote; the store's schema version is checked
on open, an older store upgraded, a newer one refused with what to do."""

from __future__ import annotations

import json
import random
import threading
import time

import lancedb
import pyarrow as pa
import pytest
from lancedb.index import FTS
from streamlit.testing.v1 import AppTest

from engine import cli
from engine.service import Library
from engine.settings import PROJECT_ROOT
from engine.store.clause_store import ClauseStore
from engine.store.lock import WriterLock
from engine.store.version import MANIFEST_FILE, SCHEMA_VERSION
from models.document import IngestStatus
from tests.conftest import HIGHWAYS_NDA, MUTUAL_NDA
from tests.ingestproc import TABLES, IngestProcess, rows_of, state_of

LAW_QUESTION = "Which law governs this agreement?"


@pytest.fixture(scope="module")
def clean_rows(sample_library) -> dict[str, dict[str, int]]:
    """Rows per table of a clean ingest of each small sample, by file name."""
    return {path.name: rows_of(sample_library.store, sample_library.find(path.name).doc_id) for path in (MUTUAL_NDA, HIGHWAYS_NDA)}


def _lock_is_free(db) -> bool:
    with WriterLock(db).hold(wait=False) as free:
        return free


def test_an_ingest_killed_at_any_point_leaves_the_document_whole_or_absent(tmp_path, sample_library, clean_rows):
    doc_id = sample_library.find(MUTUAL_NDA.name).doc_id
    complete = clean_rows[MUTUAL_NDA.name]
    assert complete["documents"] == 1 and complete["clauses"] == 14 and complete["pages"] == 2 and complete["edges"] > 14
    delay = random.uniform(0.0, 0.5)
    # Two real processes at once, each into its own store: one killed with every row but the
    # documents row written, one at a random moment after its first write (inside a later
    # table write, or the index refresh after them). bench/crash.py kills at every step.
    cases = {
        "before documents": (IngestProcess(tmp_path / "a", MUTUAL_NDA, pause_before="documents"), {"absent"}),
        f"{delay:.2f} s after the first write": (IngestProcess(tmp_path / "b", MUTUAL_NDA, pause_before="file"), {"absent", "complete"}),
    }
    for name, (process, _) in cases.items():
        process.wait_for_pause()
        if name.endswith("first write"):
            process.resume()
            time.sleep(delay)
        process.kill()

    leftovers = lancedb.connect(str(tmp_path / "a" / "lance")).open_table("clauses").count_rows()
    assert leftovers == 14  # the kill left rows without their document: the next open must drop them
    for name, (process, expected) in cases.items():
        db = process.db
        assert _lock_is_free(db), f"{name}: the killed writer's lock outlived it"
        store = ClauseStore(db)  # what the next process to open the store sees
        state = state_of(store, doc_id, complete)
        assert state in expected, f"{name}: {state}"
        assert [d.doc_id for d in store.documents()] == ([doc_id] if state == "complete" else [])

        again = Library(db).ingest_file(MUTUAL_NDA)
        assert again.status is (IngestStatus.UNCHANGED if state == "complete" else IngestStatus.INGESTED), f"{name}: {again.message}"
        assert state_of(ClauseStore(db), doc_id, complete) == "complete", name


def test_two_ingest_processes_and_a_reader_share_one_store(tmp_path, sample_library, clean_rows):
    db = tmp_path / "store"
    reader = Library(db)  # opened before anything is in it, as a running app would be
    asked, failures, stop = [0], [], threading.Event()

    def ask_in_a_loop() -> None:
        while not stop.is_set():
            try:
                reader.ask(LAW_QUESTION)
                reader.documents()
                asked[0] += 1
            except Exception as error:  # noqa: BLE001 - any error at all is what the test looks for
                failures.append(repr(error))
            stop.wait(0.3)  # a user's pace, and CPU left for the ingests

    highways = IngestProcess(db, HIGHWAYS_NDA, pause_before="documents")
    mutual = IngestProcess(db, MUTUAL_NDA)
    asker = threading.Thread(target=ask_in_a_loop)
    asker.start()
    try:
        highways.wait_for_pause()  # its clauses are written, its documents row is not
        assert not _lock_is_free(db)
        opened_meanwhile = ClauseStore(db)  # another session or process opening the store now
        highways_id = sample_library.find(HIGHWAYS_NDA.name).doc_id
        assert rows_of(opened_meanwhile, highways_id)["clauses"] == clean_rows[HIGHWAYS_NDA.name]["clauses"]
        assert highways_id not in [d.doc_id for d in opened_meanwhile.documents()]  # not before its documents row
        highways.resume()
        results = {name: process.finish() for name, process in (("highways", highways), ("mutual", mutual))}
    finally:
        stop.set()
        asker.join(timeout=120)

    for name, (code, stdout, stderr) in results.items():
        assert code == 0 and "1 ingested, 0 unchanged, 0 failed" in stdout, f"{name}: {stdout} {stderr}"
        assert "Traceback" not in stderr and "error:" not in stderr, f"{name}: {stderr}"
    assert failures == [] and asked[0] >= 1
    assert sorted(d.file_name for d in reader.documents()) == sorted([HIGHWAYS_NDA.name, MUTUAL_NDA.name])
    for path in (HIGHWAYS_NDA, MUTUAL_NDA):
        assert rows_of(reader.store, reader.find(path.name).doc_id) == clean_rows[path.name], path.name
    answer = reader.ask(LAW_QUESTION, [reader.find(HIGHWAYS_NDA.name).doc_id]).answer
    assert (answer.citations[0].file_name, answer.citations[0].ref) == (HIGHWAYS_NDA.name, "8.1")


def test_app_sessions_ingest_and_ask_at_once_in_one_process(tmp_path, clean_rows):
    shared = Library(tmp_path / "store")  # the app's sessions share one Library (ui/state.py)
    other = Library(tmp_path / "store")  # and a second one in the same process takes turns with it
    outcomes, failures, stop = [], [], threading.Event()

    def ingest(library: Library, path) -> None:
        try:
            outcomes.append(library.ingest_file(path))
        except Exception as error:  # noqa: BLE001
            failures.append(repr(error))

    def ask_in_a_loop() -> None:
        while not stop.is_set():
            try:
                shared.ask(LAW_QUESTION)
            except Exception as error:  # noqa: BLE001
                failures.append(repr(error))
            stop.wait(0.3)

    writers = [
        threading.Thread(target=ingest, args=(shared, HIGHWAYS_NDA)),
        threading.Thread(target=ingest, args=(other, MUTUAL_NDA)),
        threading.Thread(target=ingest, args=(shared, MUTUAL_NDA)),  # the same file from two sessions
    ]
    asker = threading.Thread(target=ask_in_a_loop)
    asker.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(timeout=300)
    stop.set()
    asker.join(timeout=120)

    assert failures == []
    statuses = sorted((o.file_name, o.status.value) for o in outcomes)
    assert statuses == [(MUTUAL_NDA.name, "ingested"), (MUTUAL_NDA.name, "unchanged"), (HIGHWAYS_NDA.name, "ingested")]
    for library in (shared, other):
        assert sorted(d.file_name for d in library.documents()) == sorted([HIGHWAYS_NDA.name, MUTUAL_NDA.name])
    for path in (HIGHWAYS_NDA, MUTUAL_NDA):
        assert rows_of(shared.store, shared.find(path.name).doc_id) == clean_rows[path.name], path.name  # stored once


# ------------------------------------------------------------------ schema version


def _version_1_store(db, sample_library) -> str:
    """A store laid out as version 1 wrote it (no fields table, no store.json, the version in
    the documents table's schema), holding the mutual NDA's rows."""
    doc_id = sample_library.find(MUTUAL_NDA.name).doc_id
    connection = lancedb.connect(str(db / "lance"))
    for name in TABLES[:-1]:
        rows = sample_library.store.table(name).to_lance().to_table(filter=f"doc_id = '{doc_id}'")
        schema = rows.schema.with_metadata({"schema_version": "1"} if name == "documents" else {})
        connection.create_table(name, schema=schema).add(rows.cast(schema))
    clauses = connection.open_table("clauses")
    for column in ("text", "heading"):
        clauses.create_index(column, config=FTS(with_position=True))
    (db / "files").mkdir()
    (db / "files" / f"{doc_id}.pdf").write_bytes(MUTUAL_NDA.read_bytes())
    return doc_id


def test_a_version_1_store_is_upgraded_when_opened(tmp_path, sample_library):
    db = tmp_path / "v1"
    doc_id = _version_1_store(db, sample_library)
    assert "fields" not in lancedb.connect(str(db / "lance")).list_tables().tables

    library = Library(db)
    assert json.loads((db / MANIFEST_FILE).read_text()) == {"schema_version": SCHEMA_VERSION} == {"schema_version": 3}
    assert library.store.table("grid_columns").count_rows() == library.store.table("grid_cells").count_rows() == 0  # version 3's tables
    assert library.store.table("documents").schema.metadata is None  # the old record is not left to contradict it
    assert library.store.table("fields").count_rows() == 0
    [document] = library.documents()
    assert (document.doc_id, document.clauses) == (doc_id, 14)
    assert len(library.detail(MUTUAL_NDA.name).clauses) == 14
    [fields] = library.contract_fields()  # filled from the stored clauses on first use
    assert fields.doc_id == doc_id and library.store.table("fields").count_rows() == 1
    assert library.search("Purpose of the disclosure", [doc_id]).passages  # indexes and vectors intact
    assert Library(db).documents() == [document]  # opening it again changes nothing


def test_a_version_2_store_gets_the_review_grid_tables_when_opened(tmp_path):
    db = tmp_path / "v2"
    ClauseStore(db).close()
    connection = lancedb.connect(str(db / "lance"))
    for name in ("grid_columns", "grid_cells"):  # as version 2 left a store: without them
        connection.drop_table(name)
    (db / MANIFEST_FILE).write_text('{"schema_version": 2}')

    library = Library(db)
    assert json.loads((db / MANIFEST_FILE).read_text()) == {"schema_version": 3}
    assert library.reviews.grid().columns == [] and library.store.table("grid_cells").count_rows() == 0


def test_a_store_from_a_newer_version_is_refused_with_what_to_do(tmp_path, capsys, monkeypatch):
    db = tmp_path / "newer"
    ClauseStore(db)
    (db / MANIFEST_FILE).write_text('{"schema_version": 4}')
    expected = (
        f"the store at {db} was written by a newer Clausegraph (store schema 4; this one reads schema 3 and older): "
        "update Clausegraph, or open another store (--db DIR or $CLAUSEGRAPH_DB)"
    )
    assert cli.main(["list", "--db", str(db)]) == 1
    assert capsys.readouterr().err == f"error: {expected}\n"
    assert (db / MANIFEST_FILE).read_text() == '{"schema_version": 4}'  # left as it was

    monkeypatch.setenv("CLAUSEGRAPH_DB", str(db))
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    assert [e.value for e in at.error] == [f"The contract library cannot be opened: {expected}"]

    (db / MANIFEST_FILE).write_text("{not json")
    assert cli.main(["list", "--db", str(db)]) == 1
    assert capsys.readouterr().err == (
        f"error: cannot read {db / MANIFEST_FILE} (it is not a store manifest), so the layout of the store is "
        "unknown: restore that file, or open another store (--db DIR or $CLAUSEGRAPH_DB)\n"
    )
