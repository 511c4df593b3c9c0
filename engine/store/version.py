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

from pydantic import BaseModel, Field, ValidationError

from engine.errors import ClausegraphError

SCHEMA_VERSION = 3
MANIFEST_FILE = "store.json"


class StoreVersionError(ClausegraphError):
    """The store's layout is one this version cannot read; the message says what to do."""


class StoreManifest(BaseModel):
    schema_version: int = Field(ge=1)


def stored_version(folder, where: str, has_tables: bool) -> int | None:
    """The store's schema version: None for a new store, 1 for one from before store.json.
    `folder` holds the store's files (folder.py), `where` names the store in messages."""
    try:
        data = folder.read(MANIFEST_FILE)
    except OSError as error:
        raise _unreadable(where, error.strerror) from None
    if data is None:
        return 1 if has_tables else None
    try:
        version = StoreManifest.model_validate_json(data).schema_version
    except ValidationError:
        raise _unreadable(where, "it is not a store manifest") from None
    if version > SCHEMA_VERSION:
        raise StoreVersionError(
            f"the store at {where} was written by a newer Clausegraph (store schema {version}; this one "
            f"reads schema {SCHEMA_VERSION} and older): update Clausegraph, or open another store (--db DIR or $CLAUSEGRAPH_DB)"
        )
    return version


def _unreadable(where: str, reason: str) -> StoreVersionError:
    return StoreVersionError(
        f"cannot read {where}/{MANIFEST_FILE} ({reason}), so the layout of the store is unknown: restore that file, "
        "or open another store (--db DIR or $CLAUSEGRAPH_DB)"
    )


def record_version(folder) -> None:
    """Write store.json for SCHEMA_VERSION, whole or not at all (a kill leaves the old one)."""
    folder.write(MANIFEST_FILE, (StoreManifest(schema_version=SCHEMA_VERSION).model_dump_json(indent=2) + "\n").encode())
