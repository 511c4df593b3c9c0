"""Paths and loaders shared by the benchmark scripts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
if str(PROJECT_ROOT) not in sys.path:
    sys.path.insert(0, str(PROJECT_ROOT))

SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
CUAD = SHARED_DATA / "cuad"
BENCH_DIR = SHARED_DATA.parent / "bench"
BENCH_STORE = PROJECT_ROOT / "data" / "bench-store"


def require_shared_data() -> None:
    if not CUAD.is_dir():
        sys.exit(f"error: the shared data set is not at {SHARED_DATA}; benchmarks need ../shared/data")


def cuad_manifest(split: str | None = "dev") -> list[dict]:
    rows = [json.loads(line) for line in (CUAD / "manifest.jsonl").open()]
    return [r for r in rows if split is None or r["split"] == split]


def cuad_labels() -> dict[str, list[dict]]:
    """Labels by contract id."""
    labels: dict[str, list[dict]] = {}
    for line in (CUAD / "labels.jsonl").open():
        row = json.loads(line)
        labels.setdefault(row["id"], []).append(row)
    return labels
