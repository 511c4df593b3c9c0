"""Fixtures: the sample contracts (always present) and ../shared/data (skipped when absent)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from engine.ingest.clauses import segment
from engine.ingest.graph import ClauseGraph, build_graph
from engine.ingest.pdf import DocumentText, read_pdf
from engine.settings import PROJECT_ROOT, SAMPLES_DIR

SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
GCLOUD = SAMPLES_DIR / "g-cloud-8-framework-agreement.pdf"
HIGHWAYS_NDA = SAMPLES_DIR / "NDA__contractors__draft.pdf"
MUTUAL_NDA = SAMPLES_DIR / "Example-Mutual-Non-Disclosure-Agreement.pdf"
# a CUAD supply agreement with numbered definitions and no choice of law (tests that need ../shared/data)
FUSION = "FUSIONPHARMACEUTICALSINC_06_05_2020_EX_10_17_Supply_Agreement_FUSION.pdf"

needs_shared_data = pytest.mark.skipif(
    not (SHARED_DATA / "cuad" / "pdf").is_dir(),
    reason=f"needs the shared evaluation data at {SHARED_DATA} (present in CI, absent in a plain clone)",
)


def read_jsonl(path: Path) -> list[dict]:
    """The objects of a JSON-lines file (a question set, a manifest), one a line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class Parsed:
    """A contract parsed and structured (no embedding), with lookups tests need."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.text: DocumentText = read_pdf(path)
        self.graph: ClauseGraph = build_graph("doc", self.text, segment(self.text), path.stem)
        self.by_ref = {c.path: c for c in self.graph.clauses}
        self.by_id = {c.clause_id: c for c in self.graph.clauses}

    def clause(self, ref: str):
        return self.by_ref[ref]

    def parent_chain(self, ref: str) -> list[str]:
        chain, clause = [], self.by_ref[ref]
        while clause.parent_id is not None:
            clause = self.by_id[clause.parent_id]
            chain.append(clause.ref)
        return chain

    def edges(self, kind: str) -> list:
        return [e for e in self.graph.edges if e.type.value == kind]


@pytest.fixture(autouse=True)
def _log_handlers_outlive_the_test():
    """A log handler made during a test keeps that test's captured stderr, closed when the test
    ends (Streamlit makes one per logger, on first use). Its next message, in a later test,
    would write "--- Logging error ---" into that test's stderr, so which tests pass would
    depend on their order. After each test such handlers write to the session's stderr, as
    the handlers made at import do."""
    yield
    loggers = [logging.getLogger()] + [l for l in logging.Logger.manager.loggerDict.values() if isinstance(l, logging.Logger)]
    for logger in loggers:
        for handler in logger.handlers:
            if type(handler) is logging.StreamHandler and getattr(handler.stream, "closed", False):
                handler.stream = sys.stderr  # not setStream: it would flush the closed stream first


_parsed_cache: dict[Path, Parsed] = {}


def parsed(path: Path) -> Parsed:
    if path not in _parsed_cache:
        _parsed_cache[path] = Parsed(path)
    return _parsed_cache[path]


@pytest.fixture(scope="session")
def gcloud() -> Parsed:
    return parsed(GCLOUD)


@pytest.fixture(scope="session")
def highways() -> Parsed:
    return parsed(HIGHWAYS_NDA)


@pytest.fixture(scope="session")
def mutual_nda() -> Parsed:
    return parsed(MUTUAL_NDA)


class CuadLibrary:
    """One store for the tests that need a few CUAD contracts of ../shared/data: each is ingested,
    full vectors made, the first time a test asks for it, so two tests of one contract share it."""

    def __init__(self, folder: Path) -> None:
        from engine.service import Library

        self.library = Library(folder)

    def doc_id(self, file_name: str) -> str:
        if not any(d.file_name == file_name for d in self.library.documents()):
            outcomes = self.library.ingest_paths([SHARED_DATA / "cuad" / "pdf" / file_name])
            assert [o.status.value for o in outcomes] == ["ingested"], [o.message for o in outcomes]
            assert self.library.wait_for_vectors().complete
        return self.library.find(file_name).doc_id


@pytest.fixture(scope="session")
def cuad_library(tmp_path_factory) -> CuadLibrary:
    return CuadLibrary(tmp_path_factory.mktemp("cuad") / "store")


@pytest.fixture(scope="session")
def sample_library(tmp_path_factory):
    """A store with the three sample contracts ingested once, their full vectors made."""
    from engine.service import Library

    library = Library(tmp_path_factory.mktemp("store"))
    outcomes = library.ingest_paths([SAMPLES_DIR])
    assert [o.status.value for o in outcomes] == ["ingested"] * 3, [o.message for o in outcomes]
    assert library.wait_for_vectors().complete
    return library


# ---------------------------------------------------------------- test tiers
# Every test gets one tier marker here, so test files carry none (pytest -m unit|integration|e2e):
#   unit         pure functions, and the sample PDFs parsed and structured in memory: no store,
#                no embedding model (`make test-fast`, under a minute)
#   integration  a real ingested store: the sample_library fixture, or an ingest of its own
#   e2e          as a user meets it: the app (AppTest, browser), the CLI in a subprocess, crashes
#                and concurrency, privacy under the network guard, OCR, hostile files, a real model
# A test module missing from TIERS fails the collection: a new module needs its tier here.
TIERS = {
    "test_architecture.py": "unit",
    "test_clause_types.py": "unit",
    "test_clauses.py": "unit",
    "test_definitions.py": "unit",
    "test_log_isolation.py": "unit",
    "test_evaluate.py": "unit",
    "test_fields.py": "unit",
    "test_numbering.py": "unit",
    "test_pdf.py": "unit",
    "test_references.py": "unit",
    "test_answer.py": "integration",
    "test_lead.py": "integration",
    "test_citations.py": "integration",
    "test_enumerate.py": "integration",
    "test_graphview.py": "integration",
    "test_plan.py": "integration",
    "test_ranking.py": "integration",
    "test_render.py": "integration",
    "test_retrieval.py": "integration",
    "test_retrieval_stages.py": "integration",
    "test_review.py": "integration",
    "test_phrasings.py": "unit",
    "test_offcategory.py": "unit",
    "test_playbook.py": "unit",
    "test_query_adapter.py": "unit",
    "test_settings.py": "unit",
    "test_boosted_trees.py": "unit",
    "test_spelling.py": "unit",
    "test_ui_errors.py": "unit",
    "test_store.py": "integration",
    "test_vectors.py": "integration",
    "test_parallel_ingest.py": "integration",
    "test_wording.py": "integration",
    "test_app.py": "e2e",
    "test_browser.py": "e2e",
    "test_cli.py": "e2e",
    "test_durability.py": "e2e",
    "test_remote_store.py": "e2e",
    "test_hostile.py": "e2e",
    "test_ocr.py": "e2e",
    "test_privacy.py": "e2e",
    "llm/test_real_model.py": "e2e",
}
# Tests whose tier is not their module's, by module and function name.
TEST_TIERS = {
    "test_evaluate.py::test_eval_writes_format_lines_and_prints_the_scores": "integration",
    "test_evaluate.py::test_eval_answers_a_which_contracts_question_as_the_app_and_ask_do": "integration",
    "test_evaluate.py::test_each_wording_style_is_ranked_by_its_own_fold_and_the_librarys_ranker_comes_back": "integration",
    "test_fields.py::test_the_governing_law_keeps_its_clause_page_and_words": "integration",
    "test_fields.py::test_the_stored_fields_of_some_contracts_are_read_alone": "integration",
    "test_fields.py::test_presence_flags_point_at_the_clauses_that_show_them": "integration",
    "test_fields.py::test_a_benchmarks_held_out_presence_model_reads_the_flags_again": "integration",
    "test_fields.py::test_each_contract_is_read_by_its_own_fold_model_and_the_model_in_use_stays": "integration",
    "test_fields.py::test_the_parties_are_read_from_the_words_that_introduce_them": "integration",
    "test_plan.py::test_synonyms_expand_the_keywords": "unit",
    "test_plan.py::test_model_specs": "unit",
    "test_plan.py::test_a_question_is_split_into_its_asks_only_where_a_new_question_begins": "unit",
    "test_plan.py::test_a_bad_model_spec_is_a_clear_error": "unit",
    "test_enumerate.py::test_the_cli_returns_the_complete_list_as_json": "e2e",
    "test_wording.py::test_a_request_over_many_contracts_is_recognised_by_its_form_and_its_topic_by_meaning": "unit",
    "test_wording.py::test_a_search_box_query_naming_a_law_over_several_contracts_lists_those_under_it": "unit",
    "test_wording.py::test_the_parties_names_are_read_as_roles": "unit",
    "test_ranking.py::test_a_ranker_trained_on_other_features_is_refused": "unit",
    "test_ranking.py::test_a_ranker_file_from_before_the_interactions_ranks_without_them_and_one_missing_its_basis_is_refused": "unit",
    "test_ranking.py::test_the_interaction_basis_follows_the_products_widest_spread": "unit",
    "test_spelling.py::test_a_misspelt_question_is_answered_as_the_spelt_one_and_says_how_it_was_read": "integration",
    "test_spelling.py::test_a_misspelt_search_finds_what_the_spelt_one_finds": "integration",
    "test_spelling.py::test_warming_up_loads_the_corrector_before_the_first_question": "integration",
}
TESTS_DIR = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    unmapped, misplaced = set(), []
    for item in items:
        module = item.path.relative_to(TESTS_DIR).as_posix()
        tier = TEST_TIERS.get(f"{module}::{item.originalname}", TIERS.get(module))
        if tier is None:
            unmapped.add(module)
        elif tier == "unit" and "sample_library" in item.fixturenames:
            misplaced.append(item.nodeid)
        else:
            item.add_marker(tier)
    if unmapped:
        raise pytest.UsageError(f"no test tier for {', '.join(sorted(unmapped))}: add it to TIERS in tests/conftest.py")
    if misplaced:
        raise pytest.UsageError(f"unit tests may not use the ingested sample_library: {', '.join(misplaced)} (TEST_TIERS in tests/conftest.py)")
