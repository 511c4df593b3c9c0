"""Playbook review: each contract in scope judged rule by rule against the team's standard
positions, green, amber or red, each verdict with the clause and quote that decided it."""

from __future__ import annotations

import logging

import plotly.graph_objects as go
import streamlit as st

from engine.service import DEFAULT_PLAYBOOK, PlaybookError, dump_playbook, load_playbook, parse_playbook, review_csv, review_markdown
from models.review import Playbook, Review, Status
from ui.answer_view import citation_chips
from ui.errors import reported
from ui.state import contract_scope, library, library_documents

log = logging.getLogger(__name__)

_LEVEL = {Status.GREEN: 0, Status.AMBER: 1, Status.RED: 2}
_COLOUR = {Status.GREEN: "#3a9d5d", Status.AMBER: "#e0a21b", Status.RED: "#d64545"}
_ICON = {Status.GREEN: ":material/check_circle:", Status.AMBER: ":material/error:", Status.RED: ":material/cancel:"}


SOURCES = ["Kept with this library", "Default", "Upload a file", "Edit a copy"]


def _playbook(lib) -> Playbook | None:
    """The playbook kept with the library, the default one, an uploaded file, or an edited copy
    (which can be kept with the library); a bad one shows its problems and keeps what the user wrote."""
    kept = lib.reviews.kept_playbook()
    sources = SOURCES if kept is not None else SOURCES[1:]
    if st.session_state.get("review_source") not in sources:
        st.session_state["review_source"] = sources[0]
    source = st.radio("Playbook", sources, horizontal=True, key="review_source")
    try:
        if source == "Default":
            playbook = load_playbook()
            st.caption(f"{playbook.name}: {len(playbook.rules)} rules ({DEFAULT_PLAYBOOK.name}).")
            return playbook
        if source == SOURCES[0]:
            playbook = parse_playbook(kept or "", "the playbook kept with this library")
            st.caption(f"{playbook.name}: {len(playbook.rules)} rules (edit it under “Edit a copy”).")
            return playbook
        if source == "Upload a file":
            upload = st.file_uploader("A playbook in YAML", type=["yaml", "yml"], key="review_upload")
            if upload is None:
                return None
            return parse_playbook(upload.getvalue().decode("utf-8", errors="replace"), upload.name)
        start = st.session_state.get("review_text") or kept or dump_playbook(load_playbook())
        text = st.text_area("Your playbook (YAML)", value=start, height=360, key="review_text_editor")
        st.session_state["review_text"] = text
        playbook = parse_playbook(text, "your playbook")
        left, right = st.columns(2)
        if left.button("Keep it with this library", icon=":material/save:", key="review_keep_playbook"):
            lib.reviews.keep_playbook(text)
            st.toast("Playbook kept with this library")
        right.download_button("Download it", text, file_name="playbook.yaml", mime="application/x-yaml", key="review_save_playbook")
        return playbook
    except PlaybookError as error:
        st.error(str(error), icon=":material/rule:")
        return None


def _heatmap(review: Review) -> go.Figure:
    """Contracts by rules, a square per verdict in its colour. Squares are scatter points, not a
    plotly heatmap, because a click on a point is a selection Streamlit reports: it opens that
    verdict's evidence below."""
    rules = [rule.id for rule in review.rules]
    cells = [(c.file, rule, c.status_of(rule)) for c in review.contracts for rule in rules]
    figure = go.Figure(go.Scatter(
        x=[rule for _, rule, _ in cells], y=[file for file, _, _ in cells], mode="markers+text",
        text=[status.value for _, _, status in cells], textfont={"color": "white", "size": 10},
        marker={"symbol": "square", "size": 26, "color": [_COLOUR[status] for _, _, status in cells]},
        hovertemplate="%{y}<br>%{x}: %{text}<extra></extra>", unselected={"marker": {"opacity": 0.45}},
    ))
    figure.update_layout(
        height=max(220, 34 * len(review.contracts) + 140), margin={"l": 10, "r": 10, "t": 10, "b": 10}, clickmode="event+select",
        yaxis={"autorange": "reversed", "type": "category"}, xaxis={"side": "top", "tickangle": -30, "type": "category"},
        plot_bgcolor="white", dragmode=False,
    )
    return figure


def _evidence(review: Review, clicked: tuple[str, str] | None) -> None:
    """A contract's verdicts, each with why and its citations; a heatmap click picks contract and rule."""
    files = [c.file for c in review.contracts]
    if clicked is not None and clicked != st.session_state.get("review_clicked"):  # a new click picks its contract;
        st.session_state["review_clicked"] = clicked  # later, the selectbox is the user's again
        st.session_state["review_contract"] = clicked[0]
    if st.session_state.get("review_contract") not in files:
        st.session_state["review_contract"] = files[0]
    contract_file = st.selectbox("Contract", files, key="review_contract")
    contract = review.contracts[files.index(contract_file)]
    counts = {s: sum(v.status is s for v in contract.verdicts) for s in Status}
    st.markdown(f"**{contract.file}** · {counts[Status.RED]} red · {counts[Status.AMBER]} amber · {counts[Status.GREEN]} green")
    for verdict in sorted(contract.verdicts, key=lambda v: -_LEVEL[v.status]):
        expanded = clicked is not None and clicked == (contract.file, verdict.rule)
        with st.expander(f"{verdict.status.value.upper()} · {verdict.rule} ({verdict.severity.value})", icon=_ICON[verdict.status], expanded=expanded):
            st.markdown(verdict.why)
            citation_chips(verdict.citations, f"review_cite_{verdict.rule}")


def review_page() -> None:
    lib = library()
    st.title("Playbook review")
    st.caption("Each contract judged against your standard positions. Green meets the standard, amber needs a look, red breaches it.")
    documents = library_documents(lib)
    if documents is None:
        return
    playbook = _playbook(lib)
    scope = contract_scope(documents, "review_docs")
    if playbook is not None and st.button(f"Review against “{playbook.name}”", type="primary", icon=":material/fact_check:", key="review_run"):
        bar = st.progress(0.0, text="Reviewing…")
        failed = "Something went wrong during the review; check the log and try again."
        with reported(log, "the review", "The review stopped: {error}", failed) as attempt:
            review = lib.reviews.review(playbook, scope,
                                        on_progress=lambda done, total: bar.progress(done / total, text=f"Reviewing: {done} of {total} verdicts"))
        if attempt.failed:
            return
        st.session_state["review_result"] = review.model_dump(mode="json")
        bar.empty()
    kept = st.session_state.get("review_result")
    if not kept:
        return
    review = Review.model_validate(kept)
    st.subheader(f"{len(review.contracts)} contracts × {len(review.rules)} rules")
    event = st.plotly_chart(_heatmap(review), key="review_heatmap", on_select="rerun", selection_mode="points", width="stretch")
    points = event.selection.points if event else []
    clicked = (points[0]["y"], points[0]["x"]) if points else None
    left, right = st.columns(2)
    left.download_button("Export Markdown", review_markdown(review), file_name="clausegraph-review.md", mime="text/markdown",
                         icon=":material/download:", key="review_md")
    right.download_button("Export CSV", review_csv(review), file_name="clausegraph-review.csv", mime="text/csv",
                          icon=":material/download:", key="review_csv")
    _evidence(review, clicked)


review_page()
