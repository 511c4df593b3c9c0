"""An answer or an enumeration as `engine ask` prints it: plain text, or JSON."""

from __future__ import annotations

import textwrap

from models.answer import Answer, BackendKind, section_name
from models.enumeration import Enumeration
from models.per_contract import PerContract


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
    how = "Answered from the contract fields" if listing.method == "fields" else "Each contract searched on its own"
    lines = [f"{how} (every contract in scope checked)", "", listing.headline()]
    for row in listing.documents:
        where = f" — {section_name(row.citation.ref)}, page {row.citation.page}: “{' '.join(row.citation.quote.split())[:200]}”" if row.citation else ""
        lines.append(f"  [{row.citation.number if row.citation else '-'}] {row.file} ({row.value}){where}")
    lines += [f"note: {note}" for note in listing.notes]
    return "\n".join(lines)


def render(answer: Answer) -> str:
    lines = [f"Answered by: {answer.backend_label}  (evidence support {answer.support:.2f})", "", answer.lead]
    for folded, claims in ((False, answer.stating_claims), (True, answer.more_claims)):
        if folded and claims:
            lines.append("  More evidence:")
        for claim in claims:
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


def render_per_contract(answers: PerContract) -> str:
    lines = [answers.headline(), ""]
    for row, citation in answers.cited:
        lines.append(f"{row.file}: {row.answer.lead}")
        lines.append(textwrap.fill(f"[{citation.number}] {row.answer.opening_quotes(300)} ({section_name(citation.ref)}, page {citation.page})",
                                   width=100, initial_indent="  ", subsequent_indent="    "))
    if answers.missing:
        lines += ["", "Not found in: " + ", ".join(row.file for row in answers.missing)]
    lines += [f"note: {note}" for note in answers.notes]
    return "\n".join(lines)
