"""The whole CUAD library: ingest 510 contracts into a fresh store, then ask over all of them.

    .venv/bin/python bench/scale.py [--n 510] [--db DIR] [--preset NAME] [--cold 10]
    .venv/bin/python bench/scale.py --ray [--n 20]

Prints (one run, this machine):
- ingest: minutes and pages/s until every contract is searchable (quick vectors, parsing in
  worker processes), and until every one has its full MiniLM vectors (made in the background
  with the default preset; never with `--preset large-library`), the store's size on disk and
  the peak resident memory of this process and of its parsing workers;
- 50 questions over every contract in a warm session (the Library open, as in the app): p50
  and p95 seconds; the first `--cold` of them each in a new process (`python -m engine ask`,
  the model and store loaded from nothing): p50 and p95 wall seconds;
- the app in AppTest: the Corpus page's first render, and the Ask page's first answer over all
  contracts, in seconds.

With `--ray`: the first `--n` dev contracts (default 20) ingested on a local Ray instance
(`Library.ingest_on_ray`) with 1 and then 2 workers, each into a new store, beside the plain
ingest (parsing workers, quick vectors, then full vectors in the background): pages/s until
every contract has full vectors, the committer's share of the time (the one process that
writes, whose seconds per contract bound the batch however many workers prepare it), and for
how many contracts `show --json` is the plain ingest's.

Questions: the 41 CUAD category questions of cuad_dev and nine "which contracts..." requests
from bench/phrasings/enumeration.json, each asked with every contract in scope. With `--db` an
existing store is used as it is (ingest skipped unless contracts are missing).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import BENCH_DIR, CUAD, PROJECT_ROOT, cuad_manifest, require_shared_data

from engine.service import Library
from models.document import IngestStatus

QUESTION_COUNT = 50


def contracts(count: int) -> list[Path]:
    rows = sorted(cuad_manifest(None), key=lambda row: row["id"])  # both splits: only file names are read, no labels
    return [CUAD / row["file"] for row in rows[:count]]


def questions() -> list[str]:
    """41 category questions and 9 many-contract requests (each target's first phrasing), fixed."""
    asked = list(dict.fromkeys(json.loads(line)["question"] for line in (BENCH_DIR / "cuad_dev.jsonl").read_text().splitlines()))
    targets = json.loads((PROJECT_ROOT / "bench" / "phrasings" / "enumeration.json").read_text())["targets"]
    requests = [phrasings[0]["text"].replace("{law}", "New York") for phrasings in targets.values()]
    return asked[: QUESTION_COUNT - 9] + requests[:: max(len(requests) // 9, 1)][: QUESTION_COUNT - len(asked[: QUESTION_COUNT - 9])]


def peak_mb(who: int) -> int:
    return resource.getrusage(who).ru_maxrss // 1024


def directory_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1024 / 1024


def ingest(library: Library, files: list[Path]) -> None:
    started = time.perf_counter()
    pages = 0
    outcomes = []
    for outcome in library.ingest_many(files):
        outcomes.append(outcome)
        pages += outcome.pages if outcome.status is IngestStatus.INGESTED else 0
        if len(outcomes) % 50 == 0:
            print(f"  {len(outcomes)}/{len(files)} contracts, {time.perf_counter() - started:.0f} s", flush=True)
    library.refresh_indexes(outcomes)
    searchable = time.perf_counter() - started
    failed = [o for o in outcomes if o.status is IngestStatus.FAILED]
    ingested = sum(o.status is IngestStatus.INGESTED for o in outcomes)
    print(f"searchable: {ingested} ingested, {len(outcomes) - ingested - len(failed)} unchanged, {len(failed)} failed, "
          f"{pages} pages in {searchable / 60:.1f} min ({pages / searchable:.1f} pages/s)", flush=True)
    for outcome in failed:
        print(f"  failed: {outcome.file_name}: {outcome.message}")
    if library.makes_full_vectors:
        status = library.wait_for_vectors()
        whole = time.perf_counter() - started
        print(f"full vectors: {status.ready} contracts after {whole / 60:.1f} min ({pages / whole:.1f} pages/s overall)"
              + (f"; stopped: {status.error}" if status.error else ""), flush=True)
    library.parsers.close()


def warm(library: Library, asked: list[str]) -> list[float]:
    seconds = []
    for question in asked:
        started = time.perf_counter()
        library.ask(question)
        seconds.append(time.perf_counter() - started)
    return seconds


def cold(store: Path, asked: list[str], preset: str | None) -> list[float]:
    seconds = []
    for question in asked:
        command = [sys.executable, "-m", "engine", "ask", "--db", str(store), *(["--preset", preset] if preset else []), question]
        started = time.perf_counter()
        run = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True)
        seconds.append(time.perf_counter() - started)
        if run.returncode != 0:
            print(f"  cold ask failed: {run.stderr.strip()[-300:]}")
    return seconds


def app_timings(store: Path, question: str) -> tuple[float, float]:
    """Seconds for the Corpus page's first render and the Ask page's first answer over all contracts."""
    from streamlit.testing.v1 import AppTest

    os.environ["CLAUSEGRAPH_DB"] = str(store)
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=600)
    at.run()
    started = time.perf_counter()
    at.switch_page("pages/corpus.py").run()
    corpus = time.perf_counter() - started
    if at.exception:
        print(f"  corpus page: {at.exception}")
    at.switch_page("pages/ask.py").run()
    started = time.perf_counter()
    at.chat_input[0].set_value(question).run()
    answer = time.perf_counter() - started
    if at.exception:
        print(f"  ask page: {at.exception}")
    return corpus, answer


def spread(seconds: list[float]) -> str:
    if not seconds:
        return "none"
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):.2f} s, p95 {p95:.2f} s, max {ordered[-1]:.2f} s ({len(ordered)} questions)"


def ray_scale(count: int, workers: list[int]) -> None:
    """Pages/s of `ingest --ray` with each number of local workers, beside the plain ingest, and
    whether each contract's `show --json` is the plain ingest's."""
    from engine.cli import show_json

    files = [CUAD / row["file"] for row in sorted(cuad_manifest("dev"), key=lambda row: row["id"])[:count]]
    print(f"{len(files)} CUAD dev contracts, {len(os.sched_getaffinity(0))} cores; each run into a new store", flush=True)
    print("| ingest | pages | seconds | pages/s | committer s/contract | committer share | show --json as plain |\n|---|---|---|---|---|---|---|")
    runs = [("plain", None)] + [(f"Ray, {n} worker{'s' if n > 1 else ''}", n) for n in workers]
    shown: dict[str, dict] = {}  # doc_id -> the plain ingest's show --json
    with tempfile.TemporaryDirectory() as tmp:
        for name, n in runs:
            library = Library(Path(tmp) / name.replace(" ", "").replace(",", "-"))
            started = time.perf_counter()
            batch = library.ingest_many(files) if n is None else library.ingest_on_ray(files, workers=n)
            outcomes = list(batch)
            library.refresh_indexes(outcomes)
            library.wait_for_vectors()
            library.parsers.close()
            seconds = time.perf_counter() - started
            done = [o for o in outcomes if o.status is IngestStatus.INGESTED]
            pages = sum(o.pages for o in done)
            committing = sum(o.stage_seconds.get("store", 0.0) for o in done)
            details = {o.doc_id: show_json(library.store.detail(o.doc_id)) for o in done}
            same = "-" if n is None else f"{sum(shown.get(d) == j for d, j in details.items())} of {len(details)}"
            shown = details if n is None else shown
            print(f"| {name} | {pages} | {seconds:.0f} | {pages / seconds:.2f} | {committing / max(len(done), 1):.2f} | "
                  f"{committing / seconds:.0%} | {same} |", flush=True)
            if len(done) < len(files):
                print(f"  {len(files) - len(done)} not ingested: {[o.message for o in outcomes if o.status is not IngestStatus.INGESTED][:3]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=510, help="how many CUAD contracts (all splits, in id order)")
    parser.add_argument("--db", type=Path, help="store to use (default: a new one in a temporary folder)")
    parser.add_argument("--preset", help="settings preset, e.g. large-library (quick vectors only)")
    parser.add_argument("--cold", type=int, default=10, help="questions asked each in a new process")
    parser.add_argument("--ray", action="store_true", help="measure `ingest --ray` with 1 and 2 local workers instead (--n default 20)")
    args = parser.parse_args()
    require_shared_data()
    if args.ray:
        ray_scale(args.n if args.n != 510 else 20, [1, 2])
        return
    files = contracts(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        store = args.db or Path(tmp) / "store"
        library = Library(store, preset=args.preset)
        library.parsers.warm()
        print(f"{len(files)} CUAD contracts into {store} (preset {library.settings.preset}, ingest.vectors = "
              f"{library.settings.ingest.vectors}, {len(os.sched_getaffinity(0))} cores)", flush=True)
        ingest(library, files)
        print(f"store size {directory_mb(store):,.0f} MB; peak RSS: this process {peak_mb(resource.RUSAGE_SELF):,} MB, "
              f"largest parsing worker {peak_mb(resource.RUSAGE_CHILDREN):,} MB", flush=True)
        asked = questions()
        print(f"\nwarm session, {len(asked)} questions over all {len(library.documents())} contracts", flush=True)
        library.ask(asked[0])  # the first question loads the model and the first graphs: that is the cold figure's job
        print("  " + spread(warm(library, asked)), flush=True)
        print(f"cold process, the first {args.cold} questions, each in a new `python -m engine ask`", flush=True)
        print("  " + spread(cold(store, asked[: args.cold], args.preset)), flush=True)
        corpus, answer = app_timings(store, asked[0])
        print(f"\napp (AppTest): Corpus page first render {corpus:.2f} s; Ask page first answer over all contracts {answer:.2f} s")
        print(f"peak RSS of this process after asking: {peak_mb(resource.RUSAGE_SELF):,} MB")


if __name__ == "__main__":
    main()
