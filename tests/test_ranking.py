"""The learned candidate ranking (issue 17): what it knows about each candidate, and the
context it orders, on the sample contracts."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from engine.boosted_trees import LEAF, BoostedTrees
from engine.logistic import StandardisedLogistic
from engine.query.rank import (
    FEATURES, INTERACTION_DIMENSIONS, LINKED_FEATURES, RANKED_FEATURES, LearnedRanker, candidate_features, interaction_basis, learned_ranker,
    needed_by, needed_by_probability, parts_under_heading, question_products, with_interactions,
)
from engine.query.reading import in_order
from engine.query.select import select_ranked, to_passage
from engine.text.normalise import normalise
from models.retrieval import Mode
from tests.conftest import GCLOUD, HIGHWAYS_NDA


def _found(library, question: str, path):
    graphs = library.scope([library.find(path.name).doc_id])
    plan = library.engine.plan(question, graphs, None)
    return plan, library.retriever.candidates(plan, library.settings.retrieval, Mode.GRAPH, graphs)


def test_a_ranker_trained_on_other_features_is_refused(tmp_path):
    path = tmp_path / "ranker.npz"
    np.savez(path, features=np.array(FEATURES[:-1]), mean=np.zeros(3), scale=np.ones(3), coefficients=np.zeros(3), intercept=np.array(0.0))
    with pytest.raises(ValueError, match="retrain with bench/train_ranker.py"):
        LearnedRanker(path)
    trees = BoostedTrees(FEATURES[:-1], *(np.array([LEAF]),) * 4, np.array([0.0]), np.array([0]), 0.0)
    trees.save(path)
    with pytest.raises(ValueError, match="retrain with bench/train_ranker.py"):
        LearnedRanker(path)


def test_a_ranker_file_from_before_the_interactions_ranks_without_them_and_one_missing_its_basis_is_refused(tmp_path):
    width = len(FEATURES)
    older = StandardisedLogistic(FEATURES, np.zeros(width), np.ones(width), np.eye(width)[0], 0.0)
    older.save(tmp_path / "older.npz")
    ranker = LearnedRanker(tmp_path / "older.npz")
    rows = np.zeros((2, width))
    rows[1, 0] = 2.0
    assert ranker.basis is None
    assert np.allclose(ranker.probabilities(rows, [[], []]), [0.5, 1 / (1 + np.exp(-2.0))])  # no products needed
    wider = StandardisedLogistic(RANKED_FEATURES, np.zeros(len(RANKED_FEATURES)), np.ones(len(RANKED_FEATURES)), np.zeros(len(RANKED_FEATURES)), 0.0)
    wider.save(tmp_path / "no_basis.npz")
    with pytest.raises(ValueError, match="retrain with bench/train_ranker.py"):
        LearnedRanker(tmp_path / "no_basis.npz")


def test_the_interaction_basis_follows_the_products_widest_spread():
    rng = np.random.default_rng(5)
    products = rng.normal(scale=0.01, size=(500, 384))
    products[:, 7] += rng.normal(scale=1.0, size=500)  # most of the spread along dimension 7,
    products[:, 40] += rng.normal(scale=0.5, size=500)  # then along dimension 40
    basis = interaction_basis(products)
    assert basis.shape == (384, INTERACTION_DIMENSIONS)
    assert np.allclose(basis.T @ basis, np.eye(INTERACTION_DIMENSIONS), atol=1e-9)  # orthonormal directions
    assert abs(basis[7, 0]) > 0.99 and abs(basis[40, 1]) > 0.99


def test_the_shipped_ranker_reads_how_the_question_and_each_clause_meet(sample_library):
    plan, found = _found(sample_library, "How many MI Failures let CCS terminate the framework agreement?", GCLOUD)
    candidates, matrix = candidate_features(found.anchors, found.followers, found.scope, plan)
    products = question_products(found.scope.vector, candidates)
    graph = candidates[0].graph
    # summed over the dimensions, each product is the question's cosine with the clause's own vector
    assert np.allclose(products.sum(axis=1), [graph.vectors[graph.row[c.clause.clause_id]] @ found.scope.vector for c in candidates], atol=1e-6)
    ranker = learned_ranker()
    assert ranker.basis.shape == (products.shape[1], INTERACTION_DIMENSIONS) and ranker.logistic.names == RANKED_FEATURES
    needers = needed_by(candidates)
    read = ranker.probabilities(matrix, needers, products)
    scored = ranker.score(found.anchors, found.followers, found.scope, plan)
    assert np.allclose(read, scored.probabilities)
    assert not np.allclose(read, ranker.probabilities(matrix, needers, np.zeros_like(products)))  # the interactions weigh
    with pytest.raises(ValueError, match="question_products"):
        ranker.probabilities(matrix, needers)
    assert with_interactions(matrix, products, ranker.basis).shape == (len(candidates), len(RANKED_FEATURES))


def test_a_ranker_of_boosted_trees_gives_the_fitted_models_probabilities(tmp_path):
    rng = np.random.default_rng(3)
    rows = rng.random((400, len(FEATURES)))
    holds_evidence = (rows[:, 0] > 0.5) & (rows[:, 1] < 0.4)  # an interaction, as trees learn them
    model = HistGradientBoostingClassifier(max_depth=3, max_iter=30, random_state=0).fit(rows, holds_evidence)
    BoostedTrees.from_sklearn(model, FEATURES).save(tmp_path / "trees.npz")
    ranker = LearnedRanker(tmp_path / "trees.npz")
    assert ranker.trees is not None
    assert np.allclose(ranker.probabilities(rows[:20], [[]] * 20), model.predict_proba(rows[:20])[:, 1], atol=1e-9)


def test_each_candidate_is_described_by_its_arms_and_the_edge_that_reached_it(sample_library):
    plan, found = _found(sample_library, "How many MI Failures let CCS terminate the framework agreement?", GCLOUD)
    candidates, matrix = candidate_features(found.anchors, found.followers, found.scope, plan)
    assert matrix.shape == (len(candidates), len(FEATURES))
    assert len({c.clause.clause_id for c in candidates}) == len(candidates)  # an anchor the walk reached too is one row
    column = {name: matrix[:, i] for i, name in enumerate(FEATURES)}
    named = [i for i, c in enumerate(candidates) if c.why.kind == "named"]
    assert named and all(column["named"][i] == 1.0 and column["anchor"][i] == 1.0 for i in named)
    assert [candidates[i].clause.ref for i in named] == ["6.9"]  # where "MI Failure" is defined
    by_ref = {c.clause.ref: i for i, c in enumerate(candidates)}
    assert column["edge_references_out"][by_ref["2.8"]] == 1.0  # the termination clause cites "Clause 2.8"
    walked = [i for i, c in enumerate(candidates) if c.clause.clause_id not in found.anchors]
    assert walked and all(column["walked"][i] == 1.0 and column["hops"][i] >= 1 and column["anchor"][i] == 0.0 for i in walked)
    edges = [name for name in FEATURES if name.startswith("edge_")]
    assert all(sum(column[e][i] for e in edges) == 1.0 for i in walked)  # exactly one edge brought each
    most_similar = int(np.argmax(column["similarity"]))
    assert column["similarity_gap"][most_similar] == 0.0 and (column["similarity_gap"] <= 0.0).all()
    assert np.allclose(column["similarity"] - column["similarity_gap"], column["similarity"][most_similar])


def test_the_learned_ranking_orders_the_context_and_keeps_the_budget(sample_library):
    assert learned_ranker() is not None, "engine/query/ranker.npz ships with the code"
    settings = sample_library.settings.model_copy(update={"retrieval": sample_library.settings.retrieval.model_copy(update={"ranking": "learned"})})
    graphs = sample_library.scope([sample_library.find(HIGHWAYS_NDA.name).doc_id])
    plan = sample_library.engine.plan("Which law governs this agreement?", graphs, None, settings)
    retrieval = sample_library.retriever.retrieve(plan, settings.retrieval, Mode.GRAPH, 4000, graphs)
    assert [p.ref for p in retrieval.passages[:2]] == ["8.1", "8"]  # the clause that answers ("This Agreement shall be governed by ..."), then its heading
    scores = [p.score for p in retrieval.passages]
    assert max(scores[:2]) == max(scores) <= 1.0 and min(scores) >= 0.0  # the likeliest lead
    spent = sum(len(normalise(p.text)) + 1 for p in retrieval.passages[:-1])
    assert spent < 4000  # the last passage is the one that crossed the budget


def test_a_bare_heading_ranked_above_its_part_goes_right_before_it(sample_library):
    """'8 Governing law' says nothing its part 8.1 does not: placed just before 8.1, not
    where its own probability put it, ahead of a clause that says something else."""
    plan, found = _found(sample_library, "Which law governs this agreement?", HIGHWAYS_NDA)
    candidates, _ = candidate_features(found.anchors, found.followers, found.scope, plan)
    refs = [c.clause.ref for c in candidates]
    assert {"8", "8.1", "6.3"} <= set(refs)
    likelihood = {"8": 0.9, "6.3": 0.7, "8.1": 0.5}
    ordered = in_order(candidates, np.array([likelihood.get(ref, 0.1) for ref in refs]))
    assert [r.candidate.clause.ref for r in ordered[:3]] == ["6.3", "8", "8.1"]


def test_a_preamble_keeps_its_place_ahead_of_its_parts(sample_library):
    """The Highways NDA's preamble ("THIS AGREEMENT is made on [date] BETWEEN:") is short and
    has parts (the parties' blocks), but it is not their heading: its own words answer a date
    question, so the likeliest passage stays first however unlikely its parts are."""
    plan, found = _found(sample_library, "When does this agreement become effective?", HIGHWAYS_NDA)
    candidates, _ = candidate_features(found.anchors, found.followers, found.scope, plan)
    preamble = next(c for c in candidates if c.clause.ref == "Preamble")
    parts = [c for c in candidates if c.clause.clause_id in parts_under_heading(preamble)]
    assert parts, "a part of the preamble is among the candidates"
    likelihood = np.array([0.9 if c is preamble else 0.05 if c in parts else 0.3 for c in candidates])
    ordered = in_order(candidates, likelihood)
    assert ordered[0].candidate is preamble


def test_the_context_reads_the_likeliest_evidence_per_character_first(sample_library):
    """A short clause at fair odds leads a long one at slightly better odds: the context is cut
    by characters, and the long one would spend the budget the short one needs."""
    plan, found = _found(sample_library, "How many MI Failures let CCS terminate the framework agreement?", GCLOUD)
    candidates, _ = candidate_features(found.anchors, found.followers, found.scope, plan)
    lengths = np.array([len(normalise(c.clause.text)) for c in candidates])
    searched = [i for i, c in enumerate(candidates) if c.why.kind != "named" and not parts_under_heading(c) and lengths[i] > 100]
    long, short = max(searched, key=lengths.__getitem__), min(searched, key=lengths.__getitem__)
    assert lengths[long] > 4 * lengths[short]
    likelihood = np.full(len(candidates), 0.01)
    likelihood[long], likelihood[short] = 0.6, 0.5

    def place(order, index):
        return [r.candidate for r in order].index(candidates[index])

    by_likelihood = in_order(candidates, likelihood)
    assert place(by_likelihood, long) < place(by_likelihood, short)
    by_reading = in_order(candidates, likelihood, lengths)
    assert place(by_reading, short) < place(by_reading, long)
    assert next(r.probability for r in by_reading if r.candidate is candidates[long]) == 0.6  # the probability is kept as it was


def test_the_answerer_weighs_passages_by_likelihood_whatever_their_reading_order(sample_library):
    settings = sample_library.settings.model_copy(update={"retrieval": sample_library.settings.retrieval.model_copy(update={"ranking": "learned"})})
    graphs = sample_library.scope([sample_library.find(GCLOUD.name).doc_id])
    plan = sample_library.engine.plan("When can CCS terminate for a Supplier Insolvency Event?", graphs, None, settings)
    retrieval = sample_library.retriever.retrieve(plan, settings.retrieval, Mode.GRAPH, 8000, graphs)
    ranked = retrieval.ranked_passages()
    assert sorted(p.clause_id for p in ranked) == sorted(p.clause_id for p in retrieval.passages)
    # 5.1 "With Cause", then the definitions of the terms the question names, then by likelihood
    assert [p.ref for p in ranked[:5]] == ["5.1", '9.1 "Supplier Insolvency Event"', '9.1 "Insolvency Event"', "5.3", "8.11.2"]
    # the named terms' definitions read second and third however likely: "Insolvency Event" is the least likely of the five
    assert ranked[0].score > ranked[3].score > ranked[4].score > ranked[2].score
    assert ranked[5].score >= ranked[6].score  # after them, by likelihood
    assert ranked != retrieval.passages  # here shorter clauses read before likelier ones



def test_a_candidate_is_needed_by_the_candidates_citing_it_using_its_term_or_holding_it(sample_library):
    plan, found = _found(sample_library, "How many MI Failures let CCS terminate the framework agreement?", GCLOUD)
    candidates, _ = candidate_features(found.anchors, found.followers, found.scope, plan)
    needers = needed_by(candidates)
    by_ref = {c.clause.ref: i for i, c in enumerate(candidates)}
    refs = {ref: {candidates[j].clause.ref for j in needers[i]} for ref, i in by_ref.items()}
    assert refs["2.8"] == {"5.1"}  # 5.1: CCS may terminate "if the Supplier has breached clause 2.8"
    assert {"5.1", "6"} <= refs["6.9"]  # 6.9 defines "MI Failure", which 5.1 uses; 6 holds it
    assert {"5.1", "5.3", "5.4"} <= refs["5"] and refs["5.4"] >= {"5", "5.4.1"}  # parts and parent
    first = np.linspace(0.01, 0.99, len(candidates))
    needed = needed_by_probability(needers, first)
    assert needed[by_ref["2.8"]] == first[by_ref["5.1"]]
    assert all(needed[i] == 0.0 for i, js in enumerate(needers) if not js)


def test_a_two_pass_ranker_reads_the_first_pass_probability_of_each_candidates_needers(tmp_path):
    rng = np.random.default_rng(5)
    rows, products = rng.random((300, len(FEATURES))), rng.normal(size=(300, 384))
    basis = interaction_basis(products)
    read = with_interactions(rows, products, basis)
    needers = [[int(j)] if j < 300 else [] for j in rng.integers(0, 400, 300)]
    first = LogisticRegression().fit(read, read[:, 0] > 0.5)
    linked_rows = np.column_stack([read, needed_by_probability(needers, first.predict_proba(read)[:, 1])])
    second = LogisticRegression().fit(linked_rows, linked_rows[:, -1] > 0.5)
    none, ones = np.zeros(len(RANKED_FEATURES)), np.ones(len(RANKED_FEATURES))
    arrays = StandardisedLogistic.from_sklearn(first, RANKED_FEATURES, none, ones).arrays()
    arrays |= StandardisedLogistic.from_sklearn(second, LINKED_FEATURES, np.zeros(len(LINKED_FEATURES)), np.ones(len(LINKED_FEATURES))).arrays("linked_")
    np.savez(tmp_path / "two.npz", **arrays, interaction_basis=basis)
    ranker = LearnedRanker(tmp_path / "two.npz")
    assert np.allclose(ranker.probabilities(rows, needers, products), second.predict_proba(linked_rows)[:, 1], atol=1e-9)
    assert LearnedRanker().linked is not None, "the shipped ranker reads in two passes"


def test_the_context_past_its_lead_is_ordered_by_the_support_reading(sample_library):
    """The shipped ranker reads twice: the lead orders the context's first `lead_chars`
    characters as a single-clause answer needs, the support the rest as a multi-hop one does.
    Asked about the Supplier's material breach of the G-Cloud framework, the lead's 8,000
    characters leave out the definition of "Default" ("any breach of the obligations of the
    Supplier"); the support reading brings it in, after the lead's own 4,000 characters."""
    ranker = learned_ranker()
    assert ranker.support is not None, "the shipped ranker has a support reading"
    plan, found = _found(sample_library, "What happens if the Supplier commits a Material Breach?", GCLOUD)
    scored = ranker.score(found.anchors, found.followers, found.scope, plan)
    settings = sample_library.settings.retrieval
    assert settings.lead_chars == 4000
    context = select_ranked(scored, found.vector, plan, 8000, settings)
    lead_alone = select_ranked(dataclasses.replace(scored, support=None), found.vector, plan, 8000, settings)
    starts = list(itertools.accumulate((len(normalise(p.text)) + 1 for p in context), initial=0))
    led = sum(1 for start in starts[:-1] if start < settings.lead_chars)
    assert [p.clause_id for p in context[:led]] == [p.clause_id for p in lead_alone[:led]]
    lengths = np.array([len(normalise(to_passage(c, found.vector, plan, settings).text)) + 1 for c in scored.candidates])
    supported = [r.candidate.clause.clause_id for r in in_order(scored.candidates, scored.support, lengths)]
    rest = [p.clause_id for p in context[led:]]
    assert rest == [cid for cid in supported if cid not in {p.clause_id for p in context[:led]}][: len(rest)]
    default = '9.1 "Default"'
    assert default in [p.ref for p in context[led:]] and default not in [p.ref for p in lead_alone]
    # each passage keeps the lead reading's probability, which the answerer weighs
    lead_probability = dict(zip((c.clause.clause_id for c in scored.candidates), scored.probabilities))
    assert all(p.score == round(float(lead_probability[p.clause_id]), 4) for p in context)
    # with a lead as long as the budget, the context is the lead's alone
    whole = settings.model_copy(update={"lead_chars": 8000})
    assert [p.clause_id for p in select_ranked(scored, found.vector, plan, 8000, whole)] == [p.clause_id for p in lead_alone]
