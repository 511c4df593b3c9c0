"""Playbooks (issue 19): the default one, the messages a bad one gets, and how a rule judges."""

from __future__ import annotations

import pytest

from engine.review.judge import judge
from engine.review.lengths import length_in
from engine.review.playbook import DEFAULT_PLAYBOOK, PlaybookError, dump_playbook, load_playbook, parse_playbook
from engine.review.topics import TOPICS
from models.answer import Citation
from models.review import Expect, GridCell, Length, Rule, Source, Status, Unit

REQUIRED_RULES = {
    "governing_law", "liability_cap", "uncapped_liability", "anti_assignment", "change_of_control", "exclusivity",
    "non_compete", "audit_rights", "insurance", "termination_for_convenience", "auto_renewal",
}


def test_the_default_playbook_has_every_rule_the_team_expects_and_round_trips():
    playbook = load_playbook()
    assert {rule.id for rule in playbook.rules} == REQUIRED_RULES
    assert all(rule.topic in TOPICS for rule in playbook.rules)
    renewal = next(rule for rule in playbook.rules if rule.id == "auto_renewal")
    assert (renewal.expect, renewal.bound, renewal.if_missing) == (Expect.AT_MOST, Length(amount=12, unit=Unit.MONTHS), Status.GREEN)
    assert parse_playbook(dump_playbook(playbook)) == playbook
    assert DEFAULT_PLAYBOOK.read_text().startswith("# Clausegraph's default playbook")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: x\nrules:\n  - id: renewal_cap\n    topic: renewal\n    expect: at_most\n",
         "- rule 'renewal_cap': expect: at_most needs a `bound`, e.g. {amount: 12, unit: months}"),
        ("name: x\nrules:\n  - id: renewal_cap\n    topic: renewal\n    expect: at_most\n    bound: {amount: 1, unit: weeks}\n",
         "- rule 'renewal_cap', field `bound.unit`: Input should be 'days', 'months' or 'years'"),
        ("name: x\nrules:\n  - id: law\n    topic: law\n    expect: required\n",
         "- rule 'law', field `topic`: unknown topic 'law'"),
        ("name: x\nrules:\n  - id: law\n    topic: governing_law\n    expect: allowed_values\n",
         "- rule 'law': expect: allowed_values needs a non-empty `values` list"),
        ("name: x\nrules:\n  - topic: insurance\n    expect: required\n",
         "- rule number 1, field `id`: Field required"),
        ("name: x\nrules:\n  - id: cap\n    topic: liability_cap\n    expect: requird\n",
         "- rule 'cap', field `expect`: Input should be 'required', 'forbidden', 'allowed_values', 'at_most' or 'at_least'"),
        ("name: x\nrules:\n  - id: a\n    topic: insurance\n    expect: required\n  - id: a\n    topic: audit_rights\n    expect: required\n",
         "field `rules`: two rules have the id 'a'"),
        ("name: x\nrules:\n  - id: a\n    expect: required\n",
         "- rule 'a': a rule needs a `topic` (one of the engine's topics) or a `question` of your own"),
        ("name: x\nrules:\n  - id: a\n    topic: insurance\n    question: Is there insurance?\n    expect: required\n",
         "- rule 'a': a rule has a `topic` or a `question`, not both"),
        ("name: [x\n", "mine.yaml is not valid YAML at line 2, column 1"),
        ("- just a list\n", "mine.yaml must be a mapping with `name` and `rules`"),
    ],
)
def test_a_bad_playbook_is_refused_naming_the_rule_and_the_field(text, message):
    with pytest.raises(PlaybookError) as raised:
        parse_playbook(text, "mine.yaml")
    assert message in str(raised.value)


def test_a_missing_playbook_file_is_a_clear_error(tmp_path):
    with pytest.raises(PlaybookError, match=r"cannot read the playbook .*nowhere.yaml: No such file or directory"):
        load_playbook(tmp_path / "nowhere.yaml")


def _cell(found: bool, answer: str = "", source: Source = Source.CLAUSE_MODEL, quote: str | None = None) -> GridCell:
    citations = [Citation(doc_id="d", file_name="f.pdf", clause_id="c", ref="9.1", page=3, page_end=3, quote=quote,
                          char_start=0, char_end=len(quote))] if quote else []
    return GridCell(doc_id="d", column="x", found=found, answer=answer, source=source, why="Not found: searched the contract.",
                    citations=citations)


RENEWAL = Rule(id="auto_renewal", topic="renewal", expect=Expect.AT_MOST, bound=Length(amount=12, unit=Unit.MONTHS),
               tolerance=Length(amount=24, unit=Unit.MONTHS), missing=Status.GREEN)
NOTICE = Rule(id="notice", topic="termination_for_convenience", expect=Expect.AT_LEAST, bound=Length(amount=30, unit=Unit.DAYS))
LAW = Rule(id="law", topic="governing_law", expect=Expect.ALLOWED_VALUES, values=["New York", "Delaware"])
CAP = Rule(id="cap", topic="liability_cap", expect=Expect.REQUIRED)


@pytest.mark.parametrize(
    ("rule", "cell", "status", "why"),
    [
        (RENEWAL, _cell(True, "successive 1 year", Source.FIELD), Status.GREEN, "1 year: within the playbook's limit of 12 months."),
        (RENEWAL, _cell(True, "18 month", Source.FIELD), Status.AMBER,
         "18 months: over the playbook's limit of 12 months, within its tolerance of 24 months."),
        (RENEWAL, _cell(True, "successive 5 year", Source.FIELD), Status.RED,
         "5 years: over the playbook's limit of 12 months and its tolerance of 24 months."),
        (RENEWAL, _cell(False), Status.GREEN, "Not found: searched the contract. The playbook accepts at most 12 months."),
        (NOTICE, _cell(True, "x", quote="Either party may terminate this Agreement for convenience on ten (10) days' written notice."),
         Status.RED, "10 days: under the playbook's minimum of 30 days."),
        (NOTICE, _cell(True, "x", quote="Either party may terminate this Agreement at any time for convenience."),
         Status.AMBER, "no length could be read from it"),
        (LAW, _cell(True, "Delaware", Source.FIELD), Status.GREEN, "Delaware: the playbook accepts New York or Delaware."),
        (LAW, _cell(True, "England and Wales", Source.FIELD), Status.RED, "England and Wales: not accepted"),
        (LAW, _cell(True, "This Agreement is governed by the laws of the State of New York."), Status.GREEN, "New York: the playbook accepts"),
        (LAW, _cell(True, "This Agreement is governed by the laws of Ontario."), Status.AMBER, "names none of the accepted values"),
        (CAP, _cell(False), Status.RED, "The playbook requires a clause on liability cap."),  # a missing required clause is a finding
    ],
)
def test_a_rule_judges_what_the_contract_says(rule, cell, status, why):
    verdict = judge(rule, TOPICS[rule.topic], cell)
    assert verdict.status is status and why in verdict.why
    assert verdict.found is cell.found and verdict.citations == cell.citations


def test_a_notice_period_is_read_where_the_sentence_names_it():
    assert str(length_in("Licensee may terminate upon sixty (60) days' prior written notice, within 5 years of the date.")) == "60 days"
    assert str(length_in("This Agreement renews for successive one (1) year terms.")) == "1 year"
    assert length_in("Either party may terminate at any time.") is None
