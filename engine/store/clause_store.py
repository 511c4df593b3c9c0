"""The one embedded store: LanceDB tables for documents, clauses, windows, edges and pages.

- documents: one row per contract; written last, so a document is visible only once all
  its rows are in. Rows of other tables whose document row is missing are leftovers of an
  interrupted ingest and are removed when the store opens and no writer is busy (storelock).
- clauses: clause text, tree, type, and the vector of its first window, with full-text
  indexes on text and heading.
- windows: every window of the clauses longer than the model reads, each pointing to its
  clause and its stretch of the clause text.
- edges: PARENT_OF, DEFINES, REFERENCES (unresolved references with an empty dst).
- pages: each page's text and word boxes, so a quote maps to rectangles for highlighting.
- fields: each contract's governing law and clause categories, for corpus-wide questions.
The original PDF is kept beside the tables (files/<doc_id>.pdf) for the viewer; store.json
records the layout's version (storeversion), writer.lock lets one writer in at a time.

Every write holds the writer lock, and every read sees the latest committed rows, including
those another process wrote after this one opened the store.

Test hook: with CLAUSEGRAPH_PAUSE_BEFORE set to write steps of add_contract (WRITE_STEPS,
comma-separated) or to "*" for all, the writing process prints "paused before STEP" on
stderr and waits for a line on stdin there, so a test can kill it exactly between two writes.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS

from engine.embed import DIMENSION
from engine.errors import NotFoundError
from engine.store.lock import WriterLock
from engine.store.version import SCHEMA_VERSION, record_version, stored_version
from models.clause import Clause
from models.document import Definition, Document, DocumentDetail
from models.edge import Edge
from models.fields import ContractFields

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

_SCHEMAS = {
    "documents": DOCUMENTS_SCHEMA,
    "clauses": CLAUSES_SCHEMA,
    "windows": WINDOWS_SCHEMA,
    "edges": EDGES_SCHEMA,
    "pages": PAGES_SCHEMA,
    "fields": FIELDS_SCHEMA,
}
_CHILD_TABLES = ("clauses", "windows", "edges", "pages", "fields")
#: add_contract's writes in order; the documents row last.
WRITE_STEPS = ("file", "fields", "pages", "edges", "windows", "clauses", "documents", "written")
PAUSE_ENV = "CLAUSEGRAPH_PAUSE_BEFORE"


def _pause_point(step: str) -> None:
    """The test hook of the module docstring: nothing unless CLAUSEGRAPH_PAUSE_BEFORE names this step."""
    wanted = os.environ.get(PAUSE_ENV, "")
    if wanted == "*" or step in wanted.split(","):
        print(f"paused before {step}", file=sys.stderr, flush=True)
        sys.stdin.readline()


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class PageWords(Sequence):
    """The text and word boxes of one page, as stored."""

    def __init__(self, row: dict) -> None:
        self.page: int = row["page"]
        self.width: float = row["width"]
        self.height: float = row["height"]
        self.text_start: int = row["text_start"]
        self.text: str = row["text"]
        self._columns = [row[k] for k in ("word_start", "word_end", "x0", "y0", "x1", "y1")]

    def __len__(self) -> int:
        return len(self._columns[0])

    def __getitem__(self, index):  # (start, end, x0, y0, x1, y1)
        return tuple(column[index] for column in self._columns)

    def overlapping(self, start: int, end: int) -> range:
        """Indexes of the words whose characters overlap [start, end) of the document text."""
        from bisect import bisect_left, bisect_right

        return range(bisect_right(self._columns[1], start), bisect_left(self._columns[0], end))


class ClauseStore:
    """Reads and writes the clause graph of every ingested contract."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock = WriterLock(self.path)
        # Checking for newer versions on every read costs a fraction of a millisecond, and
        # without it a store opened before another process's ingest never sees that contract.
        self._db = lancedb.connect(str(self.path / "lance"), read_consistency_interval=timedelta(0))
        if self._version() != SCHEMA_VERSION:  # a newer store raises here, before anything is written
            with self._lock.hold():
                self._upgrade(self._version())  # again: another writer may have done it meanwhile
        self.files_dir = self.path / "files"
        self.files_dir.mkdir(exist_ok=True)
        self._tables = {name: self._db.open_table(name) for name in _SCHEMAS}
        self.remove_incomplete()

    # ------------------------------------------------------------------ setup

    def _version(self) -> int | None:
        """None for a new store; a StoreVersionError for one this version cannot read."""
        return stored_version(self.path, has_tables="documents" in self._db.list_tables().tables)

    def _upgrade(self, found: int | None) -> None:
        """Bring a new or older store to SCHEMA_VERSION. Every step may run again after a
        crash: the version is recorded only when all are done."""
        if found == SCHEMA_VERSION:
            return
        existing = set(self._db.list_tables().tables)
        for name, schema in _SCHEMAS.items():  # a new store: every table; version 1: the fields table
            if name not in existing:  # (Library.contract_fields fills it from each contract's clauses)
                self._db.create_table(name, schema=schema)
        if found == 1:  # version 1 kept its version in the documents table's schema, store.json has it now
            self._db.open_table("documents").to_lance().update_schema_metadata({}, replace=True)
        self._ensure_text_indexes(self._db.open_table("clauses"))
        record_version(self.path)

    @staticmethod
    def _ensure_text_indexes(clauses) -> None:
        existing = {index.columns[0] for index in clauses.list_indices()}
        for column in ("text", "heading"):
            if column not in existing:
                clauses.create_index(column, config=FTS(with_position=True), replace=True)

    @contextmanager
    def writing(self, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
        """Hold the store's writer lock: what is read inside stays true until the block ends.
        `on_wait` is called if another writer must finish first."""
        with self._lock.hold(on_wait=on_wait):
            yield

    def remove_incomplete(self) -> list[str]:
        """Delete rows left by an ingest that stopped before its document row was written.
        Only when no writer is busy: a live writer's first rows look just the same."""
        with self._lock.hold(wait=False) as idle:
            if not idle:
                return []
            complete = set(self._column("documents", "doc_id"))
            orphans: set[str] = set()
            for name in _CHILD_TABLES:
                orphans |= set(self._column(name, "doc_id")) - complete
            for doc_id in orphans:
                self._delete_rows(doc_id)
            for stray in self.files_dir.glob("*.pdf"):
                if stray.stem not in complete:
                    stray.unlink(missing_ok=True)
            return sorted(orphans)

    def _column(self, table: str, column: str) -> list:
        return self._tables[table].to_lance().to_table(columns=[column]).column(column).to_pylist()

    # ---------------------------------------------------------------- writing

    def add_contract(
        self,
        document: Document,
        clauses: list[Clause],
        clause_vectors: np.ndarray,
        windows: list[dict],
        edges: list[Edge],
        pages: list[dict],
        pdf_bytes: bytes,
        fields: ContractFields | None = None,
        extractor_version: str = "",
    ) -> None:
        """Write one contract; its document row goes last, so it appears whole or not at all."""
        doc_id = document.doc_id
        with self.writing():
            _pause_point("file")
            (self.files_dir / f"{doc_id}.pdf").write_bytes(pdf_bytes)
            _pause_point("fields")
            if fields is not None:
                self.put_fields(fields, extractor_version)
            _pause_point("pages")
            if pages:
                self._tables["pages"].add(pa.Table.from_pylist(pages, schema=PAGES_SCHEMA))
            _pause_point("edges")
            if edges:
                self._tables["edges"].add(pa.Table.from_pylist([self._edge_row(e) for e in edges], schema=EDGES_SCHEMA))
            _pause_point("windows")
            if windows:
                self._tables["windows"].add(pa.Table.from_pylist(windows, schema=WINDOWS_SCHEMA))
            _pause_point("clauses")
            if clauses:
                rows = [self._clause_row(c, v, document.embedding_model) for c, v in zip(clauses, clause_vectors)]
                self._tables["clauses"].add(pa.Table.from_pylist(rows, schema=CLAUSES_SCHEMA))
            _pause_point("documents")
            self._tables["documents"].add(pa.Table.from_pylist([self._document_row(document)], schema=DOCUMENTS_SCHEMA))
            _pause_point("written")

    def put_fields(self, fields: ContractFields, extractor_version: str) -> None:
        """Write (or replace) one contract's fields."""
        table = self._tables["fields"]
        with self.writing():
            table.delete(f"doc_id = {_quote(fields.doc_id)}")
            table.add(pa.Table.from_pylist([self._fields_row(fields, extractor_version)], schema=FIELDS_SCHEMA))

    @staticmethod
    def _fields_row(fields: ContractFields, extractor_version: str) -> dict:
        return {
            "doc_id": fields.doc_id, "extractor_version": extractor_version,
            "governing_law": fields.governing_law.value if fields.governing_law else "",
            "present": [category for category, presence in fields.presence.items() if presence.present],
            "fields": fields.model_dump_json(),
        }

    def fields(self, doc_ids: Sequence[str] | None = None) -> dict[str, tuple[str, ContractFields]]:
        """doc_id -> (extractor version, fields) for the given contracts (every stored one when
        none are given); only their rows are read and parsed."""
        where = f"doc_id IN ({', '.join(_quote(d) for d in doc_ids)})" if doc_ids else None
        rows = self._tables["fields"].to_lance().to_table(columns=["doc_id", "extractor_version", "fields"], filter=where).to_pylist()
        return {row["doc_id"]: (row["extractor_version"], ContractFields.model_validate_json(row["fields"])) for row in rows}

    def delete_document(self, doc_id: str) -> None:
        """Remove a document and every row that belongs to it; its documents row goes first,
        so an interrupted delete leaves rows that the next open removes."""
        with self.writing():
            self._tables["documents"].delete(f"doc_id = {_quote(doc_id)}")
            self._delete_rows(doc_id)
            (self.files_dir / f"{doc_id}.pdf").unlink(missing_ok=True)

    def _delete_rows(self, doc_id: str) -> None:
        for name in _CHILD_TABLES:
            self._tables[name].delete(f"doc_id = {_quote(doc_id)}")

    def optimize(self) -> None:
        """Fold newly added rows into the indexes and compact small files."""
        with self.writing():
            for table in self._tables.values():
                table.optimize()

    @staticmethod
    def _clause_row(clause: Clause, vector: np.ndarray, model: str) -> dict:
        row = clause.model_dump(mode="json")
        row["vector"] = np.asarray(vector, dtype=np.float32).tolist()
        row["embedding_model"] = model
        return row

    @staticmethod
    def _edge_row(edge: Edge) -> dict:
        return edge.model_dump(mode="json")

    @staticmethod
    def _document_row(document: Document) -> dict:
        row = document.model_dump()
        row["clause_types"] = json.dumps(document.clause_types)
        return row

    # ---------------------------------------------------------------- reading

    def documents(self) -> list[Document]:
        rows = self._tables["documents"].to_arrow().to_pylist()
        docs = [self._document(row) for row in rows]
        return sorted(docs, key=lambda d: d.ingested_at)

    def document(self, doc_id: str) -> Document | None:
        rows = self._query("documents", f"doc_id = {_quote(doc_id)}")
        return self._document(rows[0]) if rows else None

    def find_document(self, name: str) -> Document:
        """A document by file name or doc_id prefix; a clear error if none or several match."""
        documents = self.documents()
        exact = [d for d in documents if d.file_name == name or d.doc_id == name]
        matches = exact or [d for d in documents if d.doc_id.startswith(name.lower())] if name else []
        if not matches:
            raise NotFoundError(f"no document matches {name!r}; `python -m engine list` shows what is in the store")
        if len(matches) > 1:
            names = ", ".join(f"{d.file_name} ({d.doc_id[:12]})" for d in matches[:5])
            raise NotFoundError(f"{name!r} matches {len(matches)} documents: {names}; give more of the doc_id")
        return matches[0]

    def clauses(self, doc_id: str) -> list[Clause]:
        rows = self._query("clauses", f"doc_id = {_quote(doc_id)}", exclude=("vector", "embedding_model"))
        return sorted((Clause(**row) for row in rows), key=lambda c: c.order)

    def edges(self, doc_id: str) -> list[Edge]:
        rows = self._query("edges", f"doc_id = {_quote(doc_id)}")
        return [Edge(**row) for row in rows]

    def pages(self, doc_id: str) -> list[PageWords]:
        rows = self._query("pages", f"doc_id = {_quote(doc_id)}")
        return sorted((PageWords(row) for row in rows), key=lambda p: p.page)

    def windows(self, doc_id: str, vectors: bool = False) -> list[dict]:
        return self._query("windows", f"doc_id = {_quote(doc_id)}", exclude=() if vectors else ("vector",))

    def clause_vectors(self, doc_id: str) -> tuple[list[str], np.ndarray]:
        """The clause ids of a document and their vectors, row for row."""
        table = self._tables["clauses"].to_lance().to_table(columns=["clause_id", "vector"], filter=f"doc_id = {_quote(doc_id)}")
        ids = table.column("clause_id").to_pylist()
        vectors = table.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        return ids, vectors.reshape(len(ids), DIMENSION).astype(np.float32)

    def page_starts(self, doc_id: str) -> list[int]:
        rows = self._tables["pages"].to_lance().to_table(columns=["page", "text_start"], filter=f"doc_id = {_quote(doc_id)}").to_pylist()
        return [row["text_start"] for row in sorted(rows, key=lambda r: r["page"])]

    def detail(self, doc_id: str) -> DocumentDetail:
        document = self.document(doc_id)
        if document is None:
            raise NotFoundError(f"no document with id {doc_id}")
        clauses = self.clauses(doc_id)
        definitions = [
            Definition(term=term, clause_id=c.clause_id, ref=c.ref) for c in clauses for term in c.defines
        ]
        return DocumentDetail(document=document, clauses=clauses, definitions=definitions, edges=self.edges(doc_id))

    def file_path(self, doc_id: str) -> Path:
        return self.files_dir / f"{doc_id}.pdf"

    def size_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())

    def table(self, name: str):
        """The LanceDB table itself, for the retriever's vector and full-text queries."""
        return self._tables[name]

    def _query(self, table: str, where: str, exclude: Iterable[str] = ()) -> list[dict]:
        schema = _SCHEMAS[table]
        columns = [name for name in schema.names if name not in set(exclude)]
        dataset = self._tables[table].to_lance()
        return dataset.to_table(columns=columns, filter=where).to_pylist()

    @staticmethod
    def _document(row: dict) -> Document:
        row = dict(row)
        row["clause_types"] = json.loads(row["clause_types"] or "{}")
        if isinstance(row["ingested_at"], datetime) and row["ingested_at"].tzinfo is None:
            row["ingested_at"] = row["ingested_at"].astimezone()
        return Document(**row)

    def close(self) -> None:
        self._tables.clear()

    def destroy(self) -> None:
        """Delete the whole store from disk (tests and `reset`)."""
        self.close()
        shutil.rmtree(self.path, ignore_errors=True)
