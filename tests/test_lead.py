"""The first quote chosen by the learned model (engine/answer/lead.py), on the sample contracts."""

from __future__ import annotations

import numpy as np
import pytest

from engine.answer.evidence import Evidence
from engine.answer.extractive import main_candidates, rules_order
from engine.answer.lead import CANDIDATE_RANKS, FEATURES, RELATIVE_FEATURES, LeadModel, lead_candidates, lead_features
from tests.conftest import HIGHWAYS_NDA

SHARING = "Our engineering team needs the specs to evaluate the deal; can we pass them along?"


def test_a_situation_is_answered_first_by_the_sentence_that_answers_it(sample_library):
    """Asked as a situation, the question shares hardly a word with the NDA. The rules' first
    quote was the definition listing "employees, consultants or professional advisers" among
    the sources of confidential information; the model quotes the clause permitting disclosure."""
    answer = sample_library.ask(SHARING, [sample_library.find(HIGHWAYS_NDA.name).doc_id]).answer
    assert not answer.abstained
    first = answer.citations[0]
    assert (first.ref, first.page) == ("3.1", 4)
    assert first.quote.startswith("The Receiving Party may disclose Confidential Information to those of its directors")


def test_without_the_model_the_rules_still_choose_a_first_quote(sample_library):
    engine = sample_library.engine
    lead, engine.answerer.lead = engine.answerer.lead, None
    try:
        answer = sample_library.ask(SHARING, [sample_library.find(HIGHWAYS_NDA.name).doc_id]).answer
    finally:
        engine.answerer.lead = lead
    assert not answer.abstained and answer.citations[0].ref != "3.1"


def test_the_features_describe_the_top_passages_sentences_and_mark_the_rules_choice_once(sample_library):
    doc_id = sample_library.find(HIGHWAYS_NDA.name).doc_id
    retrieval = sample_library.engine.run(SHARING, [doc_id], answer=False).retrieval
    evidence = Evidence.gather(retrieval, sample_library.scope([doc_id]), sample_library.settings.answer, sample_library.engine.answerer.meaning)
    candidates = main_candidates(evidence)
    ranked = lead_candidates(candidates)
    rules = rules_order(evidence, candidates)[0]
    matrix = lead_features(evidence, ranked, rules)
    assert matrix.shape == (len(ranked), len(FEATURES)) and len(ranked) > 1
    assert all(s.rank < CANDIDATE_RANKS for s in ranked) and [s.rank for s in ranked] == sorted(s.rank for s in ranked)
    chosen = matrix[:, FEATURES.index("rules_choice")]
    assert chosen.sum() == 1 and ranked[int(np.argmax(chosen))] is rules
    gaps = matrix[:, [FEATURES.index(f"{name}_gap") for name in RELATIVE_FEATURES]]
    assert (gaps <= 0).all() and np.allclose(gaps.max(axis=0), 0)  # the gap to the best candidate of the question
    likeness = matrix[:, FEATURES.index("likeness")]
    assert (likeness != 0).all() and (np.abs(likeness) <= 1.0001).all()  # cosines, measured


def test_a_model_file_of_other_features_is_refused(tmp_path):
    path = tmp_path / "lead_model.npz"
    np.savez(path, features=np.array(FEATURES[:-1]), mean=np.zeros(len(FEATURES) - 1), scale=np.ones(len(FEATURES) - 1),
             coefficients=np.zeros(len(FEATURES) - 1), intercept=np.array(0.0))
    with pytest.raises(ValueError, match="retrain with bench/train_lead_model.py"):
        LeadModel(path)
