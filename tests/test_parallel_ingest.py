"""A batch is parsed in worker processes (engine/ingest/parallel.py): the same contracts as one
by one, outcomes in the order given, and a worker killed mid-parse loses nothing."""

from __future__ import annotations

import os
import signal

from engine.ingest.parse import Stage
from engine.service import Library
from models.document import IngestStatus
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA


def test_a_batch_stores_what_single_ingests_store_in_the_order_given(tmp_path, gcloud, mutual_nda):
    library = Library(tmp_path / "store")
    missing = tmp_path / "missing.pdf"
    outcomes = list(library.ingest_many([GCLOUD, missing, MUTUAL_NDA, GCLOUD]))
    assert [(o.file_name, o.status) for o in outcomes] == [
        (GCLOUD.name, IngestStatus.INGESTED), ("missing.pdf", IngestStatus.FAILED),
        (MUTUAL_NDA.name, IngestStatus.INGESTED), (GCLOUD.name, IngestStatus.UNCHANGED),
    ]
    by_name = {d.file_name: d for d in library.documents()}
    assert by_name[GCLOUD.name].clauses == len(gcloud.graph.clauses)
    stored = {c.path: c.text for c in library.store.clauses(by_name[MUTUAL_NDA.name].doc_id)}
    assert stored == {c.path: c.text for c in mutual_nda.graph.clauses}
    library.parsers.close()


def test_a_worker_killed_mid_parse_loses_no_contract(tmp_path):
    library = Library(tmp_path / "store")
    library.parsers.warm()
    first_pool = library.parsers._executor
    killed: list[int] = []

    def kill_the_workers(event) -> None:
        if event.stage is Stage.PARSE and not killed:
            for pid in list(library.parsers._executor._processes):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    outcomes = list(library.ingest_many([GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA], kill_the_workers))
    assert killed and library.parsers._executor is not first_pool  # they died while parsing, and a new pool took over
    assert [o.status for o in outcomes] == [IngestStatus.INGESTED] * 3, [o.message for o in outcomes]
    assert {d.file_name for d in library.documents()} == {GCLOUD.name, HIGHWAYS_NDA.name, MUTUAL_NDA.name}
    library.parsers.close()


def test_progress_tells_apart_two_files_of_one_name(tmp_path):
    """Two uploads called contract.pdf: each event names its file's place in the batch (the
    Library page keeps a bar per place), and each place reports its own contract's clauses."""
    library = Library(tmp_path / "store")
    events = []
    uploads = [("contract.pdf", GCLOUD.read_bytes()), ("contract.pdf", MUTUAL_NDA.read_bytes())]
    outcomes = list(library.ingest_many(uploads, events.append))
    assert [o.status for o in outcomes] == [IngestStatus.INGESTED] * 2
    assert {e.item for e in events} == {0, 1}
    for item, outcome in enumerate(outcomes):
        structured = [e.message for e in events if e.item == item and e.stage is Stage.STRUCTURE and e.fraction == 1.0]
        assert structured == [f"{outcome.clauses} clauses"]
    assert outcomes[0].clauses != outcomes[1].clauses
    library.parsers.close()


def test_a_worker_hands_back_its_parse_as_a_path_short_enough_for_one_pipe_write(tmp_path):
    """A worker killed half-way through writing a large result into the pool's pipe left the
    pool's reader waiting for the rest for ever; a path goes through in one write (PIPE_BUF)."""
    import pickle
    import queue
    import select

    from engine.ingest import parse

    parse.start_worker(queue.Queue(), str(tmp_path))
    path = parse.parse_in_worker(MUTUAL_NDA.read_bytes(), MUTUAL_NDA.name, None, 0)
    assert os.path.dirname(path) == str(tmp_path) and len(pickle.dumps(path)) < select.PIPE_BUF
    parsed = parse.read_parse(path)
    assert [c.ref for c in parsed.graph.clauses] == [c.ref for c in parse.parse_contract(MUTUAL_NDA.read_bytes(), MUTUAL_NDA.name).graph.clauses]
    assert not os.listdir(tmp_path)  # read once, then gone
