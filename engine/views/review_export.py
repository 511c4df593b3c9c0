"""The review grid and the playbook review as files to hand on: CSV and XLSX for the grid,
Markdown and CSV for the review. Every answer travels with its quote, section and page, so a
reader of the file can check it without the app."""

from __future__ import annotations

import csv
import io

from models.answer import Citation, section_name
from models.review import Grid, GridCell, Review, Status

_GREY = "D9D9D9"
_FILLS = {Status.GREEN: "C6EFCE", Status.AMBER: "FFEB9C", Status.RED: "FFC7CE"}


def _evidence(citations: list[Citation]) -> tuple[str, str, str]:
    """(quotes, sections, pages) of a cell's citations, one per line."""
    return (
        "\n".join(" ".join(c.quote.split()) for c in citations),
        "\n".join(section_name(c.ref) for c in citations),
        "\n".join(str(c.page) for c in citations),
    )


def _cell_rows(grid: Grid) -> list[dict]:
    """One row per contract and column, the way a spreadsheet filter wants it."""
    rows = []
    for row in grid.rows:
        for column in grid.columns:
            cell = row.cells.get(column.id)
            quotes, sections, pages = _evidence(cell.citations if cell else [])
            rows.append({
                "contract": row.file, "column": column.label, "question": column.question,
                "found": "" if cell is None else "yes" if cell.found else "no",
                "answer": cell.answer if cell else "", "quote": quotes, "section": sections, "page": pages,
                "why": cell.why if cell else "not filled yet",
            })
    return rows


def grid_csv(grid: Grid) -> bytes:
    out = io.StringIO()
    rows = _cell_rows(grid)
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["contract", "column"])
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode("utf-8-sig")  # the mark Excel needs to read UTF-8


def _cell_text(cell: GridCell | None) -> str:
    if cell is None:
        return "(not filled yet)"
    if not cell.found:
        return "Not found"
    where = "; ".join(f"{section_name(c.ref)}, p. {c.page}" for c in cell.citations)
    return f"{cell.answer}\n[{where}]" if where else cell.answer


def grid_xlsx(grid: Grid) -> bytes:
    """Sheet "Grid": contracts by columns, each cell its answer and where it is said, cells
    not found in grey; sheet "Evidence": one row per cell with its quote, section and page."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill

    book = Workbook()
    sheet = book.active
    sheet.title = "Grid"
    sheet.append(["Contract", *(c.label for c in grid.columns)])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in grid.rows:
        sheet.append([row.file, *(_cell_text(row.cells.get(c.id)) for c in grid.columns)])
        for column, written in zip(grid.columns, sheet[sheet.max_row][1:]):
            written.alignment = Alignment(wrap_text=True, vertical="top")
            cell = row.cells.get(column.id)
            if cell is None or not cell.found:
                written.fill = PatternFill("solid", fgColor=_GREY)
                written.font = Font(italic=True, color="595959")
    sheet.column_dimensions["A"].width = 45
    for index in range(len(grid.columns)):
        sheet.column_dimensions[sheet.cell(row=1, column=index + 2).column_letter].width = 40
    sheet.freeze_panes = "B2"

    evidence = book.create_sheet("Evidence")
    rows = _cell_rows(grid)
    evidence.append(list(rows[0]) if rows else ["contract", "column"])
    for row in rows:
        evidence.append(list(row.values()))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def review_csv(review: Review) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["contract", "rule", "severity", "status", "found", "value", "why", "quote", "section", "page"])
    for contract in review.contracts:
        for v in contract.verdicts:
            writer.writerow([contract.file, v.rule, v.severity.value, v.status.value, "yes" if v.found else "no", v.value, v.why,
                             *_evidence(v.citations)])
    return out.getvalue().encode("utf-8-sig")


def review_markdown(review: Review) -> str:
    lines = [f"# Playbook review: {review.playbook}", ""]
    for contract in review.contracts:
        counts = {s: sum(v.status is s for v in contract.verdicts) for s in Status}
        lines += [f"## {contract.file}", "", f"{counts[Status.RED]} red, {counts[Status.AMBER]} amber, {counts[Status.GREEN]} green", ""]
        for v in contract.verdicts:
            lines.append(f"- **{v.status.value.upper()}** `{v.rule}` ({v.severity.value}): {v.why}")
            for c in v.citations:
                lines.append(f"  > “{' '.join(c.quote.split())}” ({section_name(c.ref)}, page {c.page})")
        lines.append("")
    return "\n".join(lines)
