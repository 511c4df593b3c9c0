"""One contract's clause graph: its outline, definitions and cross-references."""

from __future__ import annotations

import streamlit as st

from engine.errors import ClausegraphError
from models.document import DocumentDetail
from models.edge import EdgeType
from ui.state import library, library_documents


def _outline_rows(detail: DocumentDetail) -> list[dict]:
    return [
        {
            "Clause": "\u2003" * (c.level - 1) + c.ref,
            "Heading": c.heading,
            "Type": c.clause_type.value.replace("_", " "),
            "Pages": f"{c.page_start}" if c.page_start == c.page_end else f"{c.page_start}–{c.page_end}",
            "Words": len(c.text.split()),
        }
        for c in detail.clauses
    ]


def _clause_panel(detail: DocumentDetail) -> None:
    clauses = {f"{c.ref} {c.heading}".strip(): c for c in detail.clauses}
    label = st.selectbox("Read a clause", list(clauses), key="contract_clause")
    clause = clauses[label]
    st.markdown(f"**{clause.ref}** {clause.heading} · {clause.clause_type.value.replace('_', ' ')} · page {clause.page_start}")
    st.text(clause.text)
    outgoing = [e for e in detail.edges if e.src == clause.clause_id and e.type is EdgeType.REFERENCES]
    incoming = [e for e in detail.edges if e.dst == clause.clause_id and e.type is EdgeType.REFERENCES]
    definitions = [e for e in detail.edges if e.dst == clause.clause_id and e.type is EdgeType.DEFINES]
    columns = st.columns(3)
    columns[0].markdown("**Cites**\n\n" + ("\n".join(f"- {e.dst_ref or 'unresolved'} ({e.label})" for e in outgoing) or "nothing"))
    columns[1].markdown("**Cited by**\n\n" + ("\n".join(f"- {e.src_ref}" for e in incoming) or "nothing"))
    columns[2].markdown("**Uses defined terms**\n\n" + ("\n".join(f"- {e.label} ({e.src_ref})" for e in definitions) or "none"))


def contract_page() -> None:
    lib = library()
    st.title("Contract structure")
    documents = library_documents(lib)
    if documents is None:
        return
    names = {f"{d.title} — {d.file_name}": d.doc_id for d in documents}
    chosen = st.selectbox("Contract", list(names), key="contract_doc")
    try:
        detail = lib.detail(names[chosen])
    except ClausegraphError as error:
        st.error(str(error))
        return
    document = detail.document
    references = [e for e in detail.edges if e.type is EdgeType.REFERENCES]
    metrics = st.columns(5)
    metrics[0].metric("Pages", document.pages)
    metrics[1].metric("Clauses", document.clauses)
    metrics[2].metric("Definitions", document.definitions)
    metrics[3].metric("References resolved", document.references_resolved)
    metrics[4].metric("Unresolved", document.references_unresolved)
    if document.pages_without_text:
        st.warning(f"Pages not read (no text layer, and no text recognised on them): {', '.join(map(str, document.pages_without_text))}")
    outline, terms, refs = st.tabs(["Outline", "Definitions", "Cross-references"])
    with outline:
        st.dataframe(_outline_rows(detail), hide_index=True, width="stretch", height=420)
        _clause_panel(detail)
    with terms:
        uses = {}
        for edge in detail.edges:
            if edge.type is EdgeType.DEFINES:
                uses[edge.label] = uses.get(edge.label, 0) + 1
        st.dataframe(
            [{"Term": d.term, "Defined in": d.ref, "Used in clauses": uses.get(d.term, 0)} for d in detail.definitions],
            hide_index=True, width="stretch",
        )
    with refs:
        st.dataframe(
            [{"From": e.src_ref, "To": e.dst_ref or "— unresolved —", "As written": e.label} for e in references],
            hide_index=True, width="stretch",
        )


contract_page()
