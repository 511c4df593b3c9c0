"""Hostile input: every file a user may drop in gets a plain verdict of its own, the rest of
the batch is ingested, and the contracts already in the library come through untouched.

The same batch (tests/hostile_inputs.py) goes through the service, the command line and
the app's uploader; each must say the same specific thing about each file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.embed import Embedder
from engine.ingest.clauses import segment
from engine.ingest.graph import build_graph
from engine.ingest.pdf import read_pdf
from engine.views.page_image import MAX_SIDE_PIXELS, render_page
from engine.service import Library
from engine.settings import PROJECT_ROOT, Settings
from models.document import IngestStatus
from tests.conftest import HIGHWAYS_NDA, MUTUAL_NDA
from tests.hostile_inputs import (
    BIG_BOOK_PAGES,
    GIANT_LINE_CHARS,
    LONG_NAME,
    UNICODE_NAME,
    HostileCorpus,
    build_corpus,
    giant_line_pdf,
    giant_line_text,
)

# Embedding costs time in proportion to the text: the batch's giant line is 20,000
# characters; the parser is tested on the full 200,000 below, without embedding.
BATCH_GIANT_LINE_CHARS = 20_000

LOCKED = "the PDF is locked with a password: it cannot be opened without it; add an unlocked copy"
CUT_SHORT = (
    "the file is incomplete: it stops after {size:,} bytes, before the end of the PDF "
    "(a download or copy that was cut short); add the whole file again"
)
DUPLICATE = f"already in the library as {UNICODE_NAME}; nothing to do"

# file name -> (pages, clauses) for the files that go in
INGESTED = {
    "owner-password-only.pdf": (1, 4),  # encrypted, but opens without a password
    "1500-pages.pdf": (BIG_BOOK_PAGES, 50),  # 50 articles of 30 pages
    "huge-image.pdf": (1, 4),
    "one-giant-line.pdf": (1, 1),  # the title and the line are one preamble clause
    UNICODE_NAME: (1, 4),
    LONG_NAME: (1, 4),
    MUTUAL_NDA.name: (2, 14),  # the good sample
}


def expected_failures(corpus: HostileCorpus) -> dict[str, str]:
    return {
        "needs-a-password.pdf": LOCKED,
        "cut-in-half.pdf": CUT_SHORT.format(size=corpus.truncated.stat().st_size),
        "empty.pdf": "the file is empty (0 bytes)",
        "meeting-notes.pdf": "not a PDF file: it holds plain text",
        "no-pages.pdf": "the PDF has no pages",
    }


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> HostileCorpus:
    return build_corpus(tmp_path_factory.mktemp("hostile"), giant_line_chars=BATCH_GIANT_LINE_CHARS)


@pytest.fixture(scope="session")
def one_contract(tmp_path_factory) -> tuple[Path, dict]:
    """A store holding one contract, and a snapshot of it; each test works on a copy."""
    store = tmp_path_factory.mktemp("one-contract") / "store"
    library = Library(store)
    [outcome] = library.ingest_paths([HIGHWAYS_NDA])
    assert outcome.status is IngestStatus.INGESTED, outcome.message
    assert library.wait_for_vectors().complete  # settled: nothing changes it afterwards
    return store, snapshot(library)


def copy_of(store: Path, folder: Path) -> Path:
    return Path(shutil.copytree(store, folder / "store"))


def snapshot(library: Library) -> dict:
    """Everything the library holds about the contract that was there before the batch,
    and what a question about it finds."""
    document = library.find(HIGHWAYS_NDA.name)
    detail = library.detail(document.doc_id)
    answer = library.ask("Which law governs this agreement?", [document.doc_id]).answer
    return {
        "document": document,
        "clauses": [(c.clause_id, c.ref, c.text) for c in detail.clauses],
        "edges": sorted((e.type.value, e.src, e.dst or "") for e in detail.edges),
        "pages": [page.text for page in library.store.pages(document.doc_id)],
        "windows": len(library.store.windows(document.doc_id)),
        "pdf": library.pdf_path(document.doc_id).read_bytes(),
        "citations": [(c.file_name, c.page, c.quote) for c in answer.citations],
    }


def assert_no_partial_rows(library: Library) -> None:
    """Every row of every table belongs to a whole document: a refused file left nothing."""
    documents = {d.doc_id for d in library.documents()}
    for table in ("clauses", "windows", "edges", "pages", "fields"):
        column = library.store.table(table).to_lance().to_table(columns=["doc_id"]).column("doc_id")
        assert set(column.to_pylist()) <= documents, table
    assert library.store.file_names_kept() == documents


# ------------------------------------------------------------------- service


@pytest.fixture(scope="module")
def service_batch(corpus, one_contract, tmp_path_factory):
    store, before = one_contract
    library = Library(copy_of(store, tmp_path_factory.mktemp("service")))
    outcomes = library.ingest_paths(corpus.batch() + [MUTUAL_NDA])
    return library, outcomes, before


def test_each_file_of_the_batch_gets_its_own_verdict(service_batch, corpus):
    _, outcomes, _ = service_batch
    failures = expected_failures(corpus)
    assert [o.file_name for o in outcomes] == [p.name for p in corpus.batch()] + [MUTUAL_NDA.name]
    verdicts = {}
    for outcome in outcomes[:-2] + outcomes[-1:]:  # the second copy of the unicode-named file is below
        if outcome.status is IngestStatus.FAILED:
            verdicts[outcome.file_name] = outcome.message
        else:
            assert outcome.status is IngestStatus.INGESTED and not outcome.warnings, outcome
            verdicts[outcome.file_name] = (outcome.pages, outcome.clauses)
    assert verdicts == failures | INGESTED
    second_copy = outcomes[-2]
    assert (second_copy.file_name, second_copy.status, second_copy.message) == (UNICODE_NAME, IngestStatus.UNCHANGED, DUPLICATE)


def test_the_contract_already_in_the_library_is_untouched(service_batch):
    library, _, before = service_batch
    assert snapshot(library) == before
    assert before["citations"][0][:2] == (HIGHWAYS_NDA.name, 7)  # clause 8.1: English law
    assert_no_partial_rows(library)
    assert sorted(d.file_name for d in library.documents()) == sorted([HIGHWAYS_NDA.name, *INGESTED])
    answers = library.ask("Which law governs this agreement?").per_contract  # each contract, hostile files included
    assert {(c.file_name, c.page) for c in answers.citations} >= {(MUTUAL_NDA.name, 2), (HIGHWAYS_NDA.name, 7)}


def test_the_1500_page_contract_keeps_its_pages_apart(service_batch):
    library, _, _ = service_batch
    document = library.find("1500-pages.pdf")
    last = library.detail(document.doc_id).clauses[-1]
    assert (last.ref, last.page_start, last.page_end) == ("50", 1471, 1500)
    assert last.text.startswith("50. ASSIGNMENT\nAssignment item 1471.\n")
    assert len(library.store.pages(document.doc_id)) == BIG_BOOK_PAGES


def test_the_giant_line_is_stored_whole_and_searchable(service_batch):
    library, _, _ = service_batch
    document = library.find("one-giant-line.pdf")
    [clause] = library.detail(document.doc_id).clauses
    assert clause.text == "GIANT LINE AGREEMENT\n" + giant_line_text(BATCH_GIANT_LINE_CHARS)
    windows = library.store.windows(document.doc_id)
    assert windows[0]["char_start"] == 0 and windows[-1]["char_end"] == len(clause.text)
    assert all(a["char_start"] < b["char_start"] < a["char_end"] for a, b in zip(windows, windows[1:]))  # overlapping, no gap
    hits = library.search("term 250 shall apply", [document.doc_id]).passages
    assert hits and hits[0].clause_id == clause.clause_id


def test_limits_are_settings_and_the_message_names_them(corpus, tmp_path):
    library = Library(settings=Settings(store=tmp_path / "store", limits={"max_pages": 1000, "max_upload_mb": 1}))
    oversized = tmp_path / "scan-of-the-archive.pdf"
    with oversized.open("wb") as file:  # 3 MB on paper, nothing on disk: the size is checked before reading
        file.write(b"%PDF-1.7\n")
        file.truncate(3 * 1024 * 1024)
    outcomes = library.ingest_paths([corpus.big_book, oversized])
    assert [(o.status, o.message) for o in outcomes] == [
        (IngestStatus.FAILED, "the PDF has 1,500 pages, more than the limit of 1,000 pages (setting max_pages)"),
        (IngestStatus.FAILED, "the file is 3.0 MB, more than the limit of 1 MB (setting max_upload_mb)"),
    ]
    upload = library.ingest_upload("upload.pdf", bytes(2 * 1024 * 1024))
    assert upload.message == "the file is 2.0 MB, more than the limit of 1 MB (setting max_upload_mb)"
    assert library.documents() == []
    assert Settings().limits.max_pages >= BIG_BOOK_PAGES  # the defaults take the 1,500-page contract


def test_a_200000_character_line_is_read_and_windowed_whole(tmp_path):
    path = giant_line_pdf(tmp_path / "giant.pdf")
    text = read_pdf(path)
    assert [line.text for line in text.lines] == ["GIANT LINE AGREEMENT", giant_line_text(GIANT_LINE_CHARS)]
    [clause] = build_graph("doc", text, segment(text), "giant").clauses
    windows = Embedder().windows(clause.text, clause.heading)
    assert windows[0].start == 0 and windows[-1].end == len(clause.text)
    assert all(a.start < b.start < a.end for a, b in zip(windows, windows[1:]))
    assert len(windows) == 192  # some 38,000 tokens, 198 new ones a window


def test_a_page_thirty_metres_wide_renders_at_a_bounded_size(corpus):
    png = render_page(corpus.giant_line, 1).png
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (MAX_SIDE_PIXELS, 134)  # the page: some 8,950 x 200 points
    huge_image = render_page(corpus.huge_image, 1).png  # a 10,000 x 10,000 picture is drawn at page size
    assert int.from_bytes(huge_image[16:20], "big") == round(612 * 110 / 72)


# ---------------------------------------------------------------------- CLI


def test_the_command_line_reports_each_file_on_one_line(corpus, one_contract, tmp_path):
    template, before = one_contract
    store = copy_of(template, tmp_path)
    files = corpus.batch() + [MUTUAL_NDA]
    result = subprocess.run(
        [sys.executable, "-m", "engine", "ingest", "--db", str(store), *map(str, files)],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {corpus.folder / name}: {message}" for name, message in expected_failures(corpus).items()]
    lines = result.stdout.splitlines()
    ingested = [line for line in lines if line.startswith("ingested ")]
    assert len(ingested) == len(INGESTED)
    for line, (name, (pages, clauses)) in zip(ingested, INGESTED.items()):
        assert line.startswith(f"ingested {name}: {pages} pages, {clauses} clauses, "), line
    assert f"unchanged {UNICODE_NAME}: {DUPLICATE}" in lines
    assert lines[-1] == "7 ingested, 1 unchanged, 5 failed"

    library = Library(store)
    assert snapshot(library) == before
    assert_no_partial_rows(library)


# ---------------------------------------------------------------------- app


def test_the_uploader_shows_each_files_verdict(corpus, one_contract, tmp_path, monkeypatch):
    store = copy_of(one_contract[0], tmp_path)
    monkeypatch.setenv("CLAUSEGRAPH_DB", str(store))
    at = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=240)
    at.run()
    assert at.subheader[0].value == "1 contract"
    files = [
        corpus.user_password, corpus.truncated, corpus.empty, corpus.text_named_pdf, corpus.zero_pages,
        corpus.owner_password, corpus.unicode_name, corpus.unicode_name,
    ]
    at.file_uploader[0].set_value([(p.name, p.read_bytes(), "application/pdf") for p in files]).run()
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [
        f"**{name}** was not added: {message}" for name, message in expected_failures(corpus).items()
    ]
    assert [s.value.split(", 0 definitions")[0] for s in at.success] == [
        "**owner-password-only.pdf**: 1 pages, 4 clauses", f"**{UNICODE_NAME}**: 1 pages, 4 clauses",
    ]
    assert [i.value for i in at.info] == [f"**{UNICODE_NAME}** is {DUPLICATE}"]
    assert at.subheader[0].value == "3 contracts"
    assert set(at.dataframe[0].value["File"]) == {HIGHWAYS_NDA.name, "owner-password-only.pdf", UNICODE_NAME}
    assert snapshot(Library(store)) == one_contract[1]


def test_the_app_uploader_stops_files_at_the_engine_s_size_limit():
    """Streamlit refuses a larger upload before the engine sees it, so a limit raised in only one
    of the two places would not be the limit the user meets."""
    config = tomllib.loads((PROJECT_ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == Settings().limits.max_upload_mb
