"""Scoring as ../shared/bench/FORMAT.md defines it, and the eval command end to end."""

from __future__ import annotations

import json

from engine.cli import main
from engine.eval.scores import ContextPassage, Evidence, Output, Question, context_prefix, score, snippet_found, snippet_share
from engine.settings import SAMPLES_DIR, Settings
from engine.text.normalise import normalise
from tests.conftest import GCLOUD, HIGHWAYS_NDA, MUTUAL_NDA, read_jsonl

GOVERNED = "This Agreement is governed by, and is to be construed in accordance with, English law."


def test_long_snippets_need_four_fifths_of_their_five_grams():
    context = "the supplier shall keep full and accurate records of all charges for six years"
    assert snippet_found("the supplier shall keep full and accurate records of all charges for six years", context)
    # one word changed at the end breaks 1 of 11 five-grams: still found
    assert snippet_found("the supplier shall keep full and accurate records of all charges for seven years", context)
    # one word changed in the middle breaks 5 of 11: not found
    assert not snippet_found("the supplier shall keep full and complete records of all charges for six years", context)


def test_a_snippet_over_two_clauses_is_shared_between_them_and_found_in_neither():
    """The Highways NDA's lead-in 3.3 and its first part 3.3.1 are two clauses: a snippet that
    runs from one into the other is in neither alone, and in the two read in a row."""
    snippet = "the Receiving Party shall, if the circumstances permit: 3.3.1 notify the Disclosing Party in writing of the proposed disclosure"
    lead_in = normalise(
        "3.3 Before making a disclosure pursuant to Clause 3.2, the Receiving Party or relevant Receiving Party "
        "Authorised Person shall, if the circumstances permit:"
    )
    part = normalise("3.3.1 notify the Disclosing Party in writing of the proposed disclosure as soon as possible")
    assert (snippet_share(snippet, lead_in), snippet_share(snippet, part)) == (1 / 17, 9 / 17)
    assert not snippet_found(snippet, lead_in) and not snippet_found(snippet, part)
    assert snippet_share(snippet, lead_in + " " + part) == 14 / 17 and snippet_found(snippet, lead_in + " " + part)
    assert (snippet_share("English law", "governed by english law"), snippet_share("Scots law", "english law")) == (1.0, 0.0)


def test_short_snippets_must_occur_whole_after_normalising():
    assert snippet_found("“English Law”", "governed by english law.")
    assert not snippet_found("Scots law", "governed by english law.")


def test_normalising_follows_formats_rule_character_by_character():
    """FORMAT.md folds each character alone (NFKC, lower case, quotes straight) and makes every
    run of non-alphanumerics one space; the whole-text fast path gives the same text and offsets."""
    from engine.text.normalise import _normalise_by_character, locate, normalise, normalise_with_offsets

    text = "The “Licensee’s” ﬁnal fee_schedule: Café\u0301 ² §4.2 — ＡＢ１２ (see Section 8.2)"
    assert normalise(text) == "the licensee s final fee schedule café 2 4 2 ab12 see section 8 2"
    for sample in (text, "Plain ASCII, no surprises.", "e\u0301 underscore_a", "", "   ", "x"):
        assert normalise_with_offsets(sample) == _normalise_by_character(sample)
        assert normalise(sample) == _normalise_by_character(sample)[0]
    start, end = locate("licensee's final fee", text)[0]
    assert text[start:end] == "Licensee’s” ﬁnal fee"


def test_the_budget_cuts_the_joined_context():
    passages = [ContextPassage(doc="a.pdf", page=1, text="x" * 3990), ContextPassage(doc="a.pdf", page=2, text="the notice period is ninety days")]
    assert not snippet_found("notice period is ninety days", context_prefix(passages, 4000))
    assert snippet_found("notice period is ninety days", context_prefix(passages, 8000))


def test_recall_and_completeness_count_answerable_questions_only():
    questions = [
        Question(id="a", docs=["d.pdf"], question="?", evidence=[Evidence(text="alpha beta gamma delta epsilon"), Evidence(text="zeta eta theta iota kappa")]),
        Question(id="b", docs=["d.pdf"], question="?", evidence=[Evidence(text="lambda mu nu xi omicron")]),
        Question(id="c", docs=["d.pdf"], question="?", answerable=False, type="unanswerable"),
    ]
    outputs = {
        "a": Output(id="a", context=[ContextPassage(doc="d.pdf", page=1, text="Alpha, beta; gamma delta epsilon.")]),
        "b": Output(id="b", context=[ContextPassage(doc="d.pdf", page=1, text="lambda mu nu xi omicron")]),
        "c": Output(id="c"),
    }
    result = score(questions, outputs)
    assert result.answerable == 2
    assert result.recall[8000] == 2 / 3
    assert result.complete[8000] == 1 / 2


def test_eval_writes_format_lines_and_prints_the_scores(tmp_path, capsys):
    questions = tmp_path / "questions.jsonl"
    rows = [
        {"id": "q1", "docs": [MUTUAL_NDA.name], "question": "Which law governs this agreement?", "answerable": True,
         "hops": 1, "type": "clause", "evidence": [{"text": GOVERNED, "page": 2}]},
        {"id": "q2", "docs": [MUTUAL_NDA.name], "question": "What is the liability cap?", "answerable": False,
         "hops": 1, "type": "unanswerable", "evidence": []},
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "out.jsonl"
    code = main(["eval", "--db", str(tmp_path / "store"), "--questions", str(questions), "--out", str(out), "--data", str(SAMPLES_DIR)])
    printed = capsys.readouterr().out
    assert code == 0
    lines = read_jsonl(out)
    assert [line["id"] for line in lines] == ["q1", "q2"]
    assert set(lines[0]) == {"id", "abstained", "answer", "context", "citations", "seconds", "preset", "settings_hash"}
    assert {(line["preset"], line["settings_hash"]) for line in lines} == {("default", Settings().fingerprint())}
    first = lines[0]["context"][0]
    assert (first["doc"], first["page"]) == (MUTUAL_NDA.name, 2) and GOVERNED in " ".join(first["text"].split())
    assert "recall@4k" in printed and "complete@8k" in printed
    all_row = [line for line in printed.splitlines() if line.startswith("all ")][1]  # under the header
    assert all_row.split()[1:] == ["1", "1.000", "1.000", "1.000", "1.000"]
    assert "p95" in printed and "ingested 1/1" in printed
    # the extractive answerer filled the answers: q1 cited from page 2, q2 (no liability cap) abstained
    assert lines[0]["abstained"] is False and "English law" in lines[0]["answer"]
    assert lines[0]["citations"][0]["page"] == 2 and "English law" in lines[0]["citations"][0]["quote"]
    assert lines[1]["abstained"] is True and lines[1]["answer"] is None
    assert len(lines[1]["citations"]) == 3  # the closest clauses it shows, quoted for the reader to check
    assert "abstain recall 1.000, false-abstain 0.000" in printed
    assert "citation validity 1.000, citation page accuracy 1.000" in printed


def test_citations_of_pages_without_a_text_layer_are_counted_apart():
    from engine.eval.scores import Citation

    questions = [Question(id="a", docs=["d.pdf"], question="?", evidence=[Evidence(text="the cap is ten pounds", page=1)])]
    cited = [Citation(doc="d.pdf", page=1, quote="The cap is ten pounds."), Citation(doc="d.pdf", page=2, quote="Read from the scan.")]
    pages = {1: "1. The cap is ten pounds.", 2: ""}  # page 2 is an image: OCR read it, its text layer is empty
    result = score(questions, {"a": Output(id="a", citations=cited)}, lambda doc, page: pages.get(page))
    assert (result.citation_validity, result.citations_without_text_layer) == (0.5, 1)


def test_eval_answers_a_which_contracts_question_as_the_app_and_ask_do(tmp_path, capsys):
    """The harness routes an enumeration question through the app's pipeline: the same
    contracts as `engine ask --json`, one citation per listed contract."""
    samples = sorted(p.name for p in SAMPLES_DIR.glob("*.pdf"))
    question = "Which contracts are governed by English law?"
    row = {"id": "law", "docs": samples, "question": question, "answerable": True, "hops": 1, "type": "clause", "evidence": []}
    questions, out, store = tmp_path / "questions.jsonl", tmp_path / "out.jsonl", str(tmp_path / "store")
    questions.write_text(json.dumps(row) + "\n")
    assert main(["eval", "--db", store, "--questions", str(questions), "--out", str(out), "--data", str(SAMPLES_DIR)]) == 0
    printed = capsys.readouterr().out
    assert "1 question(s) answered as enumerations from the contract fields" in printed
    line = json.loads(out.read_text())
    assert main(["ask", "--db", store, "--json", question]) == 0
    asked = json.loads(capsys.readouterr().out)
    listed = sorted(d["file"] for d in asked["documents"])
    assert listed == sorted([MUTUAL_NDA.name, HIGHWAYS_NDA.name, GCLOUD.name])  # all three samples: English law
    assert sorted({c["doc"] for c in line["citations"]}) == listed == sorted(c["doc"] for c in asked["citations"])
    assert line["abstained"] is False and len(line["citations"]) == len(listed)


def test_quotes_are_scored_against_the_gold_spans_and_by_wording_style():
    from engine.eval.scores import Citation, by_style

    gold = "The Licensee may not assign this Agreement without the prior written consent of the Licensor."
    questions = [
        Question(id="a", docs=["d.pdf"], question="Can it be assigned?", style="cuad", evidence=[Evidence(text=gold, page=3)]),
        Question(id="b", docs=["d.pdf"], question="transfer ok?", style="keyword", evidence=[Evidence(text=gold, page=3)]),
        Question(id="c", docs=["d.pdf"], question="Is there a cap?", style="keyword", answerable=False),
    ]
    on_gold = Citation(doc="d.pdf", page=3, quote="may not assign this Agreement without the prior written consent")
    beside = Citation(doc="d.pdf", page=4, quote="This Agreement is governed by the laws of Delaware.")
    outputs = {
        "a": Output(id="a", citations=[beside, on_gold]),  # answered; the first quote misses the gold span
        "b": Output(id="b", abstained=True),  # a false abstention
        "c": Output(id="c", abstained=True),
    }
    overall = score(questions, outputs)
    assert (overall.first_quote_on_gold, overall.quotes_on_gold, overall.quotes_per_answer) == (0.0, 0.5, 2.0)
    styles = by_style(questions, outputs)
    assert list(styles) == ["cuad", "keyword"]
    assert (styles["cuad"].false_abstain, styles["keyword"].false_abstain, styles["keyword"].abstain_recall) == (0.0, 1.0, 1.0)


def test_scores_are_broken_down_by_cuad_category_and_contractnli_hypothesis():
    from engine.eval.scores import by_topic, format_groups

    gold = "The Receiving Party may disclose Confidential Information to its employees who need to know it."
    questions = [
        Question(id="n1", docs=["7.pdf"], question="Can staff see it?", hypothesis="nda-5", style="plain", evidence=[Evidence(text=gold, page=1)]),
        Question(id="n2", docs=["8.pdf"], question="employees?", hypothesis="nda-5", style="keyword", evidence=[Evidence(text=gold, page=1)]),
        Question(id="n3", docs=["8.pdf"], question="Can they reverse engineer it?", hypothesis="nda-10", answerable=False),
        Question(id="c1", docs=["d.pdf"], question="Which law governs?", category="Governing Law", answerable=False),
    ]
    outputs = {
        "n1": Output(id="n1", context=[ContextPassage(doc="7.pdf", page=1, text=gold)]),
        "n2": Output(id="n2", abstained=True, context=[ContextPassage(doc="8.pdf", page=1, text="Nothing to do with it.")]),
        "n3": Output(id="n3", answer="The Recipient may not reverse engineer the samples."),  # answered, should have abstained
        "c1": Output(id="c1", abstained=True),
    }
    topics = by_topic(questions, outputs)
    assert list(topics) == ["Governing Law", "nda-10", "nda-5"]
    assert (topics["nda-5"].recall[4000], topics["nda-5"].false_abstain) == (0.5, 0.5)
    assert (topics["nda-10"].abstain_recall, topics["Governing Law"].abstain_recall) == (0.0, 1.0)
    table = format_groups(topics, "topic")
    assert table.splitlines()[0].startswith("by topic") and "abstain-recall 0.000 (nda-10)" in table.splitlines()[-1]
    assert by_topic(questions[:0], outputs) == {}


def test_each_wording_style_is_ranked_by_its_own_fold_and_the_librarys_ranker_comes_back(sample_library, tmp_path):
    """`engine eval --ranker-folds` and `--lead-folds`: a question of a style is ranked, and its
    first quote chosen, by the models trained without that style; a style with no fold, and
    everything after, by the library's own."""
    import shutil

    from engine.answer.lead import MODEL_FILE as LEAD_FILE
    from engine.eval.harness import load_fold_leads, load_fold_rankers, wording_folds
    from engine.query.rank import MODEL_FILE

    (tmp_path / "rankers").mkdir()
    (tmp_path / "leads").mkdir()
    shutil.copy(MODEL_FILE, tmp_path / "rankers" / "scenario.npz")
    shutil.copy(LEAD_FILE, tmp_path / "leads" / "scenario.npz")
    folds, leads = load_fold_rankers(tmp_path / "rankers"), load_fold_leads(tmp_path / "leads")
    shipped, shipped_lead = sample_library.retriever.ranker, sample_library.engine.answerer.lead
    with wording_folds(sample_library, None, folds, leads) as read_as:
        read_as("scenario")
        assert sample_library.retriever.ranker is folds["scenario"] and folds["scenario"] is not shipped
        assert sample_library.engine.answerer.lead is leads["scenario"] and leads["scenario"] is not shipped_lead
        read_as("cuad")
        assert sample_library.retriever.ranker is shipped and sample_library.engine.answerer.lead is shipped_lead
        read_as("scenario")
    assert sample_library.retriever.ranker is shipped and sample_library.engine.answerer.lead is shipped_lead


def test_each_contract_gets_the_presence_fold_model_that_left_it_out(tmp_path):
    """`engine eval --presence-folds DIR`: contracts are named by file stem in contracts.json, as
    bench/train_presence.py --folds-out writes it; a contract no fold left out keeps the model in use."""
    import json

    from engine.eval.harness import fold_presence_models

    (tmp_path / "contracts.json").write_text(json.dumps({"fold0.npz": ["ABILITYINC_SERVICES_AGREEMENT"], "fold1.npz": ["OTHER"]}))
    model_of = fold_presence_models(tmp_path, {"cuad/pdf/ABILITYINC_SERVICES_AGREEMENT.pdf": "doc-1", "public/g-cloud.pdf": "doc-2"})
    assert model_of("doc-1") == tmp_path / "fold0.npz"
    assert model_of("doc-2") is None
