"""The one embedded store: LanceDB tables for documents, clauses, windows, edges and pages.

The tables are laid out in table_schemas.py. The documents row of a contract is written
last, so a document is visible only once all its rows are in; rows of other tables whose
document row is missing are leftovers of an interrupted ingest and are removed when the
store opens and no writer is busy (storelock).
The original PDF is kept beside the tables (files/<doc_id>.pdf) for the viewer; store.json
records the layout's version (version.py); the writer lock lets one writer in at a time. A store lives
in a local folder or under an S3 prefix (location.py); its files other than LanceDB's go through folder.py.

Every write holds the writer lock, and every read sees the latest committed rows, including
those another process wrote after this one opened the store. A test can pause a write
between its steps (pause_points.py); table_rows.py converts models to rows and back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS

from engine.embed import DIMENSION
from engine.errors import NotFoundError
from engine.store.location import StoreLocation
from engine.store.page_words import PageWords
from engine.store.pause_points import pause_point
from engine.store.table_rows import clause_row, document_from_row, document_row, edge_row, fields_row
from engine.store.table_schemas import (
    CHILD_TABLES,
    CLAUSES_SCHEMA,
    DOCUMENTS_SCHEMA,
    EDGES_SCHEMA,
    FIELDS_SCHEMA,
    PAGES_SCHEMA,
    SCHEMAS,
    WINDOWS_SCHEMA,
)
from engine.store.version import SCHEMA_VERSION, record_version, stored_version
from models.clause import Clause
from models.document import Definition, Document, DocumentDetail
from models.edge import Edge
from models.fields import ContractFields


@dataclass
class GraphParts:
    """One document's rows that its clause graph in memory is built from (graphcache.py)."""

    clauses: list[Clause] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)  # row for row with `clauses`
    windows: list[dict] = field(default_factory=list)  # with vectors
    page_starts: list[tuple[int, int]] = field(default_factory=list)  # (page, offset where it starts)
    edges: list[Edge] = field(default_factory=list)


_SUPERSEDED_AFTER = timedelta(minutes=1)  # compact() deletes table versions older than this


FILES = "files"  # the folder of the original PDFs, one per contract


def _pdf(doc_id: str) -> str:
    return f"{FILES}/{doc_id}.pdf"


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def in_list(column: str, values: Iterable[str]) -> str:
    """A LanceDB filter: `column` is one of `values`."""
    return f"{column} IN ({', '.join(_quote(v) for v in values)})"


class ClauseStore:
    """Reads and writes the clause graph of every ingested contract."""

    def __init__(self, location: StoreLocation | Path | str) -> None:
        self.location = StoreLocation.model_validate(location)
        self.folder = self.location.folder()
        self._lock = self.location.writer_lock(self.folder, after_dead_writer=self._after_dead_writer)
        # Checking for newer versions on every read costs a fraction of a millisecond locally (a listing
        # on object storage); without it a store opened before another process's ingest never sees that contract.
        self._db = lancedb.connect(self.location.lance_uri, read_consistency_interval=timedelta(0))
        if self._version() != SCHEMA_VERSION:  # a newer store raises here, before anything is written
            with self._lock.hold():
                self._upgrade(self._version())  # again: another writer may have done it meanwhile
        self._tables = {name: self._db.open_table(name) for name in SCHEMAS}
        self._documents: tuple[int, list[Document]] | None = None  # (table version, its documents)
        self.remove_incomplete()

    # ------------------------------------------------------------------ setup

    def _after_dead_writer(self) -> None:  # a remote writer died holding the lock (while opening, the open cleans up)
        if getattr(self, "_tables", None):
            self.remove_incomplete()

    def _version(self) -> int | None:
        """None for a new store; a StoreVersionError for one this version cannot read."""
        return stored_version(self.folder, str(self.location), has_tables="documents" in self._db.list_tables().tables)

    def _upgrade(self, found: int | None) -> None:
        """Bring a new or older store to SCHEMA_VERSION. Every step may run again after a
        crash: the version is recorded only when all are done."""
        if found == SCHEMA_VERSION:
            return
        existing = set(self._db.list_tables().tables)
        for name, schema in SCHEMAS.items():  # a new store: every table; 1: the fields table and on; 2: the grid's
            if name not in existing:  # (Library.contract_fields fills it from each contract's clauses)
                self._db.create_table(name, schema=schema)
        if found == 1:  # version 1 kept its version in the documents table's schema, store.json has it now
            self._db.open_table("documents").to_lance().update_schema_metadata({}, replace=True)
        self._ensure_text_indexes(self._db.open_table("clauses"))
        record_version(self.folder)

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
            orphans, strays = self.incomplete()
            for doc_id in orphans:
                self._delete_rows(doc_id)
            for doc_id in strays:
                self.folder.delete(_pdf(doc_id))
            return sorted(orphans)

    def incomplete(self) -> tuple[set[str], set[str]]:
        """The doc_ids with rows but no documents row, and those with a PDF but no documents row."""
        complete = set(self._column("documents", "doc_id"))
        return {d for name in CHILD_TABLES for d in self._column(name, "doc_id")} - complete, self.file_names_kept() - complete

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
            pause_point("file")
            self.folder.write(_pdf(doc_id), pdf_bytes)
            pause_point("fields")
            if fields is not None:
                self.put_fields(fields, extractor_version)
            pause_point("pages")
            if pages:
                self._tables["pages"].add(pa.Table.from_pylist(pages, schema=PAGES_SCHEMA))
            pause_point("edges")
            if edges:
                self._tables["edges"].add(pa.Table.from_pylist([edge_row(e) for e in edges], schema=EDGES_SCHEMA))
            pause_point("windows")
            if windows:
                self._tables["windows"].add(pa.Table.from_pylist(windows, schema=WINDOWS_SCHEMA))
            pause_point("clauses")
            if clauses:
                rows = [clause_row(c, v, document.embedding_model) for c, v in zip(clauses, clause_vectors)]
                self._tables["clauses"].add(pa.Table.from_pylist(rows, schema=CLAUSES_SCHEMA))
            pause_point("documents")
            self._tables["documents"].add(pa.Table.from_pylist([document_row(document)], schema=DOCUMENTS_SCHEMA))
            pause_point("written")

    def replace_vectors(
        self, doc_id: str, model: str, clause_vectors: dict[str, np.ndarray], window_vectors: dict[tuple[str, int], np.ndarray]
    ) -> bool:
        """Swap one contract's vectors for those of `model`, row for row; False if the contract
        is gone (deleted meanwhile). Each table changes in one commit and the documents row,
        which says which model made the vectors, changes last: a reader sees a contract whole,
        and a swap stopped half way is done again, as the contract still names the old model."""
        with self.writing():
            if self.document(doc_id) is None:
                return False
            if clause_vectors:
                self._update_vectors("clauses", ["clause_id"], {"clause_id": list(clause_vectors)}, list(clause_vectors.values()), model)
            if window_vectors:
                keys = list(window_vectors)
                columns = {"clause_id": [c for c, _ in keys], "window": [w for _, w in keys]}
                self._update_vectors("windows", ["clause_id", "window"], columns, list(window_vectors.values()), model)
            self._tables["documents"].update(where=f"doc_id = {_quote(doc_id)}", values={"embedding_model": model})
            return True

    def _update_vectors(self, table: str, keys: list[str], columns: dict[str, list], vectors: list[np.ndarray], model: str) -> None:
        schema = self._tables[table].schema
        rows = pa.table(
            {
                **{name: pa.array(values, type=schema.field(name).type) for name, values in columns.items()},
                "vector": pa.array([np.asarray(v, np.float32) for v in vectors], type=schema.field("vector").type),
                "embedding_model": pa.array([model] * len(vectors), type=pa.string()),
            }
        )
        self._tables[table].merge_insert(keys).when_matched_update_all().execute(rows)

    def put_fields(self, fields: ContractFields, extractor_version: str) -> None:
        """Write (or replace) one contract's fields."""
        table = self._tables["fields"]
        with self.writing():
            table.delete(f"doc_id = {_quote(fields.doc_id)}")
            table.add(pa.Table.from_pylist([fields_row(fields, extractor_version)], schema=FIELDS_SCHEMA))

    def fields(self, doc_ids: Sequence[str] | None = None) -> dict[str, tuple[str, ContractFields]]:
        """doc_id -> (extractor version, fields) for the given contracts (every stored one when
        none are given); only their rows are read and parsed."""
        where = in_list("doc_id", doc_ids) if doc_ids else None
        rows = self._tables["fields"].to_lance().to_table(columns=["doc_id", "extractor_version", "fields"], filter=where).to_pylist()
        return {row["doc_id"]: (row["extractor_version"], ContractFields.model_validate_json(row["fields"])) for row in rows}

    def delete_document(self, doc_id: str) -> None:
        """Remove a document and every row that belongs to it; its documents row goes first,
        so an interrupted delete leaves rows that the next open removes."""
        with self.writing():
            self._tables["documents"].delete(f"doc_id = {_quote(doc_id)}")
            self._delete_rows(doc_id)
            self.folder.delete(_pdf(doc_id))

    def _delete_rows(self, doc_id: str) -> None:
        for name in CHILD_TABLES:
            self._tables[name].delete(f"doc_id = {_quote(doc_id)}")

    def compact(self) -> None:
        """Merge the small files each ingest adds to the tables without a search index; the
        clauses table's full-text index makes its optimize an index job, left to the end of a
        batch (optimize). The documents table matters most: every file of a batch reads it.
        Each merge rewrites the files merged before it, so versions older than a minute, which
        no reader still holds (every read opens the latest), are deleted, or a 500-contract batch
        would leave a third more on disk."""
        with self.writing():
            for name, table in self._tables.items():
                if name != "clauses":
                    table.optimize(cleanup_older_than=_SUPERSEDED_AFTER)

    def optimize(self) -> None:
        """Fold newly added rows into the indexes and compact small files."""
        with self.writing():
            for table in self._tables.values():
                table.optimize()

    # ---------------------------------------------------------------- reading

    def documents(self) -> list[Document]:
        """Every stored document, oldest first. Read again only when the table's version moved
        (any write, from any process, moves it): a question reads the list twice, and reading
        it costs ~6 ms at 150 contracts against ~0.4 ms for the version."""
        version = self.table_version("documents")
        held = self._documents
        if held is None or held[0] != version:
            rows = self._tables["documents"].to_arrow().to_pylist()
            held = self._documents = (version, sorted((document_from_row(row) for row in rows), key=lambda d: d.ingested_at))
        return list(held[1])

    def embedding_models(self) -> set[str]:
        """The models that made the stored vectors (one column read, for the check on open)."""
        return set(self._tables["documents"].to_lance().to_table(columns=["embedding_model"]).column("embedding_model").to_pylist())

    def document(self, doc_id: str) -> Document | None:
        rows = self._query("documents", f"doc_id = {_quote(doc_id)}")
        return document_from_row(rows[0]) if rows else None

    def find_document(self, name: str) -> Document:
        """A document by file name, doc_id, or a unique prefix of either (`Conformis` for
        `ConformisInc_...pdf`, case aside); a clear error if none or several match."""
        documents = self.documents()
        exact = [d for d in documents if d.file_name == name or d.doc_id == name]
        prefix = name.lower()
        by_prefix = [d for d in documents if d.doc_id.startswith(prefix) or d.file_name.lower().startswith(prefix)]
        matches = (exact or by_prefix) if name else []
        if not matches:
            raise NotFoundError(f"no document matches {name!r}; `python -m engine list` shows what is in the store")
        if len(matches) > 1:
            names = ", ".join(f"{d.file_name} ({d.doc_id[:12]})" for d in matches[:5])
            raise NotFoundError(f"{name!r} matches {len(matches)} documents: {names}; give more of the file name or doc_id")
        return matches[0]

    def clauses(self, doc_id: str) -> list[Clause]:
        rows = self._query("clauses", f"doc_id = {_quote(doc_id)}", exclude=("vector", "embedding_model"))
        return sorted((Clause(**row) for row in rows), key=lambda c: c.order)

    def clauses_by_id(self, clause_ids: Sequence[str]) -> dict[str, Clause]:
        """clause_id -> clause for these clauses alone, in one read (no vectors)."""
        rows = self._query("clauses", in_list("clause_id", clause_ids), exclude=("vector", "embedding_model"))
        return {row["clause_id"]: Clause(**row) for row in rows}

    def edges(self, doc_id: str) -> list[Edge]:
        rows = self._query("edges", f"doc_id = {_quote(doc_id)}")
        return [Edge(**row) for row in rows]

    def pages(self, doc_id: str) -> list[PageWords]:
        return self.pages_of([doc_id]).get(doc_id, [])

    def pages_of(self, doc_ids: Sequence[str]) -> dict[str, list[PageWords]]:
        """doc_id -> its pages' words, in page order, for several documents in one scan."""
        found: dict[str, list[PageWords]] = {}
        for row in self._query("pages", in_list("doc_id", doc_ids)):
            found.setdefault(row["doc_id"], []).append(PageWords(row))
        return {doc_id: sorted(pages, key=lambda p: p.page) for doc_id, pages in found.items()}

    def file_names(self) -> dict[str, str]:
        """doc_id -> file name for every document: one column pair of the documents table."""
        table = self._tables["documents"].to_lance().to_table(columns=["doc_id", "file_name"])
        return dict(zip(table.column("doc_id").to_pylist(), table.column("file_name").to_pylist()))

    def windows(self, doc_id: str, vectors: bool = False) -> list[dict]:
        return self._query("windows", f"doc_id = {_quote(doc_id)}", exclude=() if vectors else ("vector",))

    def graph_parts(self, doc_ids: Sequence[str]) -> dict[str, GraphParts]:
        """What each of these documents' clause graph in memory is built from, read with one
        scan per table instead of five per document: a question over hundreds of contracts
        loads them all, and per-document reads each scan the whole table."""
        where = in_list("doc_id", doc_ids)
        parts = {doc_id: GraphParts() for doc_id in doc_ids}
        columns = [name for name in CLAUSES_SCHEMA.names if name != "embedding_model"]
        table = self._tables["clauses"].to_lance().to_table(columns=columns, filter=where)
        vectors = table.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False).reshape(-1, DIMENSION)
        for row, vector in zip(table.drop(["vector"]).to_pylist(), vectors.astype(np.float32)):
            part = parts[row["doc_id"]]
            part.clauses.append(Clause(**row))
            part.vectors.append(vector)
        windows = self._tables["windows"].to_lance().to_table(columns=["doc_id", "clause_id", "window", "char_start", "char_end", "vector"], filter=where)
        for row in windows.to_pylist():
            parts[row["doc_id"]].windows.append(row)
        for row in self._tables["pages"].to_lance().to_table(columns=["doc_id", "page", "text_start"], filter=where).to_pylist():
            parts[row["doc_id"]].page_starts.append((row["page"], row["text_start"]))
        for row in self._query("edges", where):
            parts[row["doc_id"]].edges.append(Edge(**row))
        return parts

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
        """The contract's PDF on this machine (a remote store's, fetched once into the workspace)."""
        return self.folder.local_copy(_pdf(doc_id))

    def file_names_kept(self) -> set[str]:  # the doc_ids whose PDF is kept
        return {name.removesuffix(".pdf") for name in self.folder.names(FILES) if name.endswith(".pdf")}

    def size_bytes(self) -> int:
        return self.folder.total_bytes()

    def table_version(self, name: str) -> int:
        """The table's latest version: it changes with every write, from any process."""
        return self._tables[name].version

    def table(self, name: str):
        """The LanceDB table itself, for the retriever's vector and full-text queries."""
        return self._tables[name]

    def _query(self, table: str, where: str, exclude: Iterable[str] = ()) -> list[dict]:
        schema = SCHEMAS[table]
        columns = [name for name in schema.names if name not in set(exclude)]
        dataset = self._tables[table].to_lance()
        return dataset.to_table(columns=columns, filter=where).to_pylist()

    def close(self) -> None:
        self._tables.clear()

    def destroy(self) -> None:
        """Delete the whole store (tests and `reset`)."""
        self.close()
        self.folder.remove_all()
