"""The hand-written phrasing sets of issue 16 (bench/phrasings/*.json) are well formed: enough
phrasings of every style, valid placeholders, none a copy of the fixed cuad_dev wording.
The question files built from them are checked by running build.py on a sample."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path

import pytest

from tests.conftest import needs_shared_data, read_jsonl

FOLDER = Path(__file__).resolve().parents[1] / "bench" / "phrasings"
STYLES = {"plain", "legal", "yesno", "keyword", "party", "scenario", "typo"}
FORMS = {"which", "list", "any", "count", "compare"}
ENUMERATION_TARGETS = {
    "Governing Law", "Anti-Assignment", "Audit Rights", "Cap On Liability", "Insurance", "License Grant",
    "Non-Compete", "Exclusivity", "Change Of Control", "Termination For Convenience", "Uncapped Liability",
    "Renewal Term", "Ip Ownership Assignment", "No-Solicit Of Employees", "Covenant Not To Sue",
    "Non-Transferable License", "Warranty Duration",
}


def load(name: str) -> dict:
    return json.loads((FOLDER / name).read_text(encoding="utf-8"))


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{[^{}]*\}", text))


def words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def check_phrasings(name: str, phrasings: list[dict], styles: set[str], minimum: int) -> None:
    assert len(phrasings) >= minimum, name
    for p in phrasings:
        assert set(p) >= {"text", "style"}, (name, p)
        assert p["text"] == p["text"].strip() and p["text"], (name, p)
        assert p["style"] in styles, (name, p)
    assert {p["style"] for p in phrasings} == styles, (name, styles - {p["style"] for p in phrasings})
    texts = [words(p["text"]) for p in phrasings]
    assert len(texts) == len(set(texts)), f"{name}: a phrasing is repeated"


CUAD = load("cuad_categories.json")["categories"]


def test_cuad_has_the_41_categories():
    assert len(CUAD) == 41
    assert all(entry["cuad"].strip() for entry in CUAD.values())


@pytest.mark.parametrize("category", sorted(CUAD))
def test_cuad_category_phrasings(category):
    entry = CUAD[category]
    check_phrasings(category, entry["phrasings"], STYLES, 12)
    for p in entry["phrasings"]:
        found = placeholders(p["text"])
        if p["style"] == "party":
            assert "{party}" in found and found <= {"{party}", "{other}"}, (category, p)
        else:
            assert not found, (category, p)
        assert words(p["text"]) != words(entry["cuad"]), f"{category}: a phrasing is the cuad_dev wording"


ENUMERATION = load("enumeration.json")["targets"]


def test_enumeration_targets():
    assert set(ENUMERATION) == ENUMERATION_TARGETS


@pytest.mark.parametrize("target", sorted(ENUMERATION))
def test_enumeration_phrasings(target):
    phrasings = ENUMERATION[target]
    check_phrasings(target, phrasings, STYLES - {"party"}, 12)
    for p in phrasings:
        assert p.get("form") in FORMS, (target, p)
        expected = {"{law}"} if target == "Governing Law" else set()
        assert placeholders(p["text"]) == expected, (target, p)


CONTRACTNLI = load("contractnli.json")["hypotheses"]


def test_contractnli_has_the_17_hypotheses():
    assert len(CONTRACTNLI) == 17
    assert all(key.startswith("nda-") and entry["hypothesis"] for key, entry in CONTRACTNLI.items())


@pytest.mark.parametrize("key", sorted(CONTRACTNLI))
def test_contractnli_phrasings(key):
    entry = CONTRACTNLI[key]
    phrasings = entry["phrasings"]
    check_phrasings(key, phrasings, STYLES - {"party"}, 4)
    for p in phrasings:
        assert not placeholders(p["text"]), (key, p)
        assert words(p["text"]) != words(entry["hypothesis"]), key


def evaluated_texts() -> set[str]:
    """The words of every evaluated wording: cuad_dev's, the hypotheses', the phrasings' and the
    "find all" requests'."""
    categories, hypotheses = load("cuad_categories.json")["categories"], load("contractnli.json")["hypotheses"]
    evaluated = {words(c["cuad"]) for c in categories.values()} | {words(h["hypothesis"]) for h in hypotheses.values()}
    evaluated |= {words(p["text"]) for entry in [*categories.values(), *hypotheses.values()] for p in entry["phrasings"]}
    return evaluated | {words(p["text"]) for phrasings in load("enumeration.json")["targets"].values() for p in phrasings}


def test_the_training_only_questions_never_repeat_an_evaluation_phrasing():
    """A training question that copies an evaluated phrasing (one contract's or a "find all"
    request's) would make the held-out figures in-sample; every category and NDA term has its
    training questions in the known styles."""
    training = load("training_questions.json")
    categories, hypotheses = load("cuad_categories.json")["categories"], load("contractnli.json")["hypotheses"]
    assert set(training["categories"]) == set(categories) == set(training["listings"]) and set(training["nda"]) == set(hypotheses)
    evaluated = evaluated_texts()
    seen: set[str] = set()
    nda_styles = STYLES - {"party"}  # an NDA's parties are the Disclosing and Receiving Party
    listing_styles = STYLES - {"party"}  # requests over many contracts, in enumeration.json's styles ("Do any of these..." is yesno)
    written = [(name, questions, nda_styles if name in hypotheses else STYLES) for name, questions in [*training["categories"].items(), *training["nda"].items()]]
    written += [(name, questions, listing_styles) for name, questions in training["listings"].items()]
    for name, questions, styles in written:
        check_phrasings(name, questions, styles, 6)
        for question in questions:
            key = words(question["text"])
            assert key not in evaluated and key not in seen, (name, question["text"])
            seen.add(key)
            assert placeholders(question["text"]) <= {"{party}", "{other}"}


def check_held_out_wording(written: dict) -> None:
    """A held-out wording set: 8 questions per CUAD category (a scenario twice), 7 per NDA term
    (no party style) and 8 "find all" requests per target, each by a named writer; a party
    question names {party} (and {other})."""
    assert set(written["categories"]) == set(CUAD) and set(written["nda"]) == set(load("contractnli.json")["hypotheses"])
    for group, styles in (("categories", STYLES), ("nda", STYLES - {"party"})):
        for name, questions in written[group].items():
            check_phrasings(name, questions, styles, 7)
            counts = {style: sum(q["style"] == style for q in questions) for style in styles}
            assert counts == {style: 2 if style == "scenario" else 1 for style in styles}, name
            assert all(q["writer"] in written["writers"] for q in questions), name
            for q in questions:
                found = placeholders(q["text"])
                assert ("{party}" in found and found <= {"{party}", "{other}"}) if q["style"] == "party" else not found, (name, q)
    for target, requests in written["listings"].items():
        assert target in ENUMERATION_TARGETS and len(requests) == 8 and len({r["form"] for r in requests}) >= 3, target
        assert all(r["form"] in FORMS and r["writer"] in written["writers"] for r in requests), target
        assert all(placeholders(r["text"]) == ({"{law}"} if target == "Governing Law" else set()) for r in requests), target
    assert set(written["listings"]) == ENUMERATION_TARGETS


def learnt_texts() -> set[str]:
    """Every question a model learns from or is tuned against, its words only."""
    training = load("training_questions.json")
    return evaluated_texts() | {words(q["text"]) for group in ("categories", "listings", "nda") for qs in training[group].values() for q in qs}


def test_the_unseen_wording_set_is_whole_and_apart_from_every_set_a_model_learns_from():
    """unseen_wording.json: a held-out wording set; and no question of it is in a file a model
    trains on, beyond the 28 (25 of them keywords such as "choice of law") that writers of both sets
    happened to word alike when it was written."""
    unseen = load("unseen_wording.json")
    check_held_out_wording(unseen)
    assert all(placeholders(q["text"]) == {"{party}", "{other}"} for qs in unseen["categories"].values() for q in qs if q["style"] == "party")
    learnt = learnt_texts()
    shared = [q["text"] for group in ("categories", "nda", "listings") for qs in unseen[group].values() for q in qs if words(q["text"]) in learnt]
    assert len(shared) == 28, shared


def test_the_reserve_wording_set_is_whole_and_apart_from_every_other_set():
    """reserve_wording.json (stop 65): a held-out wording set by seven new writers; of its 583
    questions and requests, only 36 keywords and four short questions that anyone would word alike
    are in a set a model learns from or in the unseen set."""
    reserve, unseen = load("reserve_wording.json"), load("unseen_wording.json")
    check_held_out_wording(reserve)
    assert not set(reserve["writers"]) & set(unseen["writers"])
    elsewhere = learnt_texts() | {words(q["text"]) for group in ("categories", "nda", "listings") for qs in unseen[group].values() for q in qs}
    texts = [q["text"] for group in ("categories", "nda", "listings") for qs in reserve[group].values() for q in qs]
    shared = [text for text in texts if words(text) in elsewhere]
    assert len(texts) == 583
    assert len(shared) == 40 and all(len(text.split()) <= 4 for text in shared if not text.endswith("?")), shared
    assert sorted(text for text in shared if text.endswith("?")) == [
        "Are we allowed to say bad things about them publicly?", "Which contracts are governed by {law} law?",
        "Which contracts stop a party from competing with the other?", "Who are the parties to this agreement?",
    ]


@needs_shared_data
def test_the_training_files_ask_the_sampled_questions_in_training_phrasings_only(tmp_path):
    """build.py's training files ask the same contracts' questions as the evaluation files, with
    the same gold, in the training-only phrasings (ids train/...), so a model fitted on them
    and measured on the others never saw a measured wording."""
    build = runpy.run_path(str(FOLDER / "build.py"))
    assert build["main"](["--out", str(tmp_path), "--every", "20", "--limit", "3", "--per-question", "1", "--training-per-question", "2"]) == 0
    measured = {name: read_jsonl(tmp_path / f"{name}.jsonl") for name in ("cuad_phrasings", "contractnli_dev")}
    training = {name: read_jsonl(tmp_path / f"training_{name}.jsonl") for name in ("cuad", "contractnli")}
    texts = load("training_questions.json")
    allowed = {p["text"] for group in ("categories", "nda") for phrasings in texts[group].values() for p in phrasings}
    for name, rows in training.items():
        assert rows and all(r["phrasing"].startswith("train/") for r in rows), name
        assert {r["docs"][0] for r in rows} == {r["docs"][0] for r in measured["cuad_phrasings" if name == "cuad" else "contractnli_dev"]}
        assert all(r["question"] in allowed or r.get("parties") for r in rows), name  # a party phrasing names the contract's parties
    gold = {(r["docs"][0], r.get("source_id") or r.get("hypothesis")): r["evidence"] for r in measured["cuad_phrasings"] + measured["contractnli_dev"]}
    for row in training["cuad"] + training["contractnli"]:
        assert row["evidence"] == gold[(row["docs"][0], row.get("source_id") or row.get("hypothesis"))]
    hypotheses = {(r["docs"][0], r["hypothesis"]) for r in measured["contractnli_dev"]}
    for wording in ("unseen", "reserve"):  # every phrasing of each held-out set, asked of the same questions
        held_out = {name: read_jsonl(tmp_path / f"{wording}_{name}.jsonl") for name in ("cuad", "contractnli")}
        written = load(f"{wording}_wording.json")
        for name, rows in held_out.items():
            assert rows and all(r["phrasing"].startswith(f"{wording}/") for r in rows), name
            assert {r["docs"][0] for r in rows} == {r["docs"][0] for r in measured["cuad_phrasings" if name == "cuad" else "contractnli_dev"]}
        requests = read_jsonl(tmp_path / f"{wording}_enumeration.jsonl")  # and its "find all" requests
        assert requests and all(r["phrasing"].startswith(f"{wording}/") for r in requests), wording
        for row in held_out["cuad"] + held_out["contractnli"]:
            assert row["evidence"] == gold[(row["docs"][0], row.get("source_id") or row.get("hypothesis"))]
        assert len(held_out["contractnli"]) == 7 * len(hypotheses)
        assert {r["question"] for r in held_out["contractnli"] if r["hypothesis"] == "nda-11"} == {q["text"] for q in written["nda"]["nda-11"]}
    assert (tmp_path / "cuad" / "pdf").is_dir() and (tmp_path / "public").is_dir()  # every file's docs resolve against the output folder


NDA_TERM_EXAMPLES = load("nda_term_examples.json")


def test_the_nda_term_examples_cover_each_term_the_presence_model_knows_alike():
    from engine.fields.presence import NDA_PREFIX, PresenceModel

    terms = {category for category in PresenceModel().categories if category.startswith(NDA_PREFIX)}
    assert {f"{NDA_PREFIX}{term}" for term in NDA_TERM_EXAMPLES} == terms
    for term, written in NDA_TERM_EXAMPLES.items():
        assert len(written["states"]) == len(written["silent"]) == 40, term
        assert not set(written["states"]) & set(written["silent"]), term
        assert all(len(text.split()) >= 8 for text in written["states"] + written["silent"]), term


@needs_shared_data
def test_no_nda_term_example_that_states_a_term_is_taken_from_a_contractnli_dev_nda():
    """The examples join every fold of the presence model's cross-validation over the dev NDAs:
    a sentence copied from a dev NDA's evidence would flatter its held-out F1. NDAs share their
    formulae ("furnish only that portion of the Confidential Information that is legally
    required"), so runs of words recur (at most 18 of a sentence's 23 words), and the silent
    examples include whole boilerplate sentences ("This Agreement may be executed in
    counterparts"); no sentence that states a term is one of theirs."""
    from tests.conftest import SHARED_DATA

    ndas = json.loads((SHARED_DATA / "contractnli" / "dev.json").read_text(encoding="utf-8"))["documents"]
    corpus = " ".join(words(nda["text"]) for nda in ndas)
    copied = [(term, text) for term, written in NDA_TERM_EXAMPLES.items() for text in written["states"] if words(text) in corpus]
    assert copied == []
