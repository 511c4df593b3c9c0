"""The planner: rules on the sample contracts, and the model path against an in-test Ollama server."""

from __future__ import annotations

import json

import pytest

from engine.errors import ClausegraphError
from engine.llm import Backend, LLMSpec, parse_llm
from engine.query.plan import keywords
from engine.query.question_parts import question_parts
from models.clause import ClauseType
from models.plan import Intent
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA
from tests.ollama_server import FakeOllama


@pytest.fixture(scope="module")
def doc_ids(sample_library) -> dict[str, str]:
    return {d.file_name: d.doc_id for d in sample_library.documents()}


@pytest.fixture
def library_with_model(sample_library):
    """The sample library planning with an Ollama model at a URL; rules only again afterwards."""

    def attach(url: str, timeout: float = 10):
        sample_library.use_llm(LLMSpec(backend=Backend.OLLAMA, model="tiny:latest", url=url, timeout=timeout))
        return sample_library

    yield attach
    sample_library.use_llm(LLMSpec())


def test_synonyms_expand_the_keywords():
    words, expansions = keywords("Can the customer audit the supplier?")
    assert words == ["customer", "audit", "supplier"]
    assert {"inspect", "records", "books"} <= set(expansions)


def test_rules_plan_names_intent_sections_terms_and_topics(sample_library, doc_ids):
    plan = sample_library.plan("What does \"Disclosing Party\" mean?", [doc_ids[HIGHWAYS_NDA.name]])
    assert plan.intent is Intent.DEFINITION
    assert [t.term for t in plan.terms] == ["Disclosing Party"]
    plan = sample_library.plan("Is the liability cap in clause 4.6.1 subject to clause 4.6.2?", [doc_ids[GCLOUD.name]])
    assert [s.ref for s in plan.sections] == ["4.6.1", "4.6.2"]
    assert ClauseType.LIMITATION_OF_LIABILITY in plan.topics
    assert plan.intent is Intent.SECTION_REFERENCE


def test_the_parties_names_are_not_search_words(sample_library, doc_ids):
    plan = sample_library.plan("Can HECL disclose information to the Department for Transport?", [doc_ids[HIGHWAYS_NDA.name]])
    assert "hecl" not in plan.keywords and "disclose" in plan.keywords


def test_how_long_asks_for_the_term(sample_library, doc_ids):
    plan = sample_library.plan("How long does the mutual NDA last?", [doc_ids[MUTUAL_NDA.name]])
    assert {"term", "continue"} <= set(plan.keywords) and "long" not in plan.keywords


@pytest.mark.parametrize(
    "question, parts",
    [
        (
            "How long does the supply agreement run, and what happens if the parties cannot agree the commercial supply agreement?",
            ["How long does the supply agreement run", "what happens if the parties cannot agree the commercial supply agreement"],
        ),
        ("Is there a cap on liability and how much is it?", ["Is there a cap on liability", "how much is it"]),
        ("Is the licence exclusive or can the licensor appoint others?", ["Is the licence exclusive", "can the licensor appoint others"]),
        ("What are the terms and conditions for renewal?", []),  # "and" joins words, not asks
        ("Can Sections 2 and 3 survive termination?", []),
        ("Which law governs, and why?", []),  # "why" alone is no ask to search by
    ],
)
def test_a_question_is_split_into_its_asks_only_where_a_new_question_begins(question, parts):
    assert question_parts(question) == parts


def test_the_plan_of_a_two_part_question_carries_both_asks(sample_library, doc_ids):
    plan = sample_library.plan(
        "Can the receiving party tell its advisers, and which courts decide disputes?", [doc_ids[HIGHWAYS_NDA.name]]
    )
    assert plan.parts == ["Can the receiving party tell its advisers", "which courts decide disputes"]
    assert any(note.startswith("asks 2 things") for note in plan.notes)
    assert sample_library.plan("Which courts decide disputes?", [doc_ids[HIGHWAYS_NDA.name]]).parts == []


def test_model_proposals_that_exist_are_used_and_unknown_ones_dropped(library_with_model, doc_ids):
    proposal = {"clause_types": ["limitation_of_liability", "cryptocurrency"], "sections": ["4.6.2", "99.9"],
                "defined_terms": ["MI Failure", "Unicorn Fund"]}
    with FakeOllama(replies=[json.dumps(proposal)] * 2) as fake:
        library = library_with_model(fake.url)
        plan = library.plan("Is the supplier's exposure limited?", [doc_ids[GCLOUD.name]])
        request = fake.chats()[0]
        # dropped values are never searched: what the search starts from is what was kept
        result = library.search("Is the supplier's exposure limited?", [doc_ids[GCLOUD.name]])
    assert request["format"]["title"] == "ProposedFilters"  # Ollama structured output: the JSON schema
    assert ClauseType.LIMITATION_OF_LIABILITY in plan.topics
    assert [s.ref for s in plan.sections] == ["4.6.2"]
    assert [t.term for t in plan.terms] == ["MI Failure"]
    assert plan.dropped == ["clause type 'cryptocurrency'", "section '99.9'", "defined term 'Unicorn Fund'"]
    assert result.passages[0].ref == "4.6.2" and result.passages[0].why.kind == "named"


def test_a_malformed_model_answer_leaves_the_rules_plan(library_with_model, sample_library, doc_ids):
    question = "Which law governs the agreement?"
    rules = sample_library.plan(question, [doc_ids[MUTUAL_NDA.name]])
    with FakeOllama(replies=["this is not json"]) as fake:
        plan = library_with_model(fake.url).plan(question, [doc_ids[MUTUAL_NDA.name]])
    assert plan.topics == rules.topics and plan.sections == rules.sections and plan.terms == rules.terms
    assert any("not valid JSON" in note for note in plan.notes)


def test_an_unreachable_model_leaves_the_rules_plan(library_with_model, doc_ids):
    with FakeOllama() as fake:
        url = fake.url  # the server is gone once the block ends: connection refused
    library = library_with_model(url, timeout=2)
    plan = library.plan("Which law governs the agreement?", [doc_ids[MUTUAL_NDA.name]])
    assert any("model planner unavailable" in note for note in plan.notes)
    assert library.search("Which law governs the agreement?", [doc_ids[MUTUAL_NDA.name]]).passages[0].ref == "10"


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("none", (Backend.NONE, None, None)),
        ("ollama:llama3.2:3b", (Backend.OLLAMA, "llama3.2:3b", "http://127.0.0.1:11434")),
        ("openai:http://127.0.0.1:8080/v1#smollm2", (Backend.OPENAI, "smollm2", "http://127.0.0.1:8080/v1")),
    ],
)
def test_model_specs(spec, expected, monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    parsed = parse_llm(spec)
    assert (parsed.backend, parsed.model, parsed.url) == expected


def test_a_bad_model_spec_is_a_clear_error():
    with pytest.raises(ClausegraphError, match="openai:URL#MODEL"):
        parse_llm("gpt4")
