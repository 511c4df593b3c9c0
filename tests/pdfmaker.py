"""Build small, real PDFs for edge cases that the sample contracts do not contain."""

from __future__ import annotations

from pathlib import Path

import pymupdf


def make_pdf(path: Path, pages: list[list[str]], font_size: float = 10.5) -> Path:
    """Write each page's lines top to bottom; a line starting with '>' is indented."""
    document = pymupdf.open()
    for lines in pages:
        page = document.new_page(width=612, height=792)
        y = 72.0
        for line in lines:
            x = 72.0
            if line.startswith(">"):
                x, line = 108.0, line[1:]
            page.insert_text((x, y), line, fontsize=font_size, fontname="helv")
            y += font_size * 1.45
    document.save(path)
    return path
