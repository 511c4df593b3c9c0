"""The review grid and the playbook review over the sample contracts (issue 19)."""

from __future__ import annotations

import pytest

from engine.review.desk import preset_columns, question_column, topic_column
from engine.review.playbook import load_playbook
from engine.service import Library
from models.review import Source, Status
from tests.conftest import MUTUAL_NDA

LAW_QUOTE = "This Agreement is governed by, and is to be construed in accordance with, English law"  # as the field keeps it
TERM_QUESTION = "How long do the confidentiality obligations last?"


@pytest.fixture
def grid_library(sample_library):
    """The sample store with an empty grid before and after the test (the store is shared)."""
    sample_library.reviews.set_columns([])
    yield sample_library
    sample_library.reviews.set_columns([])


def _verbatim(library: Library, citations) -> bool:
    return all(citation.quote in library.engine.clause(citation.clause_id).text for citation in citations)


def test_a_grid_answers_every_contract_and_is_kept_with_the_store(grid_library):
    library = grid_library
    nda = library.find(MUTUAL_NDA.name).doc_id
    library.reviews.set_columns([topic_column("governing_law"), question_column(TERM_QUESTION)])
    seen = []
    grid = library.reviews.fill(on_progress=lambda done, total: seen.append((done, total)))

    assert [c.id for c in grid.columns][0] == "governing_law" and len(grid.rows) == 3
    assert seen[-1] == (6, 6)  # progress per contract row, over every cell
    law = grid.cell(nda, "governing_law")
    assert (law.found, law.source, law.answer) == (True, Source.FIELD, "England and Wales")
    assert (law.citations[0].page, law.citations[0].ref, law.citations[0].quote) == (2, "10", LAW_QUOTE)
    for row in grid.rows:
        for cell in row.cells.values():
            assert _verbatim(library, cell.citations)
            assert cell.found or (not cell.citations and cell.why.startswith("Not found: searched the contract for"))

    reopened = Library(library.settings.store).reviews.grid()  # another session of the app sees it
    assert reopened.columns == grid.columns and reopened.cell(nda, "governing_law") == law
    assert reopened.missing == 0


def test_a_column_is_rerun_or_removed_with_its_cells(grid_library):
    library = grid_library
    nda = library.find(MUTUAL_NDA.name).doc_id
    library.reviews.set_columns([topic_column("governing_law"), topic_column("insurance")])
    first = library.reviews.fill([nda]).cell(nda, "insurance")
    again = library.reviews.fill([nda], rerun="insurance").cell(nda, "insurance")
    assert again.made_at > first.made_at and again.model_dump(exclude={"made_at"}) == first.model_dump(exclude={"made_at"})

    library.reviews.remove_column("insurance")
    assert [c.id for c in library.reviews.columns()] == ["governing_law"]
    assert library.store.table("grid_cells").count_rows("column_id = 'insurance'") == 0
    assert library.reviews.grid([nda]).cell(nda, "governing_law") is not None


def test_the_command_line_grid_keeps_nothing(grid_library):
    library = grid_library
    grid = library.reviews.fill(columns=preset_columns()[:2])
    assert len(grid.columns) == 2 and grid.missing == 0
    assert library.store.table("grid_cells").count_rows() == 0 and library.reviews.columns() == []


def test_the_default_playbook_flags_english_law_red_with_its_clause(grid_library):
    library = grid_library
    nda = library.find(MUTUAL_NDA.name).doc_id
    review = library.reviews.review(load_playbook(), [nda])
    [contract] = review.contracts
    assert [v.rule for v in contract.verdicts] == [rule.id for rule in load_playbook().rules]
    law = next(v for v in contract.verdicts if v.rule == "governing_law")
    assert (law.status, law.found, law.value) == (Status.RED, True, "England and Wales")
    assert law.why == "England and Wales: not accepted; the playbook accepts New York or Delaware."
    assert (law.citations[0].page, law.citations[0].quote) == (2, LAW_QUOTE)
    for verdict in contract.verdicts:
        assert _verdict_explained(verdict)
        assert _verbatim(library, verdict.citations)


def _verdict_explained(verdict) -> bool:
    """A found topic cites the clause that decided it; a missing one says what was searched."""
    searched = ("searched the contract for", "the clause model read every sentence of the contract")
    return bool(verdict.citations) if verdict.found else any(words in verdict.why for words in searched)


def test_the_exports_carry_each_answer_with_its_quote_section_and_page(grid_library):
    import csv
    import io

    from openpyxl import load_workbook

    from engine.service import grid_csv, grid_xlsx, review_csv, review_markdown

    library = grid_library
    nda = library.find(MUTUAL_NDA.name).doc_id
    grid = library.reviews.fill([nda], columns=[topic_column("governing_law"), topic_column("insurance")])

    rows = list(csv.DictReader(io.StringIO(grid_csv(grid).decode("utf-8-sig"))))
    assert [(r["contract"], r["column"], r["found"]) for r in rows] == [(MUTUAL_NDA.name, "Governing law", "yes"), (MUTUAL_NDA.name, "Insurance", "no")]
    assert (rows[0]["answer"], rows[0]["quote"], rows[0]["section"], rows[0]["page"]) == ("England and Wales", LAW_QUOTE, "Section 10", "2")

    book = load_workbook(io.BytesIO(grid_xlsx(grid)))
    sheet = book["Grid"]
    assert [c.value for c in sheet[1]] == ["Contract", "Governing law", "Insurance"]
    assert sheet["B2"].value == "England and Wales\n[Section 10, p. 2]"
    assert sheet["C2"].value == "Not found" and sheet["C2"].fill.fgColor.rgb.endswith("D9D9D9")  # grey, as in the app
    assert [c.value for c in book["Evidence"][2]][:7] == [MUTUAL_NDA.name, "Governing law", "Which law governs this agreement?", "yes",
                                                          "England and Wales", LAW_QUOTE, "Section 10"]

    review = library.reviews.review(load_playbook(), [nda])
    markdown = review_markdown(review)
    assert "- **RED** `governing_law` (high): England and Wales: not accepted; the playbook accepts New York or Delaware." in markdown
    assert f"  > “{LAW_QUOTE}” (Section 10, page 2)" in markdown
    verdicts = list(csv.DictReader(io.StringIO(review_csv(review).decode("utf-8-sig"))))
    law = next(v for v in verdicts if v["rule"] == "governing_law")
    assert (law["status"], law["found"], law["quote"], law["page"]) == ("red", "yes", LAW_QUOTE, "2")


def test_a_rule_may_ask_the_teams_own_question(grid_library):
    from engine.review.playbook import parse_playbook

    library = grid_library
    nda = library.find(MUTUAL_NDA.name).doc_id
    playbook = parse_playbook(
        "name: Mine\nrules:\n  - id: confidentiality_term\n    question: How long do the confidentiality obligations last?\n"
        "    expect: at_least\n    bound: {amount: 2, unit: years}\n"
    )
    [verdict] = library.reviews.review(playbook, [nda]).contracts[0].verdicts
    assert (verdict.topic[:2], verdict.found, verdict.source, verdict.status) == ("q-", True, Source.SEARCH, Status.AMBER)
    assert verdict.why == ("Has an answer to “How long do the confidentiality obligations last?”, but no length could be read "
                           "from it (the playbook requires at least 2 years): check it.")  # the NDA sets no period: a look, not a pass
    # clause 9, "The undertakings in clauses 3 and 4 will continue in force [indefinitely][for [insert number] years...]"
    assert (verdict.citations[0].ref, verdict.citations[0].page) == ("9", 2) and _verbatim(library, verdict.citations)


def test_a_bad_playbook_is_not_kept_with_the_library(grid_library, tmp_path):
    from engine.review.playbook import PlaybookError

    desk = grid_library.reviews
    assert desk.kept_playbook() is None
    with pytest.raises(PlaybookError, match="your playbook is not valid YAML"):
        desk.keep_playbook("name: [unclosed\n")
    assert desk.kept_playbook() is None and not desk.playbook_file.with_suffix(".yaml.partial").exists()
