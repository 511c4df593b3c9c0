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


CONTRACTNLI = SHARED_DATA / "contractnli"
NDA_PDFS = PROJECT_ROOT / "data" / "phrasings" / "contractnli" / "pdf"  # rendered by bench/phrasings/build.py
NDA_ID_PREFIX = "contractnli:"  # how --hold-docs names a ContractNLI NDA: contractnli:<id>


def nda_contract_id(nda_id: int | str) -> str:
    """How a ContractNLI NDA is named among contract ids (--hold-docs, fold lists): contractnli:<id>."""
    return f"{NDA_ID_PREFIX}{nda_id}"


def contract_id(doc_path: str) -> str:
    """The contract id of a question's document: a CUAD contract's file stem, an NDA's
    contractnli:<id> (its PDF is contractnli/pdf/<id>.pdf)."""
    path = Path(doc_path)
    return nda_contract_id(path.stem) if path.parts[:1] == ("contractnli",) else path.stem


def contractnli_dev() -> dict:
    """ContractNLI's dev split: its NDAs (text, spans, annotations) and its 17 hypotheses."""
    return json.loads((CONTRACTNLI / "dev.json").read_text())


def nda_categories(data: dict | None = None) -> dict[str, str]:
    """ContractNLI hypothesis key -> the category name the question and presence models give it
    ("NDA: No reverse engineering")."""
    from engine.fields.presence import NDA_PREFIX  # here, not at the top: most benchmarks never load the model's libraries

    data = data or contractnli_dev()
    return {key: f"{NDA_PREFIX}{label['short_description']}" for key, label in data["labels"].items()}
