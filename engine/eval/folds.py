"""How benchmarks name a contract, and which fold model left it out.

A model cross-validated by contract (the presence model, the query adapter) is kept as one file
per fold beside `contracts.json`, which names the contracts each file never read. A contract is
named by its question file's document path: a CUAD contract by its file stem, a ContractNLI NDA
(rendered to contractnli/pdf/<id>.pdf) as contractnli:<id>, the way `--hold-docs` lists name them.
"""

from __future__ import annotations

import json
from pathlib import Path

NDA_ID_PREFIX = "contractnli:"


def nda_contract_id(nda_id: int | str) -> str:
    """How a ContractNLI NDA is named among contract ids (--hold-docs, fold lists): contractnli:<id>."""
    return f"{NDA_ID_PREFIX}{nda_id}"


def contract_id(doc_path: str) -> str:
    """The contract id of a question's document: a CUAD contract's file stem, an NDA's
    contractnli:<id> (its PDF is contractnli/pdf/<id>.pdf)."""
    path = Path(doc_path)
    return nda_contract_id(path.stem) if path.parts[:1] == ("contractnli",) else path.stem


def fold_files(folder: Path) -> dict[str, Path]:
    """Contract id -> the fold model file that never read it (`folder/contracts.json`)."""
    left_out = json.loads((folder / "contracts.json").read_text())
    return {contract: folder / name for name, contracts in left_out.items() for contract in contracts}
