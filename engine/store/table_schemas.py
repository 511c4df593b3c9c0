"""The layout of the store's LanceDB tables, one Arrow schema per table.

- documents: one row per contract; written last, so a document is visible only once all
  its rows are in (clause_store.py).
- clauses: clause text, tree, type, and the vector of its first window, with full-text
  indexes on text and heading.
- windows: every window of the clauses longer than the model reads, each pointing to its
  clause and its stretch of the clause text.
- edges: PARENT_OF, DEFINES, REFERENCES (unresolved references with an empty dst).
- pages: each page's text and word boxes, so a quote maps to rectangles for highlighting.
- fields: each contract's governing law and clause categories, for corpus-wide questions.
- grid_columns, grid_cells: the review grid kept with the store (engine/store/grid_table.py):
  its questions in order, and each contract's answer to each.

Changing a schema changes what an existing store holds: bump SCHEMA_VERSION (version.py)
and teach ClauseStore._upgrade the step.
"""

from __future__ import annotations

import pyarrow as pa

from engine.embed import DIMENSION

DOCUMENTS_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("file_name", pa.string()),
        ("title", pa.string()),
        ("pages", pa.int32()),
        ("clauses", pa.int32()),
        ("definitions", pa.int32()),
        ("references_resolved", pa.int32()),
        ("references_unresolved", pa.int32()),
        ("clause_types", pa.string()),  # JSON object: type -> count
        ("pages_without_text", pa.list_(pa.int32())),
        ("parser_version", pa.string()),
        ("embedding_model", pa.string()),
        ("ingested_at", pa.timestamp("us", tz="UTC")),
        ("ingest_seconds", pa.float64()),
        ("size_bytes", pa.int64()),
    ]
)
CLAUSES_SCHEMA = pa.schema(
    [
        ("clause_id", pa.string()),
        ("doc_id", pa.string()),
        ("ref", pa.string()),
        ("path", pa.string()),
        ("heading", pa.string()),
        ("parent_id", pa.string()),
        ("parent_ref", pa.string()),
        ("level", pa.int32()),
        ("kind", pa.string()),
        ("clause_type", pa.string()),
        ("topics", pa.list_(pa.string())),
        ("order", pa.int32()),
        ("text", pa.string()),
        ("page_start", pa.int32()),
        ("page_end", pa.int32()),
        ("char_start", pa.int32()),
        ("char_end", pa.int32()),
        ("defines", pa.list_(pa.string())),
        ("terms_used", pa.list_(pa.string())),
        ("vector", pa.list_(pa.float32(), DIMENSION)),
        ("embedding_model", pa.string()),
    ]
)
WINDOWS_SCHEMA = pa.schema(
    [
        ("clause_id", pa.string()),
        ("doc_id", pa.string()),
        ("window", pa.int32()),
        ("char_start", pa.int32()),  # within the clause text
        ("char_end", pa.int32()),
        ("text", pa.string()),
        ("vector", pa.list_(pa.float32(), DIMENSION)),
        ("embedding_model", pa.string()),
    ]
)
EDGES_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("type", pa.string()),
        ("src", pa.string()),
        ("dst", pa.string()),
        ("src_ref", pa.string()),
        ("dst_ref", pa.string()),
        ("label", pa.string()),
    ]
)
PAGES_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("page", pa.int32()),
        ("width", pa.float32()),
        ("height", pa.float32()),
        ("text_start", pa.int32()),  # offset of the page's text in the document text
        ("text", pa.string()),
        ("word_start", pa.list_(pa.int32())),  # word offsets in the document text
        ("word_end", pa.list_(pa.int32())),
        ("x0", pa.list_(pa.float32())),
        ("y0", pa.list_(pa.float32())),
        ("x1", pa.list_(pa.float32())),
        ("y1", pa.list_(pa.float32())),
    ]
)
FIELDS_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("extractor_version", pa.string()),
        ("governing_law", pa.string()),  # the jurisdiction, "" when none was found: filterable as is
        ("present", pa.list_(pa.string())),  # clause categories the contract has
        ("fields", pa.string()),  # JSON: ContractFields, every value with its clause and sentence
    ]
)

GRID_COLUMNS_SCHEMA = pa.schema(
    [
        ("column_id", pa.string()),  # the column's id
        ("position", pa.int32()),  # left to right
        ("spec", pa.string()),  # JSON: GridColumn
    ]
)
GRID_CELLS_SCHEMA = pa.schema(
    [
        ("doc_id", pa.string()),
        ("column_id", pa.string()),
        ("cell", pa.string()),  # JSON: GridCell, its citations included
    ]
)

SCHEMAS = {
    "documents": DOCUMENTS_SCHEMA,
    "clauses": CLAUSES_SCHEMA,
    "windows": WINDOWS_SCHEMA,
    "edges": EDGES_SCHEMA,
    "pages": PAGES_SCHEMA,
    "fields": FIELDS_SCHEMA,
    "grid_columns": GRID_COLUMNS_SCHEMA,
    "grid_cells": GRID_CELLS_SCHEMA,
}
CHILD_TABLES = ("clauses", "windows", "edges", "pages", "fields", "grid_cells")  # rows that belong to one document
