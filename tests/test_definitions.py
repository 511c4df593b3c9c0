"""Defined terms and DEFINES edges."""

from __future__ import annotations

import pytest

from engine.ingest.definitions import Strength, TermMatcher, find_definitions
from tests.conftest import FUSION, SHARED_DATA, needs_shared_data, parsed


def test_highways_terms_have_their_defining_clause(highways):
    defined = {d.term: d.ref for d in highways.graph.definitions}
    assert defined["Confidential Information"] == '1.1 "Confidential Information"'
    assert defined["Disclosing Party"] == '1.1 "Disclosing Party"'
    assert defined["HECL"] == "Preamble(1)"
    # "has the meaning given ... in Clause 3.1" points to the real definition, which wins
    assert defined["Receiving Party Authorised Person"] == "3.1"
    assert defined["Information Return Notice"] == "5.1"


def test_highways_defines_edges_reach_the_clauses_using_a_term(highways):
    users = {e.dst_ref for e in highways.edges("DEFINES") if e.label == "Confidential Information"}
    assert {"2.1.1", "2.1.4", "3.1", "5.1", "Recitals"} <= users
    assert '1.1 "Confidential Information"' not in users  # never to itself
    authorised = {e.dst_ref for e in highways.edges("DEFINES") if e.label == "Receiving Party Authorised Person"}
    assert "2.2" in authorised
    # "Receiving Party Authorised Person" is one term, not also a use of "Receiving Party" in 3.2
    clause = highways.clause("2.2")
    assert "Receiving Party Authorised Person" in clause.terms_used


def test_a_pointer_gives_the_definition_to_the_clause_it_points_to(highways):
    # 1.1: "Specified Scope" has the meaning given to that expression in Clause 5.1; 5.1 gives it
    # in words ("... (in either case, the "Specified Scope")") and its parts use it
    defined = {d.term: d.ref for d in highways.graph.definitions}
    assert defined["Specified Scope"] == "5.1"
    users = {e.dst_ref for e in highways.edges("DEFINES") if e.label == "Specified Scope"}
    assert users == {'1.1 "Specified Scope"', "5.1.1", "5.1.2", "5.1.3"}
    assert "Specified Scope" in highways.clause("5.1").defines


@needs_shared_data
def test_a_cuad_pointer_to_a_committee_section_defines_it_there():
    contract = parsed(SHARED_DATA / "cuad" / "pdf" / "MACROGENICSINC_08_02_2013_EX_10_COLLABORATION_AGREEMENT.pdf")
    defined = {d.term: d.ref for d in contract.graph.definitions}
    # "Joint Development Committee" or "JDC" has the meaning set forth in Section 2.2
    assert defined["Joint Development Committee"] == defined["JDC"] == "2.2"
    assert defined["Licensing Transaction"] == "12.3(d)(ii)(C)"  # four levels deep
    assert defined["Arbitral Tribunal"] == "17.7(a)"


def test_gcloud_glossary_rows_define_terms(gcloud):
    defined = {d.term: d.ref for d in gcloud.graph.definitions}
    assert defined["Additional Services"] == '9.1 "Additional Services"'
    assert defined["Supplier Insolvency Event"] == '9.1 "Supplier Insolvency Event"'
    assert defined["MI Failure"] == "6.9"  # "CCS may treat this as an 'MI Failure'"
    users = {e.dst_ref for e in gcloud.edges("DEFINES") if e.label == "MI Failure"}
    assert {"5.1", "6.10", "6.11"} <= users


@pytest.mark.parametrize(
    "text, terms",
    [
        ("“Affiliate” means any entity controlling a Party.", ["Affiliate"]),
        ('"Territory" shall mean the United States.', ["Territory"]),
        ("‘Cause’ has the meaning set out below.", ["Cause"]),
        ("“Change of Control” shall have the meaning given in Section 9.", ["Change of Control"]),
        ("“Control,” “Controls” or “Controlled by” means the power to direct.", ["Control", "Controls", "Controlled by"]),
        ("Acme Inc. (the “Supplier”) and Beta LLC (“Buyer”)", ["Supplier", "Buyer"]),
        ("(hereinafter “Licensee”)", ["Licensee"]),
        ('each a "Party" and together the "Parties"', ["Party", "Parties"]),
        ("information (the Confidential Information) to the other party", ["Confidential Information"]),
        ("The term “Change in Control”, as used in this Agreement, means (A) the sale", ["Change in Control"]),
        ('"NAI Goods" as used herein shall mean retail desktop software products', ["NAI Goods"]),
        ('1.6 "CUSTOMER(S)" means one or more customers of the Corio Services', ["Customer"]),
        ("“Third Party(ies)” means any person other than a Party.", ["Third Party"]),
        ('The occurrence of any of the following shall constitute an "Event of Default" under this Agreement', ["Event of Default"]),
        ("any business which would constitute a “Competitive Business” (as hereinafter defined)", []),  # a use
        ("referred to herein individually as a “Party” and collectively as the “Parties”.", ["Party", "Parties"]),
        ("notice within thirty days (such period, the “Negotiation Period”). If no", ["Negotiation Period"]),
        ("with applicable Law (collectively, (i) and (ii), the “Service Standard”). Subject to", ["Service Standard"]),
        ("1.1 “Affiliate” of a Party means any entity that controls", ["Affiliate"]),
        # a term may open with one small letter before a capital
        ("2.4 “Current Good Manufacturing Practices” or “cGMP(s)” shall mean the standards", ["Current Good Manufacturing Practices", "cGMP"]),
        ('the "eBay Customer" means a person who buys', ["eBay Customer"]),
        ("“Products” includes all goods sold by Supplier.", []),  # "includes" never defines
        ("the words “include” and cognate expressions", []),  # not capitalised: not a term
    ],
)
def test_definition_forms(text, terms):
    assert [d.term for d in find_definitions(text)] == terms


@pytest.mark.parametrize(
    "text, terms",
    [
        ("1.23 Field means any human use of the Licensed Product", ["Field"]),
        ("1.69 Territory shall mean the United States of America", ["Territory"]),
        ("1.5 Biologics License Application or BLA means a request for permission", ["Biologics License Application", "BLA"]),
        ("1.15 Control (whether used as a noun or as a verb) or Controlled means the possession", ["Control", "Controlled"]),
        ("(c) ADVERTISING means all banners and links", ["Advertising"]),
        ("Net Sales means the gross amount invoiced", ["Net Sales"]),  # no number: its first word is the term's
        ("iv. Day Rate means the rate per day", ["Day Rate"]),
        ("1.1 In this Agreement the following words shall have the meanings set out below", []),  # the list's lead-in
        ("1.2 Headings shall not affect the interpretation of this Agreement.", []),
    ],
)
def test_a_glossary_entry_may_name_its_term_unquoted(text, terms):
    assert [d.term for d in find_definitions(text, glossary=True)] == terms
    assert find_definitions(text) == []  # outside a list of definitions, unquoted words define nothing


@pytest.mark.parametrize(
    "text, terms",
    [
        ("(a) Affiliate: A company is the Affiliate of another if either company owns", ["Affiliate"]),  # a colon sets the term apart
        ("(b) Branching Unit (BU): Equipment that permits interconnection", ["Branching Unit"]),
        ("1.4 Affiliate - a business entity now or hereafter controlled by", ["Affiliate"]),  # or a dash
        ("1.1 TRANSPORTATION QUANTITY – shall mean the maximum daily quantity", ["Transportation Quantity"]),
        ("3.1 Payment terms - see Schedule B", []),  # "terms" is no capitalised term
        ('1.5. "COMMENCEMENT DATE" is the first business day after the first 30 consecutive days', ["Commencement Date"]),
        ("1.2 Headings: the headings are for convenience only", []),  # a small letter after the colon: a heading, not a meaning
        ("(d) Capacity Types shall be categorized as follows:", []),
        ("(a) Definitions: The following terms have the meanings below", []),  # the list's own heading
        ('"Product" is used herein as in the Supply Agreement', []),  # "is used" says how, not what
        ('1.4. "BOARD DISPUTE" is defined in Article 22.1.', ["Board Dispute"]),  # a pointer, as anywhere
    ],
)
def test_an_entry_of_a_list_of_definitions_may_set_its_term_apart_with_a_colon_or_a_dash_or_say_is(text, terms):
    assert [d.term for d in find_definitions(text, glossary=True, entry=True)] == terms
    # a clause that only mentions "interpretation" is no entry: "23 Captions: The captions ... shall
    # not affect the interpretation" is a heading
    assert [d.term for d in find_definitions(text, glossary=True)] == (["Board Dispute"] if "defined in" in text else [])


def test_pointer_definitions_are_weakest():
    found = find_definitions("“Losses” has the meaning set forth in Section 14.1.")
    assert found[0].strength is Strength.POINTER
    assert find_definitions("“Losses” means all damages.")[0].strength is Strength.EXPLICIT
    aside = find_definitions("“Losses”, as used in this Agreement, has the meaning set forth in Section 14.1.")
    assert aside[0].strength is Strength.POINTER
    # "is defined in" points elsewhere, named or not: the preamble's (the "Effective Date") wins
    for text in ("“Annual Reports” is defined in Section 2.12.", "“Effective Date” is defined in the first paragraph of this Agreement.",
                 "“Nomination” shall be as defined in Section 2.6.",
                 "“Effective Date” shall have the meaning ascribed to it in the introductory paragraph above.",
                 "“Product” has the meaning set forth in the Recitals."):
        assert find_definitions(text)[0].strength is Strength.POINTER
    assert find_definitions("The term “Complaints” as used in this Section 10.3 means any")[0].strength is Strength.EXPLICIT


@needs_shared_data
def test_a_definition_said_as_used_in_this_agreement_beats_the_pointer_to_it():
    # 1.10: "Confidential Information" shall have the meaning ascribed to the term in Section 9.2;
    # 9.2: The term "Confidential Information" as used in this Agreement means all confidential ...
    contract = parsed(SHARED_DATA / "cuad" / "pdf" / "EtonPharmaceuticalsInc_20191114_10_Q_EX_10_1_11893941_EX_10_1_Development_Agreement.pdf")
    defined = {d.term: d.ref for d in contract.graph.definitions}
    assert defined["Confidential Information"] == "9.2"
    users = {e.dst_ref for e in contract.edges("DEFINES") if e.label == "Confidential Information"}
    assert {"9.1", "1.10"} <= users  # the secrecy duty reaches its definition in one step


@needs_shared_data
def test_a_term_opening_with_a_small_letter_is_defined_and_its_chain_reaches_the_answer():
    # 2.4 "Current Good Manufacturing Practices" or "cGMP(s)" shall mean the standards required by
    # the Regulatory Authority ...: the warranty (5.2) promises cGMP, whose definition names the
    # authority whose standards count (2.12)
    contract = parsed(SHARED_DATA / "cuad" / "pdf" / FUSION)
    defined = {d.term: d.ref for d in contract.graph.definitions}
    assert defined["Current Good Manufacturing Practices"] == defined["cGMP"] == "2.4"
    assert defined["Regulatory Authority"] == "2.12"
    defines = {(e.src_ref, e.label, e.dst_ref) for e in contract.edges("DEFINES")}
    assert ("2.4", "cGMP", "5.2") in defines
    assert ("2.12", "Regulatory Authority", "2.4") in defines


@needs_shared_data
def test_a_cuad_glossary_of_unquoted_terms_defines_each_and_reaches_its_users():
    # Coherus's definitions are set in bold with no quotes: "1.23 Field means any human use ..."
    contract = parsed(SHARED_DATA / "cuad" / "pdf" / "CoherusBiosciencesInc_20200227_10_K_EX_10_29_12021376_EX_10_29_Development_Agreement.pdf")
    defined = {d.term: d.ref for d in contract.graph.definitions}
    assert defined["Field"] == "1.23" and defined["Territory"] == "1.69" and defined["Competitor"] == "1.12"
    assert defined["Biologics License Application"] == defined["BLA"] == "1.5"
    assert defined["Damages"] == "9.4.3"  # "1.16 Damages shall have the meaning ascribed to it in Section 9.4.3."
    # "1.20 Effective Date shall have the meaning ascribed to it in the introductory paragraph above": the opening paragraph defines it
    assert defined["Effective Date"] == "LICENSE AND DEVELOPMENT AGREEMENT"
    users = {e.dst_ref for e in contract.edges("DEFINES") if e.label == "Territory"}
    assert "2.1.1" in users  # the licence grant: "... Commercialize the Licensed Products in the Field in the Territory"


@needs_shared_data
def test_a_glossary_set_out_with_colons_or_is_reaches_the_clauses_using_its_terms():
    # Teleglobe's APCN 2 agreement, 1.1: "(a) Affiliate: A company is the Affiliate of another if
    # ...", "(e) Carrier: Any entity authorized ..."; 12.14 lets a Party transfer capacity to "its
    # Affiliate" provided "the recipient ... is a Carrier": both definitions are one hop from it
    teleglobe = parsed(SHARED_DATA / "cuad" / "pdf" / "TELEGLOBEINTERNATIONALHOLDINGSLTD_03_29_2004_EX_10_10_CONSTRUCTION_AND_MAINTENANCE_AGREEME.pdf")
    defined = {d.term: d.ref for d in teleglobe.graph.definitions}
    assert defined["Affiliate"] == "1.1(a)" and defined["Carrier"] == "1.1(e)" and defined["Branching Unit"] == "1.1(b)"
    defines = {(e.src_ref, e.label, e.dst_ref) for e in teleglobe.edges("DEFINES")}
    assert {("1.1(a)", "Affiliate", "12.14"), ("1.1(e)", "Carrier", "12.14")} <= defines
    # Igene's joint venture, 1.5: '"COMMENCEMENT DATE" is the first business day after ...', which
    # the buy-out price of 22.2 counts from
    igene = parsed(SHARED_DATA / "cuad" / "pdf" / "IGENEBIOTECHNOLOGYINC_05_13_2003_EX_1_JOINT_VENTURE_AGREEMENT.pdf")
    assert {d.term: d.ref for d in igene.graph.definitions}["Commencement Date"] == "1.5"
    assert ("1.5", "Commencement Date", "22.2") in {(e.src_ref, e.label, e.dst_ref) for e in igene.edges("DEFINES")}


@needs_shared_data
def test_a_glossary_set_out_with_dashes_defines_each_term():
    # Cardlytics' maintenance agreement, Article 1: "1.19 Error - an instance of failure of
    # Software to be Operative ...", "1.29 Operative - conforming in all material respects ...":
    # none of its 45 terms was read before; the definition of Error now reaches Operative's
    contract = parsed(SHARED_DATA / "cuad" / "pdf" / "CardlyticsInc_20180112_S_1_EX_10_16_11002987_EX_10_16_Maintenance_Agreement1.pdf")
    defined = {d.term: d.ref for d in contract.graph.definitions}
    assert defined["Affiliate"] == "1.4" and defined["Business Day"] == "1.9" and defined["Error"] == "1.19" and defined["Operative"] == "1.29"
    defines = {(e.src_ref, e.label, e.dst_ref) for e in contract.edges("DEFINES")}
    assert ("1.29", "Operative", "1.19") in defines and ("1.9", "Business Day", "7.2") in defines


def test_term_matching_is_whole_word_capitalised_and_allows_plurals():
    matcher = TermMatcher(["Party", "Confidential Information", "Affiliate"])
    assert matcher.terms_in("each of the Parties and its Affiliates' Confidential Information") == [
        "Party", "Affiliate", "Confidential Information",
    ]
    assert matcher.terms_in("a third party, confidential information, Partyline, affiliated") == []
    # a disclaimer in capitals uses the terms; a short term in capitals may be another word
    capitals = TermMatcher(["Services Standard", "Party", "IP", "Use"])
    assert capitals.terms_in("SOLE REMEDY FOR BREACH OF THE SERVICES STANDARD. NEITHER PARTY NOR THE PARTIES") == ["Services Standard", "Party"]
    assert capitals.terms_in("ANY USE OF THE IP") == ["IP"]


@needs_shared_data
def test_a_disclaimer_written_in_capitals_uses_the_terms_it_names():
    contract = parsed(SHARED_DATA / "cuad" / "pdf" / "AimmuneTherapeuticsInc_20200205_8_K_EX_10_3_11967170_EX_10_3_Development_Agreement.pdf")
    users = {e.dst_ref for e in contract.edges("DEFINES") if e.label == "Third Party"}
    assert "10.5" in users  # "... NON-MISAPPROPRIATION OF THIRD PARTY INTELLECTUAL PROPERTY RIGHTS, ARE MADE ..."


def test_the_longest_term_is_matched_first_whatever_the_run():
    # "Holding Company"'s pattern also allows "Companies", as long as "Holding Company Application"'s:
    # ordered by pattern length the two tied, and the hash order of a set picked one per process
    matcher = TermMatcher(["Holding Company", "Applications", "Holding Company Application"])
    text = "The Holding Company has filed the Holding Company Application with the FRB"
    assert matcher.terms_in(text) == ["Holding Company", "Holding Company Application"]
