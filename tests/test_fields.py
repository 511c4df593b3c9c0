"""Contract fields read from real contracts: the governing law with its clause and words, and
which kinds of clause a contract has."""

from __future__ import annotations

import pytest

from engine.fields import extract_fields
from engine.fields.extract import chooses_a_law
from engine.fields.jurisdiction import jurisdiction_in, jurisdiction_key
from engine.fields.presence import MIN_RELIABLE_CONTRACTS, MIN_RELIABLE_F1, clause_scores, contract_sentences, presence_model
from engine.fields.sentences import split_sentences
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA, SHARED_DATA, needs_shared_data, parsed


@pytest.mark.parametrize(
    ("sentence", "jurisdiction"),
    [
        ("This Agreement shall be governed by the laws of the State of New\nYork, without regard to conflicts of law", "New York"),
        ("governed by and construed in accordance with the laws and decisions of the State of Michigan", "Michigan"),
        ("the laws in force in the Province of Ontario (excluding any conflict of laws rule", "Ontario, Canada"),
        ("accepted by Company in the State of Nevada and shall be governed by and construed in accordance with the laws thereof", "Nevada"),
        ("governed by the laws of the United States of America and of the State of Texas", "Texas"),
        ("shall be governed by PRC Laws", "People's Republic of China"),
        ("is governed by and construed in accordance with English law", "England and Wales"),
        ("governed by the laws of England and Wales", "England and Wales"),
        ("It will be governed by the law of the People\u2019s Republic of China", "People's Republic of China"),
        ("This agreement will be construed in accordance with the laws of Papua New Guinea", "Papua New Guinea"),
        ("Any such arbitration shall be subject to the application of the Italian Law", "Italy"),
        ("governed by the laws of the state where a suit is properly filed, being either Illinois or New York", "Illinois"),
        ("The parties agree to meet in Paris twice a year", None),
    ],
)
def test_the_jurisdiction_a_governing_law_sentence_chooses(sentence, jurisdiction):
    assert jurisdiction_in(sentence) == jurisdiction


@needs_shared_data
def test_the_governing_law_is_read_where_the_agreement_is_made_subject_to_a_states_laws():
    contract = SHARED_DATA / "cuad" / "pdf" / "MEDIWOUNDLTD_01_15_2014_EX_10_6_SUPPLY_AGREEMENT.pdf"
    law = extract_fields("doc", parsed(contract).graph.clauses).governing_law
    assert (law.value, law.ref) == ("New York", "15.1")
    assert " ".join(law.quote.split()).startswith("This Agreement is made under and subject to the provision of the substantive laws of the State of New York")


@pytest.mark.parametrize(
    "sentence, chooses",
    [  # Dova and Coherus withhold the place, Buffalo Wild Wings names none: each still chooses a law
        ("This Agreement and any and all matters arising directly or indirectly herefrom shall be governed by and construed and enforced in accordance with the laws of [* * *]", True),
        ("This Agreement shall be governed by and construed in accordance with the laws of [***], without regard to the conflicts of law principles thereof", True),
        ("THIS AGREEMENT ... SHALL BE INTERPRETED AND CONSTRUED UNDER THE LAWS OF THE STATE IN WHICH THE FRANCHISED RESTAURANT IS LOCATED", True),
        # FUSION's clause 14, typed governing law by its heading, chooses none
        ("Each Party agrees to comply with all applicable international, federal, state and local laws, rules and regulations, including, but not limited to, "
         "import/export restrictions, laws, rules and regulations governing use and patent, copyright and trade secret protection", False),
        ("Licensee, a corporation organized and existing under the laws of the State of Delaware", False),
    ],
)
def test_a_sentence_choosing_a_law_is_told_even_when_the_place_cannot_be_read(sentence, chooses):
    assert chooses_a_law(sentence) is chooses


def test_jurisdictions_compare_by_name_whatever_the_prefix():
    assert jurisdiction_key("Province of Ontario, Canada") == jurisdiction_key("Ontario, Canada") == "ontario"
    assert jurisdiction_key("Federal Republic of Germany") == "germany"
    assert jurisdiction_key("England; Wales") == jurisdiction_key("England") == "england"
    assert jurisdiction_key("PRC") == jurisdiction_key("People\u2019s Republic of China") == "people's republic of china"
    assert jurisdiction_key("Republic of Korea") == jurisdiction_key("South Korea") == "south korea"


def fields_of(library, path):
    document = library.find(path.name)
    return extract_fields(document.doc_id, library.graph(document.doc_id).clauses, document.title)


def test_the_governing_law_keeps_its_clause_page_and_words(sample_library):
    law = fields_of(sample_library, MUTUAL_NDA).governing_law
    assert (law.value, law.ref, law.page) == ("England and Wales", "10", 2)
    assert law.quote == "This Agreement is governed by, and is to be construed in accordance with, English law."
    assert fields_of(sample_library, GCLOUD).governing_law.value == "England and Wales"
    assert fields_of(sample_library, GCLOUD).governing_law.ref == "8.7"


def test_the_stored_fields_of_some_contracts_are_read_alone(sample_library):
    from engine.fields import EXTRACTOR_VERSION

    gcloud = sample_library.find(GCLOUD.name).doc_id
    sample_library.contract_fields()  # every contract's row is written at the current version
    stored = sample_library.store.fields([gcloud])
    assert list(stored) == [gcloud]
    version, fields = stored[gcloud]
    assert (version, fields.governing_law.value) == (EXTRACTOR_VERSION, "England and Wales")
    assert len(sample_library.store.fields()) == 3


def test_presence_flags_point_at_the_clauses_that_show_them(sample_library):
    fields = fields_of(sample_library, GCLOUD)
    refs = {category: [c.split(":", 1)[1] for c in p.clause_ids] for category, p in fields.presence.items() if p.present}
    assert refs["Insurance"][0] == "8.32"  # "The Supplier will have employer’s liability insurance of at least £5,000,000"
    assert "4.6.1" in refs["Cap On Liability"]
    evidence = fields.presence["Insurance"].evidence[0]
    assert evidence.ref == "8.32" and "insurance" in evidence.quote.lower()
    assert not fields_of(sample_library, MUTUAL_NDA).presence["Insurance"].present


def test_a_benchmarks_held_out_presence_model_reads_the_flags_again(sample_library, tmp_path):
    """`engine eval --presence-model` lists contracts by that model's flags, not the stored ones."""
    import numpy as np

    from engine.fields.presence import MODEL_FILE, use_presence_model
    from engine.fields.stored import FieldsReadNow

    stored = np.load(MODEL_FILE)
    thresholds = stored["thresholds"].copy()
    thresholds[[str(c) for c in stored["categories"]].index("Insurance")] = 2.0  # a model that never finds insurance
    never_insured = tmp_path / "never_insured.npz"
    np.savez(never_insured, **{**{key: stored[key] for key in stored.files}, "thresholds": thresholds})
    gcloud = sample_library.find(GCLOUD.name).doc_id
    try:
        use_presence_model(never_insured)
        read_now = FieldsReadNow(sample_library.graph).of([gcloud])[0]
        assert not read_now.presence["Insurance"].present
        assert read_now.presence["Cap On Liability"].present and read_now.governing_law.value == "England and Wales"
        assert sample_library.contract_fields([gcloud])[0].presence["Insurance"].present  # the store keeps its own
    finally:
        use_presence_model(MODEL_FILE)


def test_each_contract_is_read_by_its_own_fold_model_and_the_model_in_use_stays(sample_library, tmp_path):
    """`engine eval --presence-folds`: a contract's flags come from the fold model that never
    read it; the others, and every later score, from the model in use."""
    import numpy as np

    from engine.fields import presence
    from engine.fields.stored import FieldsReadNow

    stored = np.load(presence.MODEL_FILE)
    thresholds = stored["thresholds"].copy()
    thresholds[[str(c) for c in stored["categories"]].index("Insurance")] = 2.0
    never_insured = tmp_path / "fold0.npz"
    np.savez(never_insured, **{**{key: stored[key] for key in stored.files}, "thresholds": thresholds})
    gcloud, nda = sample_library.find(GCLOUD.name).doc_id, sample_library.find(MUTUAL_NDA.name).doc_id
    read_now = FieldsReadNow(sample_library.graph, {gcloud: never_insured}.get)
    assert not read_now.of([gcloud])[0].presence["Insurance"].present  # G-Cloud's 8.32 flags it with the shipped model
    assert read_now.of([gcloud, nda])[1].governing_law == sample_library.contract_fields([nda])[0].governing_law
    assert presence.presence_model().thresholds["Insurance"] < 1.0  # the model in use is the shipped one again


def test_a_sentence_is_read_with_its_clause(gcloud):
    """G-Cloud's clause 7.10 promises "reasonable endeavours to provide information": an audit
    right only because clause 7 is about audits. Read alone, the sentence stays under the bar."""
    model = presence_model()
    sentences = [s for s in contract_sentences(split_sentences(gcloud.graph.clauses)) if s.span[0].ref == "7.10"]
    audit = model.categories.index("Audit Rights")
    with_clause = model.scores(sentences)[:, audit].max()
    alone = model.scores([s._replace(context="") for s in sentences])[:, audit].max()
    assert alone < model.thresholds["Audit Rights"] <= with_clause
    refs = [c.split(":", 1)[1] for c in extract_fields("g", gcloud.graph.clauses).presence["Audit Rights"].clause_ids]
    # and the section's own line, "Section 7 - Transparency and access to records", since the
    # model was retrained on the current parse (stop 66)
    assert sorted(refs) == ["7", "7.10", "7.11", "7.3", "7.4", "7.8", "7.9"]


def test_each_clause_is_scored_by_its_best_sentence_for_every_category(gcloud):
    """What the search's category arm reads: G-Cloud's insurance clause is 8.32, and a clause's
    score is its best sentence's (7.10's audit sentence, read with its clause)."""
    model = presence_model()
    clauses = gcloud.graph.clauses
    table = clause_scores(clauses)
    assert table.shape == (len(clauses), len(model.categories))
    insurance = table[:, model.categories.index("Insurance")]
    assert clauses[int(insurance.argmax())].ref == "8.32" and insurance.max() >= model.thresholds["Insurance"]
    audit = model.categories.index("Audit Rights")
    row = next(i for i, c in enumerate(clauses) if c.ref == "7.10")
    sentences = [s for s in contract_sentences(split_sentences(clauses)) if s.span[0].ref == "7.10"]
    assert table[row, audit] == pytest.approx(model.scores(sentences)[:, audit].max(), abs=1e-6)


def test_an_ndas_usual_terms_are_scored_by_clause_but_are_never_a_contracts_flags(highways):
    """ContractNLI's terms, learnt from its dev NDAs: the Highways England NDA lets its people
    see the information in 3.1, must tell of a compelled disclosure in 3.2 and limits its use
    in 2.1.5; it says nothing of reverse engineering. The fields report CUAD's categories only."""
    model = presence_model()
    clauses = highways.graph.clauses
    table = clause_scores(clauses)

    def best(term: str) -> tuple[str, bool]:
        column = table[:, model.categories.index(f"NDA: {term}")]
        return clauses[int(column.argmax())].ref, bool(column.max() >= model.thresholds[f"NDA: {term}"])

    assert best("Sharing with employees") == ("3.1", True)
    assert best("Notice on compelled disclosure") == ("3.2", True)
    assert best("Limited use") == ("2.1.5", True)
    assert best("No reverse engineering")[1] is False
    presence = extract_fields("h", clauses).presence
    assert "Insurance" in presence and not any(category.startswith("NDA: ") for category in presence)
    assert not any(category.startswith("NDA: ") for category in model.reliable)


def test_only_categories_found_well_in_enough_dev_contracts_are_flagged():
    model = presence_model()
    # Source Code Escrow was found well (cross-validated F1 0.96) but in 12 dev contracts only
    assert model.cv_f1["Source Code Escrow"] >= MIN_RELIABLE_F1 and model.dev_contracts["Source Code Escrow"] == 12
    assert "Source Code Escrow" not in model.reliable
    assert len(model.reliable) >= 10
    assert all(model.cv_f1[c] >= MIN_RELIABLE_F1 and model.dev_contracts[c] >= MIN_RELIABLE_CONTRACTS for c in model.reliable)


def test_the_parties_are_read_from_the_words_that_introduce_them(sample_library):
    parties = fields_of(sample_library, HIGHWAYS_NDA).parties
    assert [(p.value, p.ref, p.page) for p in parties] == [
        ("HIGHWAYS ENGLAND COMPANY LIMITED", "Preamble", 1), ("[INSERT NAME OF CONTRACTOR]", "Preamble", 1),
    ]
    assert parties[0].quote.startswith("BETWEEN\nHIGHWAYS ENGLAND COMPANY LIMITED\nAND")


def test_the_kind_of_agreement_comes_from_its_title():
    from engine.fields.doctype import document_type

    assert document_type("TRADEMARK LICENSE AGREEMENT") == "License"
    assert document_type("e-business Hosting Agreement") == "Hosting"
    assert document_type("JOINT FILING AGREEMENT") == "Joint Filing"
    assert document_type("") == ""


@pytest.mark.parametrize(
    ("sentence", "ending"),
    [
        ("the term of this Agreement shall begin on the Effective Date and shall continue for a period of five (5) years", "five (5) years"),
        ("The term of this Agreement will begin upon acceptance and will end when terminated by either party.", "perpetual"),
        ("This Agreement shall remain in effect until December 31, 2014, unless terminated earlier.", "12/31/14"),
        ("The Term shall expire on 30 June 2010.", "6/30/10"),
        ("Each party shall keep the records for the term of the audit.", None),
    ],
)
def test_when_a_term_sentence_says_the_contract_ends(sentence, ending):
    from engine.fields.term import _ending

    assert _ending(sentence) == ending


def test_a_term_counted_from_the_contract_date_becomes_a_date():
    from datetime import date

    from engine.fields.term import _counted_from_start

    sentence = "the term shall continue for a period of five (5) years from the Effective Date"
    assert _counted_from_start(sentence, "five (5) years", date(2011, 3, 14)) == "3/14/16"
    assert _counted_from_start("shall continue for three years from the Launch Date", "three years", date(2011, 3, 14)) is None


def _contract(*paragraphs: tuple[str, str, int]) -> list:
    """Clauses (ref, text, page) in reading order, cut into sentences as the field readers see them."""
    from models.clause import Clause, ClauseKind

    clauses = [
        Clause(clause_id=f"d:{ref}", doc_id="d", ref=ref, path=ref, level=1, kind=ClauseKind.SECTION, order=order,
               text=text, page_start=page, page_end=page, char_start=0, char_end=len(text))
        for order, (ref, text, page) in enumerate(paragraphs)
    ]
    return split_sentences(clauses)


def test_the_agreement_date_is_the_openings_not_a_recited_agreements():
    from engine.fields.dates import agreement_date, effective_date

    sentences = _contract(
        ("Preamble", "WHEREAS, the parties entered into a Supply Agreement dated May 8, 2008.", 1),
        ("Opening", "This Amendment is made as of the 14th day of March, 2011 between Acme and Beta.", 1),
        ("2.1", "This Amendment shall be effective as of April 1, 2011 (the \u201cEffective Date\u201d).", 3),
    )
    (clause, _, _), made = agreement_date(sentences)
    assert (clause.ref, made.isoformat()) == ("Opening", "2011-03-14")
    (clause, _, _), effective = effective_date(sentences)
    assert (clause.ref, effective.isoformat()) == ("2.1", "2011-04-01")


@pytest.mark.parametrize(
    ("sentence", "renewal"),
    [
        ("This Agreement shall automatically renew for successive one (1) year terms unless either party gives 90 days notice.", "successive 1 year"),
        ("The Services Term shall be automatically renewed for successive two-year terms unless written notice is given.", "successive 2 year"),
        ("This agreement shall automatically renew for additional successive terms of twelve (12) months each.", "successive 1 year"),
        ("This Agreement will automatically renew on a year to year basis, unless either Party notifies the other 30 days before.", "1 year"),
        ("The Initial Term may be extended by a further period of six (6) months by mutual agreement.", "6 month"),
        ("Either party may terminate this Agreement on 30 days notice.", None),
    ],
)
def test_how_long_each_renewal_runs(sentence, renewal):
    from engine.fields.term import renewal_in

    found = renewal_in(_contract(("3.2", sentence, 2)))
    assert (found[3] if found else None) == renewal


@needs_shared_data
def test_the_dates_and_renewal_of_a_cuad_contract_match_the_lawyers_labels():
    contract = SHARED_DATA / "cuad" / "pdf" / "EdietsComInc_20001030_10QSB_EX_10_4_2606646_EX_10_4_Co_Branding_Agreement.pdf"
    fields = extract_fields("doc", parsed(contract).graph.clauses)
    assert (fields.agreement_date.value, fields.agreement_date.ref, fields.agreement_date.page) == ("5/22/00", "Preamble", 1)
    assert fields.effective_date.value == "5/22/00"  # "made as of May 22, 2000 (the "Effective Date")"
    assert (fields.expiration.value, fields.expiration.ref) == ("5/22/02", "10.1")  # two years from the Effective Date
    assert (fields.renewal_term.value, fields.renewal_term.ref) == ("successive 1 year", "10.1")
    assert " ".join(fields.renewal_term.quote.split()).startswith("This agreement shall automatically renew for additional successive terms of twelve (12) months")


@needs_shared_data
@pytest.mark.parametrize(
    ("contract", "page", "expected"),
    [
        # "P.R.C. (“Licensor”)": a stop inside an abbreviation, then a parenthesis, goes on with the name
        ("IdeanomicsInc_20151124_8_K_EX_10_2_9354744_EX_10_2_Content_License_Agreement", 1,
         ["Beijing Sun Seven Stars Culture Development Limited (“Licensor”)", "YOU ON DEMAND HOLDINGS (“Licensee”)"]),
        # "between professional golfer, TOM WATSON, (hereinafter ...)": the description before the name is passed
        ("ADAMSGOLFINC_03_21_2005_EX_10_17_ENDORSEMENT_AGREEMENT", 1, ["TOM WATSON (“CONSULTANT”)", "ADAMS GOLF"]),
        # "a company organized and existing under the laws of Israel (“MediWound”)": one party, not two
        ("MEDIWOUNDLTD_01_15_2014_EX_10_6_SUPPLY_AGREEMENT", 1, ["MediWound Ltd (“MediWound”)", "Challenge Bioproducts Corporation Ltd (“CBC”)"]),
        # "BETWEEN: MEDIALINX INTERACTIVE, L.P., ... (hereinafter called "MLX", or "Party") - and - HEALTHCENTRAL.COM INC."
        ("HealthcentralCom_19991108_S_1A_EX_10_27_6623292_EX_10_27_Co_Branding_Agreement", 1,
         ["MEDIALINX INTERACTIVE (“MLX”)", "HEALTHCENTRAL.COM INC (“HCI”)"]),
        # a cover page and a table of contents come first: the opening sentence is on page 3
        ("CoherusBiosciencesInc_20200227_10_K_EX_10_29_12021376_EX_10_29_Development_Agreement", 3, ["Bioeq IP AG", "Coherus BioSciences"]),
        # a form: "by and between: ● Goosehead Insurance Agency, LLC, ... (“we,” ...); and ● a [resident of] ...
        # (“you” or the “Franchisee”)": each party a bullet, the second's name a blank, known by its alias
        ("GOOSEHEADINSURANCE_INC_04_02_2018_EX_10_6_Franchise_Agreement", 3, ["Goosehead Insurance Agency (“we,”)", "Franchisee"]),
        # "... and _______________________________ (“Licensee”)": a blank line for the name
        ("XACCT_Technologies_Inc_SUPPORT_AND_MAINTENANCE_AGREEMENT", 1, ["XACCT Technologies (“XACCT”)", "Licensee"]),
    ],
)
def test_the_parties_of_cuad_contracts_are_read_past_abbreviations_descriptions_and_cover_pages(contract, page, expected):
    from engine.fields.parties import parties_in

    found = parties_in(parsed(SHARED_DATA / "cuad" / "pdf" / f"{contract}.pdf").graph.clauses)
    assert [party for *_, party in found] == expected
    assert {clause.page_start for clause, *_ in found} == {page}


def test_the_kind_of_agreement_is_a_family_never_leftover_title_words():
    from engine.fields.doctype import document_type

    assert document_type("TRADEMARK LICENSE AGREEMENT") == "License"
    assert document_type("NETWORK AFFLIATE AGREEMENT") == "Affiliate"  # misspelt in the filing
    assert document_type("NOVEMBER 1, 2002, RATE FT-A AGREEMENT", "This agreement for firm transportation service ...") == "Transportation"
    assert document_type("JIANGSU TELECOM AGREEMENT") == document_type("FORM OF") == ""  # a party's name is not a kind
    # ContractNLI's NDA 37: its title, without the hyphen, then a project named in the opening
    assert document_type("NON DISCLOSURE AGREEMENT", "PRICE BENCHMARKING SERVICES REFERENCE NUMBER RM 1160") == "Non-Disclosure"
