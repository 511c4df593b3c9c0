"""The command line: ingest, list, show and delete contracts; ask and evaluate; grid and review.

    python -m engine ingest [--db DIR] [--no-wait] PATH...
    python -m engine list [--db DIR] [--json]
    python -m engine show DOC [--db DIR] [--json]
    python -m engine delete DOC [--db DIR]
    python -m engine ask [--db DIR] [--doc DOC ...] [--llm SPEC] [--json] QUESTION
    python -m engine eval --questions FILE --out FILE [--mode] [--llm SPEC] [--no-answer]
    python -m engine grid [--db DIR] [--doc DOC ...] [--json] [QUESTION ...]
    python -m engine review [--db DIR] [--playbook FILE] [--doc DOC ...] [--json]

Every command takes --preset NAME (engine/presets/NAME.json; default: default).

Errors are one line on stderr, never a traceback; the exit code is 1 when anything failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.errors import ClausegraphError
from engine.ingest.parse import Progress
from models.document import DocumentDetail, IngestOutcome, IngestStatus


def _parser() -> argparse.ArgumentParser:
    db_help = "the store: a folder, or s3://BUCKET/PREFIX on S3-compatible storage (default: $CLAUSEGRAPH_DB or data/store)"
    parser = argparse.ArgumentParser(prog="python -m engine", description="Clausegraph contract library")
    preset_help = "settings preset (engine/presets/NAME.json; default: default)"
    parser.add_argument("--db", metavar="DIR", help=db_help)
    parser.add_argument("--preset", metavar="NAME", help=preset_help)
    # --db and --preset may also follow the command; SUPPRESS keeps an absent one from erasing one given before it
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", metavar="DIR", default=argparse.SUPPRESS, help=db_help)
    common.add_argument("--preset", metavar="NAME", default=argparse.SUPPRESS, help=preset_help)
    commands = parser.add_subparsers(dest="command", required=True)

    ingest = commands.add_parser("ingest", parents=[common], help="add PDF files or folders of PDFs")
    ingest.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    ingest.add_argument(
        "--ray", nargs="?", const="", default=None, metavar="ADDRESS",
        help="parse, structure and embed on Ray: a local Ray instance, or the cluster at ADDRESS (ray://HOST:PORT or auto)",
    )
    ingest.add_argument("--ray-workers", type=int, metavar="N", help="with --ray and no ADDRESS: the local instance's CPUs (default: all)")
    ingest.add_argument(
        "--no-wait", action="store_true",
        help="return once the contracts are searchable (quick vectors); their full vectors are made when the app next opens the store",
    )

    listing = commands.add_parser("list", parents=[common], help="list ingested contracts")
    listing.add_argument("--json", action="store_true", help="print JSON")

    show = commands.add_parser("show", parents=[common], help="show one contract's clause graph")
    show.add_argument("doc", metavar="DOC", help="file name, a unique prefix of it, or a doc_id prefix")
    show.add_argument("--json", action="store_true", help="print JSON")

    delete = commands.add_parser("delete", parents=[common], help="remove a contract and all its rows")
    delete.add_argument("doc", metavar="DOC", help="file name, a unique prefix of it, or a doc_id prefix")

    evaluate = commands.add_parser("eval", parents=[common], help="run a question file and print its scores")
    evaluate.add_argument("--questions", required=True, metavar="FILE", help="question file (../shared/bench/FORMAT.md)")
    evaluate.add_argument("--out", required=True, metavar="FILE", help="where to write one output line per question")
    evaluate.add_argument("--mode", default="graph", choices=["keyword", "vector", "hybrid", "graph"])
    evaluate.add_argument("--data", metavar="DIR", help="folder the questions' doc paths are relative to (default ../shared/data)")
    evaluate.add_argument("--llm", default="none", help="none (extractive answers), ollama:MODEL or openai:URL#MODEL")
    evaluate.add_argument("--no-answer", action="store_true", help="retrieve only: leave answer, abstained and citations empty")
    evaluate.add_argument("--ranker", metavar="FILE", help="cross-validate by contract: a ranker trained without these contracts (bench/train_ranker.py --held-out-model)")
    evaluate.add_argument("--presence-model", metavar="FILE", help="cross-validate by contract: a presence model trained without these contracts (bench/train_presence.py --hold-docs)")
    evaluate.add_argument("--presence-folds", metavar="DIR", help="cross-validate contract flags by contract: each contract's fields are read by the fold model that never read its labels (bench/train_presence.py --folds-out)")
    evaluate.add_argument("--query-adapter", metavar="FILE", help="cross-validate by contract: a query adapter fitted without these contracts (bench/train_query_adapter.py --held-out-model)")
    evaluate.add_argument("--set", action="append", default=[], metavar="SECTION.NAME=VALUE", help="override one setting of the preset (repeatable)")
    evaluate.add_argument("--ranker-folds", metavar="DIR", help="cross-validate the ranking by wording: DIR/<style>.npz ranks the questions of that style (bench/train_ranker.py --fold-rankers-out)")
    evaluate.add_argument("--lead-folds", metavar="DIR", help="cross-validate the first quote by wording: DIR/<style>.npz chooses it for the questions of that style (bench/train_lead_model.py --fold-models-out)")
    evaluate.add_argument("--fold-models", metavar="DIR", help="cross-validate by wording: DIR/<style>.npz reads the questions of that style (bench/phrasings/folds.py)")

    ask = commands.add_parser("ask", parents=[common], help="answer a question with cited quotes, or abstain")
    ask.add_argument("question", metavar="QUESTION")
    ask.add_argument("--doc", action="append", metavar="DOC", help="a contract in scope (file name, a unique prefix of it, or a doc_id prefix); repeat for more; default all")
    ask.add_argument("--llm", default="none", help="none (extractive answer), ollama:MODEL or openai:URL#MODEL")
    ask.add_argument("--mode", default="graph", choices=["keyword", "vector", "hybrid", "graph"])
    ask.add_argument("--json", action="store_true", help="print the harness output object (../shared/bench/FORMAT.md)")

    grid = commands.add_parser("grid", parents=[common], help="ask the same questions of every contract: a review grid")
    grid.add_argument("questions", nargs="*", metavar="QUESTION", help="a question, or a preset topic id (governing_law, liability_cap, ...); default: the grid the app keeps, else every preset")
    grid.add_argument("--doc", action="append", metavar="DOC", help="a contract in scope; repeat for more; default all")
    grid.add_argument("--json", action="store_true", help="print JSON")

    review = commands.add_parser("review", parents=[common], help="judge contracts against a playbook: green, amber, red")
    review.add_argument("--playbook", metavar="FILE", type=Path, help="a playbook YAML file (default: data/playbooks/default.yaml)")
    review.add_argument("--doc", action="append", metavar="DOC", help="a contract in scope; repeat for more; default all")
    review.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _library(args):
    from engine.service import Library
    from engine.settings import Settings, overrides, store_location

    if not getattr(args, "set", None):
        return Library(args.db, preset=args.preset)
    return Library(settings=Settings(store=store_location(args.db), preset=args.preset, **overrides(args.set)))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        library = _library(args)
        return _COMMANDS[args.command](library, args)
    except ClausegraphError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _ingest(library, args) -> int:
    from tqdm import tqdm

    from engine.service import expand_paths

    from engine.ingest.ray_batch import looks_like_address

    if args.ray and not looks_like_address(args.ray):  # `--ray PATH ...`: no address, the path is the first file
        args.paths.insert(0, Path(args.ray))
        args.ray = ""
    files = expand_paths(args.paths)
    if not files:
        print("error: no PDF files found in the paths given", file=sys.stderr)
        return 1
    bar = tqdm(
        total=len(files) * 100, file=sys.stderr, disable=None, mininterval=0.2,
        bar_format="{desc} |{bar}| {percentage:3.0f}%",
    )
    weights = {"parse": (0, 10), "structure": (10, 5), "embed": (15, 80), "store": (95, 5)}
    outcomes: list[IngestOutcome] = []

    def progress(event: Progress) -> None:
        offset, span = weights[event.stage.value]
        done = len(outcomes) * 100 + offset + span * event.fraction
        bar.set_description_str(f"{event.file_name[:40]}: {event.stage.value} {event.message}"[:80])
        bar.n = min(done, bar.total)
        bar.refresh()

    batch = library.ingest_many(files, progress) if args.ray is None else library.ingest_on_ray(files, args.ray or None, args.ray_workers, progress)
    for path, outcome in zip(files, batch):  # an outcome per file, in order
        outcomes.append(outcome)
        bar.n = len(outcomes) * 100
        bar.refresh()
        tqdm.write(_summary(outcome, path), file=sys.stderr if outcome.status is IngestStatus.FAILED else sys.stdout)
    bar.close()
    library.refresh_indexes(outcomes)
    failed = sum(1 for o in outcomes if o.status is IngestStatus.FAILED)
    ingested = sum(1 for o in outcomes if o.status is IngestStatus.INGESTED)
    if library.makes_full_vectors and not args.no_wait:
        _wait_for_vectors(library)
    print(f"{ingested} ingested, {len(outcomes) - ingested - failed} unchanged, {failed} failed")
    return 1 if failed else 0


def _wait_for_vectors(library) -> None:
    """The contracts are searchable already; show the full vectors being made, then say so."""
    from tqdm import tqdm

    status = library.vector_status()
    if not status.pending:
        return
    library.complete_vectors_in_background()
    total = len(status.pending)
    bar = tqdm(total=total * 100, file=sys.stderr, disable=None, mininterval=0.2, bar_format="{desc} |{bar}| {percentage:3.0f}%")
    while not library.vectors.wait(timeout=0.5):
        status = library.vector_status()
        bar.n = min((total - len(status.pending)) * 100 + int(status.fraction * 100), bar.total)
        bar.set_description_str(f"full vectors: {status.working_on or ''}"[:80])
        bar.refresh()
    bar.close()
    status = library.vector_status()
    if status.error:
        print(f"warning: full vectors stopped: {status.error}; those contracts stay searchable with quick vectors", file=sys.stderr)
    print(f"full vectors ready for {status.ready} of {status.ready + len(status.pending)} contracts")


def _summary(outcome: IngestOutcome, path: Path) -> str:
    if outcome.status is IngestStatus.FAILED:
        return f"error: {path}: {outcome.message}"
    if outcome.status is IngestStatus.UNCHANGED:
        return f"unchanged {outcome.file_name}: {outcome.message}"
    line = (
        f"ingested {outcome.file_name}: {outcome.pages} pages, {outcome.clauses} clauses, "
        f"{outcome.definitions} definitions, references {outcome.references_resolved} resolved / "
        f"{outcome.references_unresolved} unresolved, {outcome.seconds:.1f} s"
    )
    return "\n".join([line] + [f"  warning: {w}" for w in outcome.warnings])


def _list(library, args) -> int:
    documents = library.documents()
    if args.json:
        print(json.dumps([d.model_dump(mode="json") for d in documents], indent=2))
        return 0
    if not documents:
        print("The library is empty. Add contracts with: python -m engine ingest PATH...")
        return 0
    print(f"{'doc_id':12}  {'pages':>5}  {'clauses':>7}  {'defs':>5}  {'refs':>9}  file")
    for d in documents:
        refs = f"{d.references_resolved}/{d.references_resolved + d.references_unresolved}"
        print(f"{d.doc_id[:12]}  {d.pages:>5}  {d.clauses:>7}  {d.definitions:>5}  {refs:>9}  {d.file_name}")
    return 0


def show_json(detail: DocumentDetail) -> dict:
    """The shape `engine show --json` prints (documented in the README)."""
    document = detail.document
    refs = {c.clause_id: c.ref for c in detail.clauses}
    return {
        "doc_id": document.doc_id,
        "file": document.file_name,
        "title": document.title,
        "pages": document.pages,
        "clauses": [
            {
                "id": c.clause_id,
                "ref": c.ref,
                "heading": c.heading,
                "parent": c.parent_id,
                "parent_ref": c.parent_ref,
                "level": c.level,
                "clause_type": c.clause_type.value,
                "page_start": c.page_start,
                "page_end": c.page_end,
                "text": c.text,
            }
            for c in detail.clauses
        ],
        "definitions": [{"term": d.term, "ref": d.ref, "id": d.clause_id} for d in detail.definitions],
        "edges": [
            {"type": e.type.value, "src": e.src, "dst": e.dst, "src_ref": e.src_ref, "dst_ref": e.dst_ref, "label": e.label}
            for e in detail.edges
            if e.dst is not None
        ],
        "unresolved_references": [
            {"src": e.src, "src_ref": refs.get(e.src, e.src_ref), "label": e.label}
            for e in detail.edges
            if e.dst is None
        ],
    }


def _show(library, args) -> int:
    detail = library.detail(args.doc)
    if args.json:
        print(json.dumps(show_json(detail), indent=2, ensure_ascii=False))
        return 0
    d = detail.document
    print(f"{d.title} ({d.file_name}, {d.pages} pages, doc_id {d.doc_id[:12]})")
    for c in detail.clauses:
        heading = f" {c.heading}" if c.heading else ""
        print(f"{'  ' * (c.level - 1)}{c.ref}{heading}  [{c.clause_type.value}, p.{c.page_start}]")
    print(f"{len(detail.definitions)} definitions, {sum(1 for e in detail.edges if e.type.value == 'REFERENCES' and e.dst)} references")
    return 0


def _delete(library, args) -> int:
    document = library.delete(args.doc)
    print(f"deleted {document.file_name} ({document.doc_id[:12]})")
    return 0


def _eval(library, args) -> int:
    from engine.eval.harness import main as run_eval

    return run_eval(args, library)


def _ask(library, args) -> int:
    """Plain output names the backend that answered, the answer with [n] marks, and each
    citation with file, section and page; `--json` prints the harness output object of
    ../shared/bench/FORMAT.md (docs named by file name) plus the backend, or for a question
    over every contract `{"documents": [...], "citations": [...]}`."""
    from engine.eval.output import to_output
    from engine.llm import parse_llm
    from engine.views.ask_text import enumeration_json, render, render_enumeration, render_per_contract
    from models.retrieval import Mode

    library.use_llm(parse_llm(args.llm))
    documents = library.documents()
    if not documents:
        print("error: the library is empty; add contracts with: python -m engine ingest PATH...", file=sys.stderr)
        return 1
    doc_ids = _scope(library, args.doc)
    streaming = not args.json and sys.stderr.isatty()
    result = library.engine.run(args.question, doc_ids, mode=Mode(args.mode), on_text=_drafting if streaming else None, cite_all=True)
    if result.enumeration is not None:
        listing = result.enumeration
        print(json.dumps(enumeration_json(listing), indent=2, ensure_ascii=False) if args.json else render_enumeration(listing))
        return 0
    if args.json:
        names = {d.doc_id: d.file_name for d in documents}
        output = to_output("ask", result, names.__getitem__).model_dump()
        output["backend"] = result.answer.answered_by
        print(json.dumps(output, indent=2, ensure_ascii=False))
        return 0
    print(render_per_contract(result.per_contract) if result.per_contract is not None else render(result.answer))
    return 0


def _grid(library, args) -> int:
    from engine.review.desk import preset_columns, question_column, topic_column
    from engine.review.topics import TOPICS
    from engine.views.review_text import grid_json, render_grid

    if args.questions:
        columns = [topic_column(q) if q in TOPICS else question_column(q) for q in args.questions]
    else:
        columns = library.reviews.columns() or preset_columns()
    doc_ids = _scope(library, args.doc)
    with _counting("cells") as progress:
        grid = library.reviews.fill(doc_ids, on_progress=progress, columns=columns)
    print(json.dumps(grid_json(grid), indent=2, ensure_ascii=False) if args.json else render_grid(grid))
    return 0


def _review(library, args) -> int:
    from engine.review.playbook import load_playbook
    from engine.views.review_text import render_review, review_json

    playbook = load_playbook(args.playbook)
    doc_ids = _scope(library, args.doc)
    with _counting("verdicts") as progress:
        review = library.reviews.review(playbook, doc_ids, on_progress=progress)
    print(json.dumps(review_json(review), indent=2, ensure_ascii=False) if args.json else render_review(review))
    return 0


@contextmanager
def _counting(unit: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr for a long grid or review (none when stderr is not a terminal)."""
    from tqdm import tqdm

    with tqdm(unit=f" {unit}", file=sys.stderr, disable=not sys.stderr.isatty(), leave=False) as bar:
        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        yield progress


def _scope(library, names: list[str] | None) -> list[str] | None:
    """The doc ids of the contracts named by `--doc` (file names or unique prefixes); None, all, without."""
    return [library.find(name).doc_id for name in names] if names else None


def _drafting(text: str) -> None:
    print(f"\rdrafting… {len(text)} characters", end="", file=sys.stderr, flush=True)


_COMMANDS = {
    "ingest": _ingest, "list": _list, "show": _show, "delete": _delete, "eval": _eval, "ask": _ask, "grid": _grid, "review": _review,
}
