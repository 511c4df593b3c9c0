"""Ask: a chat over the contracts in scope, every answer cited word for word."""

from __future__ import annotations

import logging

import streamlit as st

from engine.service import conversation_markdown
from models.clause import ClauseType
from models.document import Document
from models.enumeration import Enumeration
from models.per_contract import PerContract
from models.plan import Filters
from ui.answer_view import show_answer, show_enumeration, show_per_contract
from ui.errors import reported
from ui.state import Remembered, contract_scope, conversation, library, library_documents

log = logging.getLogger(__name__)


def _scope(documents: list[Document]) -> tuple[list[str] | None, Filters]:
    with st.sidebar, Remembered("ask_types"):
        st.subheader("Scope")
        doc_ids = contract_scope(documents, "ask_docs")
        types = st.multiselect(
            "Only these clause types", [t.value for t in ClauseType], key="ask_types",
            format_func=lambda v: v.replace("_", " "), placeholder="Any clause type",
        )
    return doc_ids, Filters(clause_types=[ClauseType(t) for t in types])


def _backend_banner(lib) -> None:
    spec = lib.llm_spec
    if lib.llm is None:
        st.info(
            "**Extractive mode**: no language model is set, so answers are the contracts' own sentences, each cited. "
            "Choose a local model on the Settings page for written answers.", icon=":material/format_quote:",
        )
    else:
        st.success(f"Answers are written by **{spec.backend.value} model {spec.model}** at {spec.url}, and every quote is checked.", icon=":material/smart_toy:")


def _ask(lib, question: str, doc_ids: list[str] | None, filters: Filters) -> None:
    with st.chat_message("user"):
        st.markdown(question)
    with st.chat_message("assistant"):
        draft = st.empty()

        def stream(text: str) -> None:
            draft.markdown(f"*Drafting…*\n\n{text[-1500:]}")

        bar = st.empty()

        def progress(done: int, total: int) -> None:
            bar.progress(done / total, text=f"Answering contract by contract: {done} of {total}")

        failed = "Something went wrong while answering. The question was not lost: try again, or check the log."
        with reported(log, "answering", "{error}", failed) as attempt, st.spinner("Searching the clause graph and checking quotes…"):
            answer = lib.ask(question, doc_ids, filters, on_text=stream, on_progress=progress).shown
        if attempt.failed:
            return
        draft.empty()
        bar.empty()
    conversation().append(answer)
    st.rerun()


def ask_page() -> None:
    lib = library()
    st.title("Ask")
    documents = library_documents(lib)
    if documents is None:
        return
    doc_ids, filters = _scope(documents)
    _backend_banner(lib)
    answers = conversation()
    for turn, answer in enumerate(answers):
        with st.chat_message("user"):
            st.markdown(answer.query.question if isinstance(answer, Enumeration) else answer.question)
        with st.chat_message("assistant"):
            # a statement, not a conditional expression: Streamlit's magic would print its value, None
            if isinstance(answer, Enumeration):
                show_enumeration(answer, turn)
            elif isinstance(answer, PerContract):
                show_per_contract(answer, turn)
            else:
                show_answer(answer, turn)
    if answers:
        left, right = st.columns([1, 1])
        left.download_button(
            "Export conversation (Markdown)", conversation_markdown(answers), file_name="clausegraph-conversation.md",
            mime="text/markdown", icon=":material/download:", key="export",
        )
        if right.button("Clear conversation", icon=":material/delete_sweep:", key="clear"):
            answers.clear()
            st.rerun()
    question = st.chat_input("Ask about the contracts in scope, e.g. “Which law governs this agreement?”")
    if question and question.strip():
        _ask(lib, question.strip(), doc_ids, filters)


ask_page()
