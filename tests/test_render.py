"""The viewer's page images: highlights drawn exactly where the quote is printed, and the
conversation export; the model host's status read from its own API."""

from __future__ import annotations

import pymupdf
import pytest

from engine.answer.citations import Citer
from engine.views.ask_text import render_per_contract
from engine.views.export import conversation_markdown
from engine.llm import Backend, LLMSpec, host_status
from tests.conftest import GCLOUD, HIGHWAYS_NDA
from tests.ollama_server import FakeOllama

DPI = 110


@pytest.fixture(scope="module")
def page_break_citation(sample_library):
    doc_id = sample_library.find(GCLOUD.name).doc_id
    licences = next(c for c in sample_library.store.clauses(doc_id) if c.ref == "4.5.4")
    return Citer(sample_library.store).cite(licences, "consents, licences, permissions, to enter into and perform its obligations under each Call-Off Contract")


def marked_share(png: bytes, rect, y_points: float, top_points: float = 0.0) -> float:
    """Share of the pixels along one row across the rectangle's width that are highlighter yellow
    (paper under the marker; the ink of the letters is dark either way)."""
    pixmap = pymupdf.Pixmap(png)
    scale = DPI / 72
    y = int((y_points - top_points) * scale)
    xs = range(int(rect.x0 * scale) + 2, int(rect.x1 * scale) - 2)
    yellow = [x for x in xs if _is_yellow(pixmap.pixel(x, y)[:3])]
    return len(yellow) / len(xs)


def _is_yellow(rgb) -> bool:
    red, green, blue = rgb
    return red > 230 and green > 190 and blue < 120


def test_a_quote_across_a_page_break_is_highlighted_on_both_pages(sample_library, page_break_citation):
    citation = page_break_citation
    for page in (8, 9):
        image = sample_library.page_image(citation.doc_id, page, citation.rects)
        assert (image.page, image.pages, image.highlights, image.focused) == (page, 31, 1, False)
        rect = next(r for r in citation.rects if r.page == page)
        assert marked_share(image.png, rect, (rect.y0 + rect.y1) / 2) > 0.5
        assert marked_share(image.png, rect, rect.y0 - 20) == 0.0  # the line above is not marked


def test_zooming_to_the_quote_cuts_the_page_to_the_highlighted_band(sample_library, page_break_citation):
    citation = page_break_citation
    whole = pymupdf.Pixmap(sample_library.page_image(citation.doc_id, 9, citation.rects).png)
    focused = sample_library.page_image(citation.doc_id, 9, citation.rects, focus=True)
    band = pymupdf.Pixmap(focused.png)
    assert focused.focused and band.width == whole.width and band.height < whole.height / 2
    rect = next(r for r in citation.rects if r.page == 9)
    top = max(0.0, rect.y0 - 110.0)
    assert marked_share(focused.png, rect, (rect.y0 + rect.y1) / 2, top) > 0.5


def test_a_page_outside_the_document_is_a_clear_error(sample_library):
    doc_id = sample_library.find(HIGHWAYS_NDA.name).doc_id
    with pytest.raises(ValueError, match=r"page 99 is outside the document \(1-9\)"):
        sample_library.page_image(doc_id, 99)


def test_the_conversation_exports_as_markdown_with_every_quote(sample_library):
    answers = [
        sample_library.ask("Which law governs this agreement?", [sample_library.find(HIGHWAYS_NDA.name).doc_id]).answer,
        sample_library.ask("Must source code be deposited in escrow?", [sample_library.find(HIGHWAYS_NDA.name).doc_id]).answer,
    ]
    markdown = conversation_markdown(answers)
    assert markdown.startswith("# Clausegraph conversation\n\n## 1. Which law governs this agreement?\n")
    assert f"1. {HIGHWAYS_NDA.name}, Section 8.1, page 7: “" in markdown
    assert "## 2. Must source code be deposited in escrow?" in markdown and "**Closest clauses, to check**" in markdown
    assert "*Answered by extractive (no language model: the contract's own sentences).*" in markdown


def test_a_contract_answered_on_its_own_shows_the_list_its_first_quote_opens(sample_library):
    """Asked of every sample, the Highways NDA's answer opens with 3.1 ("... who:"): its items,
    3.1.1 to 3.1.2(b), are shown with it in the text, the export and the app alike."""
    answers = sample_library.ask("can we tell our lawyers about the confidential stuff?").per_contract
    row = next(r for r in answers.found if r.file == HIGHWAYS_NDA.name)
    assert [c.ref for c in row.answer.opening] == ["3.1", "3.1.1", "3.1.2", "3.1.2(a)", "3.1.2(b)"]
    assert "Person”) who:” “3.1.1 reasonably need to receive the Confidential Information" in " ".join(render_per_contract(answers).split())
    assert "  - “3.1.1 reasonably need to receive the Confidential Information" in conversation_markdown([answers])


def test_the_model_host_lists_its_models_or_says_it_cannot_be_reached():
    with FakeOllama(models=["llama3.2:3b", "qwen2.5:7b"]) as server:
        status = host_status(LLMSpec(backend=Backend.OLLAMA, model="llama3.2:3b", url=server.url))
    assert status.reachable and status.models == ["llama3.2:3b", "qwen2.5:7b"]
    gone = host_status(LLMSpec(backend=Backend.OLLAMA, model="x", url=server.url), timeout=1)
    assert not gone.reachable and gone.error
    assert host_status(LLMSpec()).error == "no model host configured"
