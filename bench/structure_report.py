"""How well ingestion recovers contract structure, over the CUAD `dev` contracts.

    .venv/bin/python bench/structure_report.py [--split dev] [--limit N] [--workers 2]

Prints clauses per contract, the share of text inside a numbered clause, definitions and
references found (and the share resolved), and, against the lawyers' labels: the share
of labelled spans that fall inside one clause rather than across two, and how often the
clause holding a labelled span has the clause type its CUAD category maps to.
No embedding is done: this measures parsing and structure only.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from common import CUAD, cuad_labels, cuad_manifest, require_shared_data

from engine.ingest.clauses import segment
from engine.ingest.graph import build_graph
from engine.ingest.pdf import read_pdf
from engine.text.normalise import locate, normalise_with_offsets
from models.clause import ClauseKind
from models.edge import EdgeType

#: CUAD categories whose clauses have an obvious clause type.
CATEGORY_TYPES = {
    "Governing Law": "governing_law",
    "Anti-Assignment": "assignment",
    "Change Of Control": "change_of_control",
    "Non-Compete": "non_compete",
    "No-Solicit Of Employees": "non_compete",
    "No-Solicit Of Customers": "non_compete",
    "Exclusivity": "exclusivity",
    "Ip Ownership Assignment": "ip_ownership",
    "License Grant": "license_grant",
    "Audit Rights": "audit",
    "Insurance": "insurance",
    "Cap On Liability": "limitation_of_liability",
    "Uncapped Liability": "limitation_of_liability",
    "Renewal Term": "renewal",
    "Notice Period To Terminate Renewal": "renewal",
    "Expiration Date": "term_termination",
    "Termination For Convenience": "term_termination",
    "Warranty Duration": "warranty",
    "Revenue/Profit Sharing": "payment",
}
_SCHEDULE_WORDS = re.compile(r"schedule|exhibit|annex|appendi|attachment", re.IGNORECASE)
NUMBERED = {ClauseKind.ARTICLE, ClauseKind.SECTION, ClauseKind.SUBCLAUSE}
SKIP_CATEGORIES = {"Document Name", "Parties", "Agreement Date", "Effective Date"}  # short cover-page facts


def analyse(item: tuple[dict, list[dict]]) -> dict:
    contract, labels = item
    text = read_pdf(CUAD / contract["file"])
    segments = segment(text)
    graph = build_graph("x", text, segments, contract["id"])
    clauses = graph.clauses
    total = len(text.text.strip()) or 1
    inside_numbered = _numbered_ids(clauses)
    numbered = sum(c.char_end - c.char_start for c in clauses if c.clause_id in inside_numbered)
    references = [e for e in graph.edges if e.type is EdgeType.REFERENCES]
    normalised = normalise_with_offsets(text.text)
    starts = [c.char_start for c in clauses]
    spans = {"located": 0, "missing": 0, "inside_one": 0, "inside_subtree": 0}
    types: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    by_id = {c.clause_id: c for c in clauses}
    for label in labels:
        if not label["answerable"] or label["category"] in SKIP_CATEGORIES:
            continue
        for answer in label["answers"]:
            if len(answer["text"].split()) < 4:
                continue  # too short to place reliably
            found = locate(answer["text"], text.text, normalised)
            if not found:
                spans["missing"] += 1
                continue
            if answer.get("page"):
                on_page = [s for s in found if text.page_at(s[0]) == answer["page"]]
                found = on_page or found
            start, end = found[0]
            spans["located"] += 1
            holder = _holder(clauses, starts, start)
            if holder is not None and end <= holder.char_end + 1:
                spans["inside_one"] += 1
            node = holder
            while node is not None and end > _subtree_end(node, clauses) + 1:
                node = by_id.get(node.parent_id) if node.parent_id else None
            if node is not None and node.kind in NUMBERED:
                spans["inside_subtree"] += 1
            category_type = CATEGORY_TYPES.get(label["category"])
            if category_type and holder is not None:
                types[label["category"]].append(
                    (holder.clause_type.value == category_type, category_type in {t.value for t in holder.topics} or holder.clause_type.value == category_type)
                )
    return {
        "clauses": len(clauses),
        "numbered_share": numbered / total,
        "definitions": len(graph.definitions),
        "references": len(references),
        "resolved": sum(1 for e in references if e.dst is not None),
        "unresolved_schedules": sum(1 for e in references if e.dst is None and _SCHEDULE_WORDS.search(e.label)),
        "defines_edges": sum(1 for e in graph.edges if e.type is EdgeType.DEFINES),
        "spans": spans,
        "types": dict(types),
        "pages": text.page_count,
    }


def _numbered_ids(clauses) -> set[str]:
    """Numbered clauses and everything inside one (a definition entry under 1.1).
    Parents come before their children, so one pass suffices."""
    inside: set[str] = set()
    for clause in clauses:
        if clause.kind in NUMBERED or clause.parent_id in inside:
            inside.add(clause.clause_id)
    return inside


def _holder(clauses, starts, offset):
    from bisect import bisect_right

    index = bisect_right(starts, offset) - 1
    return clauses[index] if index >= 0 else None


def _subtree_end(clause, clauses) -> int:
    end = clause.char_end
    for other in clauses[clause.order + 1 :]:
        if other.level <= clause.level:
            break
        end = other.char_end
    return end


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    require_shared_data()
    contracts = cuad_manifest(args.split)
    if args.limit:
        contracts = contracts[: args.limit]
    labels = cuad_labels()
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(analyse, [(c, labels.get(c["id"], [])) for c in contracts], chunksize=4))
    elapsed = time.perf_counter() - started
    report(results, len(contracts), args.split, elapsed)


def report(results: list[dict], n: int, split: str, elapsed: float) -> None:
    clauses = [r["clauses"] for r in results]
    references = sum(r["references"] for r in results)
    resolved = sum(r["resolved"] for r in results)
    spans = Counter()
    for r in results:
        spans.update(r["spans"])
    located = spans["located"] or 1
    print(f"Structure report: {n} CUAD {split} contracts, {sum(r['pages'] for r in results)} pages, {elapsed:.0f} s\n")
    print(f"{'clauses per contract':44} mean {statistics.mean(clauses):.1f}, median {statistics.median(clauses):.0f}, min {min(clauses)}, max {max(clauses)}")
    print(f"{'share of text inside a numbered clause':44} {statistics.mean(r['numbered_share'] for r in results):.1%} (mean over contracts)")
    print(f"{'contracts with no numbered clause':44} {sum(1 for r in results if r['numbered_share'] == 0)}")
    print(f"{'definitions found':44} {sum(r['definitions'] for r in results)} total, {statistics.mean(r['definitions'] for r in results):.1f} per contract")
    print(f"{'cross-references found':44} {references} total, {resolved / max(references, 1):.1%} resolved")
    to_schedules = sum(r["unresolved_schedules"] for r in results)
    print(f"{'  ... unresolved, to schedules/exhibits':44} {to_schedules} (often not part of the filed PDF)")
    print(f"{'  ... unresolved, to sections and articles':44} {references - resolved - to_schedules}")
    print(f"{'DEFINES edges':44} {sum(r['defines_edges'] for r in results)} total")
    print(f"{'labelled spans located in the text':44} {spans['located']} of {spans['located'] + spans['missing']}")
    print(f"{'  ... inside one clause (own text)':44} {spans['inside_one'] / located:.1%}")
    print(f"{'  ... inside one numbered clause with its subclauses':44} {spans['inside_subtree'] / located:.1%}")
    print("\nClause type of the clause holding a labelled span (primary type / any type the rules found):")
    by_category: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for r in results:
        for category, hits in r["types"].items():
            by_category[category].extend(hits)
    strict_all = loose_all = count_all = 0
    for category in CATEGORY_TYPES:
        hits = by_category.get(category, [])
        if not hits:
            continue
        strict = sum(a for a, _ in hits)
        loose = sum(b for _, b in hits)
        strict_all, loose_all, count_all = strict_all + strict, loose_all + loose, count_all + len(hits)
        print(f"  {category:38} -> {CATEGORY_TYPES[category]:24} {strict / len(hits):6.1%} / {loose / len(hits):6.1%}  (n={len(hits)})")
    print(f"  {'all mapped categories':38}    {'':24} {strict_all / max(count_all, 1):6.1%} / {loose_all / max(count_all, 1):6.1%}  (n={count_all})")


if __name__ == "__main__":
    main()
