"""Batch ingest on Ray: parsing, structure and embedding spread over a Ray cluster (or a local
Ray instance), one committer writing the results.

The work that grows with the archive (reading PDFs, structuring clauses, embedding them with
MiniLM) runs as a Ray Data `map` over the batch, each worker an actor that loads the embedding
model once. The store is written by this process alone, contract by contract, through the same
`commit_contract` as every other ingest: a contract spans six tables and must appear whole or
not at all under the store's writer lock, which rules out writing Lance fragments from the
workers (lance-ray's distributed write commits one table at a time). The committer is the
limit of the design: bench/scale.py measures where (README, "Running for a team").

Workers embed with full MiniLM vectors (unless the settings say `quick`), so the batch needs no
background vector pass afterwards: on a cluster the heavy part belongs to the cluster. A file
that fails fails alone, with the message a local ingest gives. Outcomes come back in the order
of the files, as `Library.ingest_many` gives them.
"""

from __future__ import annotations

import logging
import os
import pickle
import time
import warnings
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path

from engine.errors import IngestError
from engine.ingest.parse import Progress, ProgressCallback, Stage, no_progress
from engine.ingest.pipeline import PreparedContract, already_stored, commit_contract, document_id, prepare_contract
from engine.settings import PROJECT_ROOT
from engine.store.clause_store import ClauseStore
from models.document import IngestOutcome

log = logging.getLogger(__name__)

CHUNK = 256  # files read and prepared per Ray Data run


class Preparer:
    """A Ray Data worker: parses, structures and embeds one file per row, the model loaded once."""

    def __init__(self, quick: bool, batch_size: int, overlap: int, max_pages: int | None) -> None:
        if quick:
            from engine.static_embed import StaticEmbedder

            self.embedder = StaticEmbedder(overlap)
        else:
            from engine.embed import Embedder

            self.embedder = Embedder(batch_size, overlap)
        self.max_pages = max_pages

    def __call__(self, row: dict) -> dict:
        started = time.perf_counter()
        try:
            outcome: PreparedContract | BaseException = prepare_contract(row["data"], row["name"], self.embedder, max_pages=self.max_pages)
        except Exception as error:  # reported by the committer as a local ingest reports it
            outcome = error
        try:
            prepared = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # an exception some library made unpicklable
            prepared = pickle.dumps(IngestError(f"{type(outcome).__name__}: {outcome}"))
        return {"index": row["index"], "prepared": prepared, "seconds": time.perf_counter() - started}


def ingest_on_ray(
    store: ClauseStore,
    files: Iterable[tuple[str, bytes | IngestOutcome]],
    address: str | None,
    workers: int | None,
    quick: bool,
    batch_size: int,
    overlap: int,
    max_pages: int | None,
    progress: ProgressCallback = no_progress,
) -> Iterator[IngestOutcome]:
    """Each file's outcome, in the order given. `address`: None or "" for a local Ray instance
    of `workers` CPUs, else a cluster's (`ray://host:port`, or `auto`). A file given as an
    outcome (the caller could not read it) keeps its place. Files are read and sent CHUNK at a
    time, so an archive of tens of thousands never sits in this process's memory at once."""
    os.environ.setdefault("RAY_DATA_LOG_LEVEL", "ERROR")  # Ray Data logs each run at INFO on the console; the caller shows progress
    import ray

    started_here = _connect(ray, address, workers)
    try:
        remaining = iter(files)
        while chunk := tuple(islice(remaining, CHUNK)):
            yield from _ingest_chunk(ray, store, chunk, workers, quick, batch_size, overlap, max_pages, progress)
    finally:
        if started_here:
            ray.shutdown()


def _ingest_chunk(ray, store: ClauseStore, files: tuple, workers, quick, batch_size, overlap, max_pages, progress) -> Iterator[IngestOutcome]:
    outcomes: dict[int, IngestOutcome] = {}
    work = []
    for index, (name, data) in enumerate(files):
        if isinstance(data, IngestOutcome):
            outcomes[index] = data
        elif (unchanged := already_stored(store, name, document_id(data))) is not None:
            outcomes[index] = unchanged
        else:
            work.append({"index": index, "name": name, "data": data})
    shown = 0
    for row in _prepared_rows(ray, work, workers, quick, batch_size, overlap, max_pages) if work else ():
        index = row["index"]
        name, data = files[index]
        progress(Progress(name, Stage.STORE, 0.0, f"prepared on Ray in {row['seconds']:.1f} s"))
        started = time.perf_counter() - row["seconds"]  # the file's time counts its preparation on Ray
        outcomes[index] = commit_contract(store, data, name, lambda: _unpacked(row["prepared"]), progress, started)
        while shown in outcomes:
            yield outcomes.pop(shown)
            shown += 1
    while shown in outcomes:
        yield outcomes.pop(shown)
        shown += 1


def _connect(ray, address: str | None, workers: int | None) -> bool:
    """Connect to the cluster at `address`, or start a local instance; whether this call started it."""
    if ray.is_initialized():
        return False
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    # Ray starts its processes with fork+exec; LanceDB warns of forks in general, but an exec'd child keeps none of its state
    warnings.filterwarnings("ignore", message="lancedb fork support is experimental", category=RuntimeWarning)
    warnings.filterwarnings("ignore", message="lance is not fork-safe", category=UserWarning)
    if address:
        # a cluster's workers get this project's code; its dependencies must be installed there
        excludes = [".venv", "data", ".git", "**/__pycache__", "bench", "tests", "docs"]
        ray.init(address=address, runtime_env={"working_dir": str(PROJECT_ROOT), "excludes": excludes}, **quiet)
    else:
        ray.init(num_cpus=workers or os.cpu_count() or 1, runtime_env={"env_vars": {"PYTHONPATH": str(PROJECT_ROOT)}}, **quiet)
    return True


def _prepared_rows(ray, work: list[dict], workers: int | None, quick: bool, batch_size: int, overlap: int, max_pages: int | None) -> Iterator[dict]:
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # outcomes in the order of the files
    context.enable_progress_bars = False  # the caller shows progress over the batch
    concurrency = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    settings = {"quick": quick, "batch_size": batch_size, "overlap": overlap, "max_pages": max_pages}

    class ConfiguredPreparer(Preparer):  # the settings travel with the class, not as constructor arguments
        def __init__(self) -> None:
            super().__init__(**settings)

    dataset = ray.data.from_items(work, override_num_blocks=len(work)).map(
        ConfiguredPreparer, compute=ray.data.ActorPoolStrategy(size=min(concurrency, len(work))), num_cpus=1,
    )
    return dataset.iter_rows()


def _unpacked(prepared: bytes) -> PreparedContract:
    outcome = pickle.loads(prepared)  # made by this program's own Ray workers, just now
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


def looks_like_address(text: str) -> bool:
    """Whether `ingest --ray X` names a cluster (X is otherwise the first file or folder)."""
    return text == "auto" or text.startswith("ray://") or (":" in text and not Path(text).exists())
