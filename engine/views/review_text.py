"""The review grid and the playbook review as the command line prints them: JSON in the shape
issue 19 gives, or plain text a reader can scan."""

from __future__ import annotations

from models.answer import Citation, section_name
from models.review import Grid, Review, Status


def _citations(citations: list[Citation]) -> list[dict]:
    return [{"page": c.page, "quote": c.quote, "ref": c.ref} for c in citations]


def grid_json(grid: Grid) -> dict:
    return {
        "questions": [c.question for c in grid.columns],
        "rows": [
            {
                "doc_id": row.doc_id,
                "file": row.file,
                "cells": [
                    {
                        "question": column.question,
                        "column": column.id,
                        "answer": cell.answer if cell else "",
                        "abstained": not cell.found if cell else True,
                        "why": cell.why if cell else "not filled",
                        "citations": _citations(cell.citations) if cell else [],
                    }
                    for column in grid.columns
                    for cell in [row.cells.get(column.id)]
                ],
            }
            for row in grid.rows
        ],
    }


def render_grid(grid: Grid) -> str:
    lines = []
    for row in grid.rows:
        lines.append(row.file)
        for column in grid.columns:
            cell = row.cells.get(column.id)
            if cell is None or not cell.found:
                lines.append(f"  {column.label}: not found")
            else:
                where = f" [{section_name(cell.citations[0].ref)}, page {cell.citations[0].page}]" if cell.citations else ""
                lines.append(f"  {column.label}: {cell.answer}{where}")
    return "\n".join(lines)


def review_json(review: Review) -> dict:
    return {
        "playbook": review.playbook,
        "contracts": [
            {
                "doc_id": contract.doc_id,
                "file": contract.file,
                "verdicts": [
                    {
                        "rule": v.rule, "status": v.status.value, "severity": v.severity.value, "found": v.found,
                        "value": v.value, "why": v.why, "citations": _citations(v.citations),
                    }
                    for v in contract.verdicts
                ],
            }
            for contract in review.contracts
        ],
    }


_MARK = {Status.RED: "RED  ", Status.AMBER: "AMBER", Status.GREEN: "green"}


def render_review(review: Review) -> str:
    lines = [f"Playbook: {review.playbook}"]
    for contract in review.contracts:
        counts = {status: sum(v.status is status for v in contract.verdicts) for status in Status}
        lines.append(f"\n{contract.file}: {counts[Status.RED]} red, {counts[Status.AMBER]} amber, {counts[Status.GREEN]} green")
        for verdict in contract.verdicts:
            where = f" [{section_name(verdict.citations[0].ref)}, page {verdict.citations[0].page}]" if verdict.citations else ""
            lines.append(f"  {_MARK[verdict.status]} {verdict.rule}: {verdict.why}{where}")
    return "\n".join(lines)
