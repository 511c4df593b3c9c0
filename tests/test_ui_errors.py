"""How a page reports a failed action (ui/errors.py): the user's error in its own words, a
defect logged with its traceback and told in plain words, and the page told to stop."""

from __future__ import annotations

import logging

import pytest

import ui.errors
from engine.errors import ClausegraphError
from ui.errors import reported

FAILED = "Something went wrong while filling the grid. The cells filled so far are kept; try again, or check the log."


@pytest.fixture
def shown(monkeypatch) -> list[str]:
    messages: list[str] = []
    monkeypatch.setattr(ui.errors.st, "error", messages.append)
    return messages


def test_a_users_error_is_shown_in_its_own_words_and_stops_the_page(shown, caplog):
    with reported(logging.getLogger("pages.grid"), "filling the grid", "The grid stopped: {error}. The cells filled so far are kept.", FAILED) as attempt:
        raise ClausegraphError("no contract 'abc' in the library")
    assert attempt.failed
    assert shown == ["The grid stopped: no contract 'abc' in the library. The cells filled so far are kept."]
    assert not caplog.records


def test_a_defect_is_logged_with_its_traceback_and_told_in_plain_words(shown, caplog):
    with caplog.at_level(logging.ERROR), reported(logging.getLogger("pages.grid"), "filling the grid", "{error}", FAILED) as attempt:
        raise KeyError("column_id")
    assert attempt.failed and shown == [FAILED]
    [record] = caplog.records
    assert (record.name, record.getMessage(), record.exc_info[0]) == ("pages.grid", "filling the grid failed", KeyError)


def test_a_block_that_succeeds_shows_nothing(shown):
    with reported(logging.getLogger("pages.ask"), "answering", "{error}", FAILED) as attempt:
        answer = 42
    assert (answer, attempt.failed, shown) == (42, False, [])
