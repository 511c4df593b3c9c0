"""Reading PDFs: reading order, running headers and footers, hyphenation, word boxes."""

from __future__ import annotations

import pymupdf
import pytest

from engine.errors import IngestError
from engine.ingest.pdf import read_pdf
from tests.conftest import GCLOUD, SHARED_DATA, needs_shared_data


def test_margin_numbers_join_the_line_they_stand_beside(gcloud):
    # G-Cloud prints clause numbers in a margin column that PyMuPDF emits after the page text.
    lines = [line.text for line in gcloud.text.lines]
    assert "1.8 By signing this Framework Agreement, the Supplier agrees to comply with all the terms of this" in lines
    assert "4.6 Liability" in lines


def test_running_footers_and_page_numbers_are_removed(gcloud, highways):
    assert "Page 3 of 31" not in gcloud.text.text
    assert "G-Cloud 8 (G8) Framework Agreement - version" not in gcloud.text.text
    assert "https://www.gov.uk/government/publications/g-cloud-8-framework-agreement" not in gcloud.text.text
    assert gcloud.text.removed_lines >= 60  # three footer lines on each of the 31 pages, less the first ones
    # The Highways NDA prints its page number (1, 2, ...) above the text of every page after the cover.
    page_three = highways.text.text[highways.text.page_starts[2] :]
    assert page_three.startswith("(ii) the Receiving Party obtained on a non-confidential basis")


def test_soft_hyphens_and_zero_width_spaces_are_cleaned(gcloud):
    assert "G-CLOUD 8 FRAMEWORK AGREEMENT" in gcloud.text.text
    assert "\xad" not in gcloud.text.text and "\u200b" not in gcloud.text.text
    assert "Call-Off Contract duration: Maximum 24 months." in gcloud.text.text


def test_every_word_maps_back_to_its_box(gcloud):
    text = gcloud.text
    for word in text.words:
        piece = text.text[word.start : word.end]
        assert piece and not any(c.isspace() for c in piece)
        width, height = text.page_sizes[word.page - 1]
        assert 0 <= word.x0 < word.x1 <= width + 1 and 0 <= word.y0 < word.y1 <= height + 1
    start = text.text.index("125% of the Management Charge")
    assert text.page_at(start) == 9
    boxes = [w for w in text.words if start <= w.start < start + len("125% of the Management Charge")]
    assert [text.text[w.start : w.end] for w in boxes] == ["125%", "of", "the", "Management", "Charge"]
    assert {w.page for w in boxes} == {9}


def test_a_word_hyphenated_across_lines_is_joined(tmp_path):
    path = tmp_path / "hyphen.pdf"
    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 100), "1. The Licensee shall keep the agree-", fontsize=11)
    page.insert_text((72, 114), "ment confidential and shall not assign the non-", fontsize=11)
    page.insert_text((72, 128), "exclusive licence.", fontsize=11)
    document.save(path)
    text = read_pdf(path).text
    assert "keep the agreement confidential" in text  # a fragment is joined
    assert "the non-exclusive licence" in text  # a prefix keeps its hyphen


def test_pages_without_text_are_reported(tmp_path):
    path = tmp_path / "mixed.pdf"
    document = pymupdf.open()
    document.new_page().insert_text((72, 100), "1. Term. This Agreement lasts two years.", fontsize=11)
    image_page = document.new_page()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 60), False)
    pixmap.set_rect(pixmap.irect, (200, 200, 200))
    image_page.insert_image(pymupdf.Rect(72, 72, 300, 300), pixmap=pixmap)
    document.save(path)
    parsed = read_pdf(path)
    assert parsed.pages_without_text == [2]
    assert "This Agreement lasts two years." in parsed.text


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty"),
        (b"# not a pdf\njust markdown\n", "not a PDF"),
        (b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog", "damaged"),
    ],
)
def test_unreadable_files_say_why(tmp_path, content, message):
    path = tmp_path / "bad.pdf"
    path.write_bytes(content)
    with pytest.raises(IngestError, match=message):
        read_pdf(path)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"PK\x03\x04\x14\x00\x06\x00word/document.xml", "not a PDF file: it holds a ZIP archive (a Word .docx, Excel .xlsx or .zip file?)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a PDF file: it holds a PNG image"),
        (b"\n<!DOCTYPE html><html><body>Sign in</body></html>", "not a PDF file: it holds a web page (HTML)"),
        (("Prüfung " + "ü" * 3000).encode(), "not a PDF file: it holds plain text"),  # a "ü" cut at the 4 KB read
        (bytes(range(256)), "not a PDF file (it does not start with a PDF header)"),
    ],
)
def test_a_file_that_is_not_a_pdf_is_named_for_what_it_holds(content, message):
    with pytest.raises(IngestError) as error:
        read_pdf(content)
    assert str(error.value) == message


def test_a_password_protected_pdf_is_refused_plainly(tmp_path):
    path = tmp_path / "locked.pdf"
    document = pymupdf.open()
    document.new_page().insert_text((72, 100), "Secret terms", fontsize=11)
    document.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="owner")
    with pytest.raises(IngestError, match="password"):
        read_pdf(path)


@needs_shared_data
def test_cuad_source_footers_are_removed():
    path = SHARED_DATA / "cuad" / "pdf" / "MACROGENICSINC_08_02_2013_EX_10_COLLABORATION_AGREEMENT.pdf"
    text = read_pdf(path).text
    assert "Portions of this exhibit have been omitted" not in text
    assert "Source:" not in text
    # The original document's page numbers, printed mid-page by the EDGAR conversion, go too.
    assert "\n13\n" not in text and "\n9\n" not in text
    assert GCLOUD.exists()


@needs_shared_data
def test_edgar_page_number_pairs_are_removed_from_the_middle_of_a_sentence():
    # EDGAR prints "12" centred and the next page's "13" under it, mid-sentence
    path = SHARED_DATA / "cuad" / "pdf" / "RandWorldwideInc_20010402_8_KA_EX_10_2_2102464_EX_10_2_Co_Branding_Agreement.pdf"
    text = read_pdf(path).text
    assert '(the "Initial Term") unless earlier\nterminated in accordance with this Section' in text
    assert "treated as such, in accordance with the terms and conditions of the CNDA.\nSECTION 7\n" in text


@needs_shared_data
def test_a_footer_of_several_rows_is_removed_from_the_middle_of_a_sentence():
    """'Proprietary and Confidential' / 'This Agreement and information contained therein ...'
    stand above the footer rows the running lines were looked for in, and were left inside
    the sentence that runs over the page break, on 65 of the contract's 71 pages."""
    path = SHARED_DATA / "cuad" / "pdf" / "AtnInternationalInc_20191108_10_Q_EX_10_1_11878541_EX_10_1_Maintenance_Agreement.pdf"
    text = read_pdf(path).text
    assert "the AT&T Indemnified Parties’ pro-rata share\nof the amount of any Third Party Loss" in text
    assert text.count("Proprietary and Confidential") == 4  # only on the contents pages, where the block is printed apart
    # a joint filing's signature block on each of its few pages stays
    filing = read_pdf(SHARED_DATA / "cuad" / "pdf" / "ONEMAINHOLDINGS_INC_02_20_2020_EX_99_D_JOINT_FILING_AGREEMENT.pdf").text
    assert filing.count("By: Värde Partners, L.P., its Managing Member") == 14
