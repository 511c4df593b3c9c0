"""One playbook rule applied to one contract's answer on the rule's topic: green, amber or red,
with the words that decided it. A topic that was not found is judged too: a required clause
that is missing is a finding (red by default), and the verdict says what was searched."""

from __future__ import annotations

import re

from engine.review.lengths import length_in, parse_length
from engine.review.topics import TOPICS, Topic
from models.review import Expect, GridCell, Length, Rule, Source, Status, Verdict


def judge(rule: Rule, topic: Topic, cell: GridCell) -> Verdict:
    if not cell.found:
        return _verdict(rule, cell, rule.if_missing, "", f"{cell.why} {_standard(rule, topic).capitalize()}.")
    if rule.expect is Expect.REQUIRED:
        return _verdict(rule, cell, Status.GREEN, cell.answer, f"Has {_subject(topic)}, as the playbook requires.")
    if rule.expect is Expect.FORBIDDEN:
        return _verdict(rule, cell, Status.RED, cell.answer, f"Has {_subject(topic)}, which the playbook forbids.")
    if rule.expect is Expect.ALLOWED_VALUES:
        return _allowed(rule, topic, cell)
    return _bounded(rule, topic, cell)


def _standard(rule: Rule, topic: Topic) -> str:
    match rule.expect:
        case Expect.REQUIRED:
            return f"the playbook requires {_subject(topic)}"
        case Expect.FORBIDDEN:
            return f"the playbook forbids {_subject(topic)}"
        case Expect.ALLOWED_VALUES:
            return f"the playbook accepts {_listed(rule.values)}"
        case Expect.AT_MOST:
            return f"the playbook accepts at most {rule.bound}"
        case _:
            return f"the playbook requires at least {rule.bound}"


def _subject(topic: Topic) -> str:
    """What the contract has or lacks: a clause on a preset topic, or an answer to a rule's own question."""
    return f"a clause on {topic.label.lower()}" if topic.id in TOPICS else f"an answer to “{topic.question}”"


def _listed(values: list[str]) -> str:
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + f" or {values[-1]}"


def _names(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value.strip())}(?!\w)", text, re.I) is not None


def _allowed(rule: Rule, topic: Topic, cell: GridCell) -> Verdict:
    accepted = [value for value in rule.values if _names(cell.answer, value)]
    standard = _standard(rule, topic)
    if accepted:
        return _verdict(rule, cell, Status.GREEN, cell.answer, f"{cell.answer if cell.source is Source.FIELD else accepted[0]}: {standard}.")
    if cell.source is Source.FIELD:  # a value read as such, not a sentence that might say it otherwise
        return _verdict(rule, cell, Status.RED, cell.answer, f"{cell.answer}: not accepted; {standard}.")
    return _verdict(rule, cell, Status.AMBER, cell.answer, f"The clause names none of the accepted values ({standard}): check it.")


def _bounded(rule: Rule, topic: Topic, cell: GridCell) -> Verdict:
    length = parse_length(cell.answer) if cell.source is Source.FIELD else (length_in(cell.citations[0].quote) if cell.citations else None)
    if length is None:
        why = f"Has {_subject(topic)}, but no length could be read from it ({_standard(rule, topic)}): check it."
        return _verdict(rule, cell, Status.AMBER, cell.answer, why)
    status = _compared(rule, length)
    limit = "limit" if rule.expect is Expect.AT_MOST else "minimum"
    beyond = "over" if rule.expect is Expect.AT_MOST else "under"
    why = {
        Status.GREEN: f"{length}: within the playbook's {limit} of {rule.bound}.",
        Status.AMBER: f"{length}: {beyond} the playbook's {limit} of {rule.bound}, within its tolerance of {rule.tolerance}.",
        Status.RED: f"{length}: {beyond} the playbook's {limit} of {rule.bound}"
        + (f" and its tolerance of {rule.tolerance}." if rule.tolerance else "."),
    }[status]
    return _verdict(rule, cell, status, str(length), why)


def _compared(rule: Rule, length: Length) -> Status:
    assert rule.bound is not None  # the Rule model requires it for at_most and at_least
    days, bound = length.days, rule.bound.days
    tolerance = rule.tolerance.days if rule.tolerance else bound
    if rule.expect is Expect.AT_MOST:
        return Status.GREEN if days <= bound else Status.AMBER if days <= tolerance else Status.RED
    return Status.GREEN if days >= bound else Status.AMBER if days >= tolerance else Status.RED


def _verdict(rule: Rule, cell: GridCell, status: Status, value: str, why: str) -> Verdict:
    return Verdict(
        rule=rule.id, topic=rule.topic or cell.column, severity=rule.severity, status=status, found=cell.found,
        source=cell.source if cell.found else None, value=value, why=why,
        citations=cell.citations,
    )
