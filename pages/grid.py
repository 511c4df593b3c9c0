"""Review grid: the same questions asked of every contract in scope, one row per contract, one
column per question, each cell cited; kept with the library, so it is here when the app reopens."""

from __future__ import annotations

import logging

import pandas as pd
import streamlit as st

from engine.service import grid_csv, grid_xlsx, preset_columns, question_column
from models.review import Grid, GridCell
from ui.answer_view import citation_chips
from ui.errors import reported
from ui.state import contract_scope, library, library_documents

log = logging.getLogger(__name__)

NOT_FOUND = "— not found"
WAITING = "…"
NONE_CHOSEN = "—"


def _columns_editor(lib) -> None:
    """Preset topics on or off, the user's own questions added or removed; the grid keeps the order."""
    columns = lib.reviews.columns()
    presets = {c.label: c for c in preset_columns()}
    own = {c.label: c for c in columns if c.topic is None}
    chosen = st.multiselect(
        "Columns", [*presets, *own], default=[c.label for c in columns], key=f"grid_columns_{len(columns)}_{'|'.join(c.id for c in columns)}",
        placeholder="Pick topics, or add a question below",
    )
    if chosen != [c.label for c in columns]:
        lib.reviews.set_columns([presets.get(label) or own[label] for label in chosen])
        st.rerun()
    with st.form("grid_add_form", clear_on_submit=True, border=False):
        left, right = st.columns([4, 1], vertical_alignment="bottom")
        question = left.text_input("Add a question of your own", key="grid_new_question", placeholder="e.g. How long does confidentiality last?")
        if right.form_submit_button("Add column", icon=":material/add:", key="grid_add"):
            if question.strip():
                lib.reviews.add_column(question_column(question))
                st.rerun()
            st.warning("Type a question first.", icon=":material/edit:")
    if not columns and st.button("Start with the 13 preset topics", key="grid_presets", type="primary"):
        lib.reviews.set_columns(preset_columns())
        st.rerun()


def _table(grid: Grid) -> pd.DataFrame:
    def text(cell: GridCell | None) -> str:
        return WAITING if cell is None else cell.answer if cell.found else NOT_FOUND

    return pd.DataFrame(
        [[row.file, *(text(row.cells.get(c.id)) for c in grid.columns)] for row in grid.rows],
        columns=["Contract", *(c.label for c in grid.columns)],
    )


def _styled(frame: pd.DataFrame):
    """Cells not found in grey italics, cells not filled yet faint: they must not read as answers."""
    return frame.style.map(
        lambda value: "color: #8a8a8a; font-style: italic; background-color: #f3f3f3" if value == NOT_FOUND
        else "color: #bbbbbb" if value == WAITING else ""
    )


def _fill(lib, grid: Grid, rerun: str | None = None) -> None:
    """Fill contract by contract, the table redrawn after each, with a progress bar."""
    todo = [row.doc_id for row in grid.rows if rerun or any(c.id not in row.cells for c in grid.columns)]
    bar = st.progress(0.0, text="Filling the grid…")
    table = st.empty()
    failed = "Something went wrong while filling the grid. The cells filled so far are kept; try again, or check the log."
    with reported(log, "filling the grid", "The grid stopped: {error}. The cells filled so far are kept.", failed) as attempt:
        if rerun is not None:
            lib.reviews.clear(rerun)  # every row fills the column again below
        for done, doc_id in enumerate(todo, start=1):
            lib.reviews.fill([doc_id])
            table.dataframe(_styled(_table(lib.reviews.grid(_scope_ids(grid)))), hide_index=True, width="stretch")
            bar.progress(done / len(todo), text=f"Filling the grid: {done} of {len(todo)} contracts")
    if attempt.failed:
        return
    st.rerun()


def _scope_ids(grid: Grid) -> list[str]:
    return [row.doc_id for row in grid.rows]


def _cell_detail(lib, grid: Grid, selected: tuple[int, str] | None) -> None:
    """One cell: its answer, how it was found, and its citations, each opening the viewer."""
    contracts = [row.file for row in grid.rows]
    labels = [c.label for c in grid.columns]
    if selected is not None and selected != st.session_state.get("grid_clicked") and selected[1] in labels:
        st.session_state["grid_clicked"] = selected  # a new click in the table picks its cell; the boxes stay the user's after
        st.session_state["grid_cell_contract"] = contracts[selected[0]]
        st.session_state["grid_cell_column"] = selected[1]
    for key, options in (("grid_cell_contract", contracts), ("grid_cell_column", labels)):
        if st.session_state.get(key, NONE_CHOSEN) not in (NONE_CHOSEN, *options):
            st.session_state[key] = NONE_CHOSEN  # a contract out of scope now, a column removed
    left, right = st.columns(2)
    contract = left.selectbox("Contract", [NONE_CHOSEN, *contracts], key="grid_cell_contract", help="or select a cell in the table")
    label = right.selectbox("Column", [NONE_CHOSEN, *labels], key="grid_cell_column")
    if NONE_CHOSEN in (contract, label):
        st.caption("Select a cell in the table, or pick a contract and a column.")
        return
    row = grid.rows[contracts.index(contract)]
    column = grid.columns[labels.index(label)]
    cell = row.cells.get(column.id)
    st.markdown(f"**{column.question}** · {row.file}")
    if cell is None:
        st.caption("Not filled yet: fill the grid above.")
        return
    if cell.found:
        st.markdown(cell.answer)
    else:
        st.warning(NOT_FOUND.strip("— "), icon=":material/search_off:")
    st.caption(cell.why)
    citation_chips(cell.citations, "grid_cite")


def grid_page() -> None:
    lib = library()
    st.title("Review grid")
    st.caption("The same questions asked of every contract in scope, each answer cited. The grid is kept with the library.")
    documents = library_documents(lib)
    if documents is None:
        return
    scope = contract_scope(documents, "grid_docs")
    _columns_editor(lib)
    grid = lib.reviews.grid(scope)
    if not grid.columns:
        st.info("Choose the grid's columns above: preset topics, or questions of your own.", icon=":material/view_column:")
        return
    actions = st.columns([2, 2, 1])
    if grid.missing and actions[0].button(f"Fill {grid.missing} cells", type="primary", icon=":material/play_arrow:", key="grid_fill"):
        _fill(lib, grid)
    rerun = actions[1].selectbox("Re-run a column", [c.label for c in grid.columns], index=None, key="grid_rerun_choice",
                                 placeholder="Re-run a column…", label_visibility="collapsed")
    if rerun is not None and actions[2].button("Re-run", key="grid_rerun", icon=":material/refresh:"):
        _fill(lib, grid, rerun=next(c.id for c in grid.columns if c.label == rerun))
    picked = st.dataframe(_styled(_table(grid)), hide_index=True, width="stretch", on_select="rerun",
                          selection_mode="single-cell", key="grid_table")
    cells = picked.selection.cells if picked else []
    selected = (cells[0][0], cells[0][1]) if cells and cells[0][1] != "Contract" else None
    found = sum(cell.found for row in grid.rows for cell in row.cells.values())
    filled = sum(len(row.cells) for row in grid.rows)
    st.caption(f"{filled} of {len(grid.rows) * len(grid.columns)} cells filled · {found} found · {filled - found} not found")
    if filled:
        left, right = st.columns(2)
        left.download_button("Export CSV", grid_csv(grid), file_name="clausegraph-grid.csv", mime="text/csv",
                             icon=":material/download:", key="grid_csv")
        right.download_button("Export XLSX", grid_xlsx(grid), file_name="clausegraph-grid.xlsx", icon=":material/download:",
                              mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", key="grid_xlsx")
    st.subheader("A cell and its evidence")
    _cell_detail(lib, grid, selected)


grid_page()
