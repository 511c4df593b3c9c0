"""The first quote chosen by the learned model (engine/answer/lead.py), on the sample contracts."""

from __future__ import annotations

import numpy as np
import pytest

from engine.answer.evidence import Evidence
from engine.answer.extractive import main_candidates, rules_order
from engine.answer.lead import CANDIDATE_RANKS, FEATURES, RELATIVE_FEATURES, LeadModel, lead_candidates, lead_features, pick
from tests.conftest import GCLOUD

CAP = "What is the liability cap of each party?"


def _candidates(library, question: str, path):
    doc_id = library.find(path.name).doc_id
    retrieval = library.engine.run(question, [doc_id], answer=False).retrieval
    evidence = Evidence.gather(retrieval, library.scope([doc_id]), library.settings.answer, library.engine.answerer.meaning)
    candidates = main_candidates(evidence)
    ranked = lead_candidates(candidates)
    rules = rules_order(evidence, candidates)[0]
    return ranked, rules, lead_features(evidence, ranked, rules)


def _rows(rules: int, of_category: bool) -> np.ndarray:
    matrix = np.zeros((3, len(FEATURES)))
    matrix[rules, FEATURES.index("rules_choice")] = 1
    matrix[rules, FEATURES.index("of_category")] = float(of_category)
    return matrix


def test_the_likeliest_sentence_leads_unless_the_rules_found_one_of_the_questions_category():
    log_odds = np.array([0.5, 2.0, -1.0])
    assert pick(log_odds, _rows(rules=0, of_category=False)) == 1
    assert pick(log_odds, _rows(rules=0, of_category=True)) == 0
    assert pick(log_odds, np.zeros((3, len(FEATURES)))) == 1  # no rules' choice among the candidates


def test_the_liability_cap_leads_though_the_model_prefers_the_exclusion_beside_it(sample_library):
    """Lawyers label both the cap (4.6.1) and the exclusion of lost profits (4.6.4) as the cap
    on liability, and the model, ranking 4.6.4 first, would quote it; the rules' choice among
    sentences of the category, by the question's own words, stands."""
    ranked, rules, matrix = _candidates(sample_library, CAP, GCLOUD)
    model = sample_library.engine.answerer.lead
    assert ranked[int(np.argmax(model.log_odds(matrix)))].clause.ref == "4.6.4"
    assert rules.clause.ref == "4.6.1" and ranked[pick(model.log_odds(matrix), matrix)] is rules
    first = sample_library.ask(CAP, [sample_library.find(GCLOUD.name).doc_id]).answer.citations[0]
    assert (first.ref, first.page) == ("4.6.1", 9)


def test_the_features_describe_the_top_passages_sentences_and_mark_the_rules_choice_once(sample_library):
    ranked, rules, matrix = _candidates(sample_library, CAP, GCLOUD)
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
