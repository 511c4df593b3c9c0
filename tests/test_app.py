"""The Streamlit app, run headless with AppTest against real stores."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from engine.settings import PROJECT_ROOT
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA
from tests.ollama_server import FakeOllama, answers, claim, passage_number


@pytest.fixture
def app_on(monkeypatch):
    def start(store) -> AppTest:
        monkeypatch.setenv("CLAUSEGRAPH_DB", str(store))
        at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=240)
        at.run()
        assert not at.exception, at.exception
        return at

    return start


def test_library_lists_the_contracts(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    assert at.title[0].value == "Contract library"
    assert at.subheader[0].value == "3 contracts"
    table = at.dataframe[0].value
    assert set(table["File"]) == {GCLOUD.name, MUTUAL_NDA.name, "NDA__contractors__draft.pdf"}
    row = table[table["File"] == GCLOUD.name].iloc[0]
    assert row["Pages"] == 31 and row["Title"] == "G-CLOUD 8 FRAMEWORK AGREEMENT"


def test_a_store_location_the_app_cannot_serve_stops_the_app_with_its_reason(monkeypatch):
    monkeypatch.setenv("CLAUSEGRAPH_DB", "gs://bucket/lib")
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [
        "The contract library cannot be opened: gs://bucket/lib is not a folder on this machine or an S3 bucket. A "
        "library is kept in a local folder or on S3-compatible object storage (--db DIR, --db s3://BUCKET/PREFIX or "
        "$CLAUSEGRAPH_DB), and nothing was written there."
    ]


def test_a_new_library_gets_the_samples_then_upload_and_delete(app_on, tmp_path):
    at = app_on(tmp_path / "fresh")
    assert at.subheader[0].value == "3 contracts"  # the samples, added at first start
    assert len(at.success) == 3

    bad = b"just text, not a contract"
    at.file_uploader[0].upload("notes.pdf", bad, "application/pdf").run()
    at.button[0].click().run()
    assert any("notes.pdf" in e.value and "not a PDF" in e.value for e in at.error)
    assert at.subheader[0].value == "3 contracts"  # nothing lost, nothing added

    at.multiselect(key="delete_choice").select(next(o for o in at.multiselect(key="delete_choice").options if o.startswith(MUTUAL_NDA.name))).run()
    at.button(key="delete_ask").click().run()
    assert "cannot be undone" in at.warning[0].value
    at.button(key="delete_confirm").click().run()
    assert at.subheader[0].value == "2 contracts"

    at.file_uploader[0].upload(MUTUAL_NDA.name, MUTUAL_NDA.read_bytes(), "application/pdf").run()
    at.button[0].click().run()
    assert at.subheader[0].value == "3 contracts"
    assert any(MUTUAL_NDA.name in s.value and "14 clauses" in s.value for s in at.success)


def test_contract_page_shows_the_clause_graph(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    at.switch_page("pages/contract.py").run()
    assert not at.exception
    choice = next(o for o in at.selectbox(key="contract_doc").options if GCLOUD.name in o)
    at.selectbox(key="contract_doc").select(choice).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Pages"] == "31"
    outline = at.dataframe[0].value
    assert "\u2003\u2003\u20039.2.2.1" in list(outline["Clause"])
    at.selectbox(key="contract_clause").select(next(o for o in at.selectbox(key="contract_clause").options if o.startswith("4.6.1"))).run()
    assert any("4.6.2" in m.value for m in at.markdown)  # 4.6.1 cites 4.6.2


def _ask(at: AppTest, question: str, contract: str) -> AppTest:
    at.switch_page("pages/ask.py").run()
    at.multiselect(key="ask_docs").select(contract).run()
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    return at


def test_ask_answers_with_citation_chips_that_open_the_highlighted_page(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    at = _ask(at, "What is the liability cap of each party?", GCLOUD.name)
    assert "Extractive mode" in at.info[0].value
    assert [m.avatar for m in at.chat_message] == ["user", "assistant"]
    assert any(m.value.startswith("**Found in Section 4.6.1, page 9") for m in at.markdown)
    chip = at.button(key="cite-0-1")
    assert chip.label == f"[1] Section 4.6.1 · p. 9 · {GCLOUD.name}"
    trail = at.dataframe[0].value  # how the evidence was found
    found_by = {row["Clause"]: (row["Found by"], row["Cited"]) for _, row in trail.iterrows()}
    # the learned ranking puts the cap and the exclusion of indirect loss first, a hair apart (the
    # fourth decimal): the answer leads with the one the question's own words name, the cap
    assert set(trail["Clause"][:2]) == {"Section 4.6.1", "Section 4.6.4"}
    assert found_by["Section 4.6.1"] == ("search hit (keyword #2, vector #1, topic #1, category #2)", True)
    assert found_by["Section 4.6.2"] == ("cited by 4.6.1 (1 hop)", True)
    assert found_by["Section 4.6.3"] == ("cited by 4.6.4 (1 hop)", True)  # "Subject to Clause 4.6.3 above"

    chip.click().run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Viewer"
    assert any(m.value.startswith("**Citation [1] of ") and "Section 4.6.1 · page 9" in m.value for m in at.markdown)
    captions = [picture.caption for image in at.get("image") for picture in image.proto.imgs]
    assert captions == [f"{GCLOUD.name} — page 9 of 31 · 5 highlighted lines"]

    # AppTest reruns the page it was last told to, not where st.switch_page went: say it
    at.button(key="cite_next").click()
    at.switch_page("pages/viewer.py").run()
    assert any(m.value.startswith("**Citation [2] of ") for m in at.markdown)

    at.switch_page("pages/ask.py").run()  # the conversation and the scope survive the trip
    assert at.button(key="cite-0-1").label.startswith("[1]")
    assert at.multiselect(key="ask_docs").value == [GCLOUD.name]


def test_an_abstention_looks_different_and_offers_the_closest_clauses(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    at = _ask(at, "Must source code be deposited in escrow?", MUTUAL_NDA.name)
    assert at.warning[0].value.startswith("Not found: the selected contract does not appear to answer this.")
    assert at.button(key="closest-0-0").label == "Open in viewer"
    at.button(key="closest-0-0").click().run()
    assert at.title[0].value == "Viewer" and not at.exception


def test_the_viewer_opens_any_contract_and_its_outline_jumps_to_a_clause(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    at.switch_page("pages/viewer.py").run()
    at.selectbox(key="viewer_doc").select(GCLOUD.name).run()
    assert [p.caption for i in at.get("image") for p in i.proto.imgs] == [f"{GCLOUD.name} — page 1 of 31"]
    clause = next(o for o in at.selectbox(key="viewer_outline").options if o.strip().startswith("4.6.1"))
    at.selectbox(key="viewer_outline").select(clause).run()
    assert not at.exception, at.exception
    assert [p.caption for i in at.get("image") for p in i.proto.imgs] == [f"{GCLOUD.name} — page 9 of 31"]
    at.selectbox(key="viewer_doc").select(MUTUAL_NDA.name).run()  # a two-page contract starts at its first page
    assert [p.caption for i in at.get("image") for p in i.proto.imgs] == [f"{MUTUAL_NDA.name} — page 1 of 2"]


def test_settings_finds_the_local_models_and_the_choice_is_used_and_kept(app_on, tmp_path):
    from engine.service import Library
    from tests.conftest import SAMPLES_DIR

    store = tmp_path / "store"
    Library(store).ingest_paths([SAMPLES_DIR / MUTUAL_NDA.name])
    def english_law(request: dict) -> str:
        number = passage_number(request, "governed by, and is to be construed in accordance with")
        return json.dumps({"verdict": "answered", "claims": [claim(
            "The agreement is governed by English law.", (number, "governed by, and is to be construed in accordance with, English law"),
        )]})

    with FakeOllama(models=["llama3.2:3b", "qwen2.5:7b"], replies=answers(english_law)) as server:
        at = app_on(store)
        at.switch_page("pages/settings.py").run()
        assert at.radio(key="settings_backend").value == "none"
        assert {m.label: m.value for m in at.metric}["Contracts"] == "1"
        at.radio(key="settings_backend").set_value("ollama").run()
        at.text_input(key="settings_url_ollama").set_value(server.url).run()
        assert at.success[0].value.startswith(f"{server.url} is reachable: 2 models")
        at.selectbox(key="settings_model_ollama").select("qwen2.5:7b").run()
        at.button(key="settings_use").click().run()
        assert not at.exception, at.exception
        assert "ollama model qwen2.5:7b" in at.caption[0].value
        at.switch_page("pages/ask.py").run()
        assert "Answers are written by **ollama model qwen2.5:7b**" in at.success[0].value
        at.chat_input[0].set_value("Which law governs this agreement?").run()
        assert not at.exception, at.exception
        assert any(m.value.startswith("- The agreement is governed by English law.") for m in at.markdown)
        assert any("Answered by **ollama model qwen2.5:7b**" in c.value for c in at.caption)
        assert at.button(key="cite-0-1").label == f"[1] Section 10 · p. 2 · {MUTUAL_NDA.name}"
        at.switch_page("pages/settings.py").run()
    assert '"model": "qwen2.5:7b"' in (store / "model.json").read_text()
    reopened = Library(store)
    reopened.restore_llm()
    assert (reopened.llm_spec.backend.value, reopened.llm_spec.model) == ("ollama", "qwen2.5:7b")

    at.text_input(key="settings_url_ollama").set_value("http://127.0.0.1:9").run()  # nothing listens there
    assert "cannot be reached" in at.error[0].value


def test_search_with_presets_filters_and_modes_opens_hits_in_the_viewer(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    at.switch_page("pages/search.py").run()
    at.multiselect(key="search_docs").select(GCLOUD.name).run()
    at.button(key="preset_Governing law").click().run()
    assert at.text_input(key="search_query").value == "governing law and jurisdiction"
    first = at.markdown[[m.value.startswith("**1. ") for m in at.markdown].index(True)].value
    assert first.startswith(f"**1. {GCLOUD.name}** · 8 › 8.7 Law and jurisdiction · page 17 · dispute resolution")

    at.text_input(key="search_sections").set_value("4.6.2").run()  # a hard filter: that section only
    heads = [m.value for m in at.markdown if m.value.startswith("**")]
    assert len(heads) == 1 and "4 › 4.6 › 4.6.2" in heads[0]

    at.text_input(key="search_sections").set_value("").run()
    at.radio(key="search_mode").set_value("keyword").run()
    at.text_input(key="search_query").set_value("zebra giraffe").run()
    assert "No clause matches" in at.warning[0].value

    at.text_input(key="search_query").set_value("insolvency").run()
    at.button(key="hit-1").click().run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Viewer" and any(m.value.startswith("**Citation [1] of 1**") for m in at.markdown)


def test_the_graph_page_draws_the_contract_and_marks_the_last_answers_clauses(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    at = _ask(at, "What is the liability cap of each party?", GCLOUD.name)
    at.switch_page("pages/graph.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="graph_doc").value == GCLOUD.name  # the contract the last answer cited
    caption = next(c.value for c in at.caption if c.value.startswith("268 clauses"))
    assert "the last answer cites" in caption
    assert len(at.get("plotly_chart")) == 1
    at.selectbox(key="graph_clause").select(next(o for o in at.selectbox(key="graph_clause").options if o.startswith("8.7"))).run()
    at.button(key="graph_open").click().run()
    assert at.title[0].value == "Viewer"
    assert any(m.value.startswith("**Citation [1] of 1**") and "Section 8.7 · page 17" in m.value for m in at.markdown)


def test_the_corpus_page_charts_the_library_and_traces_each_flag_to_its_sentence(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    at.switch_page("pages/corpus.py").run()
    assert not at.exception, at.exception
    assert {m.label: m.value for m in at.metric} == {"Contracts": "3", "Governing law found": "3", "Jurisdictions": "1"}  # England and Wales, however named
    assert len(at.get("plotly_chart")) == 2  # by law and by kind; none of the samples names an end date:
    assert any(c.value == "Expiry: no contract names an end date (not stated: 2 · perpetual: 1)." for c in at.caption)
    table = at.dataframe[0].value
    row = table[table["Contract"] == GCLOUD.name].iloc[0]
    assert row["Governing law"] == "England and Wales" and row["Insurance"] and row["Kind"] == "Framework"
    assert table[table["Contract"] == MUTUAL_NDA.name].iloc[0]["Expires"] == "perpetual"  # "continue in force [indefinitely]…"
    assert not table[table["Contract"] == MUTUAL_NDA.name].iloc[0]["Insurance"]

    at.selectbox(key="corpus_trace").select(GCLOUD.name).run()
    insurance = next(m.value for m in at.markdown if m.value.startswith("**Insurance**"))
    assert insurance.startswith("**Insurance** · Section 8.32 · page 21: “The Supplier will have employer’s liability insurance")
    labels = [m.value.split("**")[1] for m in at.markdown if m.value.startswith("**") and " · Section " in m.value]
    at.button(key=f"corpus_open_{labels.index('Insurance')}").click().run()
    assert at.title[0].value == "Viewer" and any("Section 8.32 · page 21" in m.value for m in at.markdown)


def _ask_all(app_on, library, question: str) -> AppTest:
    """The question asked on the Ask page with no contract chosen: all of them in scope."""
    at = app_on(library.settings.store)
    at.switch_page("pages/ask.py").run()
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    return at


def test_a_which_contracts_question_on_ask_lists_every_contract_cited(app_on, sample_library):
    at = _ask_all(app_on, sample_library, "Which contracts are governed by English law?")
    assert any(m.value == "**3 of 3 contracts** governed by the law of England and Wales." for m in at.markdown)
    assert at.button(key="cite-0-1").label.startswith("[1] Section 10 · p. 2")
    assert at.get("download_button")  # the export includes the list


def test_a_misspelt_request_is_answered_as_meant_and_says_how_it_was_read(app_on, sample_library):
    at = _ask_all(app_on, sample_library, "Wich contarcts are governd by englsh law?")
    assert any(m.value == "**3 of 3 contracts** governed by the law of England and Wales." for m in at.markdown)
    assert any(c.value.endswith("Read as “Which contracts are governed by english law?” (spelling corrected: Wich → Which, "
                                "contarcts → contracts, governd → governed, englsh → english).") for c in at.caption)
    assert at.chat_message[0].markdown[0].value == "Wich contarcts are governd by englsh law?"  # the user's words stay as typed


def test_a_question_over_several_contracts_is_answered_for_each(app_on, sample_library):
    at = _ask_all(app_on, sample_library, "Which law governs this agreement?")
    assert any(m.value == "**Found in 3 of 3 contracts, each answered on its own.**" for m in at.markdown)
    leads = [m.value for m in at.markdown if m.value.startswith("**") and " · Governing law: " in m.value]
    assert leads == [
        f"**{MUTUAL_NDA.name}** · Governing law: England and Wales. Found in Section 10, page 2.",
        f"**{HIGHWAYS_NDA.name}** · Governing law: England and Wales. Found in Section 8.1, page 7.",
        f"**{GCLOUD.name}** · Governing law: England and Wales. Found in Section 8.7, page 17.",
    ]
    assert at.button(key="cite-0-2").label == f"[2] Section 8.1 · p. 7 · {HIGHWAYS_NDA.name}"
    at.button(key="cite-0-2").click().run()
    assert not at.exception, at.exception
    assert at.title[0].value == "Viewer"
    captions = [picture.caption for image in at.get("image") for picture in image.proto.imgs]
    assert captions[0].startswith(f"{HIGHWAYS_NDA.name} — page 7 of ")


def test_a_contract_answered_on_its_own_shows_its_first_quote_with_the_list_it_opens(app_on, sample_library):
    at = _ask_all(app_on, sample_library, "can we tell our lawyers about the confidential stuff?")
    quotes = [m.value for m in at.markdown if m.value.startswith("> ") and "who:”" in m.value]
    assert len(quotes) == 1 and "who:” “3.1.1 reasonably need to receive" in " ".join(quotes[0].split())
    assert "“(b) that the Disclosing Party provided the Confidential Information" in " ".join(quotes[0].split())
    # in scope order: the Highways NDA's other three claims cite one quote each; its four items
    # are shown in the quote above, not counted as more (they made it 7)
    folded = [e.label for e in at.expander if e.label.startswith("More evidence in this contract")]
    assert folded == [f"More evidence in this contract ({n})" for n in (3, 3, 6)]


@pytest.fixture
def empty_grid(sample_library):
    """The shared sample store with no grid before and after (the grid is kept in the store)."""
    sample_library.reviews.set_columns([])
    yield sample_library
    sample_library.reviews.set_columns([])


def test_the_review_grid_fills_cited_cells_that_open_the_viewer_and_are_kept(app_on, empty_grid):
    at = app_on(empty_grid.settings.store)
    at.switch_page("pages/grid.py").run()
    assert not at.exception, at.exception
    assert at.info[0].value.startswith("Choose the grid's columns above")
    columns = next(m for m in at.multiselect if m.label == "Columns")
    columns.set_value(["Governing law", "Insurance"]).run()
    at.text_input(key="grid_new_question").input("How long do the confidentiality obligations last?")
    at.button(key="grid_add").click().run()  # the question and its button are one form: Enter or the button adds it
    assert [c.label for c in empty_grid.reviews.columns()] == ["Governing law", "Insurance", "How long do the confidentiality obligations last?"]

    at.button(key="grid_fill").click().run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    nda = table[table["Contract"] == MUTUAL_NDA.name].iloc[0]
    assert nda["Governing law"] == "England and Wales" and nda["Insurance"] == "— not found"  # not found reads differently
    assert table[table["Contract"] == GCLOUD.name].iloc[0]["Insurance"].startswith("The Supplier will have employer’s liability insurance")
    assert any(c.value == "9 of 9 cells filled · 7 found · 2 not found" for c in at.caption)
    assert {b.label for b in at.get("download_button")} == {"Export CSV", "Export XLSX"}

    at.selectbox(key="grid_cell_contract").select(GCLOUD.name).run()
    at.selectbox(key="grid_cell_column").select("Insurance").run()
    assert any(c.value.startswith("The clause model finds a clause on insurance in Section 8.32, page 21") for c in at.caption)
    chip = at.button(key="grid_cite_0")
    assert chip.label == f"[1] Section 8.32 · p. 21 · {GCLOUD.name}"
    chip.click().run()
    assert at.title[0].value == "Viewer" and any("Section 8.32 · page 21" in m.value for m in at.markdown)

    reopened = app_on(empty_grid.settings.store)  # a new session: the grid is kept with the library
    reopened.switch_page("pages/grid.py").run()
    assert reopened.dataframe[0].value.equals(table)


def test_the_playbook_review_flags_a_red_finding_that_opens_its_evidence(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    at.switch_page("pages/review.py").run()
    assert not at.exception, at.exception
    assert at.radio(key="review_source").value == "Default"
    at.button(key="review_run").click().run()
    assert not at.exception, at.exception
    assert at.subheader[0].value == "3 contracts × 11 rules" and len(at.get("plotly_chart")) == 1
    at.selectbox(key="review_contract").select(MUTUAL_NDA.name).run()
    law = next(e for e in at.expander if e.label == "RED · governing_law (high)")
    assert law.markdown[0].value == "England and Wales: not accepted; the playbook accepts New York or Delaware."
    chip = at.button(key="review_cite_governing_law_0")
    assert chip.label == f"[1] Section 10 · p. 2 · {MUTUAL_NDA.name}"
    assert {b.label for b in at.get("download_button")} == {"Export Markdown", "Export CSV"}
    chip.click().run()
    assert at.title[0].value == "Viewer" and any("Section 10 · page 2" in m.value for m in at.markdown)


def test_a_malformed_playbook_gets_its_message_and_keeps_the_text(app_on, sample_library):
    at = app_on(sample_library.settings.store)
    at.switch_page("pages/review.py").run()
    at.radio(key="review_source").set_value("Edit a copy").run()
    assert at.text_area(key="review_text_editor").value.startswith("name: Default buyer playbook")
    bad = "name: Mine\nrules:\n  - id: cap\n    topic: liability_cap\n    expect: requird\n"
    at.text_area(key="review_text_editor").input(bad).run()
    assert not at.exception, at.exception
    assert at.error[0].value.startswith("your playbook has a problem:\n- rule 'cap', field `expect`: Input should be")
    assert at.text_area(key="review_text_editor").value == bad
    assert all(b.key != "review_run" for b in at.button)  # nothing to run until the playbook is fixed


def test_an_edited_playbook_is_kept_with_the_library(app_on, sample_library):
    kept = sample_library.settings.store.workspace / "playbook.yaml"
    try:
        at = app_on(sample_library.settings.store)
        at.switch_page("pages/review.py").run()
        at.radio(key="review_source").set_value("Edit a copy").run()
        edited = at.text_area(key="review_text_editor").value.replace("name: Default buyer playbook", "name: Our supplier standard")
        at.text_area(key="review_text_editor").input(edited).run()
        at.button(key="review_keep_playbook").click().run()
        assert not at.exception, at.exception
        assert kept.read_text() == edited

        again = app_on(sample_library.settings.store)  # another session opens with the library's own playbook
        again.switch_page("pages/review.py").run()
        assert again.radio(key="review_source").value == "Kept with this library"
        assert any(c.value.startswith("Our supplier standard: 11 rules") for c in again.caption)
        assert again.button(key="review_run").label == "Review against “Our supplier standard”"
    finally:
        kept.unlink(missing_ok=True)
