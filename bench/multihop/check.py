"""Check a hand-written multi-hop question file before anyone measures with it.

    /work/main/.venv/bin/python bench/multihop/check.py bench/multihop/dev_extra.jsonl

Why: a benchmark question is only as good as its gold. A snippet that is not verbatim (a
retyped quote, a wrong page, a quote that runs over a page break without `page_end`) can never
be "found" in retrieved context, so it silently lowers every recall number; a test contract
slipped into a dev file leaks the held-out split; a question reusing multihop_dev's contracts
measures nothing new. This script holds the file to ../shared/bench/FORMAT.md and to the rules
of issue 17 (item 3), using the project's own scorer:

- every snippet is found by `engine.eval.scores.snippet_found` in the normalised PyMuPDF text
  of its page (plus the next page when `page_end` is set), at an unlimited budget, and also
  occurs whole (verbatim after normalisation), 10-60 words long, on the page it claims to
  start on;
- ids are unique; `type`, `hops`, `answerable` and `evidence` agree (answerable: 2-3 hops, one
  snippet per hop; unanswerable: no evidence);
- every contract is a CUAD `dev` contract (the manifest's split) and none is used by
  ../shared/bench/multihop_dev.jsonl;
- questions do not name section numbers.

A contract's split is checked before its PDF is opened, so a `test` contract is never read.

It prints counts by type, by hops, answerable/unanswerable and the number of contracts, and
exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pymupdf

PROJECT_ROOT = Path(__file__).resolve().parents[2]
if str(PROJECT_ROOT) not in sys.path:
    sys.path.insert(0, str(PROJECT_ROOT))

from engine.eval.scores import Question, snippet_found  # noqa: E402
from engine.text.normalise import normalise  # noqa: E402

SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
BENCH_DIR = SHARED_DATA.parent / "bench"

TYPES = {"definition", "cross_reference", "definition+cross_reference", "parent_scope", "unanswerable"}
MIN_WORDS, MAX_WORDS = 10, 60
SLACK = 200  # characters of page footer/header a snippet over a page break may skip
SECTION_NUMBER = re.compile(r"\b(section|clause|article|schedule|exhibit|paragraph)s?\s+\(?[0-9ivx]", re.IGNORECASE)


@lru_cache(maxsize=None)
def page_texts(path: Path) -> tuple[str, ...]:
    """The normalised text of each page, read as FORMAT.md's citations are: PyMuPDF get_text()."""
    with pymupdf.open(path) as pdf:
        return tuple(normalise(page.get_text()) for page in pdf)


def manifest() -> dict[str, dict]:
    """CUAD manifest rows keyed by the `docs` path a question uses ("cuad/pdf/<id>.pdf")."""
    rows = (json.loads(line) for line in (SHARED_DATA / "cuad" / "manifest.jsonl").open())
    return {f"cuad/{row['file']}": row for row in rows}


def used_by_multihop_dev() -> set[str]:
    """The documents ../shared/bench/multihop_dev.jsonl already asks about."""
    lines = (BENCH_DIR / "multihop_dev.jsonl").read_text().splitlines()
    return {doc for line in lines if line.strip() for doc in json.loads(line)["docs"]}


def verbatim(words: list[str], page: str, next_page: str | None) -> bool:
    """Whether the normalised words occur whole on the page or, for a snippet over a page
    break, as a head at the end of the page and the rest at the start of the next page (up to
    SLACK characters of running footer or header between them are allowed)."""
    if next_page is None:
        return " ".join(words) in page
    for cut in range(1, len(words)):
        head, tail = " ".join(words[:cut]), " ".join(words[cut:])
        if head in page[-(len(head) + SLACK) :] and tail in next_page[: len(tail) + SLACK]:
            return True
    return False


def check_snippet(doc: str, evidence: dict, where: str) -> list[str]:
    """Problems with one evidence snippet (empty when it is verbatim on its page)."""
    problems: list[str] = []
    text, page, page_end = evidence.get("text", ""), evidence.get("page"), evidence.get("page_end")
    words = normalise(text).split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        problems.append(f"{where}: {len(words)} words (want {MIN_WORDS}-{MAX_WORDS})")
    pages = page_texts(SHARED_DATA / doc)
    if not isinstance(page, int) or not 1 <= page <= len(pages):
        return problems + [f"{where}: page {page!r} is not a page of {doc} (1-{len(pages)})"]
    if page_end is not None and page_end != page + 1:
        return problems + [f"{where}: page_end {page_end!r} must be page + 1"]
    if page_end is not None and page_end > len(pages):
        return problems + [f"{where}: page_end {page_end} is past the last page"]
    scope = pages[page - 1] if page_end is None else pages[page - 1] + " " + pages[page_end - 1]
    if not snippet_found(text, scope):
        problems.append(f"{where}: not found by snippet_found on page {page}{'-' + str(page_end) if page_end else ''}")
        if page_end is None and page < len(pages) and verbatim(words, pages[page - 1], pages[page]):
            problems.append(f"{where}: runs on to page {page + 1}; add \"page_end\": {page + 1}")
    elif not verbatim(words, pages[page - 1], pages[page_end - 1] if page_end else None):
        problems.append(f"{where}: found by 5-grams but not verbatim on page {page}{'-' + str(page_end) if page_end else ''}")
    if page_end is not None and (" ".join(words) in pages[page - 1] or " ".join(words) in pages[page_end - 1]):
        problems.append(f"{where}: has page_end but lies whole on one page")
    if page_end is None and " ".join(words) not in pages[page - 1]:
        elsewhere = [n for n, page_text in enumerate(pages, start=1) if " ".join(words) in page_text]
        if elsewhere:
            problems.append(f"{where}: is on page(s) {elsewhere}, not {page}")
    return problems


def check_question(line: dict, contracts: dict[str, dict], used: set[str]) -> list[str]:
    """Problems with one question line (empty when it passes)."""
    qid = line.get("id", "?")
    problems: list[str] = []
    try:
        Question.model_validate(line)
    except ValueError as error:
        return [f"{qid}: not a FORMAT.md question: {error}"]
    missing = {"id", "docs", "question", "answerable", "hops", "type", "evidence", "answer"} - line.keys()
    if missing:
        problems.append(f"{qid}: missing fields {sorted(missing)}")
    kind, hops, evidence, answerable = line["type"], line["hops"], line["evidence"], line["answerable"]
    if kind not in TYPES:
        problems.append(f"{qid}: type {kind!r} not one of {sorted(TYPES)}")
    if answerable:
        if kind == "unanswerable":
            problems.append(f"{qid}: answerable but typed unanswerable")
        if hops not in (2, 3):
            problems.append(f"{qid}: a multi-hop question has 2 or 3 hops, not {hops}")
        if len(evidence) != hops:
            problems.append(f"{qid}: {hops} hops but {len(evidence)} snippets")
        if len({normalise(e['text']) for e in evidence}) != len(evidence):
            problems.append(f"{qid}: repeats a snippet")
    else:
        if kind != "unanswerable":
            problems.append(f"{qid}: unanswerable but typed {kind!r}")
        if evidence:
            problems.append(f"{qid}: unanswerable questions have no evidence")
        if hops not in (0, 1, 2, 3):
            problems.append(f"{qid}: hops {hops} out of range")
    if not str(line.get("answer") or "").strip():
        problems.append(f"{qid}: no reference answer")
    if SECTION_NUMBER.search(line["question"]):
        problems.append(f"{qid}: the question names a section number")
    if len(line["docs"]) != 1:
        return problems + [f"{qid}: want exactly one document, got {line['docs']}"]
    doc = line["docs"][0]
    row = contracts.get(doc)
    if row is None:
        return problems + [f"{qid}: {doc} is not a CUAD manifest file (docs are 'cuad/pdf/<file>')"]
    if row["split"] != "dev":
        return problems + [f"{qid}: {doc} is a {row['split']} contract; only dev contracts may be used"]
    if doc in used:
        problems.append(f"{qid}: {doc} is already used by multihop_dev.jsonl")
    for number, item in enumerate(evidence, start=1):
        problems += check_snippet(doc, item, f"{qid} snippet {number}")
    return problems


def table(title: str, counts: Counter, by_key: bool = False) -> str:
    """Counts as aligned rows, largest first (or in key order)."""
    order = sorted(counts.items(), key=lambda item: item[0] if by_key else (-item[1], str(item[0])))
    return "\n".join([title, *(f"  {str(name):30} {count:>4}" for name, count in order)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("questions", type=Path, help="a question file in FORMAT.md form")
    args = parser.parse_args()
    if not (SHARED_DATA / "cuad").is_dir():
        print(f"error: the shared data set is not at {SHARED_DATA}", file=sys.stderr)
        return 2
    lines = [json.loads(text) for text in args.questions.read_text().splitlines() if text.strip()]
    contracts, used = manifest(), used_by_multihop_dev()
    problems: list[str] = []
    ids = Counter(line.get("id") for line in lines)
    problems += [f"{qid}: id used {n} times" for qid, n in ids.items() if n > 1]
    for line in lines:
        problems += check_question(line, contracts, used)
    snippets = sum(len(line.get("evidence", [])) for line in lines)
    print(f"{args.questions}: {len(lines)} questions, {snippets} snippets")
    print(table("by type:", Counter(line.get("type") for line in lines)))
    print(table("by hops:", Counter(line.get("hops") for line in lines), by_key=True))
    print(table("answerable:", Counter("answerable" if line.get("answerable") else "unanswerable" for line in lines)))
    per_contract = Counter(doc for line in lines for doc in line.get("docs", []))
    print(f"contracts: {len(per_contract)} (questions per contract: min {min(per_contract.values(), default=0)}, max {max(per_contract.values(), default=0)})")
    if problems:
        print(f"\nFAILED: {len(problems)} problem(s)")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print("\nOK: every snippet verbatim on its page, ids unique, types and hops consistent, dev contracts only, none shared with multihop_dev")
    return 0


if __name__ == "__main__":
    sys.exit(main())
