"""The one Library per store that every page and session shares."""

from __future__ import annotations

import sys
import threading

import streamlit as st

from engine.errors import ClausegraphError
from engine.service import Library
from engine.settings import store_location
from models.document import Document


def _argument(name: str) -> str | None:
    args = sys.argv[1:]
    if name in args and args.index(name) + 1 < len(args):
        return args[args.index(name) + 1]
    return None


def store_argument() -> str | None:
    """`streamlit run app.py -- --db DIR` picks the store; else $CLAUSEGRAPH_DB or data/store."""
    return _argument("--db")


@st.cache_resource(show_spinner="Opening the contract library…")
def _library(store: str, preset: str | None) -> Library:
    library = Library(store, preset=preset)
    library.restore_llm()
    library.complete_vectors_in_background()  # contracts left with quick vectors by a CLI ingest or a closed app
    threading.Thread(target=library.parsers.warm, name="start-parsers", daemon=True).start()  # the first upload waits less
    threading.Thread(target=library.warm_up, name="load-question-readers", daemon=True).start()  # and the first question
    return library


def library() -> Library:
    """The shared Library (`-- --preset NAME` picks the settings preset); a store this version
    cannot open stops the page with what to do."""
    try:
        return _library(str(store_location(store_argument())), _argument("--preset"))
    except ClausegraphError as error:
        st.error(f"The contract library cannot be opened: {error}", icon=":material/error:")
        st.stop()


def library_documents(lib: Library) -> list[Document] | None:
    """The library's contracts, or None after telling the user the library is empty."""
    documents = lib.documents()
    if not documents:
        st.info("The library is empty. Add contracts on the Library page first.", icon=":material/folder_open:")
        return None
    return documents


def contract_scope(documents: list[Document], key: str) -> list[str] | None:
    """The contracts the user picked (doc ids), or None for all of them; remembered across pages."""
    with Remembered(key):
        labels = {d.file_name: d.doc_id for d in documents}
        chosen = st.multiselect("Contracts (none chosen = all)", list(labels), key=key, placeholder=f"All {len(documents)} contracts")
    return [labels[c] for c in chosen] or None


# ------------------------------------------------------------------ what pages hand each other

VIEWER_PAGE = "pages/viewer.py"


def conversation() -> list:
    """This session's answers, oldest first (engine Answer objects)."""
    return st.session_state.setdefault("conversation", [])


def open_in_viewer(citations: list, index: int = 0) -> None:
    """Show citation `index` of `citations` in the viewer, with next/previous through the rest."""
    st.session_state["viewer"] = {"citations": [c.model_dump() for c in citations], "index": index}
    _fresh_viewer()


def open_page_in_viewer(doc_id: str, page: int) -> None:
    """Show a page with nothing highlighted (a search hit's clause, a graph node)."""
    st.session_state["viewer"] = {"doc_id": doc_id, "page": page, "citations": [], "index": 0}
    _fresh_viewer()


def _fresh_viewer() -> None:
    for key in ("viewer_page", "viewer_outline", "viewer_outline_done", "viewer_doc"):
        st.session_state.pop(key, None)
    st.switch_page(VIEWER_PAGE)


class Remembered:
    """Widgets whose values outlive a visit to another page.

    Streamlit forgets a widget's value when a run does not draw it, and a page cannot read
    the value before its widget is drawn again; so the page puts the last value back before
    drawing (`with Remembered(...)`) and copies it aside after.
    """

    def __init__(self, *keys: str) -> None:
        self.keys = keys

    def __enter__(self) -> Remembered:
        for key in self.keys:
            saved = f"_remembered_{key}"
            if key not in st.session_state and saved in st.session_state:
                st.session_state[key] = st.session_state[saved]
        return self

    def __exit__(self, *exc) -> None:
        for key in self.keys:
            if key in st.session_state:
                st.session_state[f"_remembered_{key}"] = st.session_state[key]
