"""The kind of agreement read from each contract (title, else opening words) against CUAD's
manifest type, on the dev contracts of a store.

    .venv/bin/python bench/doctype.py [--db data/bench-store]

CUAD's types are folder names ("License_Agreements", "Joint Venture _ Filing"); each maps to
the family the app shows. Prints accuracy, the contracts left "Other", and every disagreement.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from common import BENCH_STORE, CUAD, require_shared_data

from engine.fields.doctype import document_type
from engine.service import Library

#: CUAD manifest type -> the families that are right for it
EXPECTED = {
    "License_Agreements": {"License"}, "Maintenance": {"Maintenance"}, "Strategic Alliance": {"Strategic Alliance"},
    "Distributor": {"Distributor"}, "Development": {"Development"}, "Sponsorship": {"Sponsorship"},
    "Service": {"Services"}, "Collaboration": {"Collaboration", "Cooperation"}, "Co_Branding": {"Co-Branding"},
    "Manufacturing": {"Manufacturing"}, "Supply": {"Supply"}, "Hosting": {"Hosting"}, "Outsourcing": {"Outsourcing"},
    "IP": {"Intellectual Property"}, "Franchise": {"Franchise"}, "Joint Venture _ Filing": {"Joint Venture", "Joint Filing"},
    "Joint Venture": {"Joint Venture", "Joint Filing"}, "Endorsement": {"Endorsement"}, "Endorsement Agreement": {"Endorsement"},
    "Marketing": {"Marketing"}, "Agency Agreements": {"Agency"}, "Consulting Agreements": {"Consulting"},
    "Reseller": {"Reseller"}, "Affiliate_Agreements": {"Affiliate"}, "Affiliate Agreement": {"Affiliate"},
    "Promotion": {"Promotion"}, "Transportation": {"Transportation"}, "Non_Compete_Non_Solicit": {"Non-Compete"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=str(BENCH_STORE))
    args = parser.parse_args()
    require_shared_data()
    manifest = {Path(r["file"]).name: r for r in map(json.loads, (CUAD / "manifest.jsonl").open())}
    library = Library(Path(args.db))
    outcome: Counter[str] = Counter()
    wrong = []
    for document in library.documents():
        row = manifest.get(document.file_name)
        if row is None or row["split"] != "dev":
            continue
        clauses = library.store.clauses(document.doc_id)
        found = document_type(document.title, " ".join(c.text for c in clauses[:4]))
        verdict = "right" if found in EXPECTED[row["contract_type"]] else ("other" if not found else "wrong")
        outcome[verdict] += 1
        if verdict != "right":
            wrong.append(f"  {verdict:5} {row['contract_type']:24} -> {found or '(Other)':22} title: {document.title[:60]}")
    total = sum(outcome.values())
    print(f"{total} dev contracts: right {outcome['right']} ({outcome['right'] / total:.3f}), "
          f"shown as Other {outcome['other']}, wrong {outcome['wrong']}")
    print("\n".join(sorted(wrong)))


if __name__ == "__main__":
    main()
