"""Kill -9 a real ingest at every write step and at random moments; print what the store holds.

    .venv/bin/python bench/crash.py [--random 12] [--pdf data/samples/Example-Mutual-Non-Disclosure-Agreement.pdf]

Each kill point is one `python -m engine ingest` process into a fresh store. Step points:
the process pauses before that write (CLAUSEGRAPH_PAUSE_BEFORE, holding the writer lock) and
is killed there. Random points: it pauses before its first write, is let go and killed after a
random delay: half of them within the time its table writes take (so inside a LanceDB write),
half within the rest of its run (the index refresh and exit). Then this process opens the
store as the next user would (an interrupted ingest's leftovers are removed), reports the
document's state, ingests the file again and checks that it is then complete. Two processes
run at a time.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import common  # noqa: F401 - puts the project on sys.path
import lancedb

from engine.service import Library
from engine.settings import SAMPLES_DIR
from engine.store.clause_store import ClauseStore
from engine.store.lock import WriterLock
from engine.store.pause_points import WRITE_STEPS
from models.document import IngestStatus
from tests.ingestproc import IngestProcess, rows_of, state_of


def leftover_rows(db: Path, doc_id: str) -> int:
    """Rows of the document in any table, read without opening the store (so before cleanup)."""
    connection = lancedb.connect(str(db / "lance"))
    names = connection.list_tables().tables
    return sum(connection.open_table(name).count_rows(f"doc_id = '{doc_id}'") for name in names)


def kill_at(db: Path, pdf: Path, step: str, delay: float | None) -> None:
    process = IngestProcess(db, pdf, pause_before=step)
    process.wait_for_pause()
    if delay is not None:
        process.resume()
        time.sleep(delay)
    process.kill()


def timeline(db: Path, pdf: Path) -> tuple[float, float]:
    """Seconds from the first write to the documents row written, and to the end of the process."""
    process = IngestProcess(db, pdf, pause_before="file,written")
    process.wait_for_pause()
    started = time.perf_counter()
    process.resume()
    process.wait_for_pause()
    writes = time.perf_counter() - started
    process.resume()
    code, stdout, stderr = process.finish()
    assert code == 0, stderr
    return writes, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=12, help="random kill points besides one per write step")
    parser.add_argument("--pdf", type=Path, default=SAMPLES_DIR / "Example-Mutual-Non-Disclosure-Agreement.pdf")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="crash-"))

    reference = Library(work / "reference")
    outcome = reference.ingest_file(args.pdf)
    assert outcome.status is IngestStatus.INGESTED, outcome.message
    doc_id, complete = outcome.doc_id, rows_of(reference.store, outcome.doc_id)
    writes, span = timeline(work / "timed", args.pdf)
    print(f"{args.pdf.name}: a clean ingest writes {complete}; from its first write, the documents row "
          f"is written after {writes:.3f} s and the process ends after {span:.2f} s")

    rng = random.Random(args.seed)
    inside = args.random // 2
    delays = [rng.uniform(0, writes) for _ in range(inside)] + [rng.uniform(writes, span) for _ in range(args.random - inside)]
    points = [(f"before {step}", step, None) for step in WRITE_STEPS]
    points += [(f"{d:.3f} s after the first write", "file", d) for d in sorted(delays)]
    stores = {name: work / f"kill-{index}" for index, (name, _, _) in enumerate(points)}
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda p: kill_at(stores[p[0]], args.pdf, p[1], p[2]), points))
    kill_seconds = time.perf_counter() - started

    print(f"\n{'kill point':34} {'rows left':>9}  {'lock':5}  {'after reopening':16} {'ingest again':13} {'then':8}")
    tally: dict[str, int] = {}
    for name, _, _ in points:
        db = stores[name]
        left = leftover_rows(db, doc_id)
        with WriterLock(db).hold(wait=False) as free:
            lock = "free" if free else "HELD"
        state = state_of(ClauseStore(db), doc_id, complete)
        again = Library(db).ingest_file(args.pdf)
        after = state_of(ClauseStore(db), doc_id, complete)
        tally[state] = tally.get(state, 0) + 1
        print(f"{name:34} {left:>9}  {lock:5}  {state:16} {again.status.value:13} {after:8}")
    print(f"\n{len(points)} kill points ({len(WRITE_STEPS)} write steps, {args.random} random), "
          + ", ".join(f"{count} {state}" for state, count in sorted(tally.items()))
          + f"; kills took {kill_seconds:.0f} s; stores in {work}")


if __name__ == "__main__":
    main()
