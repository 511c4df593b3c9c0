"""A conversation as Markdown, each answer with its numbered citations quoted in full.

What an analyst pastes into a memo: the question, the answer as given (or the abstention and
the clauses it pointed to), and for every [n] the file, section, page and exact words.
"""

from __future__ import annotations

from models.answer import Answer, section_name
from models.enumeration import Enumeration
from models.per_contract import PerContract


def conversation_markdown(answers: list[Answer | Enumeration | PerContract], title: str = "Clausegraph conversation") -> str:
    lines = [f"# {title}", ""]
    for number, answer in enumerate(answers, start=1):
        if isinstance(answer, Enumeration):
            lines += _listing(number, answer)
            continue
        if isinstance(answer, PerContract):
            lines += _per_contract(number, answer)
            continue
        lines += [f"## {number}. {answer.question}", "", f"*Answered by {answer.backend_label}.*", "", answer.lead, ""]
        lines += [claim.line() for claim in answer.stating_claims]
        if answer.more_claims:
            lines += ["", "*More evidence*", ""] + [claim.line() for claim in answer.more_claims]
        if answer.citations:
            lines += ["", "**Citations**", ""]
            for c in answer.citations:
                pages = f"page {c.page}" if c.page == c.page_end else f"pages {c.page}-{c.page_end}"
                lines.append(f"{c.number}. {c.file_name}, {section_name(c.ref)}, {pages}: “{_one_line(c.quote)}”")
        if answer.closest:
            lines += ["", "**Closest clauses, to check**", ""]
            for c in answer.closest:
                lines.append(f"- {c.file_name}, {section_name(c.ref)}, page {c.page}: {_one_line(c.excerpt)}")
        if answer.notes:
            lines += [""] + [f"> note: {note}" for note in answer.notes]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _listing(number: int, listing: Enumeration) -> list[str]:
    how = "Answered from the contract fields." if listing.method == "fields" else "Each contract searched on its own."
    lines = [f"## {number}. {listing.query.question}", "", f"*{listing.headline()} {how}*", ""]
    for row in listing.documents:
        where = ""
        if row.citation is not None:
            where = f" — {section_name(row.citation.ref)}, page {row.citation.page}: “{_one_line(row.citation.quote)}”"
        elif row.awaiting_citation:
            where = f" — “{_one_line(row.quote)}” (from the contract's fields; not cited yet)"
        lines.append(f"- {row.file} ({row.value}){where}")
    lines += [f"> note: {note}" for note in listing.notes] + [""]
    return lines


def _per_contract(number: int, answers: PerContract) -> list[str]:
    lines = [f"## {number}. {answers.question}", "", f"*{answers.headline()}*", ""]
    for row in answers.found:
        lines.append(f"- **{row.file}**: {row.answer.lead}")
        lines += [f"  - “{_one_line(c.quote)}” ({section_name(c.ref)}, page {c.page})" for c in row.answer.opening]
    if answers.missing:
        lines.append("- Not found in: " + ", ".join(row.file for row in answers.missing))
    return lines + [""]


def _one_line(text: str) -> str:
    return " ".join(text.split())
