"""Search: find clauses by keyword, meaning, both, or through the clause graph, with filters
and presets for what analysts look up every day; every hit opens in the viewer."""

from __future__ import annotations

import logging

import streamlit as st

from models.clause import ClauseType
from models.document import Document
from models.plan import Filters, PageRange
from models.retrieval import Mode
from ui.errors import reported
from ui.state import Remembered, library, library_documents, open_in_viewer, open_page_in_viewer

log = logging.getLogger(__name__)

_MODES = {
    Mode.KEYWORD.value: "Keyword",
    Mode.VECTOR.value: "Semantic",
    Mode.HYBRID.value: "Hybrid",
    Mode.GRAPH.value: "Graph (hybrid + definitions and cross-references)",
}
PRESETS = {
    "Termination": ("termination rights and notice", [ClauseType.TERM_TERMINATION]),
    "Liability cap": ("limitation of liability cap amount", []),
    "Governing law": ("governing law and jurisdiction", []),
    "Assignment": ("assignment of this agreement, consent required", []),
    "Audit": ("audit rights, inspection of records", []),
}


def _preset(name: str) -> None:
    query, types = PRESETS[name]
    st.session_state["search_query"] = query
    st.session_state["search_types"] = [t.value for t in types]


def _definition_preset() -> None:
    term = st.session_state.get("search_term", "").strip()
    if term:
        st.session_state["search_query"] = f"“{term}” means"
        st.session_state["search_types"] = [ClauseType.DEFINITIONS.value]
        st.session_state["search_mode"] = Mode.KEYWORD.value


def _filters(documents: list[Document]) -> tuple[list[str] | None, Filters, Mode]:
    with st.sidebar, Remembered("search_docs", "search_types", "search_sections", "search_page_from", "search_page_to", "search_mode"):
        st.subheader("Search in")
        labels = {d.file_name: d.doc_id for d in documents}
        chosen = st.multiselect("Contracts (none chosen = all)", list(labels), key="search_docs", placeholder=f"All {len(documents)} contracts")
        types = st.multiselect("Clause types", [t.value for t in ClauseType], key="search_types", format_func=lambda v: v.replace("_", " "))
        sections = st.text_input("Sections (e.g. 8.2, 12)", key="search_sections")
        first, last = st.columns(2)
        page_from = first.number_input("From page", min_value=0, value=0, key="search_page_from", help="0: no limit")
        page_to = last.number_input("To page", min_value=0, value=0, key="search_page_to", help="0: no limit")
        mode = st.radio("Mode", list(_MODES), format_func=_MODES.get, index=3, key="search_mode")
    pages = None
    if page_from or page_to:
        pages = PageRange(first=max(1, page_from or 1), last=max(page_from or 1, page_to or 100000))
    filters = Filters(
        clause_types=[ClauseType(t) for t in types],
        section_refs=[s.strip() for s in sections.replace(";", ",").split(",") if s.strip()],
        pages=pages,
    )
    return ([labels[c] for c in chosen] or None), filters, Mode(mode)


def _presets() -> None:
    columns = st.columns(len(PRESETS) + 1)
    for column, name in zip(columns, PRESETS):
        column.button(name, key=f"preset_{name}", on_click=_preset, args=(name,), width="stretch")
    with columns[-1].popover("Definition of…", width="stretch"):
        st.text_input("Defined term", key="search_term", placeholder="e.g. Confidential Information")
        st.button("Find its definition", key="preset_definition", on_click=_definition_preset)


def _show_hits(lib, retrieval) -> None:
    passages = retrieval.ranked_passages()
    st.caption(f"{len(passages)} passage{'s' if len(passages) != 1 else ''}, best first · {retrieval.seconds * 1000:.0f} ms")
    for rank, passage in enumerate(passages, start=1):
        hit = lib.hit(passage)
        with st.container(border=True):
            head, button = st.columns([6, 1], vertical_alignment="center")
            path = " › ".join(hit.section_path)
            head.markdown(
                f"**{rank}. {hit.file_name}** · {path} {passage.heading} · page {passage.page} · "
                f"{hit.clause_type.replace('_', ' ')}  \n:gray[{passage.why.describe()}]"
            )
            if button.button("View", key=f"hit-{rank}", icon=":material/open_in_new:"):
                if hit.citation is not None:
                    open_in_viewer([hit.citation])
                else:
                    open_page_in_viewer(passage.doc_id, passage.page)
            text = " ".join(passage.text.split())
            st.markdown(f"> {text[:700]}{'…' if len(text) > 700 else ''}")


def search_page() -> None:
    lib = library()
    st.title("Search")
    documents = library_documents(lib)
    if documents is None:
        return
    doc_ids, filters, mode = _filters(documents)
    _presets()
    with Remembered("search_query"):
        query = st.text_input("Search the clauses", key="search_query", placeholder="e.g. notice period for termination")
    if not query.strip():
        st.caption("Type a query, or pick a preset.")
        return
    failed = "The search failed. Your query and filters are kept: try again, or check the log."
    with reported(log, "search", "{error}", failed) as attempt, st.spinner("Searching…"):
        retrieval = lib.search(query.strip(), doc_ids, mode, filters)
    if attempt.failed:
        return
    for note in retrieval.plan.notes:  # how the query was read: its spelling, the sections and terms it names
        st.caption(f":material/info: {note}")
    if not retrieval.passages:
        st.warning("No clause matches this query with these filters.", icon=":material/search_off:")
        return
    _show_hits(lib, retrieval)


search_page()
