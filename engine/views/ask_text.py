"""`python -m engine ask`: one question, answered with numbered citations or an abstention.

    python -m engine ask [--db DIR] [--doc DOC ...] [--llm none|ollama:MODEL|openai:URL#MODEL] [--json] QUESTION

Plain output names the backend that answered, the answer with [n] marks, and each citation
with file, section and page. `--json` prints the harness output object of
../shared/bench/FORMAT.md (docs named by file name), plus the backend.
"""

from __future__ import annotations

import json
import sys
import textwrap

from engine.eval.harness import to_output
from engine.llm import parse_llm
from engine.service import Library
from models.answer import Answer, BackendKind, section_name
from models.enumeration import Enumeration
from models.retrieval import Mode


def main(args, library: Library) -> int:
    library.use_llm(parse_llm(args.llm))
    documents = library.documents()
    if not documents:
        print("error: the library is empty; add contracts with: python -m engine ingest PATH...", file=sys.stderr)
        return 1
    doc_ids = [library.find(name).doc_id for name in args.doc] if args.doc else None
    listing = library.enumerate(args.question, doc_ids)
    if listing is not None:
        print(json.dumps(enumeration_json(listing), indent=2, ensure_ascii=False) if args.json else render_enumeration(listing))
        return 0
    answerer = library.answerer
    graphs = library.scope(doc_ids)
    retrieval = library.search(args.question, doc_ids, Mode(args.mode), graphs=graphs)
    answer = answerer.answer(retrieval, graphs, on_text=_progress if not args.json and sys.stderr.isatty() else None)
    if args.json:
        names = {d.doc_id: d.file_name for d in documents}
        output = to_output("ask", answer, retrieval, names.__getitem__).model_dump()
        output["backend"] = answer.answered_by
        print(json.dumps(output, indent=2, ensure_ascii=False))
        return 0
    print(render(answer))
    return 0


def enumeration_json(listing: Enumeration) -> dict:
    """`{"documents": [{doc_id, file, value, citation}], "citations": [...]}`, citations as FORMAT.md has them."""

    def cited(citation) -> dict | None:
        return None if citation is None else {"doc": citation.file_name, "page": citation.page, "quote": citation.quote}

    return {
        "documents": [{"doc_id": d.doc_id, "file": d.file, "value": d.value, "citation": cited(d.citation)} for d in listing.documents],
        "citations": [cited(c) for c in listing.citations],
        "count": len(listing.documents),
        "searched": listing.searched,
        "notes": listing.notes,
    }


def render_enumeration(listing: Enumeration) -> str:
    lines = ["Answered from the contract fields (every contract in scope checked)", "", listing.headline()]
    for row in listing.documents:
        where = f" — {section_name(row.citation.ref)}, page {row.citation.page}: “{' '.join(row.citation.quote.split())[:200]}”" if row.citation else ""
        lines.append(f"  [{row.citation.number if row.citation else '-'}] {row.file} ({row.value}){where}")
    lines += [f"note: {note}" for note in listing.notes]
    return "\n".join(lines)


def _progress(text: str) -> None:
    print(f"\rdrafting… {len(text)} characters", end="", file=sys.stderr, flush=True)


def render(answer: Answer) -> str:
    lines = [f"Answered by: {answer.backend_label}  (evidence support {answer.support:.2f})", "", answer.lead]
    for claim in answer.claims:
        marks = "".join(f"[{n}]" for n in claim.citations)
        lines.append(textwrap.fill(f"{claim.text} {marks}", width=100, initial_indent="  - ", subsequent_indent="    "))
    if answer.citations:
        lines += ["", "Citations:"]
        for c in answer.citations:
            pages = f"page {c.page}" if c.page == c.page_end else f"pages {c.page}-{c.page_end}"
            lines.append(f"  [{c.number}] {c.file_name}, {section_name(c.ref)}, {pages}")
            if answer.backend is not BackendKind.EXTRACTIVE:
                lines.append(textwrap.fill(f"“{c.quote}”", width=100, initial_indent="      ", subsequent_indent="      "))
    if answer.closest:
        lines += ["", "Closest clauses, to check for yourself:"]
        for c in answer.closest:
            lines.append(f"  {c.file_name}, {section_name(c.ref)}{' ' + c.heading if c.heading else ''}, page {c.page}")
            lines.append(textwrap.fill(c.excerpt, width=100, initial_indent="      ", subsequent_indent="      "))
    if answer.notes:
        lines += [""] + [f"note: {n}" for n in answer.notes]
    return "\n".join(lines)

