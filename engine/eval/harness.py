"""The evaluation harness: question files in, FORMAT.md output lines and score tables out.

    python -m engine eval --questions FILE --out FILE [--mode graph] [--data DIR] [--db DIR] [--llm none]

Documents named in the questions are ingested first if the store does not have them.
Each output line carries the ranked context passages (page and exact text); answers and
citations are filled by the answerer once there is one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from pydantic import BaseModel, Field

from engine.answer.citations import printed_pages
from engine.answer.lead import LeadModel
from engine.eval.folds import contract_id, fold_files
from engine.eval.output import to_output
from engine.eval.scores import (
    Output,
    Question,
    Scores,
    by_hops,
    by_style,
    by_target,
    by_topic,
    by_type,
    context_prefix,
    format_groups,
    format_table,
    score,
    snippet_found,
)
from engine.fields.presence import use_presence_model
from engine.fields.stored import FieldsReadNow
from engine.llm import parse_llm
from engine.query.meaning import QuestionModel
from engine.query.query_adapter import use_query_adapter
from engine.query.rank import LearnedRanker
from engine.service import Library
from engine.settings import PROJECT_ROOT
from engine.store.graphcache import DocGraph
from engine.text.normalise import normalise
from models.retrieval import Mode, Retrieval

DEFAULT_DATA = PROJECT_ROOT.parent / "shared" / "data"


class Misses(BaseModel):
    """Why evidence missed the 8k context: never reached, or reached and ranked out."""

    not_reachable: int = 0
    ranked_out: int = 0
    not_located: int = 0  # the snippet matches no single clause (it spans several, or parsing lost it)
    examples: list[str] = Field(default_factory=list)


class EvalReport(BaseModel):
    mode: Mode
    overall: Scores
    by_type: dict[str, Scores]
    by_hops: dict[str, Scores]
    by_style: dict[str, Scores] = Field(default_factory=dict)
    by_target: dict[str, Scores] = Field(default_factory=dict)
    by_topic: dict[str, Scores] = Field(default_factory=dict)
    misses: Misses

    def render(self, title: str) -> str:
        s = self.overall
        lines = [
            f"{title}: {s.questions} questions, {s.answerable} answerable, mode {self.mode.value}",
            format_table("all", {"all": s}),
            "",
            format_table("by type", self.by_type),
            "",
            format_table("by hops", self.by_hops),
            "",
            f"time per question: p50 {1000 * (s.p50_seconds or 0):.0f} ms, p95 {1000 * (s.p95_seconds or 0):.0f} ms",
            f"evidence missed at 8k: {self.misses.not_reachable} not reachable from the anchors, "
            f"{self.misses.ranked_out} reached but ranked out, {self.misses.not_located} not in any one clause",
        ]
        if s.listing_f1 is not None:
            lines.append(f"questions over many contracts: mean F1 of the contracts listed {s.listing_f1:.3f}")
            lines += [f"  {target:36} n {t.questions:>3}  F1 {t.listing_f1:.3f}" for target, t in self.by_target.items() if t.listing_f1 is not None]
        if s.abstain_recall is not None:
            lines.append(f"abstain recall {s.abstain_recall:.3f}, false-abstain {s.false_abstain:.3f}")
        if s.citation_validity is not None:
            lines.append(f"citation validity {s.citation_validity:.3f}, citation page accuracy {s.citation_page_accuracy or 0:.3f}")
            if s.citations_without_text_layer:
                lines.append(f"  of which {s.citations_without_text_layer} cite pages with no text layer (read by OCR), "
                             "which a check against the PDF's text layer cannot confirm")
            lines.append(f"answers whose citations quote every evidence snippet {s.citations_cover_all or 0:.3f}")
        if s.first_quote_on_gold is not None:
            lines.append(f"first quote on a gold span {s.first_quote_on_gold:.3f}, quotes on a gold span {s.quotes_on_gold:.3f} "
                         f"({s.quotes_per_answer:.1f} quotes per answer, and {s.more_per_answer:.1f} more evidence; "
                         f"{s.evidence_quotes_on_gold:.3f} on gold counting those)")
        if self.by_style:
            lines += ["", format_groups(self.by_style, "style")]
        if self.by_topic:
            lines += ["", format_groups(self.by_topic, "topic")]
        return "\n".join(lines)


def load_questions(path: Path) -> list[Question]:
    return [Question.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]


def ensure_documents(library: Library, questions: list[Question], data_dir: Path, say: Callable[[str], None] = print) -> dict[str, str]:
    """doc path (as the questions write it) -> doc_id, ingesting what the store lacks (or
    holds from an older parser)."""
    paths = sorted({doc for q in questions for doc in q.docs})
    mapping: dict[str, str] = {}
    outcomes = []
    for number, doc in enumerate(paths, start=1):
        file = data_dir / doc
        if not file.is_file():
            raise FileNotFoundError(f"{doc} is not in {data_dir}")
        outcome = library.ingest_file(file)
        if outcome.status.value == "failed":
            say(f"error: {doc}: {outcome.message}")
            continue
        if outcome.status.value == "ingested":
            say(f"ingested {number}/{len(paths)}: {doc} ({outcome.seconds:.1f} s)")
        outcomes.append(outcome)
        mapping[doc] = outcome.doc_id
    library.refresh_indexes(outcomes)
    if library.makes_full_vectors and library.vector_status().pending:  # measure the library as it settles,
        say("making full vectors")  # not the seconds after an upload
        library.wait_for_vectors()
    return mapping


def run(
    library: Library,
    questions: list[Question],
    mapping: dict[str, str],
    mode: Mode,
    out: Path | None = None,
    answer: bool = False,
    fold_models: dict[str, QuestionModel] | None = None,
    fold_rankers: dict[str, LearnedRanker] | None = None,
    fold_leads: dict[str, LeadModel] | None = None,
) -> tuple[dict[str, Output], dict[str, Retrieval]]:
    """Every question through the app's own pipeline (`QueryEngine.run`): retrieval, and the
    answer when `answer` is set; an enumeration question is answered from the contract fields,
    as the app answers it. Returns the output lines and the retrievals (none for enumerations).

    `fold_models`: wording style -> a question model trained without that style; a question
    of the style is read by it, so the figures are cross-validated by wording; `fold_rankers`
    and `fold_leads` likewise rank it, and choose its first quote, with models trained without
    that style's questions."""
    outputs: dict[str, Output] = {}
    retrievals: dict[str, Retrieval] = {}
    reverse = {doc_id: doc for doc, doc_id in mapping.items()}
    # Warm the model and each document's graph so timings measure retrieval alone.
    library.embedder.encode(["warm up"])
    library.retriever.graphs(sorted(set(mapping.values())))
    with wording_folds(library, fold_models, fold_rankers, fold_leads) as read_as, (out.open("w") if out else nullcontext()) as handle:
        for question in questions:
            read_as(question.style)
            started = time.perf_counter()
            doc_ids = [mapping[d] for d in question.docs]
            result = library.engine.run(question.question, doc_ids, mode=mode, answer=answer, cite_all=True)
            output = to_output(question.id, result, reverse.__getitem__)
            output.seconds = round(time.perf_counter() - started, 4)
            outputs[question.id] = output
            if result.retrieval is not None:
                retrievals[question.id] = result.retrieval
            if handle:
                handle.write(output.model_dump_json() + "\n")
    return outputs, retrievals


@contextmanager
def wording_folds(
    library: Library,
    fold_models: dict[str, QuestionModel] | None,
    fold_rankers: dict[str, LearnedRanker] | None = None,
    fold_leads: dict[str, LeadModel] | None = None,
) -> Iterator[Callable[[str | None], None]]:
    """Within it, `read_as(style)` has the next question read by the question model, ranked by
    the ranker and quoted first by the lead model trained without that style (the library's own
    for a style with no fold); the library's own after."""
    meaning, ranker, lead = library.engine.meaning, library.retriever.ranker, library.engine.answerer.lead

    def read_as(style: str | None) -> None:
        library.engine.meaning = (fold_models or {}).get(style or "", meaning)
        library.retriever.ranker = (fold_rankers or {}).get(style or "", ranker)
        library.engine.answerer.lead = (fold_leads or {}).get(style or "", lead)

    try:
        yield read_as
    finally:
        library.engine.meaning, library.retriever.ranker, library.engine.answerer.lead = meaning, ranker, lead


def load_fold_rankers(folder: Path) -> dict[str, LearnedRanker]:
    """`<style>.npz` rankers of a folder (bench/train_ranker.py --fold-rankers-out writes them), by style."""
    rankers = {path.stem: LearnedRanker(path) for path in sorted(folder.glob("*.npz"))}
    if not rankers:
        raise FileNotFoundError(f"no rankers (<style>.npz) in {folder}")
    return rankers


def load_fold_leads(folder: Path) -> dict[str, LeadModel]:
    """`<style>.npz` first-quote models of a folder (bench/train_lead_model.py --fold-models-out writes them), by style."""
    leads = {path.stem: LeadModel(path) for path in sorted(folder.glob("*.npz"))}
    if not leads:
        raise FileNotFoundError(f"no first-quote models (<style>.npz) in {folder}")
    return leads


def load_fold_models(folder: Path) -> dict[str, QuestionModel]:
    """`<style>.npz` files of a folder (bench/phrasings/folds.py writes them), by style."""
    models = {path.stem: QuestionModel(path) for path in sorted(folder.glob("*.npz"))}
    if not models:
        raise FileNotFoundError(f"no question models (<style>.npz) in {folder}")
    return models


def report(library: Library, questions: list[Question], outputs: dict[str, Output], retrievals: dict[str, Retrieval], mapping: dict[str, str], mode: Mode) -> EvalReport:
    page_text = _page_reader(library, mapping)
    return EvalReport(
        mode=mode,
        overall=score(questions, outputs, page_text),
        by_type=by_type(questions, outputs),
        by_hops=by_hops(questions, outputs),
        by_style=by_style(questions, outputs),
        by_target=by_target(questions, outputs),
        by_topic=by_topic(questions, outputs),
        misses=classify_misses(library, questions, outputs, retrievals, mapping),
    )


def classify_misses(library, questions, outputs, retrievals, mapping) -> Misses:
    """For each snippet missing from the 8k context: was its clause ever reached?"""
    misses = Misses()
    for question in questions:
        if not question.answerable or question.id not in retrievals or question.gold_docs is not None:
            continue  # a listing's evidence is every labelled span of every listed contract: not one context's
        text = context_prefix(outputs[question.id].context, 8000)
        retrieval = retrievals[question.id]
        graphs = library.retriever.graphs([mapping[d] for d in question.docs])
        for evidence in question.evidence:
            if snippet_found(evidence.text, text):
                continue
            holder = _holder(graphs, evidence.text)
            if holder is None:
                misses.not_located += 1
            elif holder in retrieval.considered:
                misses.ranked_out += 1
            else:
                misses.not_reachable += 1
                if len(misses.examples) < 20:
                    misses.examples.append(f"{question.id}: {holder.split(':', 1)[1]} — {evidence.text[:70]}")
    return misses


def _holder(graphs: list[DocGraph], snippet: str) -> str | None:
    for graph in graphs:
        for clause in graph.clauses:
            if snippet_found(snippet, normalise(clause.text)):
                return clause.clause_id
    return None


def _page_reader(library: Library, mapping: dict[str, str]) -> Callable[[str, int], str | None]:
    """Page text as PyMuPDF reads the original PDF: what a reader (or an outside scorer)
    sees on the page, not the engine's own reassembled text."""

    def page_text(doc: str, page: int) -> str | None:
        doc_id = mapping.get(doc)
        if doc_id is None:
            return None
        pages = printed_pages(str(library.pdf_path(doc_id)))
        return pages[page - 1] if 1 <= page <= len(pages) else None

    return page_text


def fold_presence_models(folder: Path, mapping: dict[str, str]) -> Callable[[str], Path | None]:
    """Doc id -> the presence fold model that never read that contract's labels (None: none
    left it out), from the folds bench/train_presence.py --folds-out writes."""
    model_of = fold_files(folder)
    by_doc = {doc_id: model_of.get(contract_id(doc)) for doc, doc_id in mapping.items()}
    return by_doc.get


def main(args, library: Library) -> int:
    data_dir = Path(args.data) if args.data else DEFAULT_DATA
    questions = load_questions(Path(args.questions))
    mapping = ensure_documents(library, questions, data_dir)
    mode = Mode(args.mode)
    library.use_llm(parse_llm(args.llm))
    if args.presence_model:
        use_presence_model(Path(args.presence_model))
        library.engine.fields = FieldsReadNow(library.graph)
        print(f"clause categories scored and contract flags read by {args.presence_model}, a presence model trained without these contracts")
    if args.presence_folds:
        library.engine.fields = FieldsReadNow(library.graph, fold_presence_models(Path(args.presence_folds), mapping))
        print(f"contract flags read by the fold models of {args.presence_folds}, each contract's by the one that never read its labels")
    if args.ranker:
        library.retriever.ranker = LearnedRanker(Path(args.ranker))
        print(f"ranked by {args.ranker}, a ranker trained without these contracts")
    if args.query_adapter:
        use_query_adapter(Path(args.query_adapter))
        print(f"searched with {args.query_adapter}, a query adapter fitted without these contracts")
    folds = load_fold_models(Path(args.fold_models)) if args.fold_models else None
    if folds:
        print(f"cross-validated by wording: questions of style {', '.join(folds)} are read by a question model trained without it")
    rankers = load_fold_rankers(Path(args.ranker_folds)) if args.ranker_folds else None
    if rankers:
        print(f"ranked by wording fold: questions of style {', '.join(rankers)} are ranked by a ranker trained without it")
    leads = load_fold_leads(Path(args.lead_folds)) if args.lead_folds else None
    if leads:
        print(f"first quotes by wording fold: questions of style {', '.join(leads)} are quoted by a model trained without it")
    outputs, retrievals = run(
        library, questions, mapping, mode, Path(args.out), answer=not args.no_answer, fold_models=folds, fold_rankers=rankers, fold_leads=leads
    )
    result = report(library, questions, outputs, retrievals, mapping, mode)
    print(f"settings: preset {library.settings.preset}, hash {library.settings.fingerprint()}")
    enumerations = len(outputs) - len(retrievals)
    if enumerations:
        print(f"{enumerations} question(s) answered as enumerations from the contract fields, as the app answers them")
    print(result.render(Path(args.questions).name))
    return 0
