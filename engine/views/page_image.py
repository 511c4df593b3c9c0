"""A contract page drawn as an image with the cited words highlighted: what the viewer shows.

PyMuPDF draws the highlights from the citation's own word rectangles (one per printed line),
so a quote that wraps lines lights up line by line, exactly, and one that crosses a page is
drawn on each page it touches. The document is opened read-only per call and never saved.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
from pydantic import BaseModel

from models.answer import Rect

HIGHLIGHT_RGB = (1.0, 0.85, 0.2)
FOCUS_MARGIN = 110.0  # points shown above the first and below the last highlighted line
# The longest side of a rendered image: an A0 drawing or a page 30 metres wide (PDF sets no
# limit) is drawn smaller rather than as a pixmap of gigabytes.
MAX_SIDE_PIXELS = 6000


class PageImage(BaseModel):
    png: bytes
    page: int
    pages: int  # in the document
    highlights: int  # rectangles drawn on this page
    focused: bool  # cut to the highlighted band rather than the whole page


def render_page(pdf_path: Path, page: int, rects: list[Rect] = (), dpi: int = 110, focus: bool = False) -> PageImage:
    """Page `page` (1-based) with the rectangles that fall on it highlighted.

    `focus` cuts the image to the band around the highlights, full width, so the quote is
    on screen at once without scrolling; with no highlight on the page it shows the page.
    """
    with pymupdf.open(pdf_path) as document:
        if not 1 <= page <= document.page_count:
            raise ValueError(f"page {page} is outside the document (1-{document.page_count})")
        pdf_page = document[page - 1]
        boxes = [pymupdf.Rect(r.x0, r.y0, r.x1, r.y1) for r in rects if r.page == page]
        for box in boxes:
            annotation = pdf_page.add_highlight_annot(box)
            annotation.set_colors(stroke=HIGHLIGHT_RGB)
            annotation.update()
        clip = None
        if focus and boxes:
            bounds = pdf_page.rect
            top = max(bounds.y0, min(b.y0 for b in boxes) - FOCUS_MARGIN)
            bottom = min(bounds.y1, max(b.y1 for b in boxes) + FOCUS_MARGIN)
            clip = pymupdf.Rect(bounds.x0, top, bounds.x1, bottom)
        area = clip or pdf_page.rect
        zoom = min(dpi / 72, MAX_SIDE_PIXELS / max(area.width, area.height, 1.0))
        pixmap = pdf_page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), annots=True, clip=clip)
        return PageImage(
            png=pixmap.tobytes("png"), page=page, pages=document.page_count, highlights=len(boxes), focused=clip is not None
        )
