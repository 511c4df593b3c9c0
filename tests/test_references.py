"""Cross-references: finding them, resolving them, REFERENCES edges."""

from __future__ import annotations

import pytest

from engine.ingest.references import ReferenceResolver, find_references
from tests.conftest import SHARED_DATA, needs_shared_data, parsed


def _edges(contract) -> set[tuple[str, str | None]]:
    return {(e.src_ref, e.dst_ref) for e in contract.edges("REFERENCES")}


def test_highways_references_land_on_the_right_clauses(highways):
    edges = _edges(highways)
    assert ("3.3", "3.2") in edges  # "Before making a disclosure pursuant to Clause 3.2"
    assert {("5.2", "5.1.1"), ("5.2", "5.1.2")} <= edges  # "Clauses 5.1.1 and 5.1.2"
    assert ('1.1 "Receiving Party Authorised Person"', "3.1") in edges
    label = next(e.label for e in highways.edges("REFERENCES") if (e.src_ref, e.dst_ref) == ("5.2", "5.1.1"))
    assert label == "Clauses 5.1.1 and 5.1.2"


def test_gcloud_references_and_unresolved_ones_are_kept(gcloud):
    edges = _edges(gcloud)
    assert ("4.6.1", "4.6.2") in edges and ("4.6.5", "4.6.4") in edges and ("5.1", "2.8") in edges
    unresolved = {e.label for e in gcloud.edges("REFERENCES") if e.dst is None}
    assert "Attachment 4" in unresolved  # not part of this PDF: flagged, not dropped
    # "Section 2 of the Supply of Goods and Services Act 1982" is another instrument's section
    assert not any(e.label.startswith("Section 2") and e.src_ref == "4.6.3" for e in gcloud.edges("REFERENCES"))


@pytest.mark.parametrize(
    "text, targets",
    [
        ("subject to Section 8.2, which", ["8.2"]),
        ("Sections 4.2 and 4.3", ["4.2", "4.3"]),
        ("Sections 2.1 through 2.4", ["2.1", "2.4"]),
        ("Sections 2.1-2.4", ["2.1", "2.4"]),
        ("pursuant to Section 8.1(b)(ii) hereof", ["8.1(b)(ii)"]),
        ("§ 4.2 applies", ["4.2"]),
        ("as provided in Article III", ["III"]),
        ("attached as Exhibit “A”", ["A"]),
        ("described in Schedule 2 (and", ["2"]),
        ("in paragraph (b) above", ["(b)"]),
        ("Section 365(n) of the United States Bankruptcy Code", []),
        ("Section 2.1 of the Purchase Agreement", []),
        ("Section 2.1 of this Agreement", ["2.1"]),
    ],
)
def test_reference_forms(text, targets):
    assert [r.target for r in find_references(text)] == targets


def test_ranges_expand_and_resolve_to_the_most_specific_clause():
    refs = [("8", None), ("8.1", None), ("8.1(a)", None), ("8.1(b)", None), ("8.2", None),
            ("2.1", None), ("2.2", None), ("2.3", None), ("2.4", None)]
    resolver = ReferenceResolver(refs)
    found = find_references("Sections 8.1(b)(ii) and 8.1(c)")
    assert [resolver.resolve(r, "8.2", None) for r in found] == ["8.1(b)", "8.1"]
    first, last = find_references("Sections 2.1 through 2.4")
    assert resolver.range_between(resolver.resolve(first, "8", None), resolver.resolve(last, "8", None), None) == ["2.2", "2.3"]


@needs_shared_data
def test_cuad_section_with_subclause_references_land_on_subclauses():
    contract = parsed(SHARED_DATA / "cuad" / "pdf" / "MACROGENICSINC_08_02_2013_EX_10_COLLABORATION_AGREEMENT.pdf")
    edges = _edges(contract)
    assert ('1.5', "17.7(a)") in edges  # "Arbitral Tribunal" has the meaning set forth in Section 17.7(a)
    assert ("1.88", "8.2(b)") in edges  # "Securities Act" ... Section 8.2(b)
    # "Licensing Transaction" has the meaning set forth in Section 12.3(d)(ii)(C): four levels deep
    assert ("1.61", "12.3(d)(ii)(C)") in edges
    assert contract.parent_chain("12.3(d)(ii)(C)") == ["12.3(d)(ii)", "12.3(d)", "12.3", "12"]
