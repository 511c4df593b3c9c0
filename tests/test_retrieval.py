"""Planner and retriever on the sample contracts: named sections, defined terms, scope, filters."""

from __future__ import annotations

import pytest

from engine.query.retriever import ClauseGraphRetriever
from engine.text.normalise import normalise
from models.clause import ClauseType
from models.plan import Filters, Intent, PageRange
from models.retrieval import Mode
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA


@pytest.fixture(scope="module")
def doc_ids(sample_library) -> dict[str, str]:
    return {d.file_name: d.doc_id for d in sample_library.documents()}


def test_a_question_naming_a_section_gets_that_section_first(sample_library, doc_ids):
    result = sample_library.search("What does Section 6 of the NDA provide?", [doc_ids[HIGHWAYS_NDA.name]])
    assert result.plan.intent is Intent.SECTION_REFERENCE
    first = result.passages[0]
    assert (first.ref, first.heading, first.page) == ("6", "General", 6)
    assert first.why.kind == "named"
    # Section 6 is a heading over its parts: they come right after it
    assert {"6.1", "6.2"} <= {p.ref for p in result.passages[1:6]}


def test_a_subclause_named_in_the_question_comes_first(sample_library, doc_ids):
    result = sample_library.search("Does clause 5.1.2 apply to electronic copies?", [doc_ids[HIGHWAYS_NDA.name]])
    assert result.passages[0].ref == "5.1.2"
    # 5.1.2 says "subject to Clause 5.2": the exception it points to is in the context too
    reached = {p.ref: p.why for p in result.passages}
    assert "5.2" in reached


def test_a_defined_term_in_the_question_brings_its_definition(sample_library, doc_ids):
    result = sample_library.search(
        "Can the Recipient use the information for anything other than the Purpose?", [doc_ids[MUTUAL_NDA.name]]
    )
    assert [t.term for t in result.plan.terms] == ["Purpose"]
    definition = next(p for p in result.passages if p.ref == "1")
    assert "Purpose" in definition.text and definition.why.kind == "named"
    assert "3" in [p.ref for p in result.passages[:4]]  # the use restriction itself


def test_the_graph_walk_follows_a_cross_reference(sample_library, doc_ids):
    result = sample_library.search("What may the Receiving Party do after an Information Return Notice?", [doc_ids[HIGHWAYS_NDA.name]])
    refs = [p.ref for p in result.passages]
    assert refs.index("5.1") < 6 and "5.2" in refs
    # 5.1 says "subject to Clause 5.2": the walk reaches 5.2 by that reference (the search finds it too)
    graphs = sample_library.scope([doc_ids[HIGHWAYS_NDA.name]])
    found = sample_library.retriever.candidates(result.plan, sample_library.settings.retrieval, Mode.GRAPH, graphs)
    assert any(f.clause.ref == "5.2" and f.why.edge == "REFERENCES" for f in found.followers)


@pytest.mark.parametrize("mode", list(Mode))
def test_a_scope_of_one_contract_never_returns_another(sample_library, doc_ids, mode):
    for name in (GCLOUD.name, HIGHWAYS_NDA.name, MUTUAL_NDA.name):
        for question in ("How can the agreement be terminated?", "What confidential information is protected?", "Section 2"):
            result = sample_library.search(question, [doc_ids[name]], mode)
            if mode is not Mode.KEYWORD or "confidential" in question:  # an NDA may never say "terminate"
                assert result.passages, (name, question, mode)
            assert {p.doc_id for p in result.passages} <= {doc_ids[name]}


def test_context_is_cut_by_characters(sample_library, doc_ids):
    result = sample_library.search("What are the supplier's obligations?", [doc_ids[GCLOUD.name]], budget=3000)
    lengths = [len(p.text) for p in result.passages]
    counted = [len(normalise(p.text)) + 1 for p in result.passages]  # the budget counts normalised characters
    assert sum(counted[:-1]) < 3000 <= sum(counted) + 3000  # only the last passage may run over
    trim = sample_library.settings.retrieval.trim_chars
    assert all(length <= trim + 100 for length in lengths)  # long clauses are trimmed to their best part (a window's slack)


def test_hard_filters_exclude_everything_else(sample_library, doc_ids):
    scope = [doc_ids[GCLOUD.name]]
    typed = sample_library.search("What happens on termination?", scope, filters=Filters(clause_types=[ClauseType.TERM_TERMINATION]))
    assert typed.passages
    detail = sample_library.detail(GCLOUD.name)
    types = {c.clause_id: (c.clause_type, c.topics) for c in detail.clauses}
    assert all(ClauseType.TERM_TERMINATION in (types[p.clause_id][0], *types[p.clause_id][1]) for p in typed.passages)
    paged = sample_library.search("What happens on termination?", scope, filters=Filters(pages=PageRange(first=9, last=10)))
    assert paged.passages and all(9 <= p.page <= 10 or (p.page < 9 and p.page_end >= 9) for p in paged.passages)


def test_the_question_can_limit_pages_itself(sample_library, doc_ids):
    plan = sample_library.plan("What does page 3 say about audits?", [doc_ids[GCLOUD.name]])
    assert plan.filters.pages == PageRange(first=3, last=3)


def test_modes_differ_in_how_passages_were_found(sample_library, doc_ids):
    scope = [doc_ids[HIGHWAYS_NDA.name]]
    question = "Which law governs the agreement?"
    keyword = sample_library.search(question, scope, Mode.KEYWORD)
    vector = sample_library.search(question, scope, Mode.VECTOR)
    graph = sample_library.search(question, scope, Mode.GRAPH)
    assert {a for p in keyword.passages for a in p.why.arms} == {"keyword"}
    assert {a for p in vector.passages for a in p.why.arms} == {"vector"}
    assert all(p.why.kind == "anchor" for p in keyword.passages + vector.passages)
    assert any(p.why.kind == "graph" for p in graph.passages)
    assert graph.passages[0].text == "8 Governing law" and "governed" in graph.passages[1].text.lower()  # the heading, then its part


def test_the_llamaindex_retriever_returns_passages_as_nodes(sample_library, doc_ids):
    from engine.query.plan import make_plan

    retriever = ClauseGraphRetriever(sample_library.retriever, make_plan, [doc_ids[MUTUAL_NDA.name]], sample_library.settings.retrieval)
    nodes = retriever.retrieve("Which law governs this agreement?")
    assert nodes[0].node.metadata["ref"] == "10"
    assert "English law" in nodes[0].node.get_content()
    assert retriever.last is not None and retriever.last.passages[0].clause_id == nodes[0].node.metadata["clause_id"]


def test_over_more_contracts_than_are_answered_each_only_the_best_matches_are_read(sample_library, doc_ids):
    """Over a large scope the store's own search picks the contracts first (engine/query/large_scope.py):
    here, with room for one, the framework agreement, the only one about call-off contracts."""
    settings = sample_library.settings
    small = settings.model_copy(update={
        "limits": settings.limits.model_copy(update={"answer_each": 1}),
        "retrieval": settings.retrieval.model_copy(update={"large_scope_contracts": 1}),
    })
    result = sample_library.engine.run("How does the Crown Commercial Service award a Call-Off Contract?", settings=small)
    assert result.plan.scope == [doc_ids[GCLOUD.name]]
    assert {c.file_name for c in result.answer.citations} == {GCLOUD.name}
    assert any("answered from the best matches" in note for note in result.answer.notes)
    # a hard filter is checked on the graphs: then every contract is searched
    filtered = sample_library.engine.run(
        "How does the Crown Commercial Service award a Call-Off Contract?", filters=Filters(clause_types=[ClauseType.OTHER]), settings=small
    )
    assert sorted(filtered.plan.scope) == sorted(doc_ids.values())


def test_the_vector_arm_searches_with_the_question_moved_toward_what_answers_such_questions(sample_library, doc_ids):
    """'How much can we get back at most if things go wrong?' shares no word with the framework
    agreement's cap (4.6.1: "each Party's total aggregate liability ... shall not exceed"). The
    question model reads it as a cap on liability, so the query adapter moves its vector toward
    where contracts set caps, and vector search alone puts the cap first; the plain vector does not."""
    question = "How much can we get back at most if things go wrong?"
    settings = sample_library.settings
    plain = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={"query_adapter": False})})
    adapted = sample_library.engine.run(question, [doc_ids[GCLOUD.name]], mode=Mode.VECTOR, answer=False).retrieval
    as_typed = sample_library.engine.run(question, [doc_ids[GCLOUD.name]], settings=plain, mode=Mode.VECTOR, answer=False).retrieval
    assert adapted.plan.categories[0].category == "Cap On Liability"
    assert (adapted.passages[0].ref, adapted.passages[0].why.arms) == ("4.6.1", {"vector": 1})
    assert [p.ref for p in as_typed.passages].index("4.6.1") >= 3  # the plain vector ranks clauses that speak of loss first
    # only the search moved: each clause's similarity to the question, which the ranking reads, did not
    similarity = {p.ref: p.similarity for p in adapted.passages}
    assert all(similarity[p.ref] == p.similarity for p in as_typed.passages if p.ref in similarity)
    assert "4.6.4" in similarity  # ("in no event shall either Party be liable ... for any loss of profits"): in both contexts
