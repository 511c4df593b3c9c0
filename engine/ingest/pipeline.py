"""Ingest one contract: parse -> structure -> embed -> store, reporting progress per stage.

The same bytes twice is a no-op; a document ingested by an older parser is ingested
again. A file that fails at any stage leaves the store as it was. Parsing and embedding run
side by side with other ingests; only the writing waits for the store's writer lock, and
whether the document is already stored is asked again under it, so two sessions adding the
same file store it once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from engine.embed import Embedder
from engine.errors import ClausegraphError
from engine.fields import EXTRACTOR_VERSION, extract_fields
from engine.ingest.parse import ParsedContract, Progress, ProgressCallback, Stage, document_id, no_progress, parse_contract
from engine.ingest.pdf import DocumentText
from engine.store.clause_store import ClauseStore
from models.document import Document, IngestOutcome, IngestStatus

logger = logging.getLogger(__name__)

#: Bump when parsing or structure rules change: stored documents are then re-ingested.
PARSER_VERSION = "37"


def _parse_warnings(text: DocumentText) -> list[str]:
    """What a reader of the ingested contract should know about how its pages were read."""
    warnings = []
    if text.ocr_pages:
        warnings.append(
            f"{_pages(text.ocr_pages)}: no text layer (scanned), its text read by text recognition (OCR); "
            "recognised text can contain misread characters, so check quotes against the page"
        )
    if text.pages_without_text:
        why = f"not read, because {text.ocr_unavailable}" if text.ocr_unavailable else "no text found, skipped"
        warnings.append(f"{_pages(text.pages_without_text)}: {why}")
    return warnings


def _pages(numbers: list[int]) -> str:
    return ("page " if len(numbers) == 1 else "pages ") + ", ".join(str(n) for n in numbers)


def embed_contract(
    parsed: ParsedContract, embedder: Embedder, progress: ProgressCallback = no_progress
) -> tuple[np.ndarray, list[dict]]:
    """Vectors for every clause (its first window) and, for clauses longer than one window,
    a row per window with its place in the clause."""
    clause_windows = [embedder.windows(c.text, c.heading or c.ref) for c in parsed.graph.clauses]
    flat = [w for windows in clause_windows for w in windows]

    def report(done: int, total: int) -> None:
        progress(Progress(parsed.file_name, Stage.EMBED, done / total, f"{done}/{total} passages"))

    progress(Progress(parsed.file_name, Stage.EMBED, 0.0, f"0/{len(flat)} passages"))
    vectors = embedder.encode_windows(flat, report)
    clause_vectors = np.zeros((len(clause_windows), embedder.dimension), dtype=np.float32)
    extra: list[dict] = []
    row = 0
    for index, (clause, windows) in enumerate(zip(parsed.graph.clauses, clause_windows)):
        clause_vectors[index] = vectors[row]
        if len(windows) == 1:
            row += 1
            continue
        for window in windows:  # a long clause: every window, so search can point inside it
            extra.append(
                {
                    "clause_id": clause.clause_id,
                    "doc_id": clause.doc_id,
                    "window": window.index,
                    "char_start": window.start,
                    "char_end": window.end,
                    "text": window.text,
                    "vector": vectors[row + window.index].tolist(),
                    "embedding_model": embedder.model_name,
                }
            )
        row += len(windows)
    return clause_vectors, extra


def page_rows(doc_id: str, text: DocumentText) -> list[dict]:
    """Each page's text and word boxes, in the shape of the store's pages table."""
    rows = []
    bounds = text.page_starts + [len(text.text)]
    by_page: dict[int, list] = {}
    for word in text.words:
        by_page.setdefault(word.page, []).append(word)
    for number in range(1, text.page_count + 1):
        words = by_page.get(number, [])
        width, height = text.page_sizes[number - 1]
        rows.append(
            {
                "doc_id": doc_id,
                "page": number,
                "width": width,
                "height": height,
                "text_start": bounds[number - 1],
                "text": text.text[bounds[number - 1] : bounds[number]],
                "word_start": [w.start for w in words],
                "word_end": [w.end for w in words],
                "x0": [w.x0 for w in words],
                "y0": [w.y0 for w in words],
                "x1": [w.x1 for w in words],
                "y1": [w.y1 for w in words],
            }
        )
    return rows


@dataclass
class PreparedContract:
    """Everything one contract's rows are made of, before the store is touched: what a worker
    elsewhere (another process, a Ray task on another machine) hands to the one committer."""

    parsed: ParsedContract
    clause_vectors: np.ndarray
    windows: list[dict]
    embedding_model: str
    embed_seconds: float


def prepare_contract(
    data: bytes,
    file_name: str,
    embedder: Embedder,
    progress: ProgressCallback = no_progress,
    max_pages: int | None = None,
    parse: Callable[[bytes, str, ProgressCallback, int | None], ParsedContract] | None = None,
) -> PreparedContract:
    """Parse, structure and embed one file; raises for a file that cannot be read."""
    parsed = (parse or parse_contract)(data, file_name, progress, max_pages)
    embed_started = time.perf_counter()
    clause_vectors, windows = embed_contract(parsed, embedder, progress)
    return PreparedContract(parsed, clause_vectors, windows, embedder.model_name, time.perf_counter() - embed_started)


def ingest_bytes(
    store: ClauseStore,
    embedder: Embedder,
    data: bytes,
    file_name: str,
    progress: ProgressCallback = no_progress,
    max_pages: int | None = None,
    parse: Callable[[bytes, str, ProgressCallback, int | None], ParsedContract] | None = None,
) -> IngestOutcome:
    """Ingest one file; never raises for a bad file, the outcome says what went wrong.
    `parse` stands in for parse_contract when another process parsed the file (parallel.py)."""
    started = time.perf_counter()
    unchanged = already_stored(store, file_name, document_id(data) if data else None)
    if unchanged is not None:
        return unchanged
    return commit_contract(store, data, file_name, lambda: prepare_contract(data, file_name, embedder, progress, max_pages, parse), progress, started)


def commit_contract(
    store: ClauseStore,
    data: bytes,
    file_name: str,
    prepare: Callable[[], PreparedContract],
    progress: ProgressCallback = no_progress,
    started: float | None = None,
) -> IngestOutcome:
    """Write a prepared contract (`prepare` makes it, or hands over one made elsewhere, or
    raises what stopped it); never raises for a bad file, the outcome says what went wrong."""
    started = time.perf_counter() if started is None else started
    try:
        prepared = prepare()
        parsed = prepared.parsed
        store_started = time.perf_counter()
        progress(Progress(file_name, Stage.STORE, 0.0, "writing to the store"))
        document = _document(parsed, prepared.embedding_model, len(data), seconds=store_started - started)
        fields = extract_fields(parsed.doc_id, parsed.graph.clauses, parsed.graph.title)
        pages = page_rows(parsed.doc_id, parsed.text)

        def waiting() -> None:
            progress(Progress(file_name, Stage.STORE, 0.0, "waiting for another ingest to finish writing"))

        with store.writing(on_wait=waiting):
            existing = store.document(parsed.doc_id)
            if existing is not None and existing.parser_version == PARSER_VERSION:  # stored meanwhile
                return unchanged_outcome(file_name, existing)
            if existing is not None:  # an older parser's version of the same file
                store.delete_document(parsed.doc_id)
            store.add_contract(
                document, parsed.graph.clauses, prepared.clause_vectors, prepared.windows, parsed.graph.edges,
                pages, data, fields, EXTRACTOR_VERSION,
            )
        finished = time.perf_counter()
        progress(Progress(file_name, Stage.STORE, 1.0, "done"))
    except Exception as error:  # a PDF that breaks a library must not take the batch down with it
        expected = isinstance(error, ClausegraphError)  # its message is written for the user
        if not expected:
            logger.exception("ingest of %s failed", file_name)
        return IngestOutcome(
            file_name=file_name, status=IngestStatus.FAILED, doc_id=document_id(data) if data else None,
            message=str(error) if expected else f"an unexpected problem stopped the ingest ({type(error).__name__}: {error}); nothing was stored",
            seconds=time.perf_counter() - started,
        )
    warnings = _parse_warnings(parsed.text)
    stages = {
        Stage.PARSE.value: parsed.parse_seconds,
        Stage.STRUCTURE.value: parsed.structure_seconds,
        Stage.EMBED.value: prepared.embed_seconds,
        Stage.STORE.value: finished - store_started,
    }
    return IngestOutcome(
        file_name=file_name, status=IngestStatus.INGESTED, doc_id=parsed.doc_id, pages=parsed.text.page_count,
        clauses=len(parsed.graph.clauses), definitions=len(parsed.graph.definitions),
        references_resolved=parsed.graph.resolved, references_unresolved=parsed.graph.unresolved,
        seconds=finished - started, stage_seconds=stages, warnings=warnings,
    )


def already_stored(store: ClauseStore, file_name: str, doc_id: str | None) -> IngestOutcome | None:
    """The "unchanged" outcome if the current parser already stored the file (`doc_id`, its
    bytes' hash; None for no bytes): nothing to parse."""
    existing = current_document(store, doc_id) if doc_id is not None else None
    return unchanged_outcome(file_name, existing) if existing is not None else None


def current_document(store: ClauseStore, doc_id: str) -> Document | None:
    """The stored document with this id if the current parser made it: then there is nothing to ingest."""
    existing = store.document(doc_id)
    return existing if existing is not None and existing.parser_version == PARSER_VERSION else None


def unchanged_outcome(file_name: str, existing: Document) -> IngestOutcome:
    return IngestOutcome(
        file_name=file_name, status=IngestStatus.UNCHANGED, doc_id=existing.doc_id, pages=existing.pages,
        clauses=existing.clauses, definitions=existing.definitions,
        references_resolved=existing.references_resolved, references_unresolved=existing.references_unresolved,
        message=f"already in the library as {existing.file_name}; nothing to do",
    )


def _document(parsed: ParsedContract, embedding_model: str, size: int, seconds: float) -> Document:
    graph = parsed.graph
    return Document(
        doc_id=parsed.doc_id,
        file_name=parsed.file_name,
        title=graph.title,
        pages=parsed.text.page_count,
        clauses=len(graph.clauses),
        definitions=len(graph.definitions),
        references_resolved=graph.resolved,
        references_unresolved=graph.unresolved,
        clause_types=graph.type_counts,
        pages_without_text=parsed.text.pages_without_text,
        parser_version=PARSER_VERSION,
        embedding_model=embedding_model,
        ingested_at=datetime.now(timezone.utc),
        ingest_seconds=seconds,
        size_bytes=size,
    )
