"""One answer in the chat: the lead, the cited claims, clickable citation chips, and how the
evidence was found; an abstention looks different and offers the closest clauses instead."""

from __future__ import annotations

import logging

import streamlit as st

from models.answer import Answer, Citation, Claim, section_name
from models.enumeration import Enumeration
from models.per_contract import PerContract
from ui.state import conversation, library, open_in_viewer

log = logging.getLogger(__name__)


def chip_label(citation: Citation) -> str:
    pages = f"p. {citation.page}" if citation.page == citation.page_end else f"pp. {citation.page}–{citation.page_end}"
    return f"[{citation.number}] {section_name(citation.ref)} · {pages} · {citation.file_name}"  # the file last: cut first when narrow


def citation_chips(citations: list[Citation], key: str) -> None:
    """One chip per citation, one under the other, each opening the viewer on its quote and
    paging through the rest (a grid cell's or a verdict's evidence)."""
    for position, citation in enumerate(citations):
        if st.button(chip_label(citation), key=f"{key}_{position}", icon=":material/format_quote:", help=citation.quote[:300]):
            open_in_viewer(citations, position)


def show_answer(answer: Answer, turn: int) -> None:
    if answer.abstained:
        _show_abstention(answer, turn)
    else:
        st.markdown(f"**{answer.lead}**")
        _claims(answer.stating_claims)
        more = answer.more_evidence
        _chips([c for c in answer.citations if c.number not in more], turn, answer.citations)
        if more:
            with st.expander(f"More evidence ({len(more)})", icon=":material/unfold_more:"):
                _claims(answer.more_claims)
                _chips([c for c in answer.citations if c.number in more], turn, answer.citations)
    for note in answer.notes:
        st.caption(f":material/info: {note}")
    st.caption(f"Answered by **{answer.backend_label}** · evidence support {answer.support:.2f} · {answer.seconds:.2f} s")
    _how_found(answer, turn)


def _claims(claims: list[Claim]) -> None:
    for claim in claims:
        marks = " ".join(f"[{n}]" for n in claim.citations)  # "[1][2]" would read as a markdown link
        st.markdown(f"- {claim.text} {marks}")


def _chips(citations: list[Citation], turn: int, viewed: list[Citation] | None = None) -> None:
    """A chip per citation; a click opens the viewer on it, paging through `viewed` (the chips' own list when None)."""
    viewed = viewed or citations
    columns = st.columns(min(len(citations), 3) or 1)
    for position, citation in enumerate(citations):
        column = columns[position % len(columns)]
        if column.button(chip_label(citation), key=f"cite-{turn}-{citation.number}", icon=":material/format_quote:", help=citation.quote[:300]):
            open_in_viewer(viewed, viewed.index(citation))


def _show_abstention(answer: Answer, turn: int) -> None:
    st.warning(answer.lead, icon=":material/search_off:")
    if not answer.closest:
        return
    st.markdown("Closest clauses, to check for yourself:")
    checked = [c.citation for c in answer.closest if c.citation is not None]
    for position, closest in enumerate(answer.closest):
        with st.container(border=True):
            st.markdown(f"**{closest.file_name}**, {section_name(closest.ref)} {closest.heading} · page {closest.page}")
            st.caption(closest.excerpt)
            if closest.citation is not None and st.button("Open in viewer", key=f"closest-{turn}-{position}", icon=":material/open_in_new:"):
                open_in_viewer(checked, checked.index(closest.citation))


def _how_found(answer: Answer, turn: int) -> None:
    with st.expander("How the evidence was found", icon=":material/account_tree:"):
        plan = answer.plan
        if plan is not None:
            filters = plan.filters
            parts = []
            if filters.clause_types:
                parts.append("clause types " + ", ".join(t.value.replace("_", " ") for t in filters.clause_types))
            if filters.section_refs:
                parts.append("sections " + ", ".join(filters.section_refs))
            if filters.pages:
                parts.append(f"pages {filters.pages.first}–{filters.pages.last}")
            st.markdown(f"**Filters:** {'; '.join(parts) or 'none'} · **Contracts in scope:** {len(plan.scope)}")
            if plan.topics:
                st.markdown("**About:** " + ", ".join(t.value.replace("_", " ") for t in plan.topics))
            if plan.sections or plan.terms:
                named = [s.text for s in plan.sections] + [f"“{t.term}”" for t in plan.terms]
                st.markdown("**Named in the question:** " + ", ".join(named))
            for note in plan.notes:
                st.caption(note)
        cited = {c.clause_id for c in answer.citations}
        rows = [
            {"#": rank, "Clause": section_name(t.ref), "Heading": t.heading, "Page": t.page, "Found by": t.how, "Cited": t.clause_id in cited}
            for rank, t in enumerate(answer.trail, start=1)
        ]
        if rows:
            st.dataframe(rows, hide_index=True, width="stretch", key=f"trail-{turn}")


def show_enumeration(listing: Enumeration, turn: int) -> None:
    """A corpus-wide answer: the complete list, each contract with the sentence that shows it.
    A long list cites its first rows; the user has the rest cited with one click."""
    count, rest = listing.headline().split(" contracts ", 1)
    st.markdown(f"**{count} contracts** {rest}")
    for row in listing.documents:
        quote = f": “{' '.join(row.citation.quote.split())[:220]}”" if row.citation else ""
        st.markdown(f"- **{row.file}** ({row.value}){quote}")
    _chips(listing.citations, turn)
    waiting = listing.awaiting_citation
    if waiting and st.button(
        f"Cite the other {waiting} contracts", key=f"cite-rest-{turn}", icon=":material/format_quote:",
        help="Each listed contract's sentence is checked against its page and can be opened in the viewer (about 4 s per hundred contracts).",
    ):
        _cite_rest(listing, turn)
    for note in listing.notes:
        st.caption(f":material/info: {note}")
    if listing.method == "fields":
        st.caption("Answered from the contract fields: every contract in scope was checked, not only the best search hits.")


def _cite_rest(listing: Enumeration, turn: int) -> None:
    bar = st.progress(0.0, text="Checking each listed contract's evidence against its page…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"Checking each listed contract's evidence against its page: {done} of {total}")

    try:
        conversation()[turn] = library().cite_listing(listing, progress)
    except Exception:  # never a traceback in the app; the listing stays as it was, the log keeps the details
        log.exception("citing a listing failed")
        bar.empty()
        st.error("The other contracts could not be cited. The list is unchanged: try again, or check the log.")
        return
    st.rerun()


def show_per_contract(answers: PerContract, turn: int) -> None:
    """A question over several contracts: each contract's own short answer, its first quote
    cited; the contracts where nothing was found are listed apart, looking different."""
    st.markdown(f"**{answers.headline()}**")
    cited = answers.cited
    citations = [citation for _, citation in cited]
    for row, citation in cited:
        with st.container(border=True):
            st.markdown(f"**{row.file}** · {row.answer.lead}")
            # the first quote, with the items of a list it opens; the chip opens the first quote highlighted
            st.markdown(f"> {row.answer.opening_quotes(400)}")
            if st.button(chip_label(citation), key=f"cite-{turn}-{citation.number}", icon=":material/format_quote:"):
                open_in_viewer(citations, citation.number - 1)
            more = row.answer.claims[1:]
            if more:
                with st.expander(f"More evidence in this contract ({sum(len(claim.citations) for claim in more)})"):
                    for claim in more:
                        st.markdown(f"- {claim.text}")
    if answers.missing:
        st.warning("Not found in: " + ", ".join(row.file for row in answers.missing), icon=":material/search_off:")
    for note in answers.notes:
        st.caption(f":material/info: {note}")
    st.caption("Each contract in scope was searched and its answer checked on its own.")
