"""The one path of a question: scope -> plan -> retrieve -> answer, or, for a question over
every contract, scope -> field filter -> enumeration.

The app, `engine ask` and `engine eval` all call `QueryEngine.run`, so what is measured is
what users get: a "which contracts..." question is answered from the contract fields, or by
asking every contract when no reliable field settles it, everywhere, never by top-k retrieval
in one place and by enumeration in another.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from llama_index.core.base.response.schema import Response
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from engine.answer.answerer import Answerer
from engine.answer.direct import asked_field, unless_unstated, with_direct_answer
from engine.answer.enumeration import cite_listed, enumerate_contracts, listing_by_search, passing_fields
from engine.answer.generate import TextCallback
from engine.fields.presence import presence_model
from engine.fields.stored import FieldReader
from engine.llm import LocalModel
from engine.query.field_query import asks_over_contracts, field_query
from engine.query.large_scope import best_contracts
from engine.query.meaning import QuestionModel, listing_guesses, question_model, with_meaning
from engine.query.plan import make_plan, named_contract, without_words
from engine.query.plan_llm import refine
from engine.query.retriever import Retriever
from engine.settings import Settings
from engine.store.clause_store import ClauseStore
from engine.store.graphcache import DocGraph
from engine.text.spelling import Corrected, name_words, spelling_corrector
from models.answer import Answer, Citation
from models.clause import Clause
from models.document import Document
from models.enumeration import Enumeration, FieldQuery
from models.fields import FieldValue
from models.per_contract import ContractAnswer, PerContract
from models.plan import CategoryGuess, Filters, QueryPlan
from models.result import QueryResult
from models.retrieval import Mode


CountProgress = Callable[[int, int], None]  # (contracts done, contracts in all)


@dataclass
class _Listing:
    """A request over contracts that no contract field settles alone, so each contract in
    scope is asked; `query` holds its field filters when it names a clause category no flag
    lists reliably (`FieldQuery.searched`), and `notes` what those filters could not use."""

    scope: int  # contracts in scope before any field filter
    query: FieldQuery | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Asked:
    """One question as `QueryEngine.run` received it, for the steps that answer it."""

    question: str
    filters: Filters | None
    settings: Settings
    mode: Mode
    budget: int | None
    on_text: TextCallback | None
    meant: list[CategoryGuess]
    read_as: str  # the text `meant` was read from: the question, less the title of a contract it names
    stamp: dict
    listing: _Listing | None  # a "which / how many / do any..." request over several contracts, answered by asking each


class QueryEngine:
    """Answers questions over one store's contracts."""

    def __init__(self, store: ClauseStore, retriever: Retriever, answerer: Answerer, fields: FieldReader, settings: Settings) -> None:
        self.store = store
        self.retriever = retriever
        self.answerer = answerer
        self.fields = fields
        self.settings = settings
        self.model: LocalModel | None = None  # plans and writes answers when set; else rules and extractive answers
        self.meaning: QuestionModel = question_model()  # what a question is about; a benchmark swaps in a fold's model
        self._loading_readers = threading.Lock()  # the first question waits for a warm-up under way, not builds a second corrector

    def run(
        self,
        question: str,
        scope: list[str] | None = None,
        filters: Filters | None = None,
        settings: Settings | None = None,
        mode: Mode = Mode.GRAPH,
        budget: int | None = None,
        answer: bool = True,
        on_text: TextCallback | None = None,
        on_progress: CountProgress | None = None,
        cite_all: bool = False,
    ) -> QueryResult:
        """One question over the contracts in `scope` (doc ids; all when None), within the hard
        `filters`, with `settings` (the engine's own when None). `answer=False` stops after
        retrieval; `on_text` receives a model's draft as it streams; `on_progress(done, total)`
        follows a question answered contract by contract. A "which contracts..." listing cites
        its first `limits.listing_cited` rows, or every row with `cite_all`."""
        started = time.perf_counter()
        settings = settings or self.settings
        stamp = {"question": question, "preset": settings.preset, "settings_hash": settings.fingerprint()}
        documents = {d.doc_id: d for d in self.store.documents()}  # read once per question
        # every contract, by file name: a batch stores contracts as their parses finish, so the
        # order they were added in is not one a reader can follow
        doc_ids = scope if scope else sorted(documents, key=lambda doc_id: (documents[doc_id].file_name, doc_id))
        spelled = self.spelled(question, [documents[d] for d in doc_ids if d in documents])
        over_contracts = asks_over_contracts(question) or asks_over_contracts(spelled.text)
        typed, question = question, spelled.text  # read from here on as corrected; the result keeps the words as typed
        meant = self.meant(question)
        if len(doc_ids) > 1 and over_contracts:
            meant = listing_guesses(meant)
        presence = presence_model()
        query = field_query(
            question, presence.reliable, meant, settings.retrieval.listing_category_min, several=len(doc_ids) > 1,
            over_contracts=over_contracts, unflagged=presence.unflagged,
        )
        names = {doc_id: d.file_name for doc_id, d in documents.items()}
        if query is not None and query.searched is None:
            cited = None if cite_all else settings.limits.listing_cited
            listing = enumerate_contracts(query, self.fields.of(doc_ids), names, self.answerer.citer, self._clause_in(documents), cited)
            _as_typed(listing, typed, spelled)
            return QueryResult(**stamp, enumeration=listing, seconds=round(time.perf_counter() - started, 3))
        # a request over contracts that no field settles: every contract is asked, however many
        by_search = _Listing(len(doc_ids)) if len(doc_ids) > 1 and over_contracts else None
        if by_search is not None and query is not None:  # a category no flag lists: its other filters narrow the scope first
            by_search.query = query
            doc_ids, by_search.notes = passing_fields(query, self.fields.of(doc_ids), names)
            if query.filters or query.document_type:  # the fields settled the rest: each contract is asked of the category
                meant = self.meaning.sure_of(query.searched)
        titles = {doc_id: documents[doc_id].title for doc_id in doc_ids if doc_id in documents} if len(doc_ids) > 1 else {}
        named = named_contract(question, titles) if titles else None
        read_as = question
        if named is not None:  # "the mutual non-disclosure agreement": that one contract answers,
            doc_ids = [named]  # and its title's words say nothing of what is asked about it
            read_as = without_words(question, titles[named])
            meant = self.meant(read_as)
            by_search = None
        asked = _Asked(question, filters, settings, mode, budget, on_text, meant, read_as, stamp, by_search)
        if answer and (by_search is not None or 1 < len(doc_ids) <= settings.limits.answer_each):
            result = self._each(asked, doc_ids, names, on_progress)
        else:
            result = self._one(asked, doc_ids, answer)
            if answer and named is not None:
                result.answer.notes.append(f"The question names one contract by its title, so it was answered from “{titles[named]}”.")
            if answer and len(doc_ids) > settings.limits.answer_each:
                result.answer.notes.append(
                    f"Asked over {len(doc_ids)} contracts, so answered from the best matches among them; choose "
                    f"{settings.limits.answer_each} or fewer in scope for an answer from each."
                )
        self._note_quick_vectors(result, [documents[d] for d in doc_ids if d in documents], settings)
        for shown in (result.answer, result.enumeration, result.per_contract):
            _as_typed(shown, typed, spelled)
        result.seconds = round(time.perf_counter() - started, 3)
        return result

    def _note_quick_vectors(self, result: QueryResult, searched: list[Document], settings: Settings) -> None:
        """Say when contracts were searched with quick vectors: the answer may change once
        their full vectors land (keyword and graph search are unaffected)."""
        result.quick_vectors = sorted(d.file_name for d in searched if d.embedding_model != self.retriever.embedder.model_name)
        if result.quick_vectors and result.answer is not None:
            names = ", ".join(result.quick_vectors[:3]) + (f" and {len(result.quick_vectors) - 3} more" if len(result.quick_vectors) > 3 else "")
            if settings.ingest.vectors == "quick":
                note = f"{names} searched with quick vectors only (setting ingest.vectors = quick), by keyword and the clause graph."
            else:
                note = (f"Answered before full vectors were ready for {names}: searched by keyword, the clause graph and "
                        "quick vectors; asking again once they are ready may rank the evidence differently.")
            result.answer.notes.append(note)

    def _one(self, asked: _Asked, doc_ids: list[str], answer: bool) -> QueryResult:
        """Retrieval over the contracts together, and one answer from what ranked best."""
        started = time.perf_counter()
        settings = asked.settings
        if len(doc_ids) > settings.limits.answer_each:
            doc_ids = self._best_contracts(asked, doc_ids)
        graphs = self.retriever.graphs(doc_ids)
        # a listing's rows need only each contract's evidence check and first quote: no model plans or writes them
        plan = self.plan(asked.question, graphs, asked.filters, settings, asked.meant, asked.read_as, refined=asked.listing is None)
        retrieval = self.retriever.retrieve(plan, settings.retrieval, asked.mode, asked.budget, graphs)
        result = QueryResult(**asked.stamp, plan=plan, retrieval=retrieval)
        if answer:
            drafted = self.answerer.answer(retrieval, graphs, settings, self.model if asked.listing is None else None, asked.on_text)
            field = asked_field(drafted, plan, settings.answer.extractive.lead_probability) if len(graphs) == 1 else None
            if field is not None:  # a field question about one contract: its value, cited, comes first
                opening = [c for c in graphs[0].clauses if c.page_start == 1]
                fields = self.fields.of([graphs[0].doc_id])[0]
                drafted = with_direct_answer(drafted, field, fields, self.answerer.citer, self.clause, opening)
                drafted = unless_unstated(drafted, field, fields, settings.answer.closest, settings.answer.excerpt_chars)
            result.answer = drafted.model_copy(update={"seconds": round(time.perf_counter() - started, 3)})
        return result

    def _each(self, asked: _Asked, doc_ids: list[str], names: dict[str, str], on_progress: CountProgress | None) -> QueryResult:
        """Each contract answered on its own. A "which / do any of these..." request that no
        contract field can settle becomes a listing of the contracts where an answer was found;
        any other question shows every contract's answer. The best-supported answer stays the
        result's `answer`, with its plan and retrieval."""
        singles: list[QueryResult] = []
        for done, doc_id in enumerate(doc_ids, start=1):
            singles.append(self._one(asked, [doc_id], answer=True))
            if on_progress is not None:
                on_progress(done, len(doc_ids))
        rows = [ContractAnswer(doc_id=d, file=names.get(d, d), answer=r.answer) for d, r in zip(doc_ids, singles)]
        best = max(singles, key=lambda r: (not r.answer.abstained, r.answer.support), default=None)
        result = QueryResult(**asked.stamp, plan=best.plan, retrieval=best.retrieval, answer=best.answer) if best else QueryResult(**asked.stamp)
        if asked.listing is not None:
            listing = asked.listing
            result.enumeration = listing_by_search(
                asked.question, rows, asked.meant, asked.settings.retrieval.listing_category_min, listing.query, listing.scope, listing.notes
            )
        else:
            result.per_contract = PerContract(question=asked.question, rows=rows)
        return result

    def _best_contracts(self, asked: _Asked, doc_ids: list[str]) -> list[str]:
        """Over a large scope, the contracts of the best search hits, found in the store without
        loading any graph (engine/query/large_scope.py); all of them when the question sets a
        hard filter (clause types, sections, pages), which only the graphs can check."""
        plan = with_meaning(make_plan(asked.question, [], asked.filters, asked.read_as), asked.meant, self.meaning.lexicon, asked.settings.retrieval)
        if plan.filters.clause_types or plan.filters.section_refs or plan.filters.pages:
            return doc_ids
        _, vector = self.retriever.question_vectors(plan, asked.settings.retrieval)
        return best_contracts(self.store, plan, vector, doc_ids, asked.settings.retrieval) or doc_ids

    def warm_up(self) -> None:
        """Load what reading a question needs and nothing else does: the spelling corrector's
        word counts (two to three seconds) and the question embedder. A first question asked
        after this does not wait for them."""
        with self._loading_readers:
            spelling_corrector()
            self.retriever.embedder.encode_question("")

    def spelled(self, question: str, documents: list[Document]) -> Corrected:
        """The question with its misspelt words corrected, leaving the words of these contracts'
        names as typed."""
        names = [name for document in documents for name in (document.file_name, document.title)]
        with self._loading_readers:
            corrector = spelling_corrector()
        return corrector.correct(question, keep=name_words(names))

    def meant(self, question: str) -> list[CategoryGuess]:
        """The CUAD categories the question is likely about, by meaning."""
        return self.meaning.guess(question, self.retriever.embedder.encode_question(question))

    def plan(
        self, question: str, graphs: list[DocGraph], filters: Filters | None, settings: Settings | None = None,
        meant: list[CategoryGuess] | None = None, read_as: str | None = None, refined: bool = True,
    ) -> QueryPlan:
        """The rules' plan with what the question means, and a local model's checked proposals
        when one is set and `refined`. `meant` was read from `read_as` (the question when None);
        the plan reads the question again when it names the contract's parties."""
        settings = settings or self.settings
        plan = make_plan(question, graphs, filters, read_as)
        if meant is None or plan.read_as != (read_as or question):
            meant = self.meant(plan.read_as)
        plan = with_meaning(plan, meant, self.meaning.lexicon, settings.retrieval)
        if self.model is None or not refined:
            return plan
        return refine(plan, self.model.llm, graphs, settings.llm.plan_terms_shown)

    def clause(self, clause_id: str) -> Clause | None:
        """A stored clause by id (its contract's graph is loaded once and kept)."""
        doc_id = clause_id.split(":", 1)[0]
        graphs = self.retriever.graphs([doc_id])
        return graphs[0].by_id.get(clause_id) if graphs else None

    def cite_field(self, value: FieldValue) -> Citation | None:
        """A contract field's sentence as a checked citation of its clause (None if the clause
        no longer says it); numbered by the caller."""
        clause = self.clause(value.clause_id)
        return self.answerer.citer.cite(clause, value.quote) if clause is not None else None

    def _clause_in(self, documents: dict[str, Document]) -> Callable[[list[str]], dict[str, Clause]]:
        """Clauses by id among documents already read: from the graphs held in memory, the
        others in one read of just those clauses (a listing's contracts may not be loaded)."""

        def clauses(clause_ids: list[str]) -> dict[str, Clause]:
            found: dict[str, Clause] = {}
            for clause_id in clause_ids:
                document = documents.get(clause_id.split(":", 1)[0])
                graph = self.retriever.cache.held(document) if document is not None else None
                if graph is not None and clause_id in graph.by_id:
                    found[clause_id] = graph.by_id[clause_id]
            missing = [c for c in clause_ids if c not in found and c.split(":", 1)[0] in documents]
            return found | (self.store.clauses_by_id(missing) if missing else {})

        return clauses

    def cite_listing(self, listing: Enumeration, on_progress: CountProgress | None = None) -> Enumeration:
        """A listing with every row cited (a long one cites its first rows when asked)."""
        documents = {d.doc_id: d for d in self.store.documents()}
        return cite_listed(listing.model_copy(deep=True), self.answerer.citer, self._clause_in(documents), on_progress=on_progress)


class ClausegraphQueryEngine(CustomQueryEngine):
    """The pipeline as a LlamaIndex query engine: the Answer rides in the response metadata."""

    engine: QueryEngine
    doc_ids: list[str] | None = None
    filters: Filters | None = None
    on_text: Callable[[str], None] | None = None

    def custom_query(self, query_str: str) -> Response:
        result = self.engine.run(query_str, self.doc_ids, self.filters, on_text=self.on_text)
        answer = result.answer
        shown = result.shown
        citations = shown.citations if shown is not None else []
        nodes = [
            NodeWithScore(
                node=TextNode(text=c.quote, metadata={"contract_id": c.doc_id, "clause_id": c.clause_id, "ref": c.ref, "page": c.page}),
                score=1.0,
            )
            for c in citations
        ]
        text = answer.text() if shown is answer else shown.headline()
        return Response(response=text, source_nodes=nodes, metadata={"answer": answer, "result": result})


def _as_typed(shown: Answer | Enumeration | PerContract | None, typed: str, spelled: Corrected) -> None:
    """What is shown keeps the question as the user typed it, with a note of how it was read."""
    if shown is None or not spelled.changes:
        return
    shown.notes[:0] = spelled.notes()
    if isinstance(shown, Enumeration):
        shown.query.question = typed
    else:
        shown.question = typed
