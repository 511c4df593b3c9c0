"""Graph: one contract's clause graph, the last answer's clauses and the path between them;
click a clause (or pick it) to read it in the viewer."""

from __future__ import annotations

import streamlit as st

from engine.errors import ClausegraphError
from models.edge import EdgeType
from ui.graph_figure import graph_figure
from ui.state import Remembered, conversation, library, library_documents, open_in_viewer, open_page_in_viewer

_EDGE_NAMES = {EdgeType.PARENT_OF: "Hierarchy", EdgeType.REFERENCES: "Cross-references", EdgeType.DEFINES: "Definitions"}


def _open_clause(lib, doc_id: str, clause_id: str) -> None:
    citation = lib.clause_citation(doc_id, clause_id)
    if citation is not None:
        open_in_viewer([citation])
    else:
        open_page_in_viewer(doc_id, lib.graph(doc_id).by_id[clause_id].page_start)


def _last_answer_clauses(doc_id: str) -> list[str]:
    answers = conversation()
    if not answers:
        return []
    return [c.clause_id for c in answers[-1].citations if c.doc_id == doc_id]


def graph_page() -> None:
    lib = library()  # the contract follows the last answer
    st.title("Clause graph")
    documents = library_documents(lib)
    if documents is None:
        return
    cited_docs = [c.doc_id for c in (conversation()[-1].citations if conversation() else [])]
    names = {d.file_name: d.doc_id for d in documents}
    default = next((n for n, i in names.items() if cited_docs and i == cited_docs[0]), next(iter(names)))
    doc_id = names[st.selectbox("Contract", list(names), index=list(names).index(default), key="graph_doc")]
    try:
        graph = lib.graph(doc_id)
    except ClausegraphError as error:
        st.error(str(error))
        return
    with Remembered("graph_edges"):
        if "graph_edges" not in st.session_state:
            st.session_state["graph_edges"] = [EdgeType.REFERENCES, EdgeType.DEFINES]
        shown = st.pills("Edges", list(_EDGE_NAMES), format_func=_EDGE_NAMES.get, selection_mode="multi", key="graph_edges")
    edge_types = set(shown or [])
    cited = _last_answer_clauses(doc_id)
    view = lib.graph_view(doc_id, cited, edge_types or None)
    counts = {t: sum(1 for link in view.layout.links if link.type is t) for t in _EDGE_NAMES}
    st.caption(
        f"{len(graph.clauses)} clauses · " + " · ".join(f"{counts[t]} {_EDGE_NAMES[t].lower()}" for t in _EDGE_NAMES)
        + (f" · the last answer cites {len(set(cited))} clause(s) here; the red path joins them" if cited else "")
    )
    event = st.plotly_chart(
        graph_figure(view.layout, edge_types, view.cited, view.path_nodes, view.path_edges),
        on_select="rerun", selection_mode="points", key="graph_chart", width="stretch",
        config={"scrollZoom": True, "displaylogo": False},
    )
    points = event.get("selection", {}).get("points", []) if event else []  # each node's customdata is its clause id
    clicked = next((p.get("customdata") for p in points if p.get("customdata")), None)
    if clicked:
        _open_clause(lib, doc_id, clicked)
    labels = {f"{c.ref} {c.heading}".strip(): c.clause_id for c in sorted(graph.clauses, key=lambda c: c.order)}
    pick, button = st.columns([5, 1], vertical_alignment="bottom")
    chosen = pick.selectbox("Open a clause in the viewer", list(labels), key="graph_clause")
    if button.button("Open", key="graph_open", icon=":material/open_in_new:"):
        _open_clause(lib, doc_id, labels[chosen])


graph_page()
