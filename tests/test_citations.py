"""The citation check on the sample contracts: verbatim or dropped, and highlighted exactly."""

from __future__ import annotations

import pymupdf
import pytest

from engine.answer.citations import Citer, find_quote
from engine.text.normalise import normalise
from tests.conftest import GCLOUD, HIGHWAYS_NDA


@pytest.fixture(scope="module")
def citer(sample_library) -> Citer:
    return Citer(sample_library.store)


def clause(library, path, ref):
    doc_id = library.find(path.name).doc_id
    return next(c for c in library.store.clauses(doc_id) if c.ref == ref)


def highlighted_words(pdf_path, citation) -> list[str]:
    """The PDF's own words whose centres fall inside the citation's rectangles, in order."""
    words = []
    with pymupdf.open(pdf_path) as pdf:
        for rect in citation.rects:
            box = pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y1)
            for word in pdf[rect.page - 1].get_text("words"):
                centre = pymupdf.Point((word[0] + word[2]) / 2, (word[1] + word[3]) / 2)
                if centre in box:
                    words.append(word[4])
    return words


def test_quotes_match_across_whitespace_quotes_case_and_hyphenation():
    text = "The Supplier shall “promptly”\nnotify the Buyer of any termi-\nnation of this Agreement."
    start, end = find_quote('the supplier shall "promptly" notify the buyer of any termination', text)
    assert text[start:end] == "The Supplier shall “promptly”\nnotify the Buyer of any termi-\nnation"
    assert find_quote("the supplier shall promptly notify the seller", text) is None


def test_an_invented_quote_gets_no_citation(sample_library, citer):
    law = clause(sample_library, HIGHWAYS_NDA, "8.1")
    assert citer.cite(law, "This Agreement shall be governed by the laws of New York") is None


def test_a_quote_wrapping_two_lines_is_highlighted_on_both(sample_library, citer):
    law = clause(sample_library, HIGHWAYS_NDA, "8.1")
    citation = citer.cite(law, "governed by, and construed in accordance with, English law and any matter claim or dispute")
    assert (citation.ref, citation.page, citation.page_end) == ("8.1", 7, 7)
    assert citation.quote == "governed by, and construed in accordance with, English law\nand any matter claim or dispute"
    assert [r.page for r in citation.rects] == [7, 7] and citation.rects[0].y1 < citation.rects[1].y1
    words = highlighted_words(sample_library.pdf_path(law.doc_id), citation)
    assert normalise(" ".join(words)) == normalise(citation.quote)


def test_a_quote_across_a_page_break_keeps_a_part_and_a_highlight_on_each_page(sample_library, citer):
    licences = clause(sample_library, GCLOUD, "4.5.4")
    citation = citer.cite(licences, "consents, licences, permissions, to enter into and perform its obligations under each Call-Off Contract")
    assert (citation.page, citation.page_end) == (8, 9)
    assert [(p.page, p.text) for p in citation.parts] == [
        (8, "consents, licences, permissions, to enter into and perform its obligations"),
        (9, "under each Call-Off Contract"),
    ]
    assert [r.page for r in citation.rects] == [8, 9]
    words = highlighted_words(sample_library.pdf_path(licences.doc_id), citation)
    assert normalise(" ".join(words)) == normalise(citation.quote)
    with pymupdf.open(sample_library.pdf_path(licences.doc_id)) as pdf:
        for part in citation.parts:
            assert normalise(part.text) in normalise(pdf[part.page - 1].get_text())
