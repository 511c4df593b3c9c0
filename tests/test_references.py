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


def _cuad(stem: str):
    """A CUAD dev contract parsed (every one used here is in the dev split)."""
    return parsed(SHARED_DATA / "cuad" / "pdf" / f"{stem}.pdf")


def _targets(contract, src_ref: str) -> set[str | None]:
    return {e.dst_ref for e in contract.edges("REFERENCES") if e.src_ref == src_ref}


@pytest.mark.parametrize(
    "text, targets",
    [
        # relative references with no keyword, anchored by "above" / "below"
        ("covering in excess of (a), (b), and (c) above, excluding", ["(a)", "(b)", "(c)"]),
        ("the payment policy outlined in 4.1 above.", ["4.1"]),
        ("as except provided in 4(c) and 4(e) above, each", ["4(c)", "4(e)"]),
        ("payable at 1.5 above the prime rate", []),  # a rate, not a reference: "at" leads to no clause
        ("as detailed in Examples 1 and 2 below", []),  # a bare "1" needs a keyword
        # further members of a list take the base of the member before them
        ("in Section 3.1(d)(ii) and (iii) to be decided", ["3.1(d)(ii)", "3.1(d)(iii)"]),
        ("under Section 4.1(a)(i) or (a)(iii), Owner", ["4.1(a)(i)", "4.1(a)(iii)"]),
        ("Sections 12.2(d), (g), or (l), or", ["12.2(d)", "12.2(g)", "12.2(l)"]),
        # ... but not the next item of the sentence's own enumeration
        ("(A) the plan, (B) approved in accordance with Section 4.2(a), or (C) any changes", ["4.2(a)"]),
        ("(x) has not, (y) has complied with this Section 3.3(b) and (z) is", ["3.3(b)"]),
        ("set forth in Section 5.2(f) or (b) Customer learns", ["5.2(f)"]),
        # lower case keywords, and "section" as a common noun with no number
        ("the undertakings in clauses 3 and 4 above apply", ["3", "4"]),
        ("as set out in schedule 2 and section 5.1", ["2", "5.1"]),
        ("in this section, each section of the report", []),
    ],
)
def test_more_reference_forms(text, targets):
    assert [r.target for r in find_references(text)] == targets


def test_above_and_below_say_where_the_target_is_printed():
    resolver = ReferenceResolver([("4", None), ("4.1", None), ("4.2", None), ("4.3", None)])
    above, below = find_references("in 4.3 above"), find_references("in 4.1 below")
    assert resolver.resolve(above[0], "4.2", None) is None  # 4.3 is printed after 4.2
    assert resolver.resolve(below[0], "4.2", None) is None
    assert resolver.resolve(find_references("in 4.1 above")[0], "4.2", None) == "4.1"


def test_subclause_ranges_expand_and_long_ranges_keep_their_ends_only():
    refs = [("13", None)] + [(f"13.2({letter})", None) for letter in "abcd"] + [(str(n), None) for n in range(14, 50)]
    resolver = ReferenceResolver(refs)
    first, last = find_references("Section 13.2(a)-(c) below")
    assert resolver.range_between(resolver.resolve(first, "13", None), resolver.resolve(last, "13", None), None) == ["13.2(b)"]
    first, last = find_references("Sections 14 through 49")  # 34 between its ends: more than MAX_RANGE
    assert resolver.range_between(resolver.resolve(first, "13", None), resolver.resolve(last, "13", None), None) == []


def test_lower_case_references_in_the_samples(gcloud, mutual_nda):
    assert ("3.14", "3.17") in _edges(gcloud)  # "as stipulated in clause 3.17 of this Framework"
    assert ("9.2.3", "4") in _edges(gcloud)  # "'How Services will be delivered' (section 4)"
    assert {("5", "3"), ("5", "4")} <= _edges(mutual_nda)  # "The undertakings in clauses 3 and 4 above"


@needs_shared_data
def test_cuad_relative_references_with_no_keyword():
    # "(d) Umbrella Liability Insurance ... covering in excess of (a), (b), and (c) above"
    sandridge = _cuad("SANDRIDGEENERGYINC_08_06_2009_EX_10_6_OPERATIONS_AND_MAINTENANCE_AGREEMENT")
    assert _targets(sandridge, "8.1.1(d)") == {"8.1.1(a)", "8.1.1(b)", "8.1.1(c)"}
    # "within the scope of the indemnity set forth in 15.1 above"
    outsourcing = _cuad("MANUFACTURERSSERVICESLTD_06_05_2000_EX_10_14_OUTSOURCING_AGREEMENT")
    assert _targets(outsourcing, "15.2(b)") == {"15.1"}
    # "as except provided in 4(c) and 4(e) above"
    affiliate = _cuad("TubeMediaCorp_20060310_8_K_EX_10_1_513921_EX_10_1_Affiliate_Agreement")
    assert _targets(affiliate, "5(d)") == {"4(c)", "4(e)"}
    # "(c) if options (a) and (b) above cannot be accomplished": items of 14(c)'s own text, not 14(a) and 14(b)
    content = _cuad("GluMobileInc_20070319_S_1A_EX_10_09_436630_EX_10_09_Content_License_Agreement1")
    assert not {"14(a)", "14(b)"} & _targets(content, "14(c)")


@needs_shared_data
def test_cuad_list_members_and_enumeration_items():
    distributor = _cuad("ZogenixInc_20190509_10_Q_EX_10_2_11663313_EX_10_2_Distributor_Agreement")
    # "... or by Distributor under Sections 12.2(d), (g), or (l)"
    assert {"12.2(d)", "12.2(g)", "12.2(l)"} <= _targets(distributor, "12.3(c)")
    # "... approved by the JSC in accordance with Section 4.2(a), or (C) any changes": (C) is the sentence's
    assert "4.2(a)" in _targets(distributor, "5.1(d)(ii)") and "4.2" not in _targets(distributor, "5.1(d)(ii)")


@needs_shared_data
def test_cuad_ranges_of_subclauses_and_of_top_level_sections():
    development = _cuad("CoherusBiosciencesInc_20200227_10_K_EX_10_29_12021376_EX_10_29_Development_Agreement")
    # "to the extent such Losses are due to the events described in Section 13.2(a)-(c) below"
    assert _targets(development, "13.1(a)") == {"13.2(a)", "13.2(b)", "13.2(c)"}
    service = _cuad("OPERALTD_04_30_2020_EX_4_14_SERVICE_AGREEMENT")
    # "... as well as Sections 3 through 10 shall survive termination"
    assert {str(n) for n in range(3, 11)} <= _targets(service, "9.4(ii)")
    hosting = _cuad("BNCMORTGAGEINC_05_17_1999_EX_10_4_LICENSING_AND_WEB_SITE_HOSTING_AGREEMENT")
    # "Sections 1 and 5 through 30": the longest range in the dev contracts, within MAX_RANGE
    assert _targets(hosting, "24") == {"1"} | {str(n) for n in range(5, 31)} - {"24"}


@needs_shared_data
def test_cuad_a_section_the_parse_has_only_as_parts():
    # No clause "17", but 17.1 to 17.4 are: "... which may arise pursuant to Paragraph 17" reaches
    # each part, and is not counted unresolved; "this Paragraph 18", written in 18.11, names its
    # own section and no other clause
    resolver = ReferenceResolver([(ref, None) for ref in ("17.1", "17.2", "17.3", "17.4", "18.1", "18.11", "25.5")])
    (paragraph,) = find_references("which may arise pursuant to Paragraph 17")
    assert resolver.resolve(paragraph, "25.5", None) is None
    assert resolver.parts_of(paragraph, "25.5", None) == ["17.1", "17.2", "17.3", "17.4"]
    (own,) = find_references("Payments due under this Paragraph 18")
    assert resolver.parts_of(own, "18.11", None) == []
    # STARTEC, where this was seen, now reads the heading "17 OPERATION AND MAINTENANCE COSTS OF
    # SEGMENT S - ALLOCATION ..." as clause 17 itself
    cable = _cuad("STARTECGLOBALCOMMUNICATIONSCORP_11_16_1998_EX_10_30_CONSTRUCTION_AND_MAINTENANCE_AGREEMENT")
    assert _labelled(cable, "25.5", "Paragraph 17") == {"17"}
    # An article the parse lacks is left unresolved, not spread over its parts: most often it is
    # a heading the parse left inside the clause before
    resolver = ReferenceResolver([("2.1", None), ("2.2", None), ("3", None)])
    (article,) = find_references("as set out in Article 2 hereof")
    assert resolver.resolve(article, "3", None) is None and resolver.parts_of(article, "3", None) is None
    # Antares' articles are all read now, so "ARTICLE 9 (Remedies and Indemnities)" reaches Article 9
    manufacturing = _cuad("Antares_Pharma_Inc_Manufacturing_Agreement")
    assert _labelled(manufacturing, "7.6(f)", "ARTICLE 9") == {"Article 9"}


def _labelled(contract, src_ref: str, label: str) -> set[str | None]:
    """Where the references written `label` in `src_ref` lead (None: unresolved)."""
    return {e.dst_ref for e in contract.edges("REFERENCES") if e.src_ref == src_ref and e.label == label}
