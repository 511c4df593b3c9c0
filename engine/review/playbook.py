"""Playbooks as files: YAML checked by the pydantic models, with errors a user can act on.

A bad playbook is refused whole, with every problem named by its rule id (or its position
when the id itself is the problem) and its field, so nothing is judged against half a
standard. The default playbook ships in data/playbooks/ and is documented there.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from engine.errors import ClausegraphError
from engine.review.topics import TOPICS
from engine.settings import PROJECT_ROOT
from models.review import Playbook

DEFAULT_PLAYBOOK = PROJECT_ROOT / "data" / "playbooks" / "default.yaml"


class PlaybookError(ClausegraphError):
    """A playbook that cannot be used; the message names each rule and field at fault."""


def load_playbook(path: Path | None = None) -> Playbook:
    """The playbook in `path` (the default one when None)."""
    path = Path(path) if path is not None else DEFAULT_PLAYBOOK
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise PlaybookError(f"cannot read the playbook {path}: {reason}") from None
    return parse_playbook(text, str(path))


def parse_playbook(text: str, source: str = "the playbook") -> Playbook:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise PlaybookError(f"{source} is not valid YAML{where}: {getattr(error, 'problem', None) or error}") from None
    if not isinstance(data, dict):
        raise PlaybookError(f"{source} must be a mapping with `name` and `rules` (see {DEFAULT_PLAYBOOK.name})")
    try:
        playbook = Playbook.model_validate(data)
    except ValidationError as error:
        problems = [_problem(data, e["loc"], e["msg"]) for e in error.errors()]
        raise PlaybookError(f"{source} has {_count(problems)}:\n" + "\n".join(f"- {p}" for p in problems)) from None
    unknown = [
        f"rule {rule.id!r}, field `topic`: unknown topic {rule.topic!r}" for rule in playbook.rules if rule.topic and rule.topic not in TOPICS
    ]
    if unknown:
        known = ", ".join(TOPICS)
        raise PlaybookError(f"{source} has {_count(unknown)}:\n" + "\n".join(f"- {p}" for p in unknown) + f"\nThe topics are: {known}.")
    return playbook


def dump_playbook(playbook: Playbook) -> str:
    """YAML a user can edit and load again."""
    return yaml.safe_dump(playbook.model_dump(mode="json", exclude_defaults=True), sort_keys=False, allow_unicode=True)


def _count(problems: list[str]) -> str:
    return "a problem" if len(problems) == 1 else f"{len(problems)} problems"


def _problem(data: dict, location: tuple, message: str) -> str:
    """"rule 'auto_renewal', field `bound.amount`: ..." from pydantic's location of an error."""
    message = message.removeprefix("Value error, ")
    if len(location) >= 2 and location[0] == "rules" and isinstance(location[1], int):
        rules = data.get("rules")
        rule = rules[location[1]] if isinstance(rules, list) and location[1] < len(rules) else None
        name = f"rule {rule['id']!r}" if isinstance(rule, dict) and isinstance(rule.get("id"), str) else f"rule number {location[1] + 1}"
        field = ".".join(str(part) for part in location[2:])
        return f"{name}, field `{field}`: {message}" if field else f"{name}: {message}"
    return f"field `{'.'.join(str(part) for part in location)}`: {message}"
