"""The command line, run as a user runs it: `python -m engine ...` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

from engine.settings import PROJECT_ROOT
from tests.conftest import MUTUAL_NDA


def engine(*args: str, python_options: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *python_options, "-m", "engine", *args], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300
    )


def test_ingest_list_show_delete(tmp_path):
    db = str(tmp_path / "store")
    not_a_pdf = tmp_path / "notes.pdf"
    not_a_pdf.write_text("meeting notes, not a contract")
    missing = tmp_path / "missing.pdf"

    result = engine("ingest", "--db", db, str(not_a_pdf), str(MUTUAL_NDA), str(missing))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"error: {not_a_pdf}: not a PDF file" in result.stderr
    assert f"error: {missing}: no such file" in result.stderr
    assert (
        "ingested Example-Mutual-Non-Disclosure-Agreement.pdf: 2 pages, 14 clauses, 3 definitions, "
        "references 5 resolved / 0 unresolved" in result.stdout
    )
    assert "1 ingested, 0 unchanged, 2 failed" in result.stdout

    again = engine("ingest", "--db", db, str(MUTUAL_NDA.parent / MUTUAL_NDA.name))
    assert again.returncode == 0 and "unchanged Example-Mutual-Non-Disclosure-Agreement.pdf" in again.stdout

    listing = json.loads(engine("--db", db, "list", "--json").stdout)  # --db before the command works too
    assert [d["file_name"] for d in listing] == [MUTUAL_NDA.name]
    doc_id = listing[0]["doc_id"]

    shown = json.loads(engine("show", doc_id[:10], "--db", db, "--json").stdout)
    assert {"doc_id", "file", "pages", "clauses", "definitions", "edges"} <= set(shown)
    assert shown["file"] == MUTUAL_NDA.name and shown["pages"] == 2
    clause = next(c for c in shown["clauses"] if c["ref"] == "5(a)")
    assert set(clause) >= {"id", "ref", "heading", "parent", "level", "clause_type", "page_start", "page_end", "text"}
    parent = next(c for c in shown["clauses"] if c["id"] == clause["parent"])
    assert parent["ref"] == "5" and clause["level"] == 2
    assert {"term": "Purpose", "ref": "1"} in [{"term": d["term"], "ref": d["ref"]} for d in shown["definitions"]]
    assert {("REFERENCES", "5", "3"), ("REFERENCES", "5", "4")} <= {(e["type"], e["src_ref"], e["dst_ref"]) for e in shown["edges"]}

    by_name = json.loads(engine("show", MUTUAL_NDA.name, "--db", db, "--json").stdout)
    assert by_name["doc_id"] == doc_id

    unknown = engine("show", "no-such-contract.pdf", "--db", db)
    assert unknown.returncode == 1 and unknown.stderr.startswith("error: no document matches")

    deleted = engine("delete", doc_id[:12], "--db", db)
    assert deleted.returncode == 0 and f"deleted {MUTUAL_NDA.name}" in deleted.stdout
    assert json.loads(engine("list", "--db", db, "--json").stdout) == []


def test_store_location_comes_from_the_environment(tmp_path):
    db = tmp_path / "from-env"
    result = subprocess.run(
        [sys.executable, "-m", "engine", "list"], cwd=PROJECT_ROOT, capture_output=True, text=True,
        env={"CLAUSEGRAPH_DB": str(db), "PATH": "/usr/bin:/bin"}, timeout=120,
    )
    assert result.returncode == 0 and "The library is empty" in result.stdout
    assert (db / "lance").is_dir()


def test_a_store_location_the_app_cannot_serve_is_refused_and_nothing_is_written(tmp_path):
    """`--db s3://bucket/lib` once wrote a local folder named `s3:` and reported success; a
    scheme the app does not serve is refused, and so is an s3:// store with no credentials."""
    for args, env, reason in (
        (["ingest", "--db", "gs://bucket/lib", str(MUTUAL_NDA)], {}, "gs://bucket/lib is not a folder on this machine or an S3 bucket."),
        (["list"], {"CLAUSEGRAPH_DB": "gs://bucket/lib"}, "gs://bucket/lib is not a folder on this machine or an S3 bucket."),
        (["list"], {"CLAUSEGRAPH_DB": "s3://bucket/lib"}, "s3://bucket/lib cannot be opened: no AWS credentials were found"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "engine", *args], cwd=tmp_path, capture_output=True, text=True,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PROJECT_ROOT), **env}, timeout=120,
        )
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert result.stderr.startswith(f"error: {reason}"), result.stderr
        assert result.stdout == "" and list(tmp_path.iterdir()) == []


def test_ask_prints_cited_answers_abstentions_and_the_format_json(tmp_path):
    db = str(tmp_path / "store")
    assert engine("ingest", "--db", db, str(MUTUAL_NDA)).returncode == 0

    result = engine("ask", "--db", db, "Which law governs this agreement?")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Answered by: extractive (no language model")
    assert "Governing law: England and Wales. Found in Section 10, page 2." in lines  # the field's value first, in one line
    assert f"  [1] {MUTUAL_NDA.name}, Section 10, page 2" in lines

    result = engine("ask", "--db", db, "--doc", MUTUAL_NDA.name, "--json", "Which law governs this agreement?")
    output = json.loads(result.stdout)
    assert {"id", "abstained", "answer", "context", "citations", "seconds"} <= set(output)
    assert output["abstained"] is False and output["backend"] == "extractive"
    assert output["citations"][0] == {
        "doc": MUTUAL_NDA.name, "page": 2,
        "quote": "This Agreement is governed by, and is to be construed in accordance with, English law.",
        "more": False,  # it states the answer; quotes folded as more evidence say "more": true
    }
    assert output["context"][0]["page"] == 2

    # A process that only asks embeds the question with the ONNX export: torch is never imported.
    timed = engine("ask", "--db", db, "Which law governs this agreement?", python_options=("-X", "importtime"))
    imported = {line.rsplit("|", 1)[1].strip() for line in timed.stderr.splitlines() if line.startswith("import time:")}
    assert timed.returncode == 0 and {"onnxruntime", "lancedb", "engine.query.retriever"} <= imported
    assert not {"torch", "transformers", "sentence_transformers"} & imported

    result = engine("ask", "--db", db, "Must source code be deposited in escrow?")
    assert result.returncode == 0
    assert "Not found: the selected contract does not appear to answer this." in result.stdout
    assert "Closest clauses, to check for yourself:" in result.stdout

    result = engine("ask", "--db", db, "--llm", "gpt4", "Which law governs this agreement?")
    assert result.returncode == 1 and result.stderr.startswith("error: unknown model backend") and "Traceback" not in result.stderr


def test_grid_and_review_print_cited_json_and_a_bad_playbook_gets_its_message(tmp_path):
    db = str(tmp_path / "store")
    assert engine("ingest", "--db", db, str(MUTUAL_NDA)).returncode == 0

    result = engine("grid", "--db", db, "--json", "governing_law", "Which law governs this agreement?")
    assert result.returncode == 0, result.stderr
    grid = json.loads(result.stdout)
    assert grid["questions"] == ["Which law governs this agreement?"] * 2  # the preset topic asks it in these words too
    [row] = grid["rows"]
    preset, free = row["cells"]
    assert row["file"] == MUTUAL_NDA.name and (preset["column"], free["column"][:2]) == ("governing_law", "q-")
    assert (preset["answer"], preset["abstained"]) == ("England and Wales", False)  # the contract's field
    assert free["abstained"] is False and free["answer"].startswith("This Agreement is governed by")  # the pipeline's answer
    for cell in (preset, free):
        assert (cell["citations"][0]["page"], cell["citations"][0]["ref"]) == (2, "10")

    result = engine("review", "--db", db, "--json")
    review = json.loads(result.stdout)
    assert review["playbook"] == "Default buyer playbook"
    verdicts = {v["rule"]: v for v in review["contracts"][0]["verdicts"]}
    assert (verdicts["governing_law"]["status"], verdicts["governing_law"]["found"]) == ("red", True)
    assert verdicts["governing_law"]["citations"][0]["page"] == 2
    assert all(v["status"] in ("green", "amber", "red") and v["why"] for v in verdicts.values())

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: Mine\nrules:\n  - id: cap\n    topic: liability_cap\n    expect: requird\n")
    result = engine("review", "--db", db, "--playbook", str(bad))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: {bad} has a problem:\n- rule 'cap', field `expect`: Input should be")
