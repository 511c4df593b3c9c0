"""Parse and structure one contract: everything of an ingest but the vectors and the store.

Kept apart from pipeline.py so that the worker processes of parallel.py import only what
parsing needs (PyMuPDF and the structure rules), not the store, the embedders or the fields.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from engine.errors import IngestError
from engine.ingest.clauses import segment
from engine.ingest.graph import ClauseGraph, build_graph
from engine.ingest.pdf import DocumentText, read_pdf


class Stage(StrEnum):
    PARSE = "parse"
    STRUCTURE = "structure"
    EMBED = "embed"
    STORE = "store"


@dataclass(frozen=True, slots=True)
class Progress:
    """Where one file is: a stage and how far through it (0..1). `item` is the file's place in
    a batch (Library.ingest_many), which tells apart two files of the same name."""

    file_name: str
    stage: Stage
    fraction: float
    message: str = ""
    item: int | None = None


ProgressCallback = Callable[[Progress], None]


def no_progress(_: Progress) -> None:
    return None


def for_item(progress: ProgressCallback, item: int) -> ProgressCallback:
    """`progress`, told which file of the batch each event is about."""

    def tagged(event: Progress) -> None:
        progress(replace(event, item=item))

    return tagged


@dataclass
class ParsedContract:
    """A contract after parsing and structuring: everything but the vectors."""

    doc_id: str
    file_name: str
    data: bytes
    text: DocumentText
    graph: ClauseGraph
    parse_seconds: float
    structure_seconds: float


def document_id(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def parse_contract(
    data: bytes, file_name: str, progress: ProgressCallback = no_progress, max_pages: int | None = None
) -> ParsedContract:
    """Parse and structure a PDF; raises IngestError with a plain reason if it cannot."""
    doc_id = document_id(data)
    started = time.perf_counter()
    progress(Progress(file_name, Stage.PARSE, 0.0, "reading pages"))

    def recognising(page: int, done: int, total: int) -> None:
        message = f"recognising text, page {page}" + (f" ({done + 1} of {total} scanned)" if total > 1 else "")
        progress(Progress(file_name, Stage.PARSE, done / total, message))

    text = read_pdf(data, recognising, max_pages)
    if not text.text.strip():
        raise IngestError(_no_text_reason(text))
    parsed_at = time.perf_counter()
    progress(Progress(file_name, Stage.STRUCTURE, 0.0, "finding clauses, definitions and references"))
    graph = build_graph(doc_id, text, segment(text), fallback_title=Path(file_name).stem)
    structured_at = time.perf_counter()
    progress(Progress(file_name, Stage.STRUCTURE, 1.0, f"{len(graph.clauses)} clauses"))
    return ParsedContract(doc_id, file_name, data, text, graph, parsed_at - started, structured_at - parsed_at)


def _no_text_reason(text: DocumentText) -> str:
    if text.ocr_unavailable is not None:
        return f"none of its {text.page_count} page(s) has a text layer: it is a scanned image, and {text.ocr_unavailable}"
    if len(text.pages_without_text) == text.page_count:
        return f"none of its {text.page_count} page(s) has any text, printed or recognisable by OCR"
    return "the PDF contains no text"


# ------------------------------------------------------------ in a worker process (parallel.py)

_events = None  # the queue a worker's progress events go back by
_spool: Path | None = None  # the folder a worker leaves its parses in


def start_worker(events, spool: str) -> None:
    global _events, _spool
    _events, _spool = events, Path(spool)


def parse_in_worker(data: bytes, file_name: str, max_pages: int | None, item: int) -> str:
    """The path of a file holding the parse, not the parse itself. A worker killed while it
    writes a result into the pool's pipe leaves half a message there, and the pool's reader
    then waits for the rest for ever (the whole ingest hung so in a test run); a path is a
    message short enough for the pipe to take in one piece."""
    parsed = parse_contract(data, file_name, for_item(_events.put, item), max_pages)
    handle, path = tempfile.mkstemp(dir=_spool, suffix=".parse")
    with os.fdopen(handle, "wb") as out:
        pickle.dump(parsed, out, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def read_parse(path: str) -> ParsedContract:
    """A parse a worker left (parse_in_worker), its file removed."""
    spooled = Path(path)
    try:
        return pickle.loads(spooled.read_bytes())  # written by this program's own worker, just now
    finally:
        spooled.unlink(missing_ok=True)
