"""The topics a review grid's preset columns and a playbook's rules are about.

Each topic is asked as a question through the one question pipeline, and where the contract
fields (engine/fields/) already hold its answer, a field value or the clause-presence model's
category, that is read first: it is instant, and on dev it finds a category's clause more
reliably than a single retrieval does (bench/review.py measures both).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Reads(StrEnum):
    """What a topic's short answer is."""

    SENTENCE = "sentence"  # the best sentence on the topic
    JURISDICTION = "jurisdiction"  # a place whose law governs
    DATE_OR_LENGTH = "date_or_length"  # when the contract ends
    LENGTH = "length"  # a length of time: a renewal term, a notice period


@dataclass(frozen=True)
class Topic:
    id: str
    label: str
    question: str
    category: str | None = None  # the CUAD category of the clause-presence model
    field: str | None = None  # the ContractFields attribute holding its value
    reads: Reads = Reads.SENTENCE


TOPICS: dict[str, Topic] = {
    topic.id: topic
    for topic in (
        Topic("governing_law", "Governing law", "Which law governs this agreement?", field="governing_law", reads=Reads.JURISDICTION),
        Topic("term", "Term and expiry", "When does this agreement expire?", field="expiration", reads=Reads.DATE_OR_LENGTH),
        Topic("renewal", "Renewal", "Does the agreement renew automatically, and for how long?", "Renewal Term", "renewal_term", Reads.LENGTH),
        Topic("termination_for_convenience", "Termination for convenience",
              "Can a party terminate this agreement for convenience, and with how much notice?", "Termination For Convenience",
              reads=Reads.LENGTH),
        Topic("liability_cap", "Liability cap", "Is either party's liability capped?", "Cap On Liability"),
        Topic("uncapped_liability", "Uncapped liability", "Is any liability excluded from the cap or unlimited?", "Uncapped Liability"),
        Topic("anti_assignment", "Assignment", "Can a party assign this agreement without the other's consent?", "Anti-Assignment"),
        Topic("change_of_control", "Change of control", "What happens on a change of control of a party?", "Change Of Control"),
        Topic("exclusivity", "Exclusivity", "Is there an exclusivity obligation?", "Exclusivity"),
        Topic("non_compete", "Non-compete", "Is a party restricted from competing?", "Non-Compete"),
        Topic("audit_rights", "Audit rights", "Does a party have the right to audit the other's books or records?", "Audit Rights"),
        Topic("insurance", "Insurance", "What insurance must a party maintain?", "Insurance"),
        Topic("ip_ownership", "IP ownership", "Who owns the intellectual property created under this agreement?", "Ip Ownership Assignment"),
    )
}


def topic(topic_id: str) -> Topic:
    return TOPICS[topic_id]
