"""Corpus: the whole library at a glance — governing law, kinds of agreement, and which
clauses each contract has, every mark traceable to the sentence that set it."""

from __future__ import annotations

from collections import Counter

import plotly.graph_objects as go
import streamlit as st

from ui.state import library, library_documents, open_in_viewer


def _bar(counts: Counter, title: str) -> go.Figure:
    labels, values = zip(*counts.most_common(25)) if counts else ((), ())
    figure = go.Figure(go.Bar(x=list(values), y=list(labels), orientation="h", marker_color="#1f4e79", hovertemplate="%{y}: %{x}<extra></extra>"))
    figure.update_layout(title=title, height=max(260, 26 * len(labels) + 80), margin={"l": 10, "r": 10, "t": 40, "b": 10}, yaxis={"autorange": "reversed"})
    return figure


def _expiry(fields) -> None:
    """Contracts by the year they expire; perpetual ones and terms with no fixed date beside."""
    years: Counter = Counter()
    other: Counter = Counter()
    for contract in fields:
        value = contract.expiration.value if contract.expiration else ""
        if contract.expiry_year is not None:
            years[contract.expiry_year] += 1
        else:
            other["perpetual" if value == "perpetual" else "a term with no fixed date" if value else "not stated"] += 1
    summary = " · ".join(f"{label}: {count}" for label, count in other.most_common())
    if not years:
        st.caption(f"Expiry: no contract names an end date ({summary}).")
        return
    figure = go.Figure(go.Bar(x=sorted(years), y=[years[y] for y in sorted(years)], marker_color="#d9822b", hovertemplate="%{x}: %{y}<extra></extra>"))
    figure.update_layout(title=f"Expiry by year ({summary})" if summary else "Expiry by year", height=280,
                         margin={"l": 10, "r": 10, "t": 40, "b": 10}, xaxis={"dtick": 1})
    st.plotly_chart(figure, key="corpus_expiry", width="stretch")


def corpus_page() -> None:
    lib = library()
    st.title("Corpus")
    documents = library_documents(lib)
    if documents is None:
        return
    with st.spinner("Reading each contract's fields…"):
        fields = lib.contract_fields([d.doc_id for d in documents])
    names = {d.doc_id: d.file_name for d in documents}
    flagged = lib.flagged_categories()
    laws = Counter(f.governing_law.value if f.governing_law else "not stated" for f in fields)
    kinds = Counter(f.document_type or "Other" for f in fields)
    top = st.columns(3)
    top[0].metric("Contracts", len(fields))
    top[1].metric("Governing law found", sum(1 for f in fields if f.governing_law))
    top[2].metric("Jurisdictions", len([k for k in laws if k != "not stated"]))
    left, right = st.columns(2)
    left.plotly_chart(_bar(laws, "Contracts by governing law"), key="corpus_laws", width="stretch")
    right.plotly_chart(_bar(kinds, "Contracts by kind of agreement"), key="corpus_kinds", width="stretch")
    _expiry(fields)

    st.subheader("What each contract says")
    st.caption("Values are read by rules, flags by a model trained on lawyers' labels; select a row to see the sentence behind each.")
    rows = [
        {"Contract": names[f.doc_id], "Kind": f.document_type, "Governing law": f.governing_law.value if f.governing_law else "",
         "Dated": f.agreement_date.value if f.agreement_date else "", "Expires": f.expiration.value if f.expiration else "",
         **{c: bool(f.presence.get(c) and f.presence[c].present) for c in flagged}}
        for f in fields
    ]
    picked = st.dataframe(rows, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row", key="corpus_table")
    selected = picked.selection.rows if picked else []
    options = [names[f.doc_id] for f in fields]
    choice = st.selectbox(
        "Trace a contract's values and flags", options, index=selected[0] if selected else None, key="corpus_trace",
        placeholder="Select a row above, or pick a contract",
    )
    if choice is not None:
        _evidence(lib, fields[options.index(choice)], names, flagged)


def _evidence(lib, contract, names: dict[str, str], flagged: list[str]) -> None:
    st.markdown(f"**{names[contract.doc_id]}**")
    named = [("Governing law", contract.governing_law), ("Agreement date", contract.agreement_date), ("Effective date", contract.effective_date),
             ("Expires", contract.expiration), ("Renewal term", contract.renewal_term)]
    values = [(f"{label} {value.value}", value) for label, value in named if value is not None]  # a flag's value is its name
    values += [(c, contract.presence[c].evidence[0]) for c in flagged if contract.presence.get(c) and contract.presence[c].evidence]
    for position, (label, value) in enumerate(values):
        text, button = st.columns([6, 1], vertical_alignment="center")
        text.markdown(f"**{label}** · Section {value.ref} · page {value.page}: “{' '.join(value.quote.split())[:300]}”")
        if button.button("Open", key=f"corpus_open_{position}", icon=":material/open_in_new:"):
            citation = lib.cite_field(value)
            if citation is not None:
                open_in_viewer([citation])


corpus_page()
