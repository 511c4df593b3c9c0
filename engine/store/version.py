"""Which layout a store folder has, as its store.json records it, checked before anything is read.

Version 1, the first stores: tables documents, clauses, windows, edges and pages, the version
written into the documents table's schema metadata, no store.json. Version 2 adds the fields
table (each contract's governing law and clause categories, for corpus-wide questions) and
keeps the version in store.json, outside the tables, so that a later layout can record itself
there whatever its tables are, and this version, opening it, says so instead of taking it for
an empty store or damaging it. Version 3 adds the review grid's tables (grid_columns,
grid_cells); an older store gets them, empty, when it is opened.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from engine.errors import ClausegraphError

SCHEMA_VERSION = 3
MANIFEST_FILE = "store.json"


class StoreVersionError(ClausegraphError):
    """The store's layout is one this version cannot read; the message says what to do."""


class StoreManifest(BaseModel):
    schema_version: int = Field(ge=1)


def stored_version(store_dir: Path, has_tables: bool) -> int | None:
    """The store's schema version: None for a new store, 1 for one from before store.json."""
    path = Path(store_dir) / MANIFEST_FILE
    if not path.exists():
        return 1 if has_tables else None
    try:
        version = StoreManifest.model_validate_json(path.read_bytes()).schema_version
    except (OSError, ValidationError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not a store manifest"
        raise StoreVersionError(
            f"cannot read {path} ({reason}), so the layout of the store is unknown: restore that file, "
            "or open another store (--db DIR or $CLAUSEGRAPH_DB)"
        ) from None
    if version > SCHEMA_VERSION:
        raise StoreVersionError(
            f"the store at {store_dir} was written by a newer Clausegraph (store schema {version}; this one "
            f"reads schema {SCHEMA_VERSION} and older): update Clausegraph, or open another store (--db DIR or $CLAUSEGRAPH_DB)"
        )
    return version


def record_version(store_dir: Path) -> None:
    """Write store.json for SCHEMA_VERSION, whole or not at all (a kill leaves the old one)."""
    path = Path(store_dir) / MANIFEST_FILE
    partial = path.with_suffix(".json.partial")
    with partial.open("w") as out:
        out.write(StoreManifest(schema_version=SCHEMA_VERSION).model_dump_json(indent=2) + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)
