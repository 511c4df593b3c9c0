"""Show ingestion moving through its stages: parse, structure, embed, store."""

from __future__ import annotations

import streamlit as st

from engine.service import Library, Progress, Stage
from models.document import IngestOutcome, IngestStatus

# Where each stage starts on the bar and how much of it it fills: MiniLM embedding dominates an
# ingest that makes full vectors; with quick vectors (the default) parsing takes most of the time.
_FULL_SPANS = {Stage.PARSE: (0.0, 0.10), Stage.STRUCTURE: (0.10, 0.05), Stage.EMBED: (0.15, 0.80), Stage.STORE: (0.95, 0.05)}
_QUICK_SPANS = {Stage.PARSE: (0.0, 0.60), Stage.STRUCTURE: (0.60, 0.20), Stage.EMBED: (0.80, 0.05), Stage.STORE: (0.85, 0.15)}
_STAGE_LABEL = {Stage.PARSE: "Parsing", Stage.STRUCTURE: "Finding structure", Stage.EMBED: "Embedding", Stage.STORE: "Storing"}


def ingest_with_progress(library: Library, files: list[tuple[str, bytes]]) -> list[IngestOutcome]:
    """Ingest uploaded files, each with its own progress bar (the next ones are parsed while one
    is stored); bars follow each file's place in the batch, so two files of one name keep two bars."""
    spans = _FULL_SPANS if library.settings.ingest.vectors == "full" else _QUICK_SPANS
    bars = [st.progress(0.0, text=f"{name}: waiting") for name, _ in files]

    def update(event: Progress) -> None:
        if event.item is None or not 0 <= event.item < len(bars):
            return
        start, span = spans[event.stage]
        detail = f" ({event.message})" if event.message else ""
        bars[event.item].progress(min(start + span * event.fraction, 1.0), text=f"{event.file_name}: {_STAGE_LABEL[event.stage]}{detail}")

    outcomes: list[IngestOutcome] = []
    for bar, outcome in zip(bars, library.ingest_many(files, update)):
        bar.progress(1.0, text=f"{outcome.file_name}: {outcome.status.value}")
        outcomes.append(outcome)
    library.refresh_indexes(outcomes)
    return outcomes


def show_outcome(outcome: IngestOutcome) -> None:
    if outcome.status is IngestStatus.FAILED:
        st.error(f"**{outcome.file_name}** was not added: {outcome.message}", icon=":material/error:")
    elif outcome.status is IngestStatus.UNCHANGED:
        st.info(f"**{outcome.file_name}** is {outcome.message}", icon=":material/info:")
    else:
        st.success(
            f"**{outcome.file_name}**: {outcome.pages} pages, {outcome.clauses} clauses, "
            f"{outcome.definitions} definitions, {outcome.references_resolved} cross-references resolved "
            f"({outcome.references_unresolved} unresolved), {outcome.seconds:.1f} s",
            icon=":material/check_circle:",
        )
        for warning in outcome.warnings:
            st.warning(f"**{outcome.file_name}**: {warning}", icon=":material/warning:")
