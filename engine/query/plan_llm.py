"""The optional model path of the planner: a local LLM proposes what the rules missed.

The model sees the question, the clause types that exist and some defined terms of the
contracts in scope, and answers in a JSON schema (Ollama's `format`, or the JSON mode of
an OpenAI-compatible server). Nothing it says is trusted: every clause type, section and
term it proposes must exist in the documents in scope, or it is dropped and noted, never
searched. A model that is unreachable or answers nonsense leaves the rules' plan as it was.
"""

from __future__ import annotations

import logging

from llama_index.core.prompts import PromptTemplate
from pydantic import ValidationError

from engine.store.graphcache import DocGraph
from models.clause import ClauseType
from models.plan import ProposedFilters, QueryPlan, SectionMention, TermMention

log = logging.getLogger(__name__)

_PROMPT = PromptTemplate(
    "You route questions about contracts to the right clauses. For the question below, list\n"
    "the clause types it is about (only from: {clause_types}), any section numbers it refers\n"
    "to, and any of these defined terms it relies on: {terms}.\n"
    "Answer with JSON only. Leave a list empty when unsure.\n\n"
    "Question: {question}\n"
)


def propose(llm, question: str, graphs: list[DocGraph], terms_shown: int) -> ProposedFilters:
    """Ask the model; raises whatever the backend raises when it cannot answer."""
    types = sorted({c.clause_type.value for g in graphs for c in g.clauses} - {ClauseType.OTHER.value})
    terms = sorted({t for g in graphs for t in g.definitions}, key=lambda t: (-len(t), t))[:terms_shown]
    return llm.structured_predict(
        ProposedFilters, _PROMPT, question=question, clause_types=", ".join(types), terms="; ".join(sorted(terms)) or "(none)"
    )


def refine(plan: QueryPlan, llm, graphs: list[DocGraph], terms_shown: int) -> QueryPlan:
    """The rules' plan with the model's checked proposals added (soft: they never exclude);
    the model is shown the `terms_shown` longest defined terms in scope."""
    try:
        proposal = propose(llm, plan.question, graphs, terms_shown)
    except (ValidationError, ValueError) as error:
        log.warning("model planner answered out of schema: %s", error)
        return plan.model_copy(update={"notes": plan.notes + ["the model's plan was not valid JSON; rules only"]})
    except Exception as error:  # connection refused, timeout, server error: the rules' plan stands
        log.warning("model planner unavailable: %s", error)
        return plan.model_copy(update={"notes": plan.notes + [f"model planner unavailable ({type(error).__name__}); rules only"]})
    return apply_proposal(plan, proposal, graphs)


def apply_proposal(plan: QueryPlan, proposal: ProposedFilters, graphs: list[DocGraph]) -> QueryPlan:
    """Keep the proposed values that exist in scope; record the others as dropped."""
    plan = plan.model_copy(deep=True)
    existing_types = set().union(*(g.clause_types for g in graphs))
    for value in proposal.clause_types:
        kind = _clause_type(value)
        if kind is None or kind not in existing_types:
            plan.dropped.append(f"clause type {value!r}")
        elif kind not in plan.topics:
            plan.topics.append(kind)
            plan.notes.append(f"the model added clause type {kind.value}")
    for value in proposal.sections:
        _keep(plan, plan.sections, list(_section(value, graphs)), f"section {value!r}")
    for value in proposal.defined_terms:
        _keep(plan, plan.terms, list(_term(value, graphs)), f"defined term {value!r}")
    if plan.dropped:
        plan.notes.append("dropped what the model proposed that is not in these contracts: " + ", ".join(plan.dropped))
    return plan


def _keep(plan: QueryPlan, kept: list, mentions: list, described: str) -> None:
    """Add the clauses a proposed value resolved to, or record the value as dropped."""
    if not mentions:
        plan.dropped.append(described)
    for mention in mentions:
        if all(m.clause_id != mention.clause_id for m in kept):
            kept.append(mention)
            plan.notes.append(f"the model added {described}")


def _clause_type(value: str) -> ClauseType | None:
    key = value.strip().lower().replace(" ", "_").replace("-", "_")
    try:
        return ClauseType(key)
    except ValueError:
        return None


def _section(value: str, graphs: list[DocGraph]):
    ref = value.strip()
    for word in ("section", "clause", "§"):
        if ref.lower().startswith(word):
            ref = ref[len(word):].strip()
    ref = ref.rstrip(".").lower()
    for graph in graphs:
        clause = next(iter(graph.by_ref.get(ref, [])), None)
        if clause is not None:
            yield SectionMention(text=value, doc_id=graph.doc_id, clause_id=clause.clause_id, ref=clause.ref)


def _term(value: str, graphs: list[DocGraph]):
    key = value.strip().strip("\"'“”‘’").lower()
    for graph in graphs:
        for term, clause in graph.definitions.items():
            if term.lower() == key:
                yield TermMention(term=term, doc_id=graph.doc_id, clause_id=clause.clause_id)
