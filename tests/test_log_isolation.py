"""Which tests pass must not depend on their order: a log handler made during one test keeps
writing after that test's captured stderr is closed (see conftest's
_log_handlers_outlive_the_test). These two tests run in this order, as the suite's did when
test_durability's CLI message came out as "--- Logging error ---"."""

from __future__ import annotations

import streamlit.logger

_LOGGER = "clausegraph.tests.log_isolation"


def test_a_streamlit_logger_is_made_while_this_tests_stderr_is_captured(capsys):
    streamlit.logger.get_logger(_LOGGER)
    assert capsys.readouterr().err == ""


def test_its_next_message_in_a_later_test_is_not_a_logging_error(capsys):
    streamlit.logger.get_logger(_LOGGER).warning("a message after the test that made the logger")
    assert "Logging error" not in capsys.readouterr().err
