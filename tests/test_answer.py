"""Answers on the sample contracts: extractive, and through Ollama's API (an in-test server)."""

from __future__ import annotations

import json

import pytest

from engine.answer.answerer import REDACTION, excerpt
from engine.answer.lists import list_end
from engine.pipeline import ClausegraphQueryEngine
from engine.llm import Backend, LLMSpec
from engine.text.normalise import normalise
from models.answer import BackendKind
from tests.conftest import FUSION, GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA, SHARED_DATA, needs_shared_data, parsed
from tests.ollama_server import FakeOllama, answers, claim, passage_number

LAW_QUESTION = "Which law governs this agreement?"
LAW_QUOTE = "This Agreement shall be governed by, and construed in accordance with, English law"


@pytest.fixture(scope="module")
def ask(sample_library):
    """The app's question pipeline, returning the Answer."""
    return lambda question, doc_ids, **kwargs: sample_library.ask(question, doc_ids, **kwargs).answer


@pytest.fixture(scope="module")
def doc(sample_library):
    return lambda path: sample_library.find(path.name).doc_id


@pytest.fixture
def with_model(sample_library):
    """The sample library answering through an Ollama model at a URL; no model again afterwards."""

    def attach(url: str, timeout: float = 10):
        sample_library.use_llm(LLMSpec(backend=Backend.OLLAMA, model="tiny:latest", url=url, timeout=timeout))

    yield attach
    sample_library.use_llm(LLMSpec())


# ------------------------------------------------------------------ extractive


def test_extractive_answer_cites_the_governing_law_clause(ask, doc):
    answer = ask(LAW_QUESTION, [doc(HIGHWAYS_NDA)])
    assert answer.backend is BackendKind.EXTRACTIVE and not answer.abstained
    first = answer.citations[0]
    assert (first.ref, first.page, first.number) == ("8.1", 7, 1)
    assert first.quote.startswith(LAW_QUOTE[:40]) and "English law" in first.quote
    assert answer.lead == "Governing law: England and Wales. Found in Section 8.1, page 7."  # the field first, in one line
    assert answer.claims[0].citations == [1] and first.quote in answer.claims[0].text


def test_extractive_answer_brings_the_definitions_and_sections_the_clause_relies_on(ask, doc):
    answer = ask("When can CCS terminate for a Supplier Insolvency Event?", [doc(GCLOUD)])
    cited = {c.ref: normalise(c.quote) for c in answer.citations}
    stating = [claim.citations[0] for claim in answer.claims if not claim.more]
    # 5.1 states it; the first quote is 5.3, CCS's right to terminate without cause, since the
    # first-quote model (engine/answer/lead.py) reads "terminate" as termination for convenience
    assert "5.1" in [answer.citations[n - 1].ref for n in stating] and "if a supplier insolvency event occurs" in cited["5.1"]
    assert cited['9.1 "Supplier Insolvency Event"'].startswith("supplier insolvency event means the supplier is unable to pay debts")
    # 5.1 uses "MI Failure", defined in 6.9, and cites 2.8 ("if the Supplier has breached clause
    # 2.8", on describing Additional Services): the answer quotes both. ("Call-Off Contract", which
    # 61 clauses use, is a candidate by `retrieval.definitions_used`; the ranking refitted in stop
    # 50 places its definition past the context.)
    assert "6.9" in cited and cited["2.8"] == "a description for additional services must be included by the supplier and it must be g cloud service related"
    assert "the definition of “MI Failure”" in answer.lead and "Clause 2.8, which it refers to" in answer.lead


def test_the_top_clauses_speak_in_the_retrievers_order_with_the_exceptions_they_cite(ask, doc):
    answer = ask("What is the liability cap of each party?", [doc(GCLOUD)])
    refs = [c.ref for c in answer.citations]
    cap = answer.citations[refs.index("4.6.1")]
    assert refs.index("4.6.1") < 2 and "limited to 125 of the management charge" in normalise(cap.quote)
    assert "4.6.4" in refs[:3]  # the exclusion of indirect loss, "subject to Clause 4.6.3"
    assert "4.6.3" in refs  # the carve-outs 4.6.4 refers to: death, fraud and the like are never limited
    assert "8.32" not in refs  # employer's liability insurance shares a word with the question, not its meaning
    cited = answer.citations[refs.index("4.6.2")]
    assert normalise(cited.quote).endswith("will be unlimited") and "clause 4.6.2, which it refers to" in answer.lead


def test_a_clause_qualifying_the_ones_the_search_found_may_state_the_answer(ask, doc):
    """Clause 9 says nothing of confidentiality in words: "The undertakings in clauses 3 and 4
    will continue in force...". The walk reaches it because it cites clause 4, the search's
    best hit, and it is what answers how long those undertakings last."""
    answer = ask("How long do the confidentiality obligations last?", [doc(MUTUAL_NDA)])
    assert not answer.abstained
    assert (answer.citations[0].ref, answer.citations[0].page) == ("9", 2)
    assert normalise(answer.citations[0].quote).startswith("the undertakings in clauses 3 and 4 will continue in force")
    assert [c.ref for c in answer.citations[1:3]] == ["3", "4"] and answer.more_evidence == {2, 3}  # what it qualifies, folded
    assert "with Section 3, which it refers to; Section 4, which it refers to" in answer.lead


def test_an_effective_date_question_quotes_the_opening_and_the_clause_that_sets_it(ask, doc):
    answer = ask("When does this agreement become effective?", [doc(HIGHWAYS_NDA)])
    assert not answer.abstained
    assert (answer.citations[0].ref, answer.citations[0].page) == ("Preamble", 1)
    assert "this agreement is made on date between" in normalise(answer.citations[0].quote)
    counterparts = next(c for c in answer.citations if c.ref == "6.7")
    assert counterparts.page == 7 and "shall not be effective until each party has executed" in normalise(counterparts.quote)


def test_a_quote_that_opens_a_list_is_followed_by_its_items(ask, doc):
    """3.1 says who may be told ("... and auditors ... who:"); the conditions are its parts
    3.1.1 and 3.1.2, and 3.1.2's own (a) and (b). Without them the quote answers nothing."""
    answer = ask("can we tell our lawyers about the confidential stuff?", [doc(HIGHWAYS_NDA)])
    first = answer.claims[0]
    cited = [answer.citations[number - 1] for number in first.citations]
    assert [c.ref for c in cited] == ["3.1", "3.1.1", "3.1.2", "3.1.2(a)", "3.1.2(b)"]
    assert cited[0].quote.endswith("who:") and cited[1].quote.startswith("3.1.1 reasonably need to receive")
    assert [c.page for c in cited] == [4, 4, 4, 4, 5] and not first.more
    assert all(c.quote in first.text for c in cited)
    # the items are parts of the clause quoted, not other places the answer was found
    assert answer.lead.startswith("Found in Section 3.1, page 4 and 1 other clause,")
    # nor quoted twice: 3.1.2(b)'s sentence, which the rules also choose as a quote, lies inside the item
    assert [c.ref for c in answer.citations].count("3.1.2(b)") == 1


DIGITAL_CINEMA = "DigitalCinemaDestinationsCorp_20111220_S_1_EX_10_10_7346719_EX_10_10_Affiliate_Agreement.pdf"


@needs_shared_data
def test_a_quote_that_opens_a_list_takes_the_items_its_clause_writes_on():
    """3.11: "... Network Affiliate shall not be prohibited from: (i) promoting the grand
    opening of a Theatre ..., and (ii) ...": the first item fits whole in the room given."""
    text = parsed(SHARED_DATA / "cuad" / "pdf" / DIGITAL_CINEMA).clause("3.11").text
    lead_in = text.index("prohibited from:") + len("prohibited from:")
    end = list_end(text, lead_in, 700)
    assert text[lead_in:end].split()[:4] == ["(i)", "promoting", "the", "grand"]
    assert text[:end].endswith("limited to one")  # where the sentence splitter ends the first item
    assert list_end(text, lead_in, 0) == lead_in  # no room: the quote as it was
    assert list_end(text, text.index("Notwithstanding"), 700) == text.index("Notwithstanding")  # no colon: unchanged


def test_a_colon_that_opens_no_list_keeps_the_quote(gcloud):
    """A signature block's "Signature:" is followed by "Name:", not an item."""
    text = gcloud.clause("Signatures").text
    end = text.index("Signature:") + len("Signature:")
    assert list_end(text, end, 700) == end


@needs_shared_data
def test_a_two_word_title_is_the_direct_answer_and_is_highlighted(cuad_library):
    """"MANUFACTURING AGREEMENT" is shorter than a quote may be when it backs a claim (three
    words), but the title is the contract's own heading, quoted whole: it leads the answer."""
    doc_id = cuad_library.doc_id("BellringBrandsInc_20190920_S_1_EX_10_12_11817081_EX_10_12_Manufacturing_Agreement1.pdf")
    answer = cuad_library.library.ask("What is this contract called?", [doc_id]).answer
    assert answer.lead == "Title: MANUFACTURING AGREEMENT. Found in Preamble, page 1."
    first = answer.citations[0]
    assert (first.quote, first.page, first.ref) == ("MANUFACTURING AGREEMENT", 1, "Preamble")
    assert first.rects  # the viewer highlights it


@pytest.mark.parametrize("text", ["a royalty of [***]%", "at least *** Dollars ($***)", "[ * ]", "the [Redacted] fee", "[omitted]"])
def test_a_filings_redaction_marks_are_recognised(text):
    assert REDACTION.search(text)


@pytest.mark.parametrize("text", ["5 * 3 units", "**Note**", "[a] and [b]"])
def test_ordinary_asterisks_and_brackets_are_no_redaction(text):
    assert not REDACTION.search(text)


@needs_shared_data
def test_an_answer_quoting_a_redacted_figure_says_the_filing_withholds_it(cuad_library):
    """LeadersOnline's revenue guarantee reads "at least *** Dollars ($***)": the quote answers
    the question, and a note says the figure is not in the document. (Asked "What is the
    guaranteed amount LeadersOnline must pay?", 3.1, what LeadersOnline must pay for its ads,
    answers as well, and a ranker may put either first.)"""
    doc_id = cuad_library.doc_id("LeadersonlineInc_20000427_S_1A_EX_10_8_4991089_EX_10_8_Co_Branding_Agreement.pdf")
    answer = cuad_library.library.ask("What is the minimum revenue guarantee?", [doc_id]).answer
    first = answer.citations[0]
    assert not answer.abstained and (first.ref, first.page) == ("6.5", 4) and "at least *** Dollars ($***)" in " ".join(first.quote.split())
    [note] = [n for n in answer.notes if n.startswith("The filing withholds part of the quoted text")]
    assert "Section 6.5, page 4" in note


@needs_shared_data
def test_a_contract_that_chooses_no_law_answers_which_law_governs_with_not_found(cuad_library):
    """FUSION's supply agreement chooses no governing law. Its search finds 14, on complying
    with the law, which is on topic and no answer; ingest reads the governing law wherever a
    contract states it, so its absence is the answer. Asked of a contract that has one, the
    law is answered (the first test)."""
    library = cuad_library.library
    doc_id = cuad_library.doc_id(FUSION)
    assert library.contract_fields([doc_id])[0].governing_law is None
    for question in ("Which law governs the agreement?", "Under which state's laws is this contract interpreted?"):
        answer = library.ask(question, [doc_id]).answer
        assert answer.abstained and not answer.claims and not answer.citations, question
        assert answer.lead == "Not found: the contract does not appear to choose a governing law: no sentence says which law governs or construes it."
        assert [c.ref for c in answer.closest][:1] == ["14"] and all(c.excerpt == excerpt(c.citation.quote, 300) for c in answer.closest)
        assert any(n.startswith("Governing law: ingest reads it wherever a contract states it") for n in answer.notes)


def test_a_question_the_contract_does_not_answer_is_an_abstention(ask, doc):
    answer = ask("Is there a most favored nation pricing clause?", [doc(MUTUAL_NDA)])
    assert answer.abstained and not answer.citations and not answer.claims
    assert answer.lead.startswith("Not found: the selected contract does not appear to answer this.")
    assert "“favored”" in answer.lead and "in no clause in scope" in answer.lead
    assert len(answer.closest) == 3 and all(c.file_name == MUTUAL_NDA.name for c in answer.closest)


def test_the_query_engine_returns_the_answer_with_its_quotes_as_source_nodes(sample_library, doc):
    engine = ClausegraphQueryEngine(engine=sample_library.engine, doc_ids=[doc(MUTUAL_NDA)])
    response = engine.query(LAW_QUESTION)
    answer = response.metadata["answer"]
    assert response.response == answer.text() and "English law" in response.response
    assert [n.node.metadata["ref"] for n in response.source_nodes] == [c.ref for c in answer.citations]
    assert answer.citations[0].ref == "10"


# ------------------------------------------------------------------ Ollama


def test_a_good_model_answer_streams_and_keeps_its_verbatim_quotes(sample_library, with_model, doc):
    def good(request: dict) -> str:
        number = passage_number(request, "governed by, and construed in accordance with, English law")
        return json.dumps({"verdict": "answered", "claims": [claim("English law governs the agreement.", (number, LAW_QUOTE))]})

    streamed: list[str] = []
    with FakeOllama(replies=answers(good)) as fake:
        with_model(fake.url)
        answer = sample_library.ask(LAW_QUESTION, [doc(HIGHWAYS_NDA)], on_text=streamed.append).answer
        request = next(c for c in fake.chats() if (c.get("format") or {}).get("title") == "DraftAnswer")
    assert (answer.backend, answer.model, answer.abstained) == (BackendKind.OLLAMA, "tiny:latest", False)
    assert [c.text for c in answer.claims] == ["English law governs the agreement."]
    assert [(c.ref, c.page) for c in answer.citations] == [("8.1", 7)]
    assert " ".join(answer.citations[0].quote.split()) == LAW_QUOTE
    assert request["stream"] is True and "[P1]" in request["messages"][-1]["content"]
    assert len(streamed) > 3 and json.loads(streamed[-1])["verdict"] == "answered"


def test_a_claim_resting_on_an_invented_quote_is_dropped_whole_and_the_true_claim_kept(sample_library, with_model, doc):
    invented = "The Contractor's liability is unlimited in all circumstances"
    draft = {"verdict": "answered", "claims": [
        claim("English law governs the agreement.", (1, LAW_QUOTE)),
        claim("Liability is unlimited.", (1, LAW_QUOTE), (1, invented)),  # a true quote cannot carry it
    ]}
    with FakeOllama(replies=answers(draft)) as fake:
        with_model(fake.url)
        answer = sample_library.ask(LAW_QUESTION, [doc(HIGHWAYS_NDA)]).answer
    assert [c.text for c in answer.claims] == ["English law governs the agreement."]
    assert [c.ref for c in answer.citations] == ["8.1"] and answer.claims[0].citations == [1]
    assert all("unlimited" not in c.quote for c in answer.citations)
    assert any("dropped 1 quote" in n and "unlimited" in n for n in answer.notes)
    assert "left out 1 claim(s) of tiny:latest not backed wholly by verbatim quotes" in answer.notes


def test_when_every_quote_fails_the_model_is_asked_once_more_naming_the_failed_quote(sample_library, with_model, doc):
    bad = {"verdict": "answered", "claims": [claim("The law of Narnia applies.", (1, "governed by the laws of Narnia"))]}
    good = {"verdict": "answered", "claims": [claim("English law governs.", (2, LAW_QUOTE))]}
    with FakeOllama(replies=answers(bad, good)) as fake:
        with_model(fake.url)
        answer = sample_library.ask(LAW_QUESTION, [doc(HIGHWAYS_NDA)]).answer
        drafts = [c for c in fake.chats() if (c.get("format") or {}).get("title") == "DraftAnswer"]
    assert len(drafts) == 2
    assert "governed by the laws of Narnia" in drafts[1]["messages"][0]["content"]
    assert answer.backend is BackendKind.OLLAMA and answer.claims[0].text == "English law governs."
    assert "retried once with a stricter prompt" in answer.notes


def test_two_failed_drafts_fall_back_to_the_extractive_answer(sample_library, with_model, doc):
    bad = {"verdict": "answered", "claims": [claim("Narnia.", (1, "governed by the laws of Narnia"))]}
    with FakeOllama(replies=answers(bad, bad)) as fake:
        with_model(fake.url)
        answer = sample_library.ask(LAW_QUESTION, [doc(HIGHWAYS_NDA)]).answer
    assert answer.backend is BackendKind.EXTRACTIVE and answer.citations[0].ref == "8.1"
    assert any("no quote survived" in n for n in answer.notes)


@pytest.mark.parametrize("reply", ["this is not json", '{"verdict": "maybe", "claims": 3}', '{"claims": [{"quotes": "x"'])
def test_malformed_model_output_falls_back_cleanly(sample_library, with_model, doc, reply):
    with FakeOllama(replies=answers(reply)) as fake:
        with_model(fake.url)
        answer = sample_library.ask(LAW_QUESTION, [doc(HIGHWAYS_NDA)]).answer
    assert answer.backend is BackendKind.EXTRACTIVE and not answer.abstained and answer.citations[0].ref == "8.1"
    assert any("out of schema" in n for n in answer.notes)


def test_the_model_saying_not_stated_is_an_abstention(sample_library, with_model, doc):
    with FakeOllama(replies=answers({"verdict": "not_stated", "claims": []})) as fake:
        with_model(fake.url)
        answer = sample_library.ask(LAW_QUESTION, [doc(HIGHWAYS_NDA)]).answer
    assert answer.abstained and answer.backend is BackendKind.OLLAMA and answer.closest[0].ref.startswith("8")


def test_a_listing_asked_of_each_contract_is_not_written_by_the_model(sample_library, with_model):
    """A listing by search needs each contract's evidence check and first quote, not a written
    answer: over hundreds of contracts a model's plan and draft per contract would take minutes."""
    with FakeOllama(replies=answers({"verdict": "not_stated", "claims": []})) as fake:
        with_model(fake.url)
        listing = sample_library.ask("Which contracts have a change of control clause?").enumeration
    assert listing.method == "search" and [d.file for d in listing.documents] == [GCLOUD.name]
    assert fake.chats() == []


def test_an_unreachable_model_gives_the_extractive_answer_with_a_note(sample_library, with_model, doc):
    with FakeOllama() as fake:
        url = fake.url
    with_model(url, timeout=2)
    answer = sample_library.ask(LAW_QUESTION, [doc(HIGHWAYS_NDA)]).answer
    assert answer.backend is BackendKind.EXTRACTIVE and answer.citations[0].ref == "8.1"
    assert any("could not be reached" in n for n in answer.notes)
