"""Fixtures: the sample contracts (always present) and ../shared/data (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.ingest.clauses import segment
from engine.ingest.graph import ClauseGraph, build_graph
from engine.ingest.pdf import DocumentText, read_pdf
from engine.settings import PROJECT_ROOT, SAMPLES_DIR

SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
GCLOUD = SAMPLES_DIR / "g-cloud-8-framework-agreement.pdf"
HIGHWAYS_NDA = SAMPLES_DIR / "NDA__contractors__draft.pdf"
MUTUAL_NDA = SAMPLES_DIR / "Example-Mutual-Non-Disclosure-Agreement.pdf"

needs_shared_data = pytest.mark.skipif(
    not (SHARED_DATA / "cuad" / "pdf").is_dir(),
    reason=f"needs the shared evaluation data at {SHARED_DATA} (present in CI, absent in a plain clone)",
)


class Parsed:
    """A contract parsed and structured (no embedding), with lookups tests need."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.text: DocumentText = read_pdf(path)
        self.graph: ClauseGraph = build_graph("doc", self.text, segment(self.text), path.stem)
        self.by_ref = {c.path: c for c in self.graph.clauses}
        self.by_id = {c.clause_id: c for c in self.graph.clauses}

    def clause(self, ref: str):
        return self.by_ref[ref]

    def parent_chain(self, ref: str) -> list[str]:
        chain, clause = [], self.by_ref[ref]
        while clause.parent_id is not None:
            clause = self.by_id[clause.parent_id]
            chain.append(clause.ref)
        return chain

    def edges(self, kind: str) -> list:
        return [e for e in self.graph.edges if e.type.value == kind]


_parsed_cache: dict[Path, Parsed] = {}


def parsed(path: Path) -> Parsed:
    if path not in _parsed_cache:
        _parsed_cache[path] = Parsed(path)
    return _parsed_cache[path]


@pytest.fixture(scope="session")
def gcloud() -> Parsed:
    return parsed(GCLOUD)


@pytest.fixture(scope="session")
def highways() -> Parsed:
    return parsed(HIGHWAYS_NDA)


@pytest.fixture(scope="session")
def mutual_nda() -> Parsed:
    return parsed(MUTUAL_NDA)


@pytest.fixture(scope="session")
def sample_library(tmp_path_factory):
    """A store with the three sample contracts ingested once (embedding included)."""
    from engine.service import Library

    library = Library(tmp_path_factory.mktemp("store"))
    outcomes = library.ingest_paths([SAMPLES_DIR])
    assert [o.status.value for o in outcomes] == ["ingested"] * 3, [o.message for o in outcomes]
    return library
