"""Each retrieval stage alone, on the sample contracts: search arms and fusion, anchors, the
graph walk, budgeted selection."""

from __future__ import annotations

import math

import pytest

from engine.query.anchors import NAMED_SECTION_ORDER, Candidate, inject_named, ranked_anchors
from engine.query.arms import CATEGORY, KEYWORD, TOPIC, VECTOR, search
from engine.query.rank import FEATURES, candidate_features
from engine.query.retriever import STAGES
from engine.query.scope import SearchScope
from engine.query.select import select
from engine.query.walk import walk
from engine.settings import RetrievalSettings
from models.plan import Filters
from models.retrieval import Mode, Step, Why
from tests.conftest import FUSION, GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA, needs_shared_data


@pytest.fixture(scope="module")
def scope_of(sample_library):
    """question, contract -> the SearchScope every stage starts from."""

    def build(question: str, path, filters: Filters | None = None) -> SearchScope:
        graphs = sample_library.scope([sample_library.find(path.name).doc_id])
        plan = sample_library.engine.plan(question, graphs, filters)
        return SearchScope.of(plan, graphs, sample_library.embedder.encode([question])[0])

    return build


def test_modes_choose_stages():
    assert STAGES[Mode.KEYWORD].arms == (KEYWORD,) and not STAGES[Mode.KEYWORD].walk and not STAGES[Mode.KEYWORD].meaning_words
    assert STAGES[Mode.HYBRID].arms == (KEYWORD, VECTOR, TOPIC, CATEGORY) and not STAGES[Mode.HYBRID].named_anchors
    assert STAGES[Mode.GRAPH].named_anchors and STAGES[Mode.GRAPH].walk


def test_search_fuses_the_arms_it_is_given_and_remembers_their_ranks(sample_library, scope_of):
    scope = scope_of("Which law governs this agreement?", MUTUAL_NDA)
    settings = sample_library.settings.retrieval
    keyword = search(sample_library.store, scope, (KEYWORD,), settings)
    assert list(keyword.ranks) == [KEYWORD]
    assert scope.by_id[keyword.nodes[0].node.node_id][0].ref == "10"  # "governed by ... English law"
    fused = search(sample_library.store, scope, (KEYWORD, VECTOR), settings)
    assert list(fused.ranks) == [KEYWORD, VECTOR]
    assert len({n.node.node_id for n in fused.nodes}) == len(fused.nodes)  # a clause once, however many arms found it
    assert {n.node.node_id for n in keyword.nodes} <= {n.node.node_id for n in fused.nodes}


@pytest.mark.parametrize("question, refs", [
    ("If the supplier is bought by another company, can the framework be ended?", ["5.4", "5.4.2", "5.4.1"]),
    ("Who carries the risk if something goes wrong and how much can be claimed?", ["4.6.4", "4.6.1"]),
])
def test_the_category_arm_finds_the_clause_of_the_kind_meant_without_its_words(sample_library, scope_of, question, refs):
    """Neither question says "change of control" or "liability": the question model reads what
    it is about, and the presence model finds G-Cloud's clauses of that kind ("Termination on
    change of Control"; "each Party's total aggregate liability ... shall not exceed")."""
    scope = scope_of(question, GCLOUD)
    settings = sample_library.settings.retrieval
    found = search(sample_library.store, scope, (CATEGORY,), settings.model_copy(update={"category_weight": 1.0}))
    assert list(found.ranks) == [CATEGORY]
    # the clause's heading and its parts lead, in whichever order the model scores them
    assert sorted(scope.by_id[n.node.node_id][0].ref for n in found.nodes[: len(refs)]) == sorted(refs)
    assert search(sample_library.store, scope, (CATEGORY,), settings.model_copy(update={"category_weight": 0.0})).nodes == []


def test_a_contracts_category_scores_follow_the_presence_model_in_use(sample_library, tmp_path):
    """A benchmark swaps in a presence model that never read these contracts' labels: a graph
    already held must score with it, not answer from the scores the shipped model made."""
    import shutil

    from engine.fields.presence import MODEL_FILE, presence_model, use_presence_model

    [graph] = sample_library.scope([sample_library.find(GCLOUD.name).doc_id])
    shipped = graph.category_scores
    assert graph.category_scores is shipped  # kept while the model is the same
    shutil.copy(MODEL_FILE, tmp_path / "held_out.npz")
    use_presence_model(tmp_path / "held_out.npz")
    try:
        swapped = graph.category_scores
        assert swapped is not shipped and swapped.shape == (len(graph.clauses), len(presence_model().categories))
        assert swapped == pytest.approx(shipped)  # the same weights score the same
    finally:
        use_presence_model(MODEL_FILE)
    assert graph.category_scores is not swapped


def test_anchors_are_ranked_and_a_named_section_goes_first(sample_library, scope_of):
    scope = scope_of("What does Section 6 of the NDA provide?", HIGHWAYS_NDA)
    anchors = ranked_anchors(search(sample_library.store, scope, (KEYWORD, VECTOR), sample_library.settings.retrieval), scope)
    assert [a.order for a in anchors.values()] == list(range(1, len(anchors) + 1))
    assert max(a.score for a in anchors.values()) == 1.0  # strength relative to the best hit
    inject_named(scope, anchors)
    first = min(anchors.values(), key=lambda a: a.order)
    assert (first.clause.ref, first.why.kind, first.order) == ("6", "named", NAMED_SECTION_ORDER)


def test_hard_filters_bound_the_scope_before_any_stage(scope_of):
    scope = scope_of("What does Section 6 of the NDA provide?", HIGHWAYS_NDA, Filters(section_refs=["5"]))
    assert scope.allowed and all(scope.by_id[c][0].ref.split(".")[0] == "5" for c in scope.allowed)
    assert "clause_id IN" in scope.where()


def _walk_from(scope: SearchScope, ref: str, settings: RetrievalSettings) -> list[Candidate]:
    """The walk from one clause of the scope, its only anchor."""
    clause, graph = next(pair for pair in scope.by_id.values() if pair[0].ref == ref)
    anchor = Candidate(clause, graph, scope.similarity[clause.clause_id], 1.0, Why(kind="anchor"), order=1)
    return walk({clause.clause_id: anchor}, scope, settings)


def test_the_walk_follows_references_and_definitions_from_an_anchor(sample_library, scope_of):
    scope = scope_of("What may the Receiving Party do after an Information Return Notice?", HIGHWAYS_NDA)
    reached = {c.clause.ref: c for c in _walk_from(scope, "5.1", sample_library.settings.retrieval)}
    # 5.3 cites 5.1 ("in" along REFERENCES); 5.1 uses "Disclosing Party", defined in 1.1
    assert (reached["5.3"].why.edge, reached["5.3"].why.direction, reached["5.3"].why.via_ref) == ("REFERENCES", "in", "5.1")
    definition = reached['1.1 "Disclosing Party"'].why
    assert (definition.edge, definition.direction, definition.label, definition.hops) == ("DEFINES", "out", "Disclosing Party", 1)
    assert all(c.order == 1 for c in reached.values())  # followers remember the anchor they came from


def test_a_term_inside_a_definition_says_which_definition_and_clause_it_came_by(sample_library, scope_of):
    scope = scope_of("Which services can the Supplier be awarded orders for?", GCLOUD)
    every_path = sample_library.settings.retrieval.model_copy(update={"min_graph_score": 0.0})
    reached = {c.clause.ref: c for c in _walk_from(scope, "1.10", every_path)}
    # 1.10 uses "G-Cloud Services", whose definition in 9.1 uses "Holding Company"
    chained = reached['9.1 "Holding Company"'].why
    assert chained.path == [Step(edge="DEFINES", direction="out", via_ref="1.10", label="G-Cloud Services")]
    assert chained.describe() == (
        "defines “Holding Company” used in 9.1 \"G-Cloud Services\", which defines “G-Cloud Services” used in 1.10 (2 hops)"
    )
    assert reached['9.1 "G-Cloud Services"'].why.path == []  # one hop: no chain to tell


def test_the_definition_of_every_term_an_anchor_uses_is_a_candidate_except_the_parties(sample_library, scope_of):
    """G-Cloud's 4.5.3 uses "Call-Off Contract" (61 of its 268 clauses use it) and "Fraud": the
    first's edge is too weak to pass the walk's gates, yet what a Call-Off Contract is may be
    the answer; with definitions_used both definitions are candidates for the ranker to weigh.
    "CCS", which the preamble defines as a party, brings no definition in."""
    scope = scope_of("What happens if the Supplier commits fraud?", GCLOUD)
    settings = sample_library.settings.retrieval

    def definitions_reached(definitions_used: bool) -> dict[str, str]:
        reached = _walk_from(scope, "4.5.3", settings.model_copy(update={"definitions_used": definitions_used}))
        return {c.clause.ref: c.why.label for c in reached if (c.why.edge, c.why.direction, c.why.hops) == ("DEFINES", "out", 1)}

    assert "CCS" in scope.graphs[0].party_terms
    # 4.5.3 also uses "Buyers", defined in 8.2; the preamble, where CCS is defined, is not reached
    assert definitions_reached(True) == {'9.1 "Call-Off Contract"': "Call-Off Contract", '9.1 "Fraud"': "Fraud", "8.2": "Buyers"}
    assert '9.1 "Call-Off Contract"' not in definitions_reached(False)


def test_selection_places_followers_after_their_anchor_and_keeps_the_budget(sample_library, scope_of):
    scope = scope_of("What may the Receiving Party do after an Information Return Notice?", HIGHWAYS_NDA)
    settings = sample_library.settings.retrieval
    anchors = ranked_anchors(search(sample_library.store, scope, (KEYWORD, VECTOR), settings), scope)
    followers = walk(anchors, scope, settings)
    passages = select(anchors, followers, scope.vector, scope.plan, 2000, settings)
    assert passages and sum(len(p.text) for p in passages[:-1]) < 2000  # only the last passage may run over
    first_anchor = passages[0]
    assert first_anchor.why.kind == "anchor"
    after_first = passages[1 : 1 + settings.followers[0]]
    led = [p for p in after_first if p.why.kind == "graph"]
    assert all(p.why.via_ref is not None for p in led)


def test_a_clause_that_answers_one_ask_of_a_two_part_question_is_ranked_by_that_ask(sample_library):
    """Asked about advisers and courts at once, the Highways NDA's 8.2 (the English courts'
    exclusive jurisdiction) is only the 12th clause nearest to the whole question, which the
    confidentiality clauses crowd, and the nearest of all to "which courts decide disputes":
    the ranker reads both ranks."""
    graphs = sample_library.scope([sample_library.find(HIGHWAYS_NDA.name).doc_id])
    plan = sample_library.engine.plan("Can the receiving party tell its advisers, and which courts decide disputes?", graphs, None)
    found = sample_library.retriever.candidates(plan, sample_library.settings.retrieval, Mode.GRAPH, graphs)
    assert len(found.scope.part_similarities) == 2
    candidates, matrix = candidate_features(found.anchors, found.followers, found.scope, plan)
    row = matrix[next(i for i, c in enumerate(candidates) if c.clause.ref == "8.2")]
    assert row[FEATURES.index("part_similarity_rank")] == pytest.approx(math.log1p(1))
    assert row[FEATURES.index("similarity_rank")] == pytest.approx(math.log1p(12))
    assert row[FEATURES.index("part_similarity")] == pytest.approx(max(found.scope.part_similarities[1].values()))


def test_the_keyword_mode_searches_the_typed_words_not_the_words_meaning_adds(sample_library):
    """"governing law" is read as Governing Law, whose lexicon adds words such as "laws" and
    "construed" to the hybrid and graph searches; a keyword search leaves them out, so words no
    clause has find nothing however the question model reads them."""
    graphs = sample_library.scope([sample_library.find(MUTUAL_NDA.name).doc_id])
    plan = sample_library.engine.plan("governing law", graphs, None)
    assert plan.meaning_words and set(plan.meaning_words) <= set(plan.expansions)
    retriever, settings = sample_library.retriever, sample_library.settings.retrieval
    literal = retriever.retrieve(plan, settings, Mode.KEYWORD, graphs=graphs).plan
    assert literal.meaning_words == [] and not set(plan.meaning_words) & set(literal.expansions)
    assert retriever.retrieve(plan, settings, Mode.GRAPH, graphs=graphs).plan.meaning_words == plan.meaning_words


def test_definitions_used_inside_used_definitions_are_candidates_down_the_chain(sample_library, scope_of):
    """G-Cloud's 4.5.3 uses "Call-Off Contract", whose definition uses "Services": what the
    Services are may be what the answer turns on, yet that second edge weighs too little to pass
    the walk's gates. With definition_chains_used the chained definition is a candidate, and says
    which definition it came by."""
    scope = scope_of("What happens if the Supplier commits fraud?", GCLOUD)
    settings = sample_library.settings.retrieval

    def chained(on: bool) -> dict[str, str]:
        reached = _walk_from(scope, "4.5.3", settings.model_copy(update={"definition_chains_used": on}))
        return {c.clause.ref: c.why.describe() for c in reached if (c.why.edge, c.why.direction) == ("DEFINES", "out") and c.why.hops > 1}

    assert settings.definition_chains_used  # on in the default preset
    assert chained(True)['9.1 "Services"'] == (
        'defines “Services” used in 9.1 "Call-Off Contract", which defines “Call-Off Contract” used in 4.5.3 (2 hops)'
    )
    assert '9.1 "Services"' not in chained(False)


@needs_shared_data
def test_a_chain_runs_through_a_numbered_entry_of_the_definitions(cuad_library):
    """FUSION's definitions are numbered sections ("2.4 "cGMP(s)" shall mean the standards required
    by the Regulatory Authority ..."), not glossary rows: its warranty (5.2) promises cGMP, and
    whose standards those are is the definition of the Regulatory Authority (2.12), which the
    walk reaches down the chain."""
    library = cuad_library.library
    graphs = library.scope([cuad_library.doc_id(FUSION)])
    question = "Whose manufacturing standards does CPDC's batch warranty use?"
    scope = SearchScope.of(library.engine.plan(question, graphs, None), graphs, library.embedder.encode([question])[0])
    reached = {c.clause.ref: c.why.describe() for c in _walk_from(scope, "5.2", library.settings.retrieval)}
    assert reached["2.4"] == "defines “cGMP” used in 5.2 (1 hop)"
    assert reached["2.12"] == "defines “Regulatory Authority” used in 2.4, which defines “cGMP” used in 5.2 (2 hops)"
