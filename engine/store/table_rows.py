"""Convert between the models and rows of the store's tables.

Everything that knows how a model field is stored (clause types as a JSON string, vectors
as float32 lists, fields as JSON beside the filterable governing law) is here, so the
store's reads and writes only move rows.
"""

from __future__ import annotations

import json
from datetime import datetime

import numpy as np

from models.clause import Clause
from models.document import Document
from models.edge import Edge
from models.fields import ContractFields


def clause_row(clause: Clause, vector: np.ndarray, model: str) -> dict:
    row = clause.model_dump(mode="json")
    row["vector"] = np.asarray(vector, dtype=np.float32).tolist()
    row["embedding_model"] = model
    return row


def edge_row(edge: Edge) -> dict:
    return edge.model_dump(mode="json")


def document_row(document: Document) -> dict:
    row = document.model_dump()
    row["clause_types"] = json.dumps(document.clause_types)
    return row


def fields_row(fields: ContractFields, extractor_version: str) -> dict:
    return {
        "doc_id": fields.doc_id, "extractor_version": extractor_version,
        "governing_law": fields.governing_law.value if fields.governing_law else "",
        "present": [category for category, presence in fields.presence.items() if presence.present],
        "fields": fields.model_dump_json(),
    }


def document_from_row(row: dict) -> Document:
    row = dict(row)
    row["clause_types"] = json.loads(row["clause_types"] or "{}")
    if isinstance(row["ingested_at"], datetime) and row["ingested_at"].tzinfo is None:
        row["ingested_at"] = row["ingested_at"].astimezone()
    return Document(**row)
