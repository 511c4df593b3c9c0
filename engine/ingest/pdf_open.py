"""Open a PDF, or refuse it with a message that says in plain words what is wrong.

Users add whatever file they have: a Word document renamed .pdf, a cut-off download, a
locked scan. Failing inside the parser would give them a PyMuPDF traceback; this module
checks the bytes and the opened document first and raises an IngestError that names the
problem and what to do about it. It knows nothing about the text on the pages.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from engine.errors import IngestError

_END_OF_FILE = b"%%EOF"  # a complete PDF ends with it, within its last kilobyte


def open_pdf(source: Path | bytes, max_pages: int | None = None) -> pymupdf.Document:
    """Open a PDF or raise an IngestError that says plainly what is wrong with it."""
    data = source if isinstance(source, bytes) else _read(source)
    if not data:
        raise IngestError("the file is empty (0 bytes)")
    if b"%PDF-" not in data[:1024]:
        kind = _content_kind(data)
        raise IngestError(f"not a PDF file: it holds {kind}" if kind else "not a PDF file (it does not start with a PDF header)")
    try:
        document = pymupdf.open(stream=data, filetype="pdf")
    except Exception as error:  # PyMuPDF raises several types for damaged files
        raise IngestError(f"the PDF is damaged and cannot be read ({error})") from error
    problem = _problem(document, data, max_pages)
    if problem:
        document.close()
        raise IngestError(problem)
    return document


def _problem(document: pymupdf.Document, data: bytes, max_pages: int | None) -> str | None:
    """Why an opened PDF still cannot be ingested, if it cannot."""
    if document.needs_pass or document.is_encrypted:
        return "the PDF is locked with a password: it cannot be opened without it; add an unlocked copy"
    # MuPDF rebuilds a file that lost its end from the objects it still finds, so a cut-off
    # download opens as a shorter document (or none): refuse it rather than read part of it.
    if document.is_repaired and _END_OF_FILE not in data[-1024:]:
        return (
            f"the file is incomplete: it stops after {len(data):,} bytes, before the end of the PDF "
            "(a download or copy that was cut short); add the whole file again"
        )
    if document.page_count == 0:
        return "the PDF has no pages"
    if max_pages is not None and document.page_count > max_pages:
        return f"the PDF has {document.page_count:,} pages, more than the limit of {max_pages:,} pages (setting max_pages)"
    return None


# What a file with a .pdf name holds instead, by its first bytes.
_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive (a Word .docx, Excel .xlsx or .zip file?)"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office document (.doc or .xls?)"),
    (b"{\\rtf", "an RTF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
)


def _content_kind(data: bytes) -> str | None:
    """What a file that is not a PDF holds, in words a user recognises; None if unknown."""
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    head = data[:4096]
    if head.lstrip().lower().startswith((b"<!doctype html", b"<html")):
        return "a web page (HTML)"
    if b"\x00" in head:
        return None
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.reason != "unexpected end of data":  # a character cut at the 4 KB mark is still text
            return None
    return "plain text"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise IngestError(f"cannot read the file ({error.strerror})") from error
