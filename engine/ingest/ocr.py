"""Read the text of a scanned page with Tesseract, through PyMuPDF's OCR support.

A page without a text layer is a picture of text. PyMuPDF hands the rendered page to
Tesseract (Debian's `tesseract-ocr`; PyMuPDF only needs its language data) and gets back a
text page whose words carry boxes, which this module maps into the original page's
coordinates so that the parser, and later the citation highlights, treat recognised words
like printed ones.

Scans are rarely square to the paper. The page is rendered turned back by its measured skew
before recognition: on a tilted page Tesseract reads worse (two pages of the scanned CUAD
contract, tilted 0.2 and 0.75 degrees: 96.7% of their words read as printed, 98.7% levelled)
and its boxes put the first word of a line on the line above, which scrambles reading order.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pymupdf

from engine.ingest.page_text import PageText

LANGUAGE = "eng"
# Rendering resolution for recognition. Share of the text-layer twin's words read on five
# pages of the scanned CUAD contract (a 150 dpi scan of 7 pt type): 200 dpi 99.77%,
# 250 dpi 99.85%, 300 dpi 99.17%; 150 dpi reads 96.8% and 400 dpi 98.4% (on 3 and 2 of them).
DPI = 250
INSTALL_HINT = "install it with `apt-get install tesseract-ocr tesseract-ocr-eng` (or run `make setup`)"

_MAX_SKEW = 3.0  # degrees searched either way: a sheet fed through a scanner tilts by a degree or two
_SKEW_STEP = 0.05
_SKEW_DPI = 100


@cache
def tessdata() -> Path | None:
    """The folder holding Tesseract's English model, or None when OCR is not installed.

    TESSDATA_PREFIX, when set, is the only place looked at: it is how a user points at
    their own models. Otherwise PyMuPDF asks the installed `tesseract` command, and Debian's
    folder is the fallback for a machine where the command is not on the PATH.
    """
    candidates: list[str] = []
    try:
        candidates.append(pymupdf.get_tessdata())
    except RuntimeError:  # PyMuPDF's way of saying Tesseract is not installed
        pass
    if not os.environ.get("TESSDATA_PREFIX"):
        candidates.extend(sorted(glob.glob("/usr/share/tesseract-ocr/*/tessdata"), reverse=True))
    for candidate in candidates:
        folder = Path(candidate)
        if (folder / f"{LANGUAGE}.traineddata").is_file():
            return folder
    return None


def unavailable_reason() -> str | None:
    """Why text recognition cannot run here, in words for the user; None when it can."""
    if tessdata() is None:
        return f"text recognition (OCR) needs Tesseract with its English data, which is not installed: {INSTALL_HINT}"
    return None


def has_image(page: pymupdf.Page) -> bool:
    """Whether a page shows any picture: a page without text or pictures is blank, not scanned."""
    return bool(page.get_image_info())


def skew_degrees(page: pymupdf.Page) -> float:
    """The angle that levels the page's lines of text, found by projection profiles.

    Turned by the right angle, the dark pixels of each text line fall into the same few
    pixel rows, so the histogram of rows is at its most peaked (largest sum of squares).
    """
    pixmap = page.get_pixmap(dpi=_SKEW_DPI, colorspace=pymupdf.csGRAY)
    image = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.stride)[:, : pixmap.width]
    ys, xs = np.nonzero(image < 128)
    if len(ys) == 0:
        return 0.0
    best_angle, best_peak = 0.0, -1.0
    for angle in np.arange(-_MAX_SKEW, _MAX_SKEW + _SKEW_STEP / 2, _SKEW_STEP):
        rows = np.round(ys + xs * np.tan(np.radians(angle))).astype(np.int64)
        counts = np.bincount(rows - rows.min()).astype(np.float64)
        peak = float(np.dot(counts, counts))
        if peak > best_peak:
            best_angle, best_peak = float(angle), peak
    return round(best_angle, 2)


@dataclass(frozen=True)
class RecognisedPage:
    """A scanned page's text, in the page's coordinates turned level.

    Lines and reading order are worked out in the level frame, where a line of text is
    horizontal; `to_page` then takes word boxes back onto the page as it is printed.
    """

    text: PageText
    to_page: pymupdf.Matrix
    bounds: pymupdf.Rect  # the page's area in the level frame


def recognise(page: pymupdf.Page) -> RecognisedPage:
    """Recognise the text of a page that is a picture of text."""
    folder = tessdata()
    if folder is None:
        raise RuntimeError(unavailable_reason())
    level = pymupdf.Matrix(skew_degrees(page))  # a rotation
    zoom = DPI / 72
    pixmap = page.get_pixmap(matrix=level * pymupdf.Matrix(zoom, zoom))
    with pymupdf.open(stream=pixmap.pdfocr_tobytes(language=LANGUAGE, tessdata=str(folder))) as recognised:
        ocr_page = recognised[0]
        # The OCR page is the pixmap in its own points: back to pixels, shifted to where
        # the rendered area starts, and down from render resolution to page points.
        pixels = pymupdf.Matrix(pixmap.width / ocr_page.rect.width, pixmap.height / ocr_page.rect.height)
        origin = pymupdf.Matrix(1, 0, 0, 1, pixmap.x, pixmap.y)
        to_level = pixels * origin * pymupdf.Matrix(1 / zoom, 1 / zoom)
        text = PageText.of(ocr_page.get_textpage(flags=0, matrix=to_level))
    # a page stored turned (/Rotate) is rendered upright; its text coordinates are not
    return RecognisedPage(text, ~level * page.derotation_matrix, page.rect * level)
