"""The off-category question set (bench/offcategory/public.jsonl) holds to FORMAT.md: a question
whose gold snippet is not on its page could never be found, and would count against retrieval
whatever the app did."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from engine.eval.scores import snippet_found
from engine.text.normalise import normalise
from tests.conftest import SHARED_DATA, needs_shared_data

QUESTIONS = Path(__file__).parents[1] / "bench" / "offcategory" / "public.jsonl"
STYLES = {"plain", "keyword", "yesno", "scenario", "legal", "typo"}


def questions() -> list[dict]:
    return [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines()]


def test_the_set_asks_each_style_alike_with_answerable_and_unanswerable_questions_on_every_contract():
    rows = questions()
    assert len({q["id"] for q in rows}) == len(rows) == 150
    assert set(Counter(q["style"] for q in rows)) == STYLES and min(Counter(q["style"] for q in rows).values()) >= 23
    for contract in {q["docs"][0] for q in rows}:
        asked = [q for q in rows if q["docs"][0] == contract]
        assert {q["answerable"] for q in asked} == {True, False}, contract
    for q in rows:
        assert q["docs"][0].startswith("public/") and len(q["docs"]) == 1
        assert q["answerable"] == bool(q["evidence"]) == (q["type"] != "unanswerable"), q["id"]
        assert q["answerable"] or q["absent_checked"], q["id"]  # the words searched for before calling it unanswerable


@needs_shared_data
def test_every_gold_snippet_is_on_its_page():
    pages: dict[str, list[str]] = {}
    missing = []
    for q in questions():
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
