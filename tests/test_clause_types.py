"""Clause types assigned by rules."""

from __future__ import annotations

from engine.ingest.clause_types import classify
from models.clause import ClauseKind, ClauseType


def test_types_on_the_sample_contracts(gcloud, highways, mutual_nda):
    expected = {
        (gcloud, "4.6.1"): ClauseType.LIMITATION_OF_LIABILITY,
        (gcloud, "5.2"): ClauseType.FORCE_MAJEURE,
        (gcloud, "5.4"): ClauseType.CHANGE_OF_CONTROL,
        (gcloud, "7.4"): ClauseType.AUDIT,
        (gcloud, "8.32"): ClauseType.INSURANCE,
        (gcloud, '9.1 "Supplier"'): ClauseType.DEFINITIONS,
        (highways, "2.1.4"): ClauseType.CONFIDENTIALITY,
        (highways, "7.1"): ClauseType.NOTICES,
        (highways, "8.1"): ClauseType.GOVERNING_LAW,
        (highways, "8.2"): ClauseType.DISPUTE_RESOLUTION,  # "submits to the exclusive jurisdiction", under "Governing law"
        (highways, '1.1 "Confidential Information"(a)(i)'): ClauseType.DEFINITIONS,  # no words of its own: inherits
        (mutual_nda, "10"): ClauseType.GOVERNING_LAW,
    }
    for (contract, ref), clause_type in expected.items():
        assert contract.clause(ref).clause_type is clause_type, ref


def test_heading_outweighs_wording_and_topics_keep_the_rest():
    clause_type, topics = classify(
        "Assignment", "Neither party may assign this Agreement, except in connection with a merger or change of control.",
        ClauseKind.SECTION, None,
    )
    assert clause_type is ClauseType.ASSIGNMENT
    assert ClauseType.CHANGE_OF_CONTROL in topics


def test_wording_decides_without_a_heading():
    clause_type, _ = classify("", "This Agreement shall be governed by the laws of the State of Delaware.", ClauseKind.SECTION, None)
    assert clause_type is ClauseType.GOVERNING_LAW
    clause_type, _ = classify("", "The parties met on Tuesday.", ClauseKind.SECTION, None)
    assert clause_type is ClauseType.OTHER
