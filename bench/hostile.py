"""Hostile input at full size: what each file costs and what the user is told.

    .venv/bin/python bench/hostile.py [--giant-line 200000]

Builds the hostile corpus of tests/hostile_inputs.py (the giant line at its full 200,000
characters, which the tests shorten to keep the suite fast), ingests it as one batch into
a store that already holds the Highways NDA, and prints one row per file: verdict,
message, seconds and the process's peak memory after it. Then it says whether the
contract that was there before is unchanged. Times are from one run on this machine.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from common import PROJECT_ROOT  # noqa: F401  (puts the project on the path)

from engine.service import Library
from tests.conftest import HIGHWAYS_NDA, MUTUAL_NDA
from tests.hostile_inputs import GIANT_LINE_CHARS, build_corpus


def peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def held(library: Library) -> tuple:
    """What the store holds about the contract that was there before the batch."""
    document = library.find(HIGHWAYS_NDA.name)
    clauses = [(c.clause_id, c.text) for c in library.detail(document.doc_id).clauses]
    citations = [(c.page, c.quote) for c in library.ask("Which law governs this agreement?", [document.doc_id]).answer.citations]
    return document, clauses, citations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--giant-line", type=int, default=GIANT_LINE_CHARS, help="characters in the one-line PDF")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        started = time.perf_counter()
        corpus = build_corpus(Path(workdir) / "corpus", giant_line_chars=args.giant_line)
        print(f"corpus built in {time.perf_counter() - started:.1f} s")
        library = Library(Path(workdir) / "store")
        library.ingest_paths([HIGHWAYS_NDA])
        before = held(library)
        print(f"model loaded and {HIGHWAYS_NDA.name} ingested; peak memory {peak_mb()} MB\n")
        print("| file | verdict | message | seconds | peak MB |")
        print("|---|---|---|---:|---:|")
        outcomes = []
        for path in corpus.batch() + [MUTUAL_NDA]:
            started = time.perf_counter()
            outcome = library.ingest_file(path)
            seconds = time.perf_counter() - started
            outcomes.append(outcome)
            detail = outcome.message or f"{outcome.pages} pages, {outcome.clauses} clauses"
            name = path.name if len(path.name) < 60 else f"{path.name[:40]}…({len(path.name)} chars)"
            print(f"| {name} | {outcome.status.value} | {detail} | {seconds:.1f} | {peak_mb()} |", flush=True)
        library.refresh_indexes(outcomes)
        print(f"\nthe contract that was there before is {'unchanged' if held(library) == before else 'CHANGED'}")


if __name__ == "__main__":
    main()
