"""A question's misspelt words are read as meant (engine/text/spelling.py): by the words of
contracts before general English, never a name or an acronym."""

from __future__ import annotations

import pytest

from engine.text.spelling import spelling_corrector
from tests.conftest import HIGHWAYS_NDA


@pytest.mark.parametrize(("written", "read"), [
    ("which contracts have audt rights", "which contracts have audit rights"),
    ("agreements with renwal terms", "agreements with renewal terms"),  # general English alone says "rental"
    ("wich contarcts restrict assigment", "which contracts restrict assignment"),  # "contacts", "with" in general English
    ("can it be terminted for convienence?", "can it be terminated for convenience?"),
    ("overage fees if we go over the limt", "overage fees if we go over the limit"),  # a letter left out, not "list"
    ("can we hier thier employes", "can we hire their employees"),  # two letters swapped, not "her"
])
def test_misspelt_words_are_read_as_the_contract_words_they_miss(written, read):
    assert spelling_corrector().correct(written).text == read


def test_names_acronyms_and_the_trades_words_are_left_as_written():
    corrector = spelling_corrector()
    unchanged = "Does the licensor owe Aduro MFN pricing under the sublicense, and what is ROFR? Is it underpaying?"
    assert corrector.correct(unchanged) == (unchanged, [])
    assert corrector.correct("can conformis end the agreemnt", keep={"conformis"}).text == "can conformis end the agreement"


def test_a_misspelt_question_is_answered_as_the_spelt_one_and_says_how_it_was_read(sample_library):
    highways = next(d.doc_id for d in sample_library.store.documents() if d.file_name == HIGHWAYS_NDA.name)
    result = sample_library.ask("Whcih law goverms this agreemnt?", [highways])
    first = result.answer.citations[0]
    assert (first.ref, first.page) == ("8.1", 7)
    assert result.question == "Whcih law goverms this agreemnt?"  # the words as written stay the question's
    assert "Read as “Which law governs this agreement?”" in result.answer.notes[0]


def test_a_misspelt_search_finds_what_the_spelt_one_finds(sample_library):
    spelt = sample_library.search("governing law and jurisdiction")
    misspelt = sample_library.search("governing law and jurisdicton")
    assert [p.clause_id for p in misspelt.passages[:3]] == [p.clause_id for p in spelt.passages[:3]]
    assert misspelt.plan.notes[0].startswith("Read as “governing law and jurisdiction”")
    assert not any(note.startswith("Read as") for note in spelt.plan.notes)


def test_warming_up_loads_the_corrector_before_the_first_question(sample_library):
    spelling_corrector.cache_clear()
    sample_library.warm_up()  # the app runs it in the background when it opens a store
    assert spelling_corrector.cache_info().currsize == 1
    assert spelling_corrector().correct("wich law aplies").text == "which law applies"
