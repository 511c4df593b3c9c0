"""The small service API that the Streamlit pages and the command line call.

Pages never touch the store or the pipeline directly: they ask a Library.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import BaseModel

from engine.embed import Embedder
from engine.store.graphcache import DocGraph, GraphCache
from engine.views.export import conversation_markdown
from engine.answer.enumeration import enumerate_contracts, field_query
from engine.fields import EXTRACTOR_VERSION, extract_fields
from engine.fields.presence import presence_model
from engine.answer.generate import TextCallback
from engine.views.graph_layout import GraphLayout, joining_path, layout
from engine.llm import Backend, HostStatus, LLMSpec, host_status, make_llm, ollama_host
from engine.query.plan import make_plan
from engine.query.plan_llm import refine
from engine.views.page_image import PageImage, render_page
from engine.query.retrieve import Retriever, RetrievalSettings
from engine.ingest.pipeline import Progress, ProgressCallback, Stage, ingest_bytes, no_progress
from engine.settings import SAMPLES_DIR, Settings, store_path
from engine.store.clause_store import ClauseStore
from models.answer import Answer, Citation, Rect, SearchHit
from models.clause import Clause
from models.document import Document, DocumentDetail, IngestOutcome, IngestStatus
from models.edge import EdgeType
from models.enumeration import Enumeration
from models.fields import ContractFields, FieldValue
from models.plan import Filters, QueryPlan
from models.retrieval import Mode, Passage, Retrieval


_HIT_QUOTE_CHARS = 600  # a hit highlights its opening, not a whole long section
_MB = 1024 * 1024

__all__ = [
    "Backend", "GraphLayout", "GraphView", "LLMSpec", "Library", "Progress", "ProgressCallback", "Stage",
    "conversation_markdown", "expand_paths", "ollama_host",
]


class GraphView(BaseModel):
    """A contract's graph as drawn, with an answer's clauses and the path that joins them."""

    model_config = {"arbitrary_types_allowed": True}

    layout: GraphLayout
    cited: set[str]
    path_nodes: set[str]
    path_edges: set[tuple[str, str]]


def expand_paths(paths: list[Path]) -> list[Path]:
    """Files as given, and every PDF inside the folders given, in a stable order."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf"))
        else:
            files.append(path)
    return files


def _failed(file_name: str, message: str) -> IngestOutcome:
    return IngestOutcome(file_name=file_name, status=IngestStatus.FAILED, message=message)


class Library:
    """The contracts in one store, and what can be done with them."""

    def __init__(self, store_dir: str | Path | None = None, settings: Settings | None = None) -> None:
        self.settings = settings or Settings(store_dir=store_path(store_dir))
        self.store = ClauseStore(self.settings.store_dir)
        self.embedder = Embedder(self.settings.embed_batch_size, self.settings.window_overlap_tokens)
        self.graphs = GraphCache(self.store)
        self.retriever = Retriever(self.store, self.embedder, self.graphs, RetrievalSettings())
        self.llm_spec = LLMSpec()
        self.llm = None

    @property
    def _model_choice_file(self) -> Path:
        return self.settings.store_dir / "model.json"

    def use_llm(self, spec: LLMSpec) -> None:
        """Plan and answer with this local model; LLMSpec() means rules and extractive answers."""
        self.llm_spec, self.llm = spec, make_llm(spec)

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
        if not path.exists():
            return _failed(path.name, "no such file")
        if not path.is_file():
            return _failed(path.name, "not a file")
        try:
            too_large = self._size_problem(path.stat().st_size)
            if too_large:
                return _failed(path.name, too_large)
            data = path.read_bytes()
        except OSError as error:
            return _failed(path.name, f"cannot read it ({error.strerror})")
        return self.ingest_upload(path.name, data, progress)

    def ingest_upload(self, file_name: str, data: bytes, progress: ProgressCallback = no_progress) -> IngestOutcome:
        too_large = self._size_problem(len(data))
        if too_large:
            return _failed(file_name, too_large)
        return ingest_bytes(self.store, self.embedder, data, file_name, progress, self.settings.max_pages)

    def _size_problem(self, size: int) -> str | None:
        limit = self.settings.max_upload_mb
        if size <= limit * _MB:
            return None
        return f"the file is {size / _MB:,.1f} MB, more than the limit of {limit} MB (setting max_upload_mb)"

    def ingest_paths(self, paths: list[Path], progress: ProgressCallback = no_progress) -> list[IngestOutcome]:
        outcomes = [self.ingest_file(path, progress) for path in expand_paths(paths)]
        self.refresh_indexes(outcomes)
        return outcomes

    def refresh_indexes(self, outcomes: list[IngestOutcome]) -> None:
        """After a batch: fold the new rows into the search indexes (once, not per file)."""
        if any(o.status is IngestStatus.INGESTED for o in outcomes):
            self.store.optimize()

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
        if end - start > _HIT_QUOTE_CHARS:
            cut = clause.text.rfind(" ", start, start + _HIT_QUOTE_CHARS)
            end = cut if cut > start else start + _HIT_QUOTE_CHARS
        citation = self.answerer.citer.cite_span(clause, start, end)
        return citation.model_copy(update={"number": 1}) if citation else None

    def graph_view(self, doc_id: str, cited: list[str] = (), edge_types: set[EdgeType] | None = None) -> GraphView:
        """The graph page's picture: the layout (computed once per contract) and the shortest
        paths over the shown edge types joining the cited clauses."""
        graph = self.graph(doc_id)
        nodes, edges = joining_path(graph, list(cited), edge_types)
        return GraphView(layout=layout(graph), cited=set(cited), path_nodes=nodes, path_edges=edges)

    def contract_fields(self, doc_ids: list[str] | None = None) -> list[ContractFields]:
        """Each contract's fields (all contracts when none are given), library order. A contract
        stored before fields existed, or by an older extractor, is read again from its clauses
        and the result kept: an old store upgrades itself as it is used."""
        wanted = doc_ids if doc_ids else [d.doc_id for d in self.documents()]
        stored = self.store.fields(wanted)
        result = []
        for doc_id in wanted:
            version, fields = stored.get(doc_id, ("", None))
            if fields is None or version != EXTRACTOR_VERSION:
                graph = self.graph(doc_id)
                fields = extract_fields(doc_id, graph.clauses, graph.document.title)
                self.store.put_fields(fields, EXTRACTOR_VERSION)
            result.append(fields)
        return result

    def enumerate(self, question: str, doc_ids: list[str] | None = None) -> Enumeration | None:
        """A complete answer to "which contracts..." / "how many..." from every contract's
        fields; None when the question is not such a question (then ask() answers it)."""
        query = field_query(question, presence_model().categories)
        if query is None:  # decided from the question alone: an ordinary question reads no fields
            return None
        names = {d.doc_id: d.file_name for d in self.documents()}
        fields = self.contract_fields(doc_ids or list(names))
        return enumerate_contracts(query, fields, names, self.answerer.citer, self._clause_by_id)

    @staticmethod
    def flagged_categories() -> list[str]:
        """The clause categories the presence model finds well enough to show as flags."""
        return list(presence_model().reliable)

    def cite_field(self, value: FieldValue) -> Citation | None:
        """A field value's sentence as a checked citation, for the viewer."""
        clause = self._clause_by_id(value.clause_id)
        citation = self.answerer.citer.cite(clause, value.quote) if clause is not None else None
        return citation.model_copy(update={"number": 1}) if citation else None

    def _clause_by_id(self, clause_id: str) -> Clause | None:
        doc_id = clause_id.split(":", 1)[0]
        return self.graph(doc_id).by_id.get(clause_id)

    def graph(self, doc_id: str) -> DocGraph:
        """One contract's clause graph (loaded once and kept)."""
        return self.retriever.graphs([doc_id])[0]

    @cached_property
    def answerer(self):
        from engine.answer.answerer import Answerer  # the answerer builds on this class's search

        return Answerer(self)

    def ask(
        self,
        question: str,
        doc_ids: list[str] | None = None,
        filters: Filters | None = None,
        mode: Mode = Mode.GRAPH,
        on_text: TextCallback | None = None,
    ) -> Answer:
        """Plan, retrieve and answer: cited claims, or an abstention with the closest clauses.
        `on_text` receives a model's draft as it streams."""
        return self.answerer.ask(question, doc_ids, filters, mode, on_text)

    # ---------------------------------------------------------------- search

    def plan(self, question: str, doc_ids: list[str] | None = None, filters: Filters | None = None) -> QueryPlan:
        """What the planner makes of a question over these documents (all when none are given)."""
        return self._plan(question, self.scope(doc_ids), filters)

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
        return self.retriever.retrieve(self._plan(question, graphs, filters), mode, budget, graphs)

    def scope(self, doc_ids: list[str] | None) -> list[DocGraph]:
        """The graphs of these documents (all when none are given), read once per question."""
        scope = doc_ids if doc_ids else [d.doc_id for d in self.documents()]
        return self.retriever.graphs(scope)

    def _plan(self, question: str, graphs: list[DocGraph], filters: Filters | None) -> QueryPlan:
        plan = make_plan(question, graphs, filters)
        return refine(plan, self.llm, graphs) if self.llm is not None else plan
