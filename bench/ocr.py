"""OCR quality on the scanned CUAD contract against its text-layer twin.

    .venv/bin/python bench/ocr.py

Ingests ../shared/data/cuad/scanned/Audible_Co_Branding_Agreement_SCANNED.pdf (read by
OCR) and the contract it was made from (cuad/pdf, text layer) into a temporary store, and
prints, for each:
- how many of the lawyers' labelled answer spans (labels.jsonl) its text contains: whole
  after FORMAT.md's normalisation, by FORMAT.md's snippet test (80% of word 5-grams), and
  fuzzily (partial ratio >= 90 on the normalised text, computed with difflib);
- evidence recall and completeness at 4k/8k characters for the contract's CUAD questions,
  in vector and graph mode. The contract is in CUAD's test split, so it is not in
  cuad_dev.jsonl: its questions are built as cuad_dev's are, one per labelled category,
  worded by ../shared/bench/cuad_phrasing.json, the labelled spans as evidence;
- the time OCR took per page.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from difflib import SequenceMatcher
from pathlib import Path

from common import BENCH_DIR, SHARED_DATA, cuad_labels, require_shared_data

from engine.eval.scores import Evidence, Question, Scores, score, snippet_found
from engine.eval.harness import ensure_documents, run
from engine.ingest import ocr
from engine.service import Library, Progress
from engine.text.normalise import normalise
from models.retrieval import Mode

CONTRACT = "AudibleInc_20001113_10_Q_EX_10_32_2599586_EX_10_32_Co_Branding_Agreement_Marketing_Agreeme"
SCAN = "cuad/scanned/Audible_Co_Branding_Agreement_SCANNED.pdf"
TWIN = f"cuad/pdf/{CONTRACT}.pdf"
FUZZY_FLOOR = 90
MODES = (Mode.VECTOR, Mode.GRAPH)


def partial_ratio(short: str, long: str) -> float:
    """How well `short` matches its best-aligned stretch of `long`, 0-100: the partial ratio
    of fuzzy-matching libraries, on difflib. Candidate stretches are where the span's word
    trigrams occur, shifted to where the span would start; the most voted-for are compared."""
    words = short.split()
    if not words:
        return 100.0
    n = min(3, len(words))
    offsets, position = [], 0
    for word in words:
        position = short.index(word, position)
        offsets.append(position)
        position += len(word)
    starts: Counter[int] = Counter()
    for index in range(len(words) - n + 1):
        gram = " ".join(words[index : index + n])
        found = long.find(gram)
        while found >= 0:
            starts[found - offsets[index]] += 1
            found = long.find(gram, found + 1)
    best = 0.0
    for start, _ in starts.most_common(5):
        window = long[max(0, start) : max(0, start) + len(short)]
        best = max(best, SequenceMatcher(None, short, window, autojunk=False).ratio())
    return 100 * best


def questions_for(doc: str, labels: list[dict]) -> list[Question]:
    """The contract's CUAD questions, one per category, as cuad_dev.jsonl builds them."""
    phrasing = json.loads((BENCH_DIR / "cuad_phrasing.json").read_text())
    questions = []
    for number, label in enumerate(sorted(labels, key=lambda l: l["category"]), start=1):
        evidence = [Evidence(text=a["text"], page=a.get("page"), page_end=a.get("page_end")) for a in label["answers"]]
        answerable = label["answerable"] and bool(evidence)
        questions.append(
            Question(
                id=f"ocr-{number:02d}", docs=[doc], question=phrasing[label["category"]], answerable=answerable,
                type="clause" if answerable else "unanswerable", category=label["category"], evidence=evidence,
                answer=label.get("normalized_answer"),
            )
        )
    return questions


def span_shares(text: str, spans: list[str]) -> tuple[int, int, int]:
    """Spans found whole (normalised), by FORMAT.md's snippet test, and fuzzily."""
    normal = normalise(text)
    whole = sum(normalise(span) in normal for span in spans)
    snippet = sum(snippet_found(span, normal) for span in spans)
    fuzzy = sum(partial_ratio(normalise(span), normal) >= FUZZY_FLOOR for span in spans)
    return whole, snippet, fuzzy


class PageClock:
    """Times each scanned page, wall clock and CPU, from the ingest's progress events.

    OCR runs in this process, so its CPU time is the cost of a page on a free core; the
    wall clock also counts waiting for the cores other work holds."""

    def __init__(self) -> None:
        self.marks: list[tuple[float, float]] = []
        self.parsed_at: tuple[float, float] | None = None

    def __call__(self, event: Progress) -> None:
        now = (time.perf_counter(), time.process_time())
        if event.message.startswith("recognising text"):
            self.marks.append(now)
        elif event.stage.value == "structure" and self.parsed_at is None:
            self.parsed_at = now

    def per_page(self) -> list[tuple[float, float]]:
        """(wall seconds, CPU seconds) for each recognised page."""
        ends = self.marks[1:] + [self.parsed_at or (time.perf_counter(), time.process_time())]
        return [(end[0] - start[0], end[1] - start[1]) for start, end in zip(self.marks, ends)]


def main() -> None:
    require_shared_data()
    if ocr.unavailable_reason():
        raise SystemExit(f"error: {ocr.unavailable_reason()}")
    labels = cuad_labels()[CONTRACT]
    spans = [a["text"] for label in labels if label["answerable"] for a in label["answers"]]
    with tempfile.TemporaryDirectory() as folder:
        library = Library(Path(folder))
        clock = PageClock()
        started, cpu = time.perf_counter(), time.process_time()
        outcome = library.ingest_file(SHARED_DATA / SCAN, clock)
        print(f"scan: {outcome.status.value}, {outcome.pages} pages, {outcome.clauses} clauses, "
              f"{outcome.seconds:.0f} s ({time.process_time() - cpu:.0f} s CPU); {'; '.join(outcome.warnings)}")
        for kind, times in zip(("wall clock", "CPU"), zip(*clock.per_page())):
            print(f"OCR at {ocr.DPI} dpi, {kind}: {sum(times):.0f} s for {len(times)} pages, per page mean "
                  f"{sum(times) / len(times):.1f} s, min {min(times):.1f} s, max {max(times):.1f} s")
        rows = {}
        for name, doc in (("scan (OCR)", SCAN), ("text layer", TWIN)):
            questions = questions_for(doc, labels)
            mapping = ensure_documents(library, questions, SHARED_DATA, say=lambda line: print("  " + line))
            doc_id = mapping[doc]
            text = "".join(page.text for page in library.store.pages(doc_id))
            results: dict[Mode, Scores] = {}
            for mode in MODES:
                outputs, _ = run(library, questions, mapping, mode)
                results[mode] = score(questions, outputs)
            rows[name] = (span_shares(text, spans), library.store.document(doc_id).clauses, results)
        print(f"\nelapsed {time.perf_counter() - started:.0f} s")
    answerable = sum(1 for q in questions if q.answerable)
    print(f"\n{CONTRACT}: {len(spans)} labelled spans in {len(labels)} categories, {answerable} answerable questions\n")
    header = f"{'':34}" + "".join(f"{name:>14}" for name in rows)
    print(header + "\n" + "-" * len(header))
    lines = [
        ("clauses", lambda r: f"{r[1]}"),
        ("spans found whole", lambda r: f"{r[0][0] / len(spans):.3f}"),
        ("spans found (5-gram test)", lambda r: f"{r[0][1] / len(spans):.3f}"),
        (f"spans found (partial ratio>={FUZZY_FLOOR})", lambda r: f"{r[0][2] / len(spans):.3f}"),
    ]
    for mode in MODES:
        lines += [
            (f"{mode.value} recall@4k", lambda r, m=mode: f"{r[2][m].recall[4000]:.3f}"),
            (f"{mode.value} recall@8k", lambda r, m=mode: f"{r[2][m].recall[8000]:.3f}"),
            (f"{mode.value} complete@8k", lambda r, m=mode: f"{r[2][m].complete[8000]:.3f}"),
        ]
    for title, cell in lines:
        print(f"{title:34}" + "".join(f"{cell(r):>14}" for r in rows.values()))


if __name__ == "__main__":
    main()
