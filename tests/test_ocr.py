"""Scanned contracts: pages that are only a picture of text are read by OCR, with word boxes
where the words are printed, so clauses form and citations highlight as on a text PDF."""

from __future__ import annotations

import pymupdf
import pytest

from engine.answer.citations import Citer
from engine.ingest import ocr
from engine.ingest.pdf import read_pdf
from engine.service import Library
from engine.text.normalise import normalise
from models.document import IngestStatus
from tests.conftest import SHARED_DATA, needs_shared_data

needs_ocr = pytest.mark.skipif(ocr.unavailable_reason() is not None, reason=ocr.unavailable_reason() or "")

TERMS = [
    "1. Term. This Agreement starts on the Effective Date and lasts two years.",
    "2. Payment. The Customer shall pay each invoice within thirty days of receipt.",
    "3. Confidentiality. Each party shall keep the other party's information secret",
    "and use it only to perform this Agreement.",
    "4. Governing Law. This Agreement is governed by the laws of England.",
]


def scan(path, lines: list[str], skew: float = 0.0) -> list[tuple]:
    """Write a one-page PDF that is only an image of `lines` (150 dpi, like an office scanner),
    turned by `skew` degrees; returns where each word was drawn before the page was imaged."""
    source = pymupdf.open()
    page = source.new_page(width=612, height=792)
    for number, line in enumerate(lines):
        page.insert_text((72, 100 + 28 * number), line, fontsize=11, fontname="cour")
    drawn = page.get_text("words")
    image = page.get_pixmap(matrix=pymupdf.Matrix(150 / 72, 150 / 72).prerotate(skew))
    scanned = pymupdf.open()
    scanned.new_page(width=612, height=792).insert_image(pymupdf.Rect(0, 0, 612, 792), pixmap=image)
    scanned.save(path)
    return drawn


def overlap(a: pymupdf.Rect, b: pymupdf.Rect) -> float:
    """Intersection over union of two boxes."""
    common = pymupdf.Rect(a) & b
    if common.is_empty:
        return 0.0
    return common.get_area() / (a.get_area() + b.get_area() - common.get_area())


@needs_ocr
def test_a_scanned_page_is_read_with_each_word_boxed_where_it_is_printed(tmp_path):
    drawn = scan(tmp_path / "scan.pdf", TERMS)
    parsed = read_pdf(tmp_path / "scan.pdf")
    assert parsed.ocr_pages == [1] and parsed.pages_without_text == []
    assert "The Customer shall pay each invoice within thirty days of receipt." in parsed.text
    assert "This Agreement is governed by the laws of England." in parsed.text
    boxes = {parsed.text[w.start : w.end]: pymupdf.Rect(w.x0, w.y0, w.x1, w.y1) for w in parsed.words}
    for word in ("invoice", "thirty", "Confidentiality.", "England."):
        printed = next(pymupdf.Rect(d[:4]) for d in drawn if d[4] == word)
        assert overlap(boxes[word], printed) > 0.5, (word, boxes[word], printed)


@needs_ocr
def test_a_crooked_scan_is_levelled_so_its_lines_read_in_order(tmp_path):
    scan(tmp_path / "crooked.pdf", TERMS, skew=1.5)
    with pymupdf.open(tmp_path / "crooked.pdf") as pdf:
        assert ocr.skew_degrees(pdf[0]) == pytest.approx(-1.5, abs=0.1)
    text = read_pdf(tmp_path / "crooked.pdf").text
    assert "Each party shall keep the other party's information secret\nand use it only to perform this Agreement." in text


@needs_ocr
def test_an_ingested_scan_reports_ocr_progress_and_its_citations_highlight_the_printed_words(tmp_path):
    drawn = scan(tmp_path / "scan.pdf", TERMS)
    library = Library(tmp_path / "store")
    events = []
    outcome = library.ingest_file(tmp_path / "scan.pdf", events.append)
    assert outcome.status is IngestStatus.INGESTED, outcome.message
    assert "recognising text, page 1" in [e.message for e in events]
    assert outcome.warnings == [
        "page 1: no text layer (scanned), its text read by text recognition (OCR); "
        "recognised text can contain misread characters, so check quotes against the page"
    ]
    assert library.find("scan.pdf").pages_without_text == []
    payment = next(c for c in library.store.clauses(outcome.doc_id) if "invoice" in c.text)
    citation = Citer(library.store).cite(payment, "shall pay each invoice within thirty days")
    assert citation is not None and citation.page == 1
    [rect] = citation.rects
    first = next(pymupdf.Rect(d[:4]) for d in drawn if d[4] == "shall" and d[1] > 110)
    last = next(pymupdf.Rect(d[:4]) for d in drawn if d[4] == "days")
    assert overlap(pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y1), first | last) > 0.6


def test_without_tesseract_a_scan_is_refused_saying_ocr_is_needed_and_how_to_install_it(tmp_path, monkeypatch):
    scan(tmp_path / "scan.pdf", TERMS[:1])
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))  # a folder without Tesseract's language data
    ocr.tessdata.cache_clear()
    try:
        outcome = Library(tmp_path / "store").ingest_file(tmp_path / "scan.pdf")
    finally:
        monkeypatch.undo()
        ocr.tessdata.cache_clear()
    assert outcome.status is IngestStatus.FAILED
    assert outcome.message.startswith("none of its 1 page(s) has a text layer: it is a scanned image, and text recognition (OCR)")
    assert "apt-get install tesseract-ocr tesseract-ocr-eng" in outcome.message


# ------------------------------------------------------------- real scans

EC_SCAN = SHARED_DATA / "public" / "ECsample-scan.pdf"
AUDIBLE_SCAN = SHARED_DATA / "cuad" / "scanned" / "Audible_Co_Branding_Agreement_SCANNED.pdf"


@pytest.fixture(scope="module")
def scanned_library(tmp_path_factory) -> Library:
    """The first two pages of each real scan, ingested once (OCR takes seconds a page; the
    whole scanned CUAD contract is read by bench/ocr.py): the Hong Kong employment contract
    form and the scanned CUAD contract, slightly rotated and blurred."""
    folder = tmp_path_factory.mktemp("scans")
    for source in (EC_SCAN, AUDIBLE_SCAN):
        with pymupdf.open(source) as whole, pymupdf.open() as opening:
            opening.insert_pdf(whole, from_page=0, to_page=1)
            opening.save(folder / source.name)
    library = Library(folder / "store")
    outcomes = library.ingest_paths([folder])
    assert [o.status for o in outcomes] == [IngestStatus.INGESTED] * 2, [o.message for o in outcomes]
    # neither has a text layer on any page: every page was read by OCR
    assert [o.warnings[0].split(":")[0] for o in outcomes] == ["pages 1, 2"] * 2
    return library


@needs_shared_data
@needs_ocr
@pytest.mark.parametrize(
    "scan_file, quote, clauses",
    [
        (EC_SCAN.name, "The Employee is entitled to paid annual leave according to the provisions", 9),
        (AUDIBLE_SCAN.name, '"Claim" means any claim, action or proceeding instituted by a third party', 12),
    ],
)
def test_a_real_scan_reads_into_clauses_whose_sentences_are_cited_on_their_page(scanned_library, scan_file, quote, clauses):
    document = scanned_library.find(scan_file)
    assert document.pages == 2 and document.pages_without_text == [] and document.clauses >= clauses
    holder = next(c for c in scanned_library.store.clauses(document.doc_id) if quote in " ".join(c.text.split()))
    citation = Citer(scanned_library.store).cite(holder, quote)
    assert citation is not None and (citation.page, citation.page_end) == (2, 2)
    assert normalise(citation.quote) == normalise(quote)
    assert citation.rects and all(r.page == 2 and 0 < r.x0 < r.x1 < 595 and 0 < r.y0 < r.y1 < 842 for r in citation.rects)
