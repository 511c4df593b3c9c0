"""The Streamlit app, run headless with AppTest against real stores."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.settings import PROJECT_ROOT
from tests.conftest import GCLOUD, MUTUAL_NDA


@pytest.fixture
def app_on(monkeypatch):
    def start(store_dir) -> AppTest:
        monkeypatch.setenv("CLAUSEGRAPH_DB", str(store_dir))
        at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=240)
        at.run()
        assert not at.exception, at.exception
        return at

    return start


def test_library_lists_the_contracts(app_on, sample_library):
    at = app_on(sample_library.settings.store_dir)
    assert at.title[0].value == "Contract library"
    assert at.subheader[0].value == "3 contracts"
    table = at.dataframe[0].value
    assert set(table["File"]) == {GCLOUD.name, MUTUAL_NDA.name, "NDA__contractors__draft.pdf"}
    row = table[table["File"] == GCLOUD.name].iloc[0]
    assert row["Pages"] == 31 and row["Title"] == "G-CLOUD 8 FRAMEWORK AGREEMENT"


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
    at = app_on(sample_library.settings.store_dir)
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
