"""Clause segmentation and the clause tree, on real contracts and on edge cases."""

from __future__ import annotations

from engine.ingest.clauses import segment
from engine.ingest.pdf import read_pdf
from models.clause import ClauseKind
from tests.conftest import SHARED_DATA, needs_shared_data, parsed
from tests.pdfmaker import make_pdf


def test_gcloud_deeply_nested_clause_has_its_parent_chain(gcloud):
    assert gcloud.parent_chain("9.2.2.1") == ["9.2.2", "9.2", "9"]
    assert gcloud.clause("9.2.2.1").heading == "Framework Agreement section 2"
    assert gcloud.clause("9").heading == "Defined Terms" and gcloud.clause("9").level == 1
    assert gcloud.parent_chain("4.6.1") == ["4.6", "4"]
    assert gcloud.clause("4.6").heading == "Liability"
    assert gcloud.clause("1").heading == "The appointment"


def test_gcloud_table_of_contents_and_schedules(gcloud):
    contents = gcloud.clause("Contents")
    assert contents.kind is ClauseKind.TOC and contents.page_start == 2
    assert "Section 9 - Defined Terms" in contents.text
    # Entries of the contents never pose as clauses: "9" is the real Section 9 on page 26.
    assert gcloud.clause("9").page_start > 20
    for ref, heading in [("Schedule 1", "Self Audit Certificate"), ("Schedule 2", "MI reporting template")]:
        schedule = gcloud.clause(ref)
        assert schedule.kind is ClauseKind.SCHEDULE and schedule.heading == heading and schedule.parent_id is None
        assert schedule.page_start >= 30


def test_clauses_cover_the_document_in_order(gcloud, highways):
    for contract in (gcloud, highways):
        clauses = contract.graph.clauses
        assert clauses[0].char_start == 0
        for before, after in zip(clauses, clauses[1:]):
            assert before.char_end <= after.char_start
            assert contract.text.text[before.char_end : after.char_start].strip() == ""
        for clause in clauses:
            assert clause.text == contract.text.text[clause.char_start : clause.char_end]


def test_highways_nda_preamble_recitals_and_subclauses(highways):
    assert highways.clause("Preamble").text.startswith("NON-DISCLOSURE AGREEMENT")
    recitals = highways.clause("Recitals")
    assert recitals.kind is ClauseKind.RECITALS and "Permitted Purpose" in recitals.text
    assert highways.parent_chain("2.1.4") == ["2.1", "2"]
    assert highways.clause("2.1.4").text == "2.1.4 not transfer any of the Confidential Information outside the United Kingdom;"
    definition = highways.clause('1.1 "Confidential Information"')
    assert definition.kind is ClauseKind.DEFINITION and definition.parent_ref == "1.1"
    assert highways.parent_chain('1.1 "Confidential Information"(d)(iv)') == [
        '1.1 "Confidential Information"(d)', '1.1 "Confidential Information"', "1.1", "1",
    ]


def test_mutual_nda_lettered_exceptions_and_signature_block(mutual_nda):
    assert [c.path for c in mutual_nda.graph.clauses] == [
        "Preamble", "1", "2", "3", "4", "5", "5(a)", "5(b)", "6", "7", "8", "9", "10", "Signatures",
    ]
    assert mutual_nda.clause("5(b)").parent_ref == "5"
    assert mutual_nda.clause("Signatures").text.startswith("Signed [by [insert name]]")
    assert mutual_nda.clause("10").page_start == 2


def _outline(tmp_path, lines, pages=None):
    path = make_pdf(tmp_path / "c.pdf", pages or [lines])
    return {s.path: s for s in segment(read_pdf(path))}


def test_articles_sections_and_numbers_on_their_own_line(tmp_path):
    segments = _outline(
        tmp_path,
        [
            "MASTER SERVICES AGREEMENT",
            "ARTICLE I",
            "DEFINITIONS",
            "Section 1.01 Defined Terms. Capitalised terms have the meanings below.",
            "ARTICLE II",
            "TERM AND TERMINATION",
            "Section 2.01 Term. This Agreement runs for three years.",
            "Section 2.02 Termination. Either party may terminate:",
            ">(a) for material breach not cured within thirty days; or",
            ">(b) on insolvency of the other party, in which case",
            ">(i) notice is effective at once; and",
            ">(ii) Section 2.01 no longer applies.",
            "3.",
            "Governing Law",
            "This Agreement is governed by the laws of the State of New York.",
        ],
    )
    assert segments["Article I"].heading == "DEFINITIONS"
    assert segments["2.02"].parent.ref == "Article II"
    assert segments["2.02(b)(ii)"].parent.ref == "2.02(b)"
    assert segments["2.02(b)"].parent.ref == "2.02"
    assert segments["3"].heading == "Governing Law"
    assert segments["3"].parent is None


def test_wrapped_references_are_not_headings(tmp_path):
    wide = "The Distributor shall pay the fees described in this Agreement as set forth in Section"
    segments = _outline(
        tmp_path,
        [
            "1. Fees. The fees are payable monthly in arrears.",
            wide,
            "2.1 of the Price Schedule and no other amount shall be payable for any reason whatsoever at",
            "all under this Agreement.",
            "2. Term. Two years.",
        ],
    )
    assert list(segments) == ["1", "2"]


def test_letter_i_after_h_continues_the_letters(tmp_path):
    items = [f">({letter}) item {letter};" for letter in "abcdefghij"]
    segments = _outline(tmp_path, ["1. Services. The Supplier shall:"] + items)
    assert [s for s in segments if s.startswith("1(")] == [f"1({letter})" for letter in "abcdefghij"]


@needs_shared_data
def test_a_line_continuing_a_sentence_never_heads_the_next_clause():
    contract = parsed(SHARED_DATA / "cuad" / "pdf" / "RandWorldwideInc_20010402_8_KA_EX_10_2_2102464_EX_10_2_Co_Branding_Agreement.pdf")
    launch = contract.clause("1.18")
    assert launch.defines == ["Launch Date"]
    assert launch.text.endswith("of a\nDassault Systemes Customer for the Co-Branded Service.")
    assert contract.clause("1.19").text.startswith('1.19 "Marks" shall have the meaning')
    assert contract.clause("10.1").text.endswith("prior to the expiration of the then-current\nterm.")


def _schedules(contract) -> list[tuple[str, int]]:
    return [(c.path, c.page_start) for c in contract.graph.clauses if c.kind is ClauseKind.SCHEDULE]


@needs_shared_data
def test_the_last_entry_of_a_list_of_exhibits_is_not_an_exhibit():
    """Read as Exhibit L, the list's last line made the body from Article 2 on its content."""
    antares = parsed(SHARED_DATA / "cuad" / "pdf" / "Antares_Pharma_Inc_Manufacturing_Agreement.pdf")
    assert antares.clause("Article 2").parent_ref is None and antares.clause("Article 2").page_start == 10
    assert antares.parent_chain("2.1") == ["Article 2"]
    # "ARTICLE 10 (Confidentiality), ARTICLE 11 (...)", a list of references wrapped onto a new
    # line in 7.6(f), heads no Article 10, so Articles 8 and 9 keep their numbering
    articles = [c.path for c in antares.graph.clauses if c.kind is ClauseKind.ARTICLE]
    assert articles == [f"Article {n}" for n in range(1, 13)]
    assert antares.parent_chain("8.2(a)") == ["8.2", "Article 8"]
    assert _schedules(antares) == [(f"Exhibit {letter}", page) for letter, page in zip("ABCDEFGHIJKL", range(38, 50))]
    # the same over a page break, in plain type: "Schedule “B” ..." ends page 1, "Schedule “C” ..." opens page 2
    reseller = parsed(SHARED_DATA / "cuad" / "pdf" / "ASIANDRAGONGROUPINC_08_11_2005_EX_10_5_Reseller_Agreement.pdf")
    assert reseller.clause("2").parent_ref is None and reseller.clause("2").page_start == 2
    # each schedule's bold title stands at the end of the page before and again atop its own page
    assert _schedules(reseller) == [("Schedule A", 9), ("Schedule B", 16), ("Schedule C", 16)]
    # a list of one, introduced by "Schedules:", and the schedule itself after the signatures
    agency = parsed(SHARED_DATA / "cuad" / "pdf" / "OLDAPIWIND_DOWNLTD_01_08_2016_EX_1_3_AGENCY_AGREEMENT1.pdf")
    assert _schedules(agency) == [("Schedule A", 29)] and agency.clause("1").page_start == 2


@needs_shared_data
def test_a_bold_schedule_after_a_one_page_schedule_is_kept():
    fuse = parsed(SHARED_DATA / "cuad" / "pdf" / "FuseMedicalInc_20190321_10_K_EX_10_43_11575454_EX_10_43_Distributor_Agreement.pdf")
    assert ("Schedule 4", 19) in _schedules(fuse)  # "Schedule 3 The Trade Marks" fills page 18


@needs_shared_data
def test_the_word_schedule_in_a_table_heads_nothing():
    """'Payment / Schedule / Upon / Approval' are cells of a table on page 49, not a schedule's heading."""
    phasebio = parsed(
        SHARED_DATA / "cuad" / "pdf" / "PhasebioPharmaceuticalsInc_20200330_10_K_EX_10_21_12086810_EX_10_21_Development_Agreement.pdf"
    )
    assert _schedules(phasebio) == []
    assert phasebio.parent_chain("6.7.1") == ["6.7", "Article 6"]  # before, under "Schedule"


@needs_shared_data
def test_a_contents_entry_that_is_all_label_is_not_the_first_entry_again():
    """'ARTICLE 1' and 'ARTICLE 2' both read as 'article' once a page number was stripped, so the
    contents ended at its second entry and the rest posed as headings; the real Article 1,
    its number taken, then fell under them."""
    harpoon = parsed(
        SHARED_DATA / "cuad" / "pdf" / "HarpoonTherapeuticsInc_20200312_10_K_EX_10_18_12051356_EX_10_18_Development_Agreement_Opti.pdf"
    )
    contents = harpoon.clause("Contents")
    assert (contents.page_start, contents.page_end) == (2, 4)
    assert "Contents#2" not in harpoon.by_ref
    articles = [(c.path, c.page_start) for c in harpoon.graph.clauses if c.kind is ClauseKind.ARTICLE]
    assert articles[0] == ("Article 1", 5) and [a for a, _ in articles] == [f"Article {n}" for n in range(1, 14)]
    assert harpoon.parent_chain("1.10") == ["Article 1"]


def _top_sections(contract) -> list[tuple[str, int]]:
    return [(c.path, c.page_start) for c in contract.graph.clauses if c.parent_id is None and c.path[:1].isdigit()]


@needs_shared_data
def test_a_number_alone_on_its_line_heads_a_clause_only_over_its_title():
    """Page numbers left in the text's flow ('5', '7', '19') took the numbers of the real sections."""
    agency = parsed(SHARED_DATA / "cuad" / "pdf" / "BIOPURECORP_06_30_1999_EX_10_13_AGENCY_AGREEMENT.pdf")
    assert _top_sections(agency) == [("1", 1), ("2", 3), ("3", 4), ("4", 5), ("5", 6)]
    assert agency.clause("2").heading == "PRODUCTS PURCHASE AND SALE"
    co_branding = parsed(
        SHARED_DATA / "cuad" / "pdf" / "InvendaCorp_20000828_S_1A_EX_10_2_2588206_EX_10_2_Co_Branding_Agreement.pdf"
    )
    assert [ref for ref, _ in _top_sections(co_branding)] == [str(n) for n in range(1, 23)]
    assert co_branding.clause("17").heading == "POST-TERMINATION COMMUNICATIONS" and co_branding.clause("17").page_start == 12


@needs_shared_data
def test_articles_numbered_in_roman_with_no_word_article():
    """'I. APPOINTMENT AND FRANCHISE FEE' read as the letter I, so no article was placed and every
    'A.' and '1.' item fell under one section's lists ('7(A)#9')."""
    franchise = parsed(SHARED_DATA / "cuad" / "pdf" / "BUFFALOWILDWINGSINC_06_05_1998_EX_10_3_FRANCHISE_AGREEMENT.pdf")
    articles = [c for c in franchise.graph.clauses if c.kind is ClauseKind.ARTICLE]
    assert len(articles) == 27 and (articles[1].path, articles[1].heading, articles[1].page_start) == ("Article II", "TERM AND RENEWAL", 3)
    # the '1.' items start again under each lettered item: list items, not sections
    assert franchise.parent_chain("Article II(B)(7)") == ["Article II(B)", "Article II"]
    # a lettered item 'I.' inside an article stays the ninth letter
    assert franchise.clause("Article XII(I)").text.startswith("I. All inventory, products and materials")
    assert ("Article III(D)", "Article XII") in {(e.src_ref, e.dst_ref) for e in franchise.edges("REFERENCES") if e.label == "Paragraph XII"}
    distribution = parsed(SHARED_DATA / "cuad" / "pdf" / "HEMISPHERX_Sales_Marketing_Distribution_and_Supply_Agreement.pdf")
    # an article whose text starts on its number's line, in capitals
    assert distribution.clause("Article IX").text.startswith("IX. EXCEPT AS EXPRESSLY SET FORTH IN THIS SECTION IX")
    assert distribution.clause("Exhibit 4/1").kind is ClauseKind.SECTION  # a schedule keeps its own numbering


@needs_shared_data
def test_a_numbered_row_of_a_table_or_an_address_heads_nothing():
    """'17 Indiana 2334 Oakland Avenue ... 60,465', a row of a list of stores, took number 17
    after 'Section 15.'; '12 Floor,' in an address took 12, so the real 10 and 11 were refused."""
    agency = parsed(SHARED_DATA / "cuad" / "pdf" / "BONTONSTORESINC_04_20_2018_EX_99_3_AGENCY_AGREEMENT.pdf")
    assert [ref for ref, _ in _top_sections(agency)] == [str(n) for n in range(1, 16)]
    supply = parsed(SHARED_DATA / "cuad" / "pdf" / "MEDIWOUNDLTD_01_15_2014_EX_10_6_SUPPLY_AGREEMENT.pdf")
    assert _top_sections(supply)[-1] == ("15", 18) and supply.clause("15").heading == "Governing Law and Disputes"


@needs_shared_data
def test_a_long_title_in_capitals_after_a_number_heads_its_section():
    """'17 OPERATION AND MAINTENANCE COSTS OF SEGMENT S - ALLOCATION ...' is more than eight words,
    the limit for a number without a dot, but a title in capitals is a heading; 'T1 TO T7' in
    '18 USE OF SEGMENTS T1 TO T7; ...' are not the numbers of a table's row."""
    cable = parsed(
        SHARED_DATA / "cuad" / "pdf" / "STARTECGLOBALCOMMUNICATIONSCORP_11_16_1998_EX_10_30_CONSTRUCTION_AND_MAINTENANCE_AGREEMENT.pdf"
    )
    assert [(ref, page) for ref, page in _top_sections(cable) if ref in ("15", "16", "17", "18")] == [
        ("15", 15), ("16", 16), ("17", 18), ("18", 18),
    ]
    assert cable.clause("18").heading.startswith("USE OF SEGMENTS T1 TO T7")
    service = parsed(SHARED_DATA / "cuad" / "pdf" / "BICYCLETHERAPEUTICSPLC_03_10_2020_EX_10_11_SERVICE_AGREEMENT.pdf")
    assert [ref for ref, _ in _top_sections(service)] == [str(n) for n in range(1, 24)]


@needs_shared_data
def test_articles_numbered_in_roman_with_a_dash_hold_their_sections():
    """'I - DEFINITIONS', 'VII - TERM AND TERMINATION': no article was placed, and '7.1' after
    '5.4' skipped Article VI's number, so every section from 7.1 on was refused and Article VII's
    '(a)' to '(f)' hung under 5.4, where 'Article 7.4 (a), (b) ...' could not find them."""
    development = parsed(SHARED_DATA / "cuad" / "pdf" / "WARNERCHILCOTTPLC_12_31_2003_EX_4_36_DEVELOPMENT_AGREEMENT.pdf")
    articles = [c for c in development.graph.clauses if c.kind is ClauseKind.ARTICLE]
    assert [a.path for a in articles] == [f"Article {n}" for n in "I II III IV V VI VII VIII IX X XI XII XIII XIV".split()]
    assert (articles[6].heading, articles[6].page_start) == ("TERM AND TERMINATION - CONSEQUENCES OF TERMINATION", 4)
    assert development.parent_chain("7.4(b)") == ["7.4", "Article VII"]
    assert development.parent_chain("1.1") == ["Article I"]
    cited = {e.dst_ref for e in development.edges("REFERENCES") if e.label == "Article 7.4 (a), (b), (c), (e) and (f)"}
    assert cited == {"7.4(a)", "7.4(b)", "7.4(c)", "7.4(e)"}  # (f) is the clause that cites them


@needs_shared_data
def test_contents_entries_ending_in_page_and_a_number_head_nothing():
    """'SECTION 8.0 PURCHASE OF ASSETS....... Page 11', a contents page mid-way down a text
    filing's page, took the numbers of the sections it lists, so the real 2.0 and 8.0 were
    refused and 8.0's items '(a)' to '(f)' hung under 6.3."""
    outsourcing = parsed(SHARED_DATA / "cuad" / "pdf" / "MANUFACTURERSSERVICESLTD_06_05_2000_EX_10_14_OUTSOURCING_AGREEMENT.pdf")
    assert (outsourcing.clause("8.0").heading, outsourcing.clause("8.0").page_start) == ("PURCHASE OF ASSETS", 7)
    assert [c.path for c in outsourcing.graph.clauses if outsourcing.parent_chain(c.path) == ["8.0"]] == [
        f"8.0({letter})" for letter in "abcdef"
    ]
    assert outsourcing.clause("1.0").text == "SECTION 1.0 DEFINITIONS" and outsourcing.parent_chain("1.21") == ["1.0"]
    # the contents left in the recitals' text names the sections, it does not refer to them
    assert "SECTION 16.0 GENERAL" in outsourcing.clause("Recitals(g)").text
    assert not [e for e in outsourcing.edges("REFERENCES") if e.src_ref == "Recitals(g)"]
    assert ("2.0", "8.0") in {(e.src_ref, e.dst_ref) for e in outsourcing.edges("REFERENCES") if e.label == "Section 8.0"}


@needs_shared_data
def test_one_page_schedules_in_a_row_are_not_a_list_of_schedules():
    """'Exhibit B: Purchase Order Form Example' and '[* * *]' fill page 31, 'Exhibit C - Vapotherm
    Tools' opens page 32: two schedule lines within two lines of each other had read as a list
    of the schedules, so B and C were refused. A bold heading whose neighbour is on the next
    page heads a schedule of one page."""
    supply = parsed(SHARED_DATA / "cuad" / "pdf" / "VAPOTHERM_INC_Manufacturing_and_Supply_Agreement.pdf")
    assert _schedules(supply) == [("Exhibit A-2", 30), ("Exhibit B", 31), ("Exhibit C", 32), ("Exhibit D", 33)]
    # a footer of several rows removed (test_pdf), 'EXHIBIT C' / '[***]' / 'EXHIBIT D' meet the same way
    collaboration = parsed(SHARED_DATA / "cuad" / "pdf" / "CARDAX_INC_08_19_2014_EX_10_1_COLLABORATION_AGREEMENT.pdf")
    assert _schedules(collaboration) == [("Exhibit A", 21), ("Exhibit B", 22), ("Exhibit C", 23), ("Exhibit D", 24)]


@needs_shared_data
def test_a_number_typed_with_a_space_before_its_dot_heads_its_section():
    """'2 . Broker Dealer represents and warrants ...': sections 2 to 30 were all text of 1."""
    marketing = parsed(SHARED_DATA / "cuad" / "pdf" / "Principal_Life_Insurance_Company_Broker_Dealer_Marketing_and_Servicing_Agreement.pdf")
    assert [ref for ref, _ in _top_sections(marketing)] == [str(n) for n in range(1, 31)]
    assert marketing.clause("2").text.startswith("2 . Broker Dealer represents and warrants") and marketing.clause("2").page_start == 2


@needs_shared_data
def test_numbered_recitals_leave_the_numbers_to_the_sections():
    """'WHEREAS / 1. Party A is a company ... 5. The Parties have entered into ...', then '1. Business
    Cooperation': the recitals took sections 1-5, and the real 1-5 were refused as numbers used."""
    cooperation = parsed(SHARED_DATA / "cuad" / "pdf" / "TUNIUCORP_03_06_2014_EX_10_COOPERATION_AGREEMENT.pdf")
    assert [ref for ref, _ in _top_sections(cooperation)] == [str(n) for n in range(1, 13)]
    assert (cooperation.clause("1").heading, cooperation.clause("1").page_start) == ("Business Cooperation", 2)
    assert cooperation.clause("Recitals(2)").text.startswith("2. Party B is a limited liability company")
    # under 'TABLE OF CONTENT' (singular) the contents, then seven numbered recitals
    hosting = parsed(SHARED_DATA / "cuad" / "pdf" / "PareteumCorp_20081001_8_K_EX_99_1_2654808_EX_99_1_Hosting_Agreement.pdf")
    assert hosting.clause("Contents").text.splitlines()[1] == "1. Definitions"
    assert [c.path for c in hosting.graph.clauses if hosting.parent_chain(c.path) == ["Recitals"]] == [f"Recitals({n})" for n in range(1, 8)]
    assert (hosting.clause("1").heading, hosting.clause("1").page_start) == ("DEFINITIONS", 4)
    # the new run's entries are titles, alone or before their text ('1. Compensation. Marketing ...')
    marketing = parsed(SHARED_DATA / "cuad" / "pdf" / "SteelVaultCorp_20081224_10_K_EX_10_16_3074935_EX_10_16_Affiliate_Agreement.pdf")
    assert [c.path for c in marketing.graph.clauses if marketing.parent_chain(c.path) == ["Recitals"]] == ["Recitals(1)", "Recitals(2)", "Recitals(3)"]
    assert [ref for ref, _ in _top_sections(marketing)] == [str(n) for n in range(1, 13)]


@needs_shared_data
def test_numbers_typed_with_spaces_and_annexures():
    """'2. 3. 8. 2. 1. is, or becomes, publicly available ...': a number typed with a space after
    each dot was read as section 2 with the rest as text, so 2.1 to 2.3.11.2 were all part of 2;
    'ANNEXURE 1' heads a schedule as 'Annex 1' does, and 'annexure 1 hereto' refers to it."""
    licence = parsed(SHARED_DATA / "cuad" / "pdf" / "TELKOMSALTD_01_30_2003_EX_10_LICENCE_AND_MAINTENANCE_AGREEMENT.pdf")
    assert licence.parent_chain("2.3.8.2.1") == ["2.3.8.2", "2.3.8", "2.3", "2"]
    assert licence.clause("2.3.8.2.1").page_start == 5
    assert _schedules(licence) == [("Annexure 1", 48), ("Annexure 2", 57), ("Annexure 3", 66)]
    assert ("1", "Annexure 1") in {(e.src_ref, e.dst_ref) for e in licence.edges("REFERENCES")}


@needs_shared_data
def test_sections_in_lettered_parts_and_references_to_them():
    """'2.C. TERRITORIAL RIGHTS.' read as section 2 again, a number already used, so none of the
    121 lettered parts of the franchise agreement opened a clause; 'Section 2.C.' now finds 2.C."""
    franchise = parsed(SHARED_DATA / "cuad" / "pdf" / "MRSFIELDSORIGINALCOOKIESINC_01_29_1998_EX_10_FRANCHISE_AGREEMENT.pdf")
    assert (franchise.clause("2.C").heading, franchise.clause("2.C").page_start) == ("TERRITORIAL RIGHTS", 7)
    assert franchise.parent_chain("7.B(2)") == ["7.B", "7"]
    cited = {(e.src_ref, e.dst_ref) for e in franchise.edges("REFERENCES")}
    assert ("2.D", "2.C") in cited and ("17.D", "17.C(2)") in cited  # "Section 17.C.(2) and 17.C.(8)"
