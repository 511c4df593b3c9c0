"""The off-category question sets (bench/offcategory) hold to FORMAT.md: a question whose gold
snippet is not on its page could never be found, and would count against retrieval whatever the
app did; a training question on a test contract would leak the held-out split."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from engine.eval.scores import snippet_found
from engine.text.normalise import normalise
from tests.conftest import SHARED_DATA, needs_shared_data, read_jsonl

FOLDER = Path(__file__).parents[1] / "bench" / "offcategory"
STYLES = {"plain", "keyword", "yesno", "scenario", "legal", "typo"}
#: file -> (questions, the folder of ../shared/data its contracts are in, contracts)
SETS = {"public.jsonl": (150, "public/", 6), "training.jsonl": (296, "cuad/pdf/", 32)}


def questions(name: str) -> list[dict]:
    return read_jsonl(FOLDER / name)


@pytest.mark.parametrize("name", SETS)
def test_each_set_asks_each_style_alike_with_answerable_and_unanswerable_questions_on_every_contract(name):
    count, folder, contracts = SETS[name]
    rows = questions(name)
    assert len({q["id"] for q in rows}) == len(rows) == count
    styles = Counter(q["style"] for q in rows)
    assert set(styles) == STYLES and max(styles.values()) - min(styles.values()) <= 3
    assert len({q["docs"][0] for q in rows}) == contracts
    for contract in {q["docs"][0] for q in rows}:
        assert {q["answerable"] for q in rows if q["docs"][0] == contract} == {True, False}, contract
    for q in rows:
        assert q["docs"][0].startswith(folder) and len(q["docs"]) == 1
        assert q["answerable"] == bool(q["evidence"]) == (q["type"] != "unanswerable"), q["id"]
        assert q["answerable"] or q["absent_checked"], q["id"]  # the words searched for before calling it unanswerable


def test_the_two_sets_share_no_contract_and_no_question():
    public, training = questions("public.jsonl"), questions("training.jsonl")
    assert not {q["docs"][0] for q in public} & {q["docs"][0] for q in training}
    assert not {q["question"].lower() for q in public} & {q["question"].lower() for q in training}


@needs_shared_data
def test_the_training_questions_ask_about_dev_contracts_only():
    split = {f"cuad/{row['file']}": row["split"] for row in read_jsonl(SHARED_DATA / "cuad" / "manifest.jsonl")}
    assert {split[q["docs"][0]] for q in questions("training.jsonl")} == {"dev"}


@needs_shared_data
@pytest.mark.parametrize("name", SETS)
def test_every_gold_snippet_is_on_its_page(name):
    pages: dict[str, list[str]] = {}
    missing = []
    for q in questions(name):
        doc = q["docs"][0]
        if doc not in pages:
            with pymupdf.open(SHARED_DATA / doc) as pdf:
                pages[doc] = [normalise(page.get_text()) for page in pdf]
        for evidence in q["evidence"]:
            page = evidence["page"]
            text = " ".join(pages[doc][page - 1 : page + 1])  # a snippet may run on to the next page
            if not snippet_found(evidence["text"], text):
                missing.append((q["id"], page))
    assert missing == []
