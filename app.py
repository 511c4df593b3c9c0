"""Clausegraph: the contract library (this page) and the app's navigation.

    streamlit run app.py [-- --db DIR]
"""

from __future__ import annotations

import streamlit as st

from engine.errors import ClausegraphError
from engine.settings import PROJECT_ROOT
from models.document import Document
from ui.progress import ingest_with_progress, show_outcome
from ui.state import library

st.set_page_config(page_title="Clausegraph", page_icon=str(PROJECT_ROOT / "ui" / "clausegraph.png"), layout="wide")


def _clause_type_summary(document: Document, top: int = 4) -> str:
    shown = [(t, n) for t, n in document.clause_types.items() if t not in ("other", "parties", "signatures")]
    return ", ".join(f"{t.replace('_', ' ')} {n}" for t, n in shown[:top])


def _vectors_label(document: Document, full_model: str) -> str:
    return "full" if document.embedding_model == full_model else "quick"


def _documents_table(documents: list[Document], full_model: str) -> None:
    rows = [
        {
            "File": d.file_name,
            "Title": d.title,
            "Pages": d.pages,
            "Clauses": d.clauses,
            "Definitions": d.definitions,
            "References": f"{d.references_resolved} / {d.references_resolved + d.references_unresolved}",
            "Clause types": _clause_type_summary(d),
            "Vectors": _vectors_label(d, full_model),
            "Added": d.ingested_at.astimezone().strftime("%Y-%m-%d %H:%M"),
        }
        for d in documents
    ]
    columns = {
        "File": st.column_config.TextColumn(width="medium"),
        "Title": st.column_config.TextColumn(width="medium"),
        "Pages": st.column_config.NumberColumn(width="small"),
        "Clauses": st.column_config.NumberColumn(width="small"),
        "Definitions": st.column_config.NumberColumn(width="small"),
        "References": st.column_config.TextColumn(width="small", help="cross-references resolved / found"),
        "Clause types": st.column_config.TextColumn(width="large"),
        "Vectors": st.column_config.TextColumn(
            width="small", help="full: MiniLM vectors; quick: static vectors, searchable at once, replaced by full ones in the background"
        ),
    }
    st.dataframe(rows, hide_index=True, width="stretch", column_config=columns)


def _first_start(lib) -> None:
    """An empty library gets the sample contracts, so there is something to ask about."""
    if st.session_state.get("samples_checked"):
        return
    st.session_state["samples_checked"] = True
    samples = lib.samples_for_new_library()
    if not samples:
        return
    with st.status("Adding the sample contracts to your new library…", expanded=True) as status:
        files = [(path.name, path.read_bytes()) for path in samples]
        outcomes = ingest_with_progress(lib, files)
        for outcome in outcomes:
            show_outcome(outcome)
        status.update(label=f"Added {len(files)} sample contracts", state="complete", expanded=False)


def _upload(lib) -> None:
    generation = st.session_state.setdefault("upload_generation", 0)
    uploads = st.file_uploader(
        "Drop contract PDFs here", type=["pdf"], accept_multiple_files=True, key=f"uploads-{generation}",
        help="Each file is parsed, split into clauses, linked into a clause graph and embedded locally.",
    )
    if uploads and st.button(f"Add {len(uploads)} file{'s' if len(uploads) > 1 else ''} to the library", type="primary"):
        outcomes = ingest_with_progress(lib, [(u.name, u.getvalue()) for u in uploads])
        st.session_state["last_outcomes"] = [o.model_dump(mode="json") for o in outcomes]
        st.session_state["upload_generation"] = generation + 1
        st.rerun()
    for raw in st.session_state.get("last_outcomes", []):
        from models.document import IngestOutcome

        show_outcome(IngestOutcome(**raw))


@st.fragment(run_every=2)
def _vector_progress(lib) -> None:
    """While full vectors are being made: how far, refreshed on its own every two seconds."""
    status = lib.vector_status()
    if status.complete or not lib.makes_full_vectors:
        if not status.complete:
            st.caption(f"{len(status.pending)} contract(s) use quick vectors only (setting ingest.vectors = quick).")
        return
    total = status.ready + len(status.pending)
    text = f"Full vectors: {status.ready} of {total} contracts ready"
    if status.working_on:
        text += f" · working on {status.working_on} ({status.fraction:.0%})"
    st.progress((status.ready + status.fraction) / total, text=text)
    st.caption(
        "Every contract is searchable now by keyword, clause graph and quick vectors; answers say when they were "
        "made before a contract's full vectors were ready."
    )
    if status.error:
        st.warning(f"Full vectors stopped: {status.error}. Those contracts stay searchable with quick vectors.", icon=":material/warning:")


def _delete(lib, documents: list[Document]) -> None:
    with st.expander("Remove contracts", icon=":material/delete:"):
        labels = {f"{d.file_name} ({d.doc_id[:8]})": d.doc_id for d in documents}
        chosen = st.multiselect("Contracts to remove", list(labels), key="delete_choice")
        if chosen and st.button(f"Remove {len(chosen)} contract{'s' if len(chosen) > 1 else ''}", key="delete_ask"):
            st.session_state["delete_pending"] = [labels[c] for c in chosen]
        pending = st.session_state.get("delete_pending")
        if pending:
            st.warning(f"Remove {len(pending)} contract(s) and everything derived from them? This cannot be undone.")
            confirm, cancel = st.columns(2)
            if confirm.button("Yes, remove", type="primary", key="delete_confirm"):
                for doc_id in pending:
                    lib.delete(doc_id)
                st.session_state.pop("delete_pending")
                st.session_state.pop("delete_choice", None)
                st.toast(f"Removed {len(pending)} contract(s)")
                st.rerun()
            if cancel.button("Cancel", key="delete_cancel"):
                st.session_state.pop("delete_pending")
                st.rerun()


def library_page() -> None:
    lib = library()
    st.title("Contract library")
    st.caption("Everything stays on this machine: parsing, embeddings and search run locally.")
    try:
        _first_start(lib)
        _upload(lib)
        documents = lib.documents()
        st.subheader(f"{len(documents)} contract{'s' if len(documents) != 1 else ''}")
        if not documents:
            st.info("The library is empty. Drop contract PDFs above to add them.")
            return
        _vector_progress(lib)
        _documents_table(documents, lib.embedder.model_name)
        _delete(lib, documents)
    except ClausegraphError as error:
        st.error(str(error))


def _sidebar() -> None:
    lib = library()
    with st.sidebar:
        st.caption(f"Store: `{lib.settings.store}`")
        st.caption(f"Embeddings: {lib.embedder.model_name} (local)")


navigation = st.navigation(
    [
        st.Page(library_page, title="Library", icon=":material/folder_open:", default=True),
        st.Page("pages/ask.py", title="Ask", icon=":material/forum:"),
        st.Page("pages/viewer.py", title="Viewer", icon=":material/picture_as_pdf:"),
        st.Page("pages/search.py", title="Search", icon=":material/search:"),
        st.Page("pages/graph.py", title="Clause graph", icon=":material/hub:"),
        st.Page("pages/grid.py", title="Review grid", icon=":material/table_view:"),
        st.Page("pages/review.py", title="Playbook review", icon=":material/fact_check:"),
        st.Page("pages/corpus.py", title="Corpus", icon=":material/bar_chart:"),
        st.Page("pages/contract.py", title="Contract structure", icon=":material/account_tree:"),
        st.Page("pages/settings.py", title="Settings", icon=":material/settings:"),
    ]
)
_sidebar()
navigation.run()
