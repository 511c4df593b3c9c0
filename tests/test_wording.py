"""Questions in anyone's words (issue 16): the same answer whatever the wording, a search-box
query, and a "do any of these..." request over several contracts, on the sample contracts."""

from __future__ import annotations

import pytest

from engine.query.field_query import field_query
from engine.query.meaning import question_model
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA


@pytest.mark.parametrize("question", [
    "Which law governs this agreement?",
    "What law is this contract interpreted under?",
    "Under the laws of which country shall this instrument be construed?",
])
def test_three_wordings_of_one_question_cite_the_same_clause_first(sample_library, question):
    answer = sample_library.ask(question, [sample_library.find(HIGHWAYS_NDA.name).doc_id]).answer
    assert not answer.abstained
    first = answer.citations[0]
    assert (first.ref, first.page) == ("8.1", 7)
    assert first.quote.startswith("This Agreement shall be governed by, and construed in accordance with")


def test_a_scenario_in_the_users_own_words_is_answered_from_the_clause_it_describes(sample_library):
    """No "management information", no "MI Failure", no "terminate": the question describes
    what happens. The ranker, which also learns from questions asked in other words than the
    clauses' (bench/train_ranker.py's training phrasings), reads G-Cloud's MI Failure clause
    first; trained on cuad_dev's wording alone it put the definition of "Reporting Date" on top
    and the app said "Not found"."""
    answer = sample_library.ask("If we stop sending our monthly reports, what can CCS do to us?", [sample_library.find(GCLOUD.name).doc_id]).answer
    assert not answer.abstained
    first = answer.citations[0]
    assert (first.ref, first.page) == ("6.10", 13)
    assert first.quote.startswith("Following an MI Failure, CCS may issue reminders to the Supplier")


def test_a_keyword_only_query_is_understood_and_answered(sample_library):
    result = sample_library.ask("governing law", [sample_library.find(MUTUAL_NDA.name).doc_id])
    assert result.plan.categories[0].category == "Governing Law"
    assert not result.answer.abstained
    assert (result.answer.citations[0].ref, result.answer.citations[0].page) == ("10", 2)


def test_a_do_any_of_these_request_lists_the_contracts(sample_library):
    insured = sample_library.ask("Do any of these agreements require insurance cover?").enumeration
    assert [(d.file, d.citation.ref) for d in insured.documents] == [(GCLOUD.name, "8.32")]
    assert insured.searched == 3
    english = sample_library.ask("Which of these deals are interpreted under English law?").enumeration
    assert sorted(d.file for d in english.documents) == sorted([MUTUAL_NDA.name, HIGHWAYS_NDA.name, GCLOUD.name])


def test_the_question_model_reads_words_the_cue_tables_never_saw():
    """No "assign", no "govern", no "liability": the category comes from the meaning."""
    from engine.embed import Embedder

    embedder = Embedder()
    for question, category in [
        ("Can the contract be handed over to someone else without asking first?", "Anti-Assignment"),
        ("whcih state law aplies to this contract", "Governing Law"),
        ("Is there a ceiling on what either side can be made to pay if things go wrong?", "Cap On Liability"),
    ]:
        guesses = question_model().guess(question, embedder.encode_question(question))
        assert guesses[0].category == category, (question, guesses)


def test_a_request_over_many_contracts_is_recognised_by_its_form_and_its_topic_by_meaning():
    from models.plan import CategoryGuess

    meant = [CategoryGuess(category="Non-Compete", probability=0.7)]
    query = field_query("Do any of these contracts stop a party from going into a rival business?", ["Non-Compete"], meant, 0.3)
    assert query is not None and query.categories == ["Non-Compete"]
    assert field_query("Does this contract stop a party from going into a rival business?", ["Non-Compete"], meant, 0.3) is None
    law = [CategoryGuess(category="Governing Law", probability=0.8)]
    query = field_query("list the agreements that are subject to New York law", [], law, 0.3)
    assert query is not None and query.governing_law == "New York"


def test_a_search_box_query_naming_a_law_over_several_contracts_lists_those_under_it():
    from models.plan import CategoryGuess

    law = [CategoryGuess(category="Governing Law", probability=0.8)]
    query = field_query("New York governing law", [], law, 0.3, several=True)
    assert query is not None and query.governing_law == "New York"
    assert field_query("New York governing law", [], law, 0.3, several=False) is None  # one contract: search answers it
    assert field_query("governing law", [], law, 0.3, several=True) is None  # no law named: each contract's own answer


def test_a_question_naming_one_contract_by_its_title_is_answered_from_it_alone(sample_library):
    result = sample_library.ask("Which law governs the mutual non-disclosure agreement?")  # all three in scope
    assert result.per_contract is None and result.plan.categories[0].category == "Governing Law"
    assert result.answer.lead == "Governing law: England and Wales. Found in Section 10, page 2."
    assert result.answer.citations[0].file_name == MUTUAL_NDA.name
    assert result.answer.notes[-1] == "The question names one contract by its title, so it was answered from “Mutual Non-Disclosure Agreement”."
    # "the non-disclosure agreement" fits two titles: each contract answers for itself
    assert sample_library.ask("Which law governs the non-disclosure agreement?").per_contract is not None


def test_the_parties_names_are_read_as_roles():
    """A party's name is in every clause of its contract: the question is read and searched
    with the parties as roles, a place or a defined term that is not a party left as it is."""
    from engine.query.plan import without_parties

    parties = [{"national", "cinemedia", "ncm"}, {"digital", "cinema", "destinations", "network", "affiliate"}]
    assert without_parties("Can NCM hire Digital Cinema Destinations' staff?", parties) == "Can the party hire the other party's staff?"
    assert without_parties("Is the Network Affiliate allowed to assign?", parties) == "Is the party allowed to assign?"
    assert without_parties("NCM's liability cap?", parties) == "the party's liability cap?"
    assert without_parties("Is the contract governed by Delaware law?", parties) == "Is the contract governed by Delaware law?"
    assert without_parties("Does NCM Property include the Marks?", parties) == "Does NCM Property include the Marks?"
    assert without_parties("Can NCM assign?", []) == "Can NCM assign?"


def test_a_question_naming_the_parties_is_answered_as_if_it_named_roles(sample_library):
    question = "Can Crown Commercial Service audit the Supplier's records?"
    result = sample_library.ask(question, [sample_library.find(GCLOUD.name).doc_id])
    assert result.plan.question == question
    assert result.plan.read_as == "Can the party audit the other party's records?"
    assert result.plan.categories[0].category == "Audit Rights"
    stating = [c for c in result.answer.citations if c.number not in result.answer.more_evidence]
    assert stating[0].ref.startswith("7.") and stating[0].page in (14, 15)  # Section 7, "Transparency and access to records"
    assert any("audit" in c.quote.lower() for c in stating)


def test_the_definitions_an_answer_leans_on_are_folded_as_more_evidence(sample_library):
    answer = sample_library.ask("Can the customer audit the supplier?", [sample_library.find(GCLOUD.name).doc_id]).answer
    assert all(c.ref.startswith("7.") for c in answer.citations if c.number not in answer.more_evidence)  # access to records
    folded = answer.more_claims
    assert folded and all(c.text.startswith("The definition of “") for c in folded)
    assert answer.more_evidence == set(range(len(answer.stating_claims) + 1, len(answer.citations) + 1))  # numbered after the answer's own
    text = answer.text()
    assert text.index(answer.stating_claims[-1].text) < text.index("\nMore evidence:\n") < text.index(folded[0].text)


@pytest.mark.parametrize(("contract", "ref"), [(HIGHWAYS_NDA, "3.2"), (MUTUAL_NDA, "6")])
def test_an_nda_term_asked_in_other_words_is_found_and_one_the_nda_lacks_is_not(sample_library, contract, ref):
    """ContractNLI's terms by meaning: neither NDA says "compelled" or "court", yet the clause
    on disclosure required by law answers; neither speaks of reverse engineering, so "Not found"."""
    doc = [sample_library.find(contract.name).doc_id]
    told = sample_library.ask("Does the recipient have to tell the discloser before giving information to a court?", doc)
    assert told.plan.categories[0].category == "NDA: Notice on compelled disclosure"
    assert not told.answer.abstained and told.answer.citations[0].ref == ref
    assert sample_library.ask("Is the recipient barred from reverse engineering prototypes or samples?", doc).answer.abstained


@pytest.mark.parametrize(("question", "kind"), [
    ("Is the recipient barred from reverse engineering prototypes or samples?", "nda"),
    ("May the recipient share confidential information with its employees?", "nda"),
    ("Which law governs this agreement?", "contract"),
    ("Can the contract be assigned?", "contract"),
])
def test_an_nda_term_is_decided_against_a_threshold_of_its_own(sample_library, question, kind):
    """Whether a question asks for an NDA's term comes from the question model's guess, not its
    words. The shipped preset chooses each kind's threshold on its own questions, against its
    own targets (stop 66); without `nda_threshold` every question is decided against `threshold`."""
    from engine.answer import abstain

    evidence = _evidence(sample_library, question, MUTUAL_NDA)
    found = abstain.features(evidence)
    shipped = sample_library.settings.answer.abstain
    assert shipped.nda_threshold is not None and shipped.nda_threshold != shipped.threshold
    assert abstain.threshold(shipped, found, evidence.of_ndas) == (shipped.nda_threshold if kind == "nda" else shipped.threshold)
    assert abstain.threshold(shipped.model_copy(update={"nda_threshold": None}), found, evidence.of_ndas) == shipped.threshold


def test_an_nda_term_asked_of_a_commercial_contract_is_decided_against_the_contract_threshold(sample_library):
    """The NDA threshold was chosen on NDAs alone. G-Cloud's framework agreement lets each
    party's confidential information go to its professional advisers; asked of it, an NDA
    term's question is weighed against the contract threshold and answered (stop 66: against
    the NDA one it was refused)."""
    from engine.answer import abstain

    evidence = _evidence(sample_library, "can we tell our lawyers about the confidential stuff?", GCLOUD)
    found = abstain.features(evidence)
    shipped = sample_library.settings.answer.abstain
    assert found["nda_term"] >= abstain.NDA_KIND and not evidence.of_ndas
    assert abstain.threshold(shipped, found, evidence.of_ndas) == shipped.threshold < shipped.nda_threshold
    assert abstain.decide(evidence) == (False, pytest.approx(abstain.support(shipped, found)))
    assert abstain.support(shipped, found) < shipped.nda_threshold


@pytest.mark.parametrize(("contracts", "question", "term", "stated"), [
    ([HIGHWAYS_NDA, MUTUAL_NDA], "Is the recipient barred from reverse engineering prototypes or samples?", "NDA: No reverse engineering", 0.0),
    ([HIGHWAYS_NDA, MUTUAL_NDA], "Does the recipient have to tell the discloser before giving information to a court?",
     "NDA: Notice on compelled disclosure", 1.0),
    ([HIGHWAYS_NDA, MUTUAL_NDA, GCLOUD], "Which law governs this agreement?", "Governing Law", 0.5),
    ([GCLOUD], "How long do the confidentiality obligations last?", "NDA: Survival of obligations", 0.5),
])
def test_the_abstain_decision_reads_whether_the_contract_states_the_term_at_all(sample_library, contracts, question, term, stated):
    """`category_in_scope` is the contract's presence flag for the guessed term, read over all
    its clauses: neither NDA speaks of reverse engineering, both of disclosure a court compels.
    No flag says for a governing law (no presence model knows it) or for an NDA's term asked of
    the G-Cloud framework, which is no NDA (those columns were learnt from NDAs alone): 0.5."""
    from engine.answer import abstain

    for contract in contracts:
        evidence = _evidence(sample_library, question, contract)
        assert [g.contract_type for g in evidence.graphs.values()] == ["Framework" if contract is GCLOUD else "Non-Disclosure"]
        assert evidence.retrieval.plan.categories[0].category == term and evidence.presence_flag(term) == stated
        assert abstain.features(evidence)["category_in_scope"] == pytest.approx(stated, abs=0.03)
        assert abstain.decide(evidence)[0] == (stated == 0.0)  # Not found for the term the NDA lacks, an answer otherwise


def _evidence(library, question: str, contract):
    """The evidence the abstain decision reads for `question` asked of one sample contract."""
    from engine.answer.evidence import Evidence
    from models.retrieval import Mode

    doc = [library.find(contract.name).doc_id]
    retrieval = library.engine.run(question, doc, mode=Mode.GRAPH, answer=False).retrieval
    return Evidence.gather(retrieval, library.scope(doc), library.settings.answer)
