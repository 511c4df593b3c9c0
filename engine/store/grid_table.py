"""The review grid kept with the store: its columns in order, and each filled cell.

A cell is written as soon as it is filled, so a grid interrupted halfway keeps what it had,
and a reopened app (or another process on the same store) shows it. A cell belongs to its
contract (grid_cells is one of the store's child tables): deleting the contract deletes it.
"""

from __future__ import annotations

import pyarrow as pa

from engine.store.clause_store import ClauseStore, in_list
from engine.store.table_schemas import GRID_CELLS_SCHEMA, GRID_COLUMNS_SCHEMA
from models.review import GridCell, GridColumn


class GridTable:
    def __init__(self, store: ClauseStore) -> None:
        self.store = store

    def columns(self) -> list[GridColumn]:
        rows = self.store.table("grid_columns").to_lance().to_table(columns=["position", "spec"]).to_pylist()
        return [GridColumn.model_validate_json(row["spec"]) for row in sorted(rows, key=lambda row: row["position"])]

    def set_columns(self, columns: list[GridColumn]) -> None:
        """Keep these columns, in this order; cells of columns no longer there are deleted."""
        table = self.store.table("grid_columns")
        rows = [{"column_id": c.id, "position": i, "spec": c.model_dump_json()} for i, c in enumerate(columns)]
        with self.store.writing():
            dropped = {c.id for c in self.columns()} - {c.id for c in columns}
            table.delete("true")
            if rows:
                table.add(pa.Table.from_pylist(rows, schema=GRID_COLUMNS_SCHEMA))
            if dropped:
                self.store.table("grid_cells").delete(in_list("column_id", dropped))

    def cells(self, doc_ids: list[str] | None = None) -> list[GridCell]:
        where = in_list("doc_id", doc_ids) if doc_ids else None
        rows = self.store.table("grid_cells").to_lance().to_table(columns=["cell"], filter=where).to_pylist()
        return [GridCell.model_validate_json(row["cell"]) for row in rows]

    def put(self, cells: list[GridCell]) -> None:
        """Write cells, each replacing the one it fills (same contract and column)."""
        if not cells:
            return
        rows = [{"doc_id": c.doc_id, "column_id": c.column, "cell": c.model_dump_json()} for c in cells]
        with self.store.writing():
            (
                self.store.table("grid_cells")
                .merge_insert(["doc_id", "column_id"])
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .execute(pa.Table.from_pylist(rows, schema=GRID_CELLS_SCHEMA))
            )

    def clear(self, column: str) -> None:
        """Forget a column's cells, so it is filled again."""
        with self.store.writing():
            self.store.table("grid_cells").delete(in_list("column_id", [column]))
