"""The small service API that the Streamlit pages and the command line call.

Pages never touch the store or the pipeline directly: they ask a Library.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from engine.answer.answerer import Answerer
from engine.answer.citations import Citer
from engine.answer.generate import TextCallback
from engine.embed import Embedder
from engine.errors import EmbeddingMismatchError
from engine.fields.presence import presence_model
from engine.fields.stored import StoredFields
from engine.ingest.parallel import ParserPool
from engine.ingest.sources import expand_paths, failed, read_file, readable, size_problem
from engine.ingest.parse import for_item
from engine.ingest.pipeline import Progress, ProgressCallback, Stage, ingest_bytes, no_progress
from engine.llm import Backend, HostStatus, LLMSpec, host_status, local_model, ollama_host
from engine.memory import limit_arenas
from engine.pipeline import CountProgress, QueryEngine
from engine.query.retriever import Retriever
from engine.review.cells import CellFiller
from engine.review.desk import ReviewDesk, preset_columns, question_column, topic_column
from engine.review.playbook import DEFAULT_PLAYBOOK, PlaybookError, dump_playbook, load_playbook, parse_playbook
from engine.settings import SAMPLES_DIR, Settings, presets, store_location
from engine.static_embed import STATIC_MODEL_NAME, QuestionLikeness, StaticEmbedder
from engine.store.clause_store import ClauseStore
from engine.store.graphcache import DocGraph, GraphCache
from engine.store.grid_table import GridTable
from engine.vectors import VectorStatus, VectorWorker
from engine.views.export import conversation_markdown
from engine.views.graph_layout import GraphLayout, joining_path, layout
from engine.views.page_image import PageImage, render_page
from engine.views.review_export import grid_csv, grid_xlsx, review_csv, review_markdown
from models.answer import Citation, Rect, SearchHit
from models.clause import Clause
from models.document import Document, DocumentDetail, IngestOutcome, IngestStatus
from models.enumeration import Enumeration
from models.edge import EdgeType
from models.fields import ContractFields, FieldValue
from models.plan import Filters, QueryPlan
from models.result import QueryResult
from models.retrieval import Mode, Passage, Retrieval

# A long batch compacts the store's files every this many contracts: each contract adds a file
# to every table, and reads and commits over hundreds of small files slow every later one
# (300 contracts: 107 s without, 81 s with; refresh_indexes compacts the rest at the end).
_COMPACT_EVERY = 100

__all__ = [
    "Backend", "GraphLayout", "GraphView", "LLMSpec", "Library", "Progress", "ProgressCallback", "Stage",
    "conversation_markdown", "expand_paths", "ollama_host", "presets",
    # the review grid and the playbook review (engine/review/), and their exports
    "DEFAULT_PLAYBOOK", "PlaybookError", "dump_playbook", "grid_csv", "grid_xlsx", "load_playbook", "parse_playbook",
    "preset_columns", "question_column", "review_csv", "review_markdown", "topic_column",
]


class GraphView(BaseModel):
    """A contract's graph as drawn, with an answer's clauses and the path that joins them."""

    model_config = {"arbitrary_types_allowed": True}

    layout: GraphLayout
    cited: set[str]
    path_nodes: set[str]
    path_edges: set[tuple[str, str]]


class Library:
    """The contracts in one store, and what can be done with them."""

    def __init__(self, store: str | Path | None = None, settings: Settings | None = None, preset: str | None = None) -> None:
        """`settings`, else the named `preset` (default: `default`), with the store at `store`
        (a folder, or `s3://BUCKET/PREFIX`)."""
        limit_arenas()  # before the threads that ingest and make full vectors start (engine/memory.py)
        self.settings = settings or Settings(store=store_location(store), preset=preset)
        self.store = ClauseStore(self.settings.store)
        self.embedder = Embedder(self.settings.ingest.embed_batch_size, self.settings.ingest.window_overlap_tokens)
        self.quick_embedder = StaticEmbedder(self.settings.ingest.window_overlap_tokens)
        self._check_embedding()
        self.vectors = VectorWorker(self.store, self.embedder)
        self.parsers = ParserPool()
        self.graphs = GraphCache(self.store)
        self.retriever = Retriever(self.store, self.embedder, self.graphs)
        self.citer = Citer(self.store)
        self.engine = QueryEngine(self.store, self.retriever, Answerer(self.citer, QuestionLikeness(self.embedder, self.quick_embedder)), StoredFields(self.store, self.graph), self.settings)
        # the review grid and playbook reviews: the same pipeline, asked of every contract (engine/review/)
        self.reviews = ReviewDesk(
            GridTable(self.store), CellFiller(self.engine), self.documents, self.settings.store.workspace / "playbook.yaml"
        )
        self.llm_spec = LLMSpec()

    def _check_embedding(self) -> None:
        """A store is searched only with the model that made its vectors: a question embedded by
        another model lands in another space, where every similarity is noise, so such a store
        is refused with what to do rather than answered from. Quick vectors (engine/static_embed.py)
        are trained into MiniLM's space and searched with its question vectors, so a store may
        hold both while full vectors are being made."""
        others = sorted(self.store.embedding_models() - {self.embedder.model_name, STATIC_MODEL_NAME})
        if others:
            raise EmbeddingMismatchError(
                f"the contracts in {self.settings.store} were embedded with {', '.join(others)}, and this "
                f"Clausegraph embeds with {self.embedder.model_name}; vectors of two models cannot be searched "
                "together. Open the store with the Clausegraph that built it, or ingest its contracts again "
                "into a new store (--db DIR or $CLAUSEGRAPH_DB)."
            )

    @property
    def _model_choice_file(self) -> Path:
        return self.settings.store.workspace / "model.json"

    def use_llm(self, spec: LLMSpec) -> None:
        """Plan and answer with this local model; LLMSpec() means rules and extractive answers."""
        self.llm_spec = spec
        self.engine.model = local_model(spec, self.settings.llm.max_answer_tokens)

    @property
    def llm(self):
        """The LlamaIndex LLM in use, or None (rules and extractive answers)."""
        return self.engine.model.llm if self.engine.model is not None else None

    def choose_llm(self, spec: LLMSpec) -> None:
        """Use this model from now on, and again when the app next opens this store."""
        self.use_llm(spec)
        self._model_choice_file.write_text(spec.model_dump_json(indent=2))

    def restore_llm(self) -> None:
        """The model chosen last time for this store, if any (an unreadable choice means none)."""
        try:
            spec = LLMSpec.model_validate_json(self._model_choice_file.read_text())
        except (OSError, ValueError):
            return
        self.use_llm(spec)

    def model_host(self, spec: LLMSpec | None = None) -> HostStatus:
        """Whether the model host answers and which models it has (the configured one by default)."""
        return host_status(spec or self.llm_spec)

    # --------------------------------------------------------------- ingest

    def ingest_file(self, path: Path, progress: ProgressCallback = no_progress) -> IngestOutcome:
        name, data, problem = read_file(path, self.settings.limits.max_upload_mb)
        if problem:
            return failed(name, problem)
        return self.ingest_upload(name, data, progress)

    def ingest_upload(self, file_name: str, data: bytes, progress: ProgressCallback = no_progress) -> IngestOutcome:
        too_large = size_problem(len(data), self.settings.limits.max_upload_mb)
        if too_large:
            return failed(file_name, too_large)
        return ingest_bytes(self.store, self._ingest_embedder, data, file_name, progress, self.settings.limits.max_pages)

    def ingest_many(self, sources: list[Path | tuple[str, bytes]], progress: ProgressCallback = no_progress) -> Iterator[IngestOutcome]:
        """Files (paths, or uploads as name and bytes) ingested one after another as each is
        parsed, the next ones parsed meanwhile in worker processes, in the order given. A file
        that cannot be read fails alone. Call refresh_indexes with the outcomes when done."""
        if len(sources) <= 1:  # starting worker processes costs more than it saves
            for source in sources:
                tagged = for_item(progress, 0)
                yield self.ingest_file(source, tagged) if isinstance(source, Path) else self.ingest_upload(*source, tagged)
            return

        stored = 0
        for outcome in self.parsers.ingest(self.store, self._ingest_embedder, readable(sources, self.settings.limits.max_upload_mb), progress, self.settings.limits.max_pages):
            yield outcome
            stored += outcome.status is IngestStatus.INGESTED
            if outcome.status is IngestStatus.INGESTED and stored % _COMPACT_EVERY == 0:
                self.store.compact()

    def ingest_on_ray(
        self, paths: list[Path], address: str | None = None, workers: int | None = None, progress: ProgressCallback = no_progress
    ) -> Iterator[IngestOutcome]:
        """Files ingested as one batch on Ray (engine/ingest/ray_batch.py): parsed, structured
        and embedded by Ray workers, a local instance of `workers` CPUs or the cluster at
        `address`, and written here, in the order given. Call refresh_indexes when done."""
        from engine.ingest.ray_batch import ingest_on_ray

        ingest = self.settings.ingest
        yield from ingest_on_ray(
            self.store, readable(paths, self.settings.limits.max_upload_mb), address, workers, quick=ingest.vectors == "quick", batch_size=ingest.embed_batch_size,
            overlap=ingest.window_overlap_tokens, max_pages=self.settings.limits.max_pages, progress=progress,
        )

    @property
    def _ingest_embedder(self) -> Embedder | StaticEmbedder:
        return self.embedder if self.settings.ingest.vectors == "full" else self.quick_embedder

    @property
    def makes_full_vectors(self) -> bool:
        """Whether contracts with quick vectors get MiniLM's (every setting but `quick`)."""
        return self.settings.ingest.vectors != "quick"

    def ingest_paths(self, paths: list[Path], progress: ProgressCallback = no_progress) -> list[IngestOutcome]:
        """Files and folders as one batch, for a caller that ingests once (a script, a test): the
        parsing workers stop afterwards rather than wait, idle, for a next batch."""
        try:
            outcomes = list(self.ingest_many(expand_paths(paths), progress))
        finally:
            self.parsers.close()
        self.refresh_indexes(outcomes)
        return outcomes

    def refresh_indexes(self, outcomes: list[IngestOutcome]) -> None:
        """After a batch: fold the new rows into the search indexes (once, not per file), then
        let full vectors follow in the background."""
        if any(o.status is IngestStatus.INGESTED for o in outcomes):
            self.store.optimize()
            self.complete_vectors_in_background()

    # ---------------------------------------------------------- full vectors

    def complete_vectors_in_background(self) -> None:
        """Start (or nudge) the thread that gives contracts with quick vectors MiniLM's."""
        if self.makes_full_vectors and self.vector_status().pending:
            self.vectors.wake()

    def vector_status(self) -> VectorStatus:
        return self.vectors.status()

    def wait_for_vectors(self, timeout: float | None = None) -> VectorStatus:
        """Until every contract has full vectors (or `timeout` seconds pass); the status then.
        The work starts if it has not (as after a single-file ingest, which does not start it)."""
        self.complete_vectors_in_background()
        self.vectors.wait(timeout)
        return self.vector_status()

    def samples_for_new_library(self) -> list[Path]:
        """The sample contracts, if the library is empty: a new user gets something to ask about."""
        if self.store.documents() or not SAMPLES_DIR.is_dir():
            return []
        return sorted(SAMPLES_DIR.glob("*.pdf"))

    # ---------------------------------------------------------------- browse

    def documents(self) -> list[Document]:
        return self.store.documents()

    def find(self, name: str) -> Document:
        """A document by file name or doc_id prefix (NotFoundError if none or ambiguous)."""
        return self.store.find_document(name)

    def detail(self, name: str) -> DocumentDetail:
        return self.store.detail(self.find(name).doc_id)

    def delete(self, name: str) -> Document:
        document = self.find(name)
        self.store.delete_document(document.doc_id)
        return document

    def pdf_path(self, doc_id: str) -> Path:
        return self.store.file_path(doc_id)

    def page_image(self, doc_id: str, page: int, highlights: list[Rect] = (), focus: bool = False) -> PageImage:
        """A page of a stored contract as PNG, with these rectangles highlighted."""
        return render_page(self.pdf_path(doc_id), page, list(highlights), focus=focus)

    def store_size(self) -> int:
        return self.store.size_bytes()

    # ---------------------------------------------------------------- answer

    def hit(self, passage: Passage) -> SearchHit:
        """A search result as the Search page shows it: where it sits in the contract, and a
        checked citation of its opening words, so the viewer can highlight them."""
        graph = self.graph(passage.doc_id)
        clause = graph.by_id[passage.clause_id]
        path, parent = [clause.ref], clause.parent_id
        while parent and parent in graph.by_id:
            path.insert(0, graph.by_id[parent].ref)
            parent = graph.by_id[parent].parent_id
        start = passage.char_start - clause.char_start
        return SearchHit(
            passage=passage, file_name=graph.document.file_name, section_path=path, clause_type=clause.clause_type.value,
            citation=self._cite_opening(clause, start, passage.char_end - clause.char_start),
        )

    def clause_citation(self, doc_id: str, clause_id: str) -> Citation | None:
        """The opening words of a clause, cited: what the viewer highlights for a graph node."""
        clause = self.graph(doc_id).by_id[clause_id]
        return self._cite_opening(clause, 0, len(clause.text))

    def _cite_opening(self, clause: Clause, start: int, end: int) -> Citation | None:
        chars = self.settings.answer.hit_quote_chars
        if end - start > chars:
            cut = clause.text.rfind(" ", start, start + chars)
            end = cut if cut > start else start + chars
        citation = self.citer.cite_span(clause, start, end)
        return citation.model_copy(update={"number": 1}) if citation else None

    def graph_view(self, doc_id: str, cited: list[str] = (), edge_types: set[EdgeType] | None = None) -> GraphView:
        """The graph page's picture: the layout (computed once per contract) and the shortest
        paths over the shown edge types joining the cited clauses."""
        graph = self.graph(doc_id)
        nodes, edges = joining_path(graph, list(cited), edge_types)
        return GraphView(layout=layout(graph), cited=set(cited), path_nodes=nodes, path_edges=edges)

    def contract_fields(self, doc_ids: list[str] | None = None) -> list[ContractFields]:
        """Each contract's fields (all contracts when none are given), library order."""
        return self.engine.fields.of(doc_ids if doc_ids else [d.doc_id for d in self.documents()])

    @staticmethod
    def flagged_categories() -> list[str]:
        """The clause categories the presence model finds well enough to show as flags."""
        return list(presence_model().reliable)

    def cite_field(self, value: FieldValue) -> Citation | None:
        """A field value's sentence as a checked citation, for the viewer."""
        citation = self.engine.cite_field(value)
        return citation.model_copy(update={"number": 1}) if citation else None

    def graph(self, doc_id: str) -> DocGraph:
        """One contract's clause graph (loaded once and kept)."""
        return self.retriever.graphs([doc_id])[0]

    def ask(
        self,
        question: str,
        doc_ids: list[str] | None = None,
        filters: Filters | None = None,
        mode: Mode = Mode.GRAPH,
        on_text: TextCallback | None = None,
        on_progress: CountProgress | None = None,
        cite_all: bool = False,
    ) -> QueryResult:
        """The question pipeline: cited claims or an abstention with the closest clauses; over
        several contracts, each contract's answer (`on_progress(done, total)` follows them); or,
        for "which contracts...", the complete list, its first rows cited (every row with
        `cite_all`; cite_listing cites the rest later). `on_text` receives a model's draft as it streams."""
        return self.engine.run(question, doc_ids, filters, mode=mode, on_text=on_text, on_progress=on_progress, cite_all=cite_all)

    def warm_up(self) -> None:
        """Load the question readers ahead of the first question (the app calls it in the
        background when it opens a store); a question asked meanwhile loads them itself."""
        self.engine.warm_up()

    def cite_listing(self, listing: Enumeration, on_progress: CountProgress | None = None) -> Enumeration:
        """A copy of a "which contracts..." listing with every listed contract's evidence cited;
        `on_progress(done, total)` follows the contracts."""
        return self.engine.cite_listing(listing, on_progress)

    # ---------------------------------------------------------------- search

    def plan(self, question: str, doc_ids: list[str] | None = None, filters: Filters | None = None) -> QueryPlan:
        """What the planner makes of a question over these documents (all when none are given)."""
        return self.engine.plan(question, self.scope(doc_ids), filters)

    def search(
        self,
        question: str,
        doc_ids: list[str] | None = None,
        mode: Mode = Mode.GRAPH,
        filters: Filters | None = None,
        budget: int | None = None,
        graphs: list[DocGraph] | None = None,
    ) -> Retrieval:
        """Plan and retrieve: the passages an answer to `question` needs, within the budget.
        `graphs`: the scope's graphs (`scope(doc_ids)`) when the caller needs them too."""
        graphs = graphs if graphs is not None else self.scope(doc_ids)
        spelled = self.engine.spelled(question, [graph.document for graph in graphs])
        plan = self.engine.plan(spelled.text, graphs, filters)
        plan.notes[:0] = spelled.notes()
        return self.retriever.retrieve(plan, self.settings.retrieval, mode, budget, graphs)

    def scope(self, doc_ids: list[str] | None) -> list[DocGraph]:
        """The graphs of these documents (all when none are given), read once per question."""
        scope = doc_ids if doc_ids else [d.doc_id for d in self.documents()]
        return self.retriever.graphs(scope)
