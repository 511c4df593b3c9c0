"""Contract fields against the CUAD lawyers' labels: precision, recall and F1 per field.

    .venv/bin/python bench/fields.py [--split dev|test|all] [--workers 2] [--cache FILE] [--show-errors CATEGORY]

Every CUAD contract is parsed and structured exactly as at ingest (no embedding: fields are
read from clauses), its fields extracted, and compared with `labels.jsonl`:

- Governing law: a prediction is right when its jurisdiction equals the label's
  `normalized_answer` (compared by jurisdiction name, so "Ontario" = "Ontario, Canada").
  A wrong jurisdiction counts as a false positive and a false negative.
- Expiration date: the same date (m/d/yy), "perpetual", or a term length where the label
  is relative (answerable with no date); anything else is a false positive and negative.
- Agreement date, effective date: the same date (m/d/yy); where the label has no date (an
  effective date set by an event), any predicted date is a false positive and negative.
- Renewal term: the same length (number and unit of the first period, "successive" aside).
- Parties: party by party; a labelled party is found when a predicted one names the same
  entity (same first distinctive word, or one name's words inside the other's).
- Presence flags: "present" against the category's `answerable`.

Reports dev and test separately (tune on dev; test is for measuring). Categories marked *
are the ones the app flags: cross-validated dev F1 >= 0.80 when the model was trained.
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from common import CUAD, cuad_labels, cuad_manifest, require_shared_data

from engine.fields import extract_fields
from engine.fields.jurisdiction import jurisdiction_key
from engine.fields.parties import same_party
from engine.fields.presence import MIN_RELIABLE_CONTRACTS, MIN_RELIABLE_F1, presence_model
from engine.ingest.clauses import segment
from engine.ingest.graph import build_graph
from engine.ingest.pdf import read_pdf

TARGET_GOVERNING_LAW_F1 = 0.95
TARGET_PRESENCE_F1 = 0.85


def clauses_of(contract: dict):
    text = read_pdf(CUAD / contract["file"])
    return contract["id"], build_graph(contract["id"], text, segment(text), contract["id"]).clauses


class Count:
    def __init__(self) -> None:
        self.tp = self.fp = self.fn = 0

    def add(self, predicted: bool, actual: bool, right: bool = True) -> None:
        if predicted and actual and right:
            self.tp += 1
            return
        if predicted:
            self.fp += 1
        if actual:
            self.fn += 1

    def scores(self) -> tuple[float, float, float]:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return precision, recall, f1


def load_clauses(contracts: list[dict], workers: int, cache: Path | None) -> dict:
    if cache and cache.exists():
        return pickle.loads(cache.read_bytes())
    started, parsed = time.perf_counter(), {}
    with ProcessPoolExecutor(workers) as pool:
        for number, (contract_id, clauses) in enumerate(pool.map(clauses_of, contracts, chunksize=4), start=1):
            parsed[contract_id] = clauses
            if number % 100 == 0:
                print(f"  parsed {number}/{len(contracts)} ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if cache:
        cache.write_bytes(pickle.dumps(parsed))
    return parsed


def measure(contracts: list[dict], parsed: dict, labels: dict, show_errors: str | None) -> dict[str, Count]:
    counts: dict[str, Count] = defaultdict(Count)
    for contract in contracts:
        fields = extract_fields(contract["id"], parsed[contract["id"]])
        by_category = {row["category"]: row for row in labels.get(contract["id"], [])}
        law = by_category.get("Governing Law")
        if law is not None:
            predicted = fields.governing_law
            actual = law["answerable"] and bool(law["normalized_answer"])
            right = predicted is not None and actual and jurisdiction_key(predicted.value) == jurisdiction_key(law["normalized_answer"])
            counts["Governing Law"].add(predicted is not None, actual, right)
            if show_errors == "Governing Law" and (predicted is not None or actual) and not right:
                print(f"  {contract['id'][:60]}: predicted {predicted.value if predicted else None!r}, label {law['normalized_answer']!r}"
                      + (f"\n      “{predicted.quote[:160]}”" if predicted else ""))
        expiration = by_category.get("Expiration Date")
        if expiration is not None:
            _score_value(counts["Expiration Date"], fields.expiration, expiration, contract["id"] if show_errors == "Expiration Date" else None, _expiration_agrees)
        for category, value in (("Agreement Date", fields.agreement_date), ("Effective Date", fields.effective_date)):
            if category in by_category:
                _score_value(counts[category], value, by_category[category], contract["id"] if show_errors == category else None, _date_agrees)
        if "Renewal Term" in by_category:
            _score_value(counts["Renewal Term value"], fields.renewal_term, by_category["Renewal Term"],
                         contract["id"] if show_errors == "Renewal Term value" else None, _renewal_agrees)
        parties = by_category.get("Parties")
        if parties is not None:
            _score_parties(counts["Parties"], [p.value for p in fields.parties], parties, contract["id"] if show_errors == "Parties" else None)
        for category in presence_model().contract_categories:
            row = by_category.get(category)
            if row is None:
                continue
            presence = fields.presence[category]
            counts[category].add(presence.present, row["answerable"])
            if show_errors == category and presence.present != row["answerable"]:
                said = presence.evidence[0].quote[:200].replace("\n", " ") if presence.evidence else ""
                print(f"  {'FP' if presence.present else 'FN'} {contract['id'][:60]}: {said}")
    return counts


def _score_value(count: Count, predicted, label: dict, show: str | None, agrees) -> None:
    """A field with one value: right when one is predicted, the label has one, and
    `agrees(predicted, labelled)`, both lower case. A wrong value is a false positive and negative."""
    wanted = label["normalized_answer"].strip().lower() if label["answerable"] else None
    value = predicted.value.lower() if predicted else None
    right = value is not None and wanted is not None and agrees(value, wanted)
    count.add(predicted is not None, wanted is not None, right)
    if show and (predicted is not None or wanted is not None) and not right:
        print(f"  {show[:60]}: predicted {value!r}, label {wanted!r}" + (f"\n      “{' '.join(predicted.quote.split())[:200]}”" if predicted else ""))


def _expiration_agrees(value: str, wanted: str) -> bool:
    """The same date, "perpetual" for perpetual, or a term written as a length where the label
    has no date ('' in CUAD: a relative term)."""
    return _same_date(value, wanted) if "/" in value or value == "perpetual" else wanted == ""


def _date_agrees(value: str, wanted: str) -> bool:
    return bool(wanted) and _same_date(value, wanted)


_PERIOD = re.compile(r"(\d+)\s*(year|month|day)")


def _renewal_agrees(value: str, wanted: str) -> bool:
    """The same length: number and unit of the first period, "successive" aside."""
    want, got = _PERIOD.search(wanted), _PERIOD.search(value)
    return bool(want and got) and want.groups() == got.groups()


def _same_date(value: str, wanted: str) -> bool:
    if value == "perpetual" or wanted == "perpetual":
        return value == wanted
    parts = [p.lstrip("0") for p in value.split("/")]
    target = [p.lstrip("0") for p in wanted.split("/")]
    return len(target) == 3 and all(t in ("[]", "") or t == p for p, t in zip(parts, target))


def _score_parties(count: Count, predicted: list[str], label: dict, show: str | None) -> None:
    """Party by party: a labelled party is found when a predicted one names the same entity."""
    wanted = [p.strip() for p in label["normalized_answer"].split(";") if p.strip()] if label["answerable"] else []
    matched = [any(same_party(p, w) for w in wanted) for p in predicted]
    found = [any(same_party(p, w) for p in predicted) for w in wanted]
    count.tp += sum(found)
    count.fp += matched.count(False)
    count.fn += found.count(False)
    if show and (False in matched or False in found):
        print(f"  {show[:60]}: predicted {predicted}, label {wanted}")


def render(split: str, counts: dict[str, Count], contracts: int) -> str:
    lines = [
        f"{split}: {contracts} contracts" + ("  (the presence model was trained on these: see its cross-validated F1)" if split == "dev" else ""),
        f"{'field':38} {'precision':>9} {'recall':>7} {'F1':>6}   {'(tp/fp/fn)':>14}  dev CV F1",
        "-" * 90,
    ]
    presence_f1 = []
    values = ["Governing Law", "Agreement Date", "Effective Date", "Expiration Date", "Renewal Term value", "Parties"]
    for name in [*values, *presence_model().contract_categories]:
        count = counts.get(name)
        if count is None:
            continue
        precision, recall, f1 = count.scores()
        if name not in values:
            presence_f1.append(f1)
        flag = " *" if name in presence_model().reliable else ""
        cv = presence_model().cv_f1.get(name)
        tally = f"({count.tp}/{count.fp}/{count.fn})"
        lines.append(f"{name:38} {precision:9.3f} {recall:7.3f} {f1:6.3f}   {tally:>14}  {f'{cv:.3f}' if cv is not None else '':>9}{flag}")
    law_f1 = counts["Governing Law"].scores()[2]
    model = presence_model()
    reliable = [counts[c].scores()[2] for c in model.reliable if c in counts]
    cross_validated = [model.cv_f1[c] for c in model.reliable]
    mean = sum(presence_f1) / len(presence_f1) if presence_f1 else 0.0
    lines += [
        "-" * 90,
        f"governing-law F1 {law_f1:.3f} (target >= {TARGET_GOVERNING_LAW_F1})",
        f"presence F1 averaged over the {len(reliable)} flagged categories (cross-validated dev F1 >= {MIN_RELIABLE_F1} "
        f"in >= {MIN_RELIABLE_CONTRACTS} dev contracts): "
        f"{sum(reliable) / max(1, len(reliable)):.3f} (target >= {TARGET_PRESENCE_F1})",
        f"presence F1 averaged over all {len(presence_f1)} categories: {mean:.3f}",
    ]
    if split == "dev":
        lines.append(f"cross-validated dev presence F1 over the flagged categories: {sum(cross_validated) / max(1, len(cross_validated)):.3f}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default="all")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", type=Path, help="keep the parsed clauses here, to re-run the rules quickly")
    parser.add_argument("--show-errors", help="print the misses of one field (e.g. 'Governing Law') on the chosen split")
    args = parser.parse_args()
    require_shared_data()
    labels = cuad_labels()
    everything = cuad_manifest(None)
    started = time.perf_counter()
    parsed = load_clauses(everything, args.workers, args.cache)
    splits = ["dev", "test"] if args.split == "all" else [args.split]
    for split in splits:
        contracts = [c for c in everything if c["split"] == split and c["labelled"]]
        print(render(split, measure(contracts, parsed, labels, args.show_errors), len(contracts)))
        print()
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
