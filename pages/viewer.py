"""Viewer: the PDF page with the cited words highlighted, an outline to jump around, and
next/previous through the answer's citations."""

from __future__ import annotations

import logging

import streamlit as st

from engine.errors import ClausegraphError
from models.answer import Citation, section_name
from ui.state import library, library_documents

log = logging.getLogger(__name__)


def _target() -> tuple[list[Citation], int]:
    state = st.session_state.get("viewer") or {}
    citations = [Citation(**c) for c in state.get("citations", [])]
    return citations, min(state.get("index", 0), max(len(citations) - 1, 0))


def _step(delta: int) -> None:
    state = st.session_state["viewer"]
    state["index"] = (state["index"] + delta) % len(state["citations"])
    st.session_state.pop("viewer_page", None)


def _citation_bar(citations: list[Citation], index: int) -> Citation:
    citation = citations[index]
    left, middle, right = st.columns([1, 6, 1], vertical_alignment="center")
    left.button("Previous", icon=":material/arrow_back:", key="cite_prev", on_click=_step, args=(-1,), disabled=len(citations) < 2)
    right.button("Next", icon=":material/arrow_forward:", key="cite_next", on_click=_step, args=(1,), disabled=len(citations) < 2)
    pages = f"page {citation.page}" if citation.page == citation.page_end else f"pages {citation.page}–{citation.page_end}"
    middle.markdown(f"**Citation [{citation.number}] of {len(citations)}** · {citation.file_name} · {section_name(citation.ref)} · {pages}")
    st.markdown(f"> {' '.join(citation.quote.split())}")
    return citation


def _outline(detail, current_page: int) -> None:
    """Jump to a clause: the outline of the document, indented by level."""
    labels = {f"{'  ' * (c.level - 1)}{c.ref} {c.heading}".rstrip() + f"  (p. {c.page_start})": c.page_start for c in detail.clauses}
    choice = st.selectbox("Jump to a clause", ["—", *labels], key="viewer_outline")
    if choice != "—" and st.session_state.get("viewer_outline_done") != choice:
        st.session_state["viewer_outline_done"] = choice
        st.session_state["viewer_page"] = labels[choice]
        st.rerun()
    page = st.number_input("Page", min_value=1, max_value=detail.document.pages, value=current_page, key=f"viewer_page_input_{current_page}")
    if page != current_page:
        st.session_state["viewer_page"] = int(page)
        st.rerun()


def viewer_page() -> None:
    lib = library()
    st.title("Viewer")
    documents = library_documents(lib)
    if documents is None:
        return
    citations, index = _target()
    citation = _citation_bar(citations, index) if citations else None
    state = st.session_state.get("viewer") or {}
    if citation is not None:
        doc_id = citation.doc_id
    else:
        names = {d.file_name: d.doc_id for d in documents}
        fallback = next((n for n, i in names.items() if i == state.get("doc_id")), next(iter(names)))
        doc_id = names[st.selectbox("Contract", list(names), index=list(names).index(fallback), key="viewer_doc")]
        if doc_id != state.get("doc_id"):
            st.session_state["viewer"] = state = {"doc_id": doc_id, "page": 1, "citations": [], "index": 0}
            st.session_state.pop("viewer_page", None)
    try:
        detail = lib.detail(doc_id)
    except ClausegraphError as error:
        st.error(f"This contract is no longer in the library ({error}).")
        return
    cited_page = citation.page if citation else state.get("page", 1)
    page = min(max(1, st.session_state.get("viewer_page", cited_page)), detail.document.pages)
    side, main = st.columns([1, 3])
    with side:
        _outline(detail, page)
        focus = st.toggle("Zoom to the quote", value=True, key="viewer_focus", disabled=citation is None)
        if citation is not None and citation.page_end > citation.page:
            st.caption(f"The quote runs over pages {citation.page}–{citation.page_end}; each part is highlighted.")
        if citation is not None and st.button("Browse other contracts", key="viewer_leave", icon=":material/folder_open:"):
            st.session_state["viewer"] = {"doc_id": doc_id, "page": page, "citations": [], "index": 0}
            st.rerun()
    with main:
        pages = [page]
        if citation is not None and page == citation.page:
            pages = list(range(citation.page, citation.page_end + 1))
        for number in pages:
            try:
                image = lib.page_image(doc_id, number, citation.rects if citation else [], focus=focus and citation is not None)
            except (ValueError, OSError) as error:
                log.warning("cannot render page %s: %s", number, error)
                st.error(f"Page {number} cannot be shown: {error}")
                continue
            caption = f"{detail.document.file_name} — page {number} of {image.pages}"
            if image.highlights:
                caption += f" · {image.highlights} highlighted line{'s' if image.highlights > 1 else ''}"
            st.image(image.png, caption=caption, width="stretch")


viewer_page()
