"""Numbering markers at the start of a line."""

from __future__ import annotations

import pytest

from engine.ingest.numbering import Style, parse_marker, roman_value


@pytest.mark.parametrize(
    "line, style, label, key",
    [
        ("ARTICLE IV - TERMINATION", Style.ARTICLE, "IV", (4,)),
        ("Article 4. Term", Style.ARTICLE, "4", (4,)),
        ("SECTION FOUR. REMUNERATION", Style.SECTION, "FOUR", (4,)),
        ("Section 4.02 Payment Terms.", Style.SECTION, "4.02", (4, 2)),
        ("4.2 Fees", Style.DECIMAL, "4.2", (4, 2)),
        ("4.2.1.3 Late payment", Style.DECIMAL, "4.2.1.3", (4, 2, 1, 3)),
        ("1.38. “Product Unit” means", Style.DECIMAL, "1.38", (1, 38)),
        ("5.Term of this Agreement", Style.NUMBER, "5", (5,)),
        ("12. Governing Law", Style.NUMBER, "12", (12,)),
        ("(b) any breach", Style.PAREN_LOWER, "b", ()),
        ("(iv) was independently developed", Style.PAREN_ROMAN, "iv", ()),
        ("(A) Notwithstanding", Style.PAREN_UPPER, "A", ()),
        ("Schedule 2 - MI reporting template", Style.SCHEDULE, "2", ()),
        ("EXHIBIT “B”", Style.SCHEDULE, "B", ()),
        ("Annex 1", Style.SCHEDULE, "1", ()),
        ("Appendix", Style.SCHEDULE, "", ()),
    ],
)
def test_markers(line, style, label, key):
    marker = parse_marker(line)
    assert marker is not None and (marker.style, marker.label, marker.key) == (style, label, key)


def test_i_is_both_a_letter_and_a_numeral():
    marker = parse_marker("(i) the Disclosing Party; or")
    assert (marker.style, marker.value) == (Style.PAREN_LOWER, 9)
    assert (marker.alternative.style, marker.alternative.value) == (Style.PAREN_ROMAN, 1)


@pytest.mark.parametrize(
    "line", ["Exhibit 10.1", "Schedule TO Software License", "Addendum Number: CW255039", "Schedule of Fees", "The Supplier shall"]
)
def test_not_markers(line):
    assert parse_marker(line) is None


def test_roman_values():
    assert [roman_value(n) for n in ["i", "iv", "ix", "XIV", "xl", "MCMXC"]] == [1, 4, 9, 14, 40, 1990]
    assert roman_value("iiii") is None and roman_value("abc") is None
