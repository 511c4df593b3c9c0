"""Scores of an eval output file grouped by any field of its questions: per ContractNLI
hypothesis, per CUAD category, per "find all" target.

    .venv/bin/python bench/phrasings/breakdown.py --questions Q.jsonl --outputs OUT.jsonl --by hypothesis

Reads the question file and the harness's output lines (python -m engine eval --out); prints
recall@4k, false-abstain, abstain recall and the first quote on gold per group, worst first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.scores import Output, Question, breakdown  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--outputs", type=Path, required=True)
    parser.add_argument("--by", default="category", help="the question field to group by (hypothesis, category, target, style)")
    args = parser.parse_args()
    lines = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    group = {line["id"]: str(line.get(args.by)) for line in lines}
    questions = [Question.model_validate(line) for line in lines]
    outputs = {o.id: o for o in (Output.model_validate_json(line) for line in args.outputs.read_text().splitlines() if line.strip())}
    rows = breakdown([q for q in questions if q.id in outputs], outputs, lambda q: group[q.id])

    def cell(value: float | None) -> str:
        return f"{value:.3f}" if value is not None else "-"

    print(f"{args.by:44} {'n':>5} {'recall@4k':>10} {'false-abst':>10} {'abst-recall':>11} {'first-gold':>10}")
    for name, s in sorted(rows.items(), key=lambda item: -(item[1].false_abstain or 0)):
        recall = s.recall.get(4000) if s.answerable else None
        print(f"{name[:44]:44} {s.questions:>5} {cell(recall):>10} {cell(s.false_abstain):>10} {cell(s.abstain_recall):>11} {cell(s.first_quote_on_gold):>10}")


if __name__ == "__main__":
    main()
