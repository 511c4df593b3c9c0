"""A soak of one library shared by several sessions: asks, searches, ingests and deletes at once.

    .venv/bin/python bench/soak.py [--store local|s3|both] [--sessions 4] [--ops 500] [--seed 7]

Each session is its own process with its own Library on the same store, as analysts' apps on
several machines would be (an app's own sessions share one Library, a lighter case). Between
them they run `--ops` operations drawn at random: 45% ask (one contract, or one in five over
every contract), 35% search, 12% ingest, 8% delete. Each session ingests and deletes only its
own three contracts (small CUAD dev contracts), so what the store must hold at the end is
known: the three samples ingested first, and every contract a session last ingested and did
not delete. Every session asks and searches over everything, while the others write.

Run against a local folder and against an S3-compatible server on 127.0.0.1 (moto, as in the
tests; a real bucket would be slower and faster in other places). Prints, per store: errors
(any exception, or an ingest that failed), lost contracts (expected, absent), ghost contracts
(deleted, present), half contracts (a documents row whose rows in the other tables, fields or
PDF do not match it) and orphans (rows or a PDF of no document), 0 expected for each; and p50/p95
seconds per operation. Sessions ingest with quick vectors (`ingest.vectors = quick`), so no
background vector pass competes with the operations measured.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
import traceback
import uuid
from pathlib import Path

from common import CUAD, PROJECT_ROOT, cuad_manifest, require_shared_data

OPERATIONS = {"ask": 0.45, "search": 0.35, "ingest": 0.12, "delete": 0.08}
QUESTIONS = [
    "Which law governs this agreement?",
    "Can either party assign the contract without consent?",
    "What is the term of the agreement?",
    "How can the agreement be terminated?",
    "Is there a cap on liability?",
    "What must be kept confidential?",
    "who are the parties",
    "notice period for termination",
    "Is there a non-compete clause?",
    "What happens if a party breaches the agreement?",
]


def own_contracts(sessions: int) -> list[list[Path]]:
    """Three small dev contracts per session (the smallest files), none shared."""
    files = sorted((CUAD / row["file"] for row in cuad_manifest("dev")), key=lambda path: (path.stat().st_size, path.name))[: 3 * sessions]
    return [files[i::sessions] for i in range(sessions)]


def session(store: str, index: int, ops: int, seed: int, pool: list[str], results) -> None:
    """One analyst's app: `ops` random operations; reports (timings, errors, what it left ingested)."""
    sys.path.insert(0, str(PROJECT_ROOT))
    from models.document import IngestStatus

    rng = random.Random(seed * 100 + index)
    timings: dict[str, list[float]] = {name: [] for name in OPERATIONS}
    errors: list[str] = []
    mine: set[str] = set()  # the file names of this session's contracts it believes are in the store
    library = _library(store)
    for done in range(ops):
        if done and done % 25 == 0:
            print(f"  session {index}: {done}/{ops} operations, {len(errors)} errors", file=sys.stderr, flush=True)
        operation = rng.choices(list(OPERATIONS), weights=list(OPERATIONS.values()))[0]
        absent = [p for p in pool if Path(p).name not in mine]
        if operation == "ingest" and not absent:
            operation = "delete"
        if operation == "delete" and not mine:
            operation = "ingest"
        started = time.perf_counter()
        try:
            if operation in ("ask", "search"):
                documents = library.documents()
                question = rng.choice(QUESTIONS)
                scope = None if rng.random() < 0.2 or not documents else [rng.choice(documents).doc_id]
                if operation == "ask":
                    library.ask(question, scope)
                else:
                    library.search(question, scope)
            elif operation == "ingest":
                path = Path(rng.choice(absent))
                outcome = library.ingest_file(path)
                library.refresh_indexes([outcome])
                if outcome.status is IngestStatus.FAILED:
                    raise RuntimeError(f"ingest of {path.name} failed: {outcome.message}")
                mine.add(path.name)
            else:
                name = rng.choice(sorted(mine))
                library.delete(name)
                mine.discard(name)
        except Exception as error:
            errors.append(f"session {index} {operation}: {type(error).__name__}: {error}\n{traceback.format_exc(limit=4)}")
        timings[operation].append(time.perf_counter() - started)
    results.put((index, timings, errors, sorted(mine)))


def _library(store: str):
    from engine.service import Library
    from engine.settings import Settings, store_location

    return Library(settings=Settings(store=store_location(store), ingest={"vectors": "quick"}))


def check(store: str, expected: set[str]) -> dict[str, list[str]]:
    """What the store holds against what it must: lost, ghost, half contracts, orphan rows."""
    from engine.store.clause_store import ClauseStore

    clause_store = ClauseStore(store)
    documents = {d.file_name: d for d in clause_store.documents()}
    held = set(documents)
    problems: dict[str, list[str]] = {"lost": sorted(expected - held), "ghost": sorted(held - expected), "half": []}
    kept = clause_store.file_names_kept()
    for name, document in documents.items():
        doc_id = document.doc_id
        counts = {t: clause_store.table(t).count_rows(f"doc_id = '{doc_id}'") for t in ("clauses", "pages", "fields")}
        if counts != {"clauses": document.clauses, "pages": document.pages, "fields": 1} or doc_id not in kept:
            problems["half"].append(f"{name}: {counts}, pdf kept: {doc_id in kept}")
    orphans, strays = clause_store.incomplete()  # what ClauseStore.remove_incomplete would delete
    problems["orphan"] = sorted(f"rows of {doc_id[:12]}" for doc_id in orphans) + sorted(f"PDF of {doc_id[:12]}" for doc_id in strays)
    return problems


def soak(store: str, sessions: int, ops: int, seed: int, pools: list[list[Path]]) -> None:
    from engine.settings import SAMPLES_DIR

    base = _library(store)
    base_outcomes = base.ingest_paths([SAMPLES_DIR])
    base_names = {o.file_name for o in base_outcomes}
    print(f"\n{store}: {sessions} sessions, {ops} operations, {len(base_names)} sample contracts ingested first", flush=True)
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    started = time.perf_counter()
    share = [ops // sessions + (1 if i < ops % sessions else 0) for i in range(sessions)]
    workers = [
        context.Process(target=session, args=(store, i, share[i], seed, [str(p) for p in pools[i]], results)) for i in range(sessions)
    ]
    for worker in workers:
        worker.start()
    reports = [results.get() for _ in workers]
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - started
    timings: dict[str, list[float]] = {name: [] for name in OPERATIONS}
    errors: list[str] = []
    expected = set(base_names)
    for _, session_timings, session_errors, mine in reports:
        for name, seconds in session_timings.items():
            timings[name] += seconds
        errors += session_errors
        expected |= set(mine)
    crashed = [w.exitcode for w in workers if w.exitcode != 0]
    problems = check(store, expected)
    done = sum(len(s) for s in timings.values())
    print(f"{done} operations in {wall:.0f} s; sessions that crashed: {len(crashed)}")
    print(f"errors {len(errors)} | lost {len(problems['lost'])} | ghost {len(problems['ghost'])} | "
          f"half {len(problems['half'])} | orphans {len(problems['orphan'])}  (0 expected for each)")
    print("| operation | count | p50 s | p95 s | max s |\n|---|---|---|---|---|")
    for name, seconds in timings.items():
        if seconds:
            ordered = sorted(seconds)
            p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
            print(f"| {name} | {len(ordered)} | {statistics.median(ordered):.2f} | {p95:.2f} | {ordered[-1]:.2f} |")
    for line in errors[:10]:
        print("  error:", line.strip().replace("\n", "\n    "))
    for kind, items in problems.items():
        for item in items[:10]:
            print(f"  {kind}: {item}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", choices=["local", "s3", "both"], default="both")
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--ops", type=int, default=500, help="operations in all, shared between the sessions")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    require_shared_data()
    pools = own_contracts(args.sessions)
    print(f"{os.cpu_count()} cores; each session's own contracts: " + "; ".join(", ".join(p.name[:30] for p in pool) for pool in pools))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # a remote store's workspace
        if args.store in ("local", "both"):
            soak(str(Path(tmp) / "store"), args.sessions, args.ops, args.seed, pools)
        if args.store in ("s3", "both"):
            sys.path.insert(0, str(PROJECT_ROOT))
            from tests.s3_server import S3Server

            with S3Server() as server:
                bucket = f"soak-{uuid.uuid4().hex[:8]}"
                server.create_bucket(bucket)
                os.environ.update(server.environment)  # the sessions' processes inherit it
                soak(f"s3://{bucket}/lib", args.sessions, args.ops, args.seed, pools)


if __name__ == "__main__":
    main()
