"""A library on object storage (issue 20), against a real S3-compatible server on 127.0.0.1
(moto in server mode, tests/s3_server.py), never mocked calls.

The CLI gives the same results on `s3://bucket/lib` as on a local folder for the three sample
contracts, and touches no address but the configured endpoint (tests/network_guard.py, and
strace for LanceDB's native client where it may trace); two ingest processes share one remote
store and every contract ends whole; an ingest killed with -9 leaves its contract absent to
readers, and the next writer, once the dead writer's lease has run out, removes its leftovers
and ingests it whole; the secret key appears nowhere.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid

import pytest
from streamlit.testing.v1 import AppTest

from engine import cli
from engine.settings import PROJECT_ROOT, SAMPLES_DIR
from engine.store.clause_store import ClauseStore
from engine.store.lease import LEASE_SECONDS, LOCK_OBJECT, LeaseLock
from engine.store.version import StoreVersionError
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA
from tests.ingestproc import IngestProcess, rows_of, state_of
from tests.network_guard import child_environment, guarded_command, inet_contacts, read_record, strace_works
from tests.s3_server import SECRET_KEY, S3Server

LAW_QUESTION = "Which law governs this agreement?"
SAMPLES = (GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA)
_VARYING = {"ingested_at", "ingest_seconds"}  # when and how fast a contract was ingested


@pytest.fixture(scope="module")
def s3():
    with S3Server() as server:
        yield server


@pytest.fixture
def remote(s3, tmp_path, monkeypatch) -> str:
    """A new bucket's `s3://.../lib`, with this process and its children pointed at the server."""
    bucket = f"lib-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(bucket)
    for name, value in s3.environment.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # a remote store's workspace on this machine
    return f"s3://{bucket}/lib"


def _engine(*args: str, guard: tuple | None = None) -> subprocess.CompletedProcess:
    """`python -m engine ARGS`; with `guard` (folder, endpoint address) under the network guard."""
    command = [sys.executable, "-m", "engine", *args]
    if guard is not None:
        folder, address = guard
        step = f"{len(list(folder.glob('*.jsonl')))}-{args[0]}"
        syscalls = folder / f"{step}.strace" if strace_works() else None
        command = guarded_command(["engine", *args], folder / f"{step}.jsonl", [address], syscalls)
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, env=child_environment(), timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _local(capsys, *args: str) -> str:
    """The same command's output on the local store, run in this process (no model to load again)."""
    capsys.readouterr()
    assert cli.main(list(args)) == 0
    return capsys.readouterr().out


def _listing(output: str) -> list[dict]:
    """`list --json` without what varies between two ingests, by file name (the list is in ingest order)."""
    rows = [{k: v for k, v in row.items() if k not in _VARYING} for row in json.loads(output)]
    return sorted(rows, key=lambda row: row["file_name"])


def test_the_cli_gives_the_same_results_on_a_bucket_as_on_a_folder_and_contacts_only_the_endpoint(remote, s3, sample_library, tmp_path, capsys, monkeypatch):
    local = str(sample_library.settings.store)
    guard = (tmp_path / "guard", s3.address)
    guard[0].mkdir()

    ingested = _engine("ingest", "--db", remote, *map(str, SAMPLES), guard=guard)
    assert "3 ingested, 0 unchanged, 0 failed" in ingested.stdout
    assert _listing(_engine("list", "--db", remote, "--json", guard=guard).stdout) == _listing(_local(capsys, "list", "--db", local, "--json"))
    for sample in SAMPLES:
        shown = _engine("show", "--db", remote, "--json", sample.name, guard=guard)
        assert json.loads(shown.stdout) == json.loads(_local(capsys, "show", "--db", local, "--json", sample.name)), sample.name
    asked = json.loads(_engine("ask", "--db", remote, "--json", "--doc", MUTUAL_NDA.name, LAW_QUESTION, guard=guard).stdout)
    asked_locally = json.loads(_local(capsys, "ask", "--db", local, "--json", "--doc", MUTUAL_NDA.name, LAW_QUESTION))
    assert asked.pop("seconds") > 0 and asked_locally.pop("seconds") > 0
    assert asked == asked_locally
    assert [c["quote"] for c in asked["citations"]][:1] == [
        "This Agreement is governed by, and is to be construed in accordance with, English law."
    ]
    monkeypatch.setenv("CLAUSEGRAPH_DB", remote)  # the app on the bucket, as an analyst's would be
    app = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=240)
    app.run()
    assert not app.exception and app.subheader[0].value == "3 contracts"
    assert set(app.dataframe[0].value["File"]) == {p.name for p in SAMPLES}
    assert f"Store: `{remote}`" in [c.value for c in app.caption]
    app.switch_page("pages/settings.py").run()
    assert not app.exception
    shown = [str(e.value) for kind in ("markdown", "caption", "text", "code", "json", "metric") for e in getattr(app, kind)]
    assert f"Store location: `{remote}`" in shown and not [text for text in shown if SECRET_KEY in text]
    deleted = _engine("delete", "--db", remote, HIGHWAYS_NDA.name, guard=guard)
    assert HIGHWAYS_NDA.name in deleted.stdout
    remaining = _listing(_engine("list", "--db", remote, "--json", guard=guard).stdout)
    assert sorted(row["file_name"] for row in remaining) == sorted([GCLOUD.name, MUTUAL_NDA.name])

    # the bucket holds the tables, the PDFs and store.json, and no writer lock is left behind
    bucket, prefix = remote.removeprefix("s3://").split("/", 1)
    keys = s3.keys(bucket)
    kept = {k for k in keys if not k.startswith(f"{prefix}/lance/")}
    assert kept == {f"{prefix}/store.json"} | {f"{prefix}/files/{row['doc_id']}.pdf" for row in remaining}
    assert any(k.startswith(f"{prefix}/lance/clauses.lance/") for k in keys)
    assert not (PROJECT_ROOT / "s3:").exists()

    # only the endpoint was contacted: the audit hook saw no other address, strace no other inet one
    records = [r for f in sorted(guard[0].glob("*.jsonl")) for r in read_record(f)]
    assert not [r for r in records if r["verdict"] == "blocked"]
    assert {r["target"] for r in records if r["verdict"] == "allowed" and r["event"] == "socket.connect"} == {s3.address}
    if strace_works():
        contacts = {c for f in guard[0].glob("*.strace") for c in inet_contacts(f)}
        assert contacts == {s3.address}, contacts
    # the secret key is in no output
    everything = ingested.stdout + ingested.stderr + deleted.stdout + deleted.stderr + json.dumps(asked)
    assert SECRET_KEY not in everything


def test_two_ingest_processes_share_a_remote_store_and_every_contract_ends_whole(remote, sample_library):
    reader = ClauseStore(remote)  # opened before anything is in it, as a running app would be
    assert reader.documents() == []
    first = IngestProcess(remote, MUTUAL_NDA)
    second = IngestProcess(remote, HIGHWAYS_NDA)
    both = IngestProcess(remote, SAMPLES_DIR)  # all three, racing the two others for the small ones
    outcomes = [process.finish(timeout=600) for process in (first, second, both)]
    assert all(code == 0 for code, _, _ in outcomes), [stderr[-2000:] for _, _, stderr in outcomes]
    store = ClauseStore(remote)
    assert sorted(d.file_name for d in store.documents()) == sorted(p.name for p in SAMPLES)
    assert sorted(d.file_name for d in reader.documents()) == sorted(p.name for p in SAMPLES)  # it sees the others' commits
    for sample in SAMPLES:
        doc_id = sample_library.find(sample.name).doc_id
        assert rows_of(store, doc_id) == rows_of(sample_library.store, doc_id), sample.name


def test_an_ingest_killed_on_a_remote_store_leaves_its_contract_absent_and_the_next_writer_takes_it(remote, sample_library):
    doc_id = sample_library.find(MUTUAL_NDA.name).doc_id
    complete = rows_of(sample_library.store, doc_id)
    writer = IngestProcess(remote, MUTUAL_NDA, pause_before="documents")  # every row but the documents row written
    assert writer.wait_for_pause() == "documents"
    writer.kill()
    killed_at = time.monotonic()

    reader = ClauseStore(remote)  # opens at once: the dead writer's lease still stands, so nothing is cleaned yet
    assert reader.documents() == [] and reader.document(doc_id) is None
    assert rows_of(reader, doc_id)["clauses"] == complete["clauses"]  # its leftovers, invisible to readers

    again = IngestProcess(remote, MUTUAL_NDA)
    code, stdout, stderr = again.finish(timeout=600)
    assert code == 0 and "1 ingested" in stdout, stderr[-2000:]
    assert time.monotonic() - killed_at >= LEASE_SECONDS * 0.9  # it waited for the lease to run out
    assert state_of(ClauseStore(remote), doc_id, complete) == "complete"


def test_the_lease_lock_lets_one_holder_in_at_a_time(remote):
    store = ClauseStore(remote)
    other = ClauseStore(remote)  # a second process's view of the same store
    with store.writing():
        with other._lock.hold(wait=False) as held:
            assert not held
    with other._lock.hold(wait=False) as held:
        assert held  # released when the first writer's block ended
    # a holder that dies leaves its lock object, which stands until its lease runs out
    # (taken over after it: the killed ingest above)
    folder = store.folder
    folder.client.put_object(Bucket=folder.bucket, Key=folder.key(LOCK_OBJECT), Body=b'{"holder": "dead"}')
    cleaned = []
    lock = LeaseLock(folder, after_dead_writer=lambda: cleaned.append(True))
    with lock.hold(wait=False) as held:
        assert not held and not cleaned


def test_a_batch_ingested_on_a_local_ray_instance_matches_a_plain_ingest_and_a_bad_file_fails_alone(tmp_path, sample_library, capsys):
    db = str(tmp_path / "ray-store")
    missing = tmp_path / "missing.pdf"
    result = subprocess.run(
        [sys.executable, "-m", "engine", "ingest", "--db", db, "--ray", "--ray-workers", "2", str(SAMPLES_DIR), str(missing)],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 1, result.stderr[-3000:]  # one file failed
    assert "3 ingested, 0 unchanged, 1 failed" in result.stdout
    assert f"error: {missing}: no such file" in result.stderr
    for sample in SAMPLES:
        assert json.loads(_local(capsys, "show", "--db", db, "--json", sample.name)) == json.loads(
            _local(capsys, "show", "--db", str(sample_library.settings.store), "--json", sample.name)
        ), sample.name
    assert {d.embedding_model for d in ClauseStore(db).documents()} == {"all-MiniLM-L6-v2"}  # full vectors made on Ray


def test_a_remote_store_from_a_newer_version_is_refused_and_left_as_it_was(remote, s3):
    ClauseStore(remote)  # a new store: its tables and store.json
    bucket, prefix = remote.removeprefix("s3://").split("/", 1)
    s3.client().put_object(Bucket=bucket, Key=f"{prefix}/store.json", Body=b'{"schema_version": 99}')
    with pytest.raises(StoreVersionError, match=f"^the store at {remote} was written by a newer Clausegraph"):
        ClauseStore(remote)
    assert s3.client().get_object(Bucket=bucket, Key=f"{prefix}/store.json")["Body"].read() == b'{"schema_version": 99}'
