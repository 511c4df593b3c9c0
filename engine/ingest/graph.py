"""Turn segmented text into the clause graph: clauses with types, and their edges.

Edges: PARENT_OF for the tree; DEFINES from the clause defining a term to every other
clause using it; REFERENCES from a clause to each clause it cites, with the reference as
written. Unresolved references are kept as edges without a target.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.ingest.clause_tree import Segment
from engine.ingest.clause_types import classify
from engine.ingest.definitions import FoundDefinition, Strength, TermMatcher, find_definitions, is_glossary
from engine.ingest.pdf import DocumentText
from engine.ingest.references import ReferenceResolver, find_references, written_inline
from engine.ingest.table_of_contents import without_toc_entries
from models.clause import Clause, ClauseKind, ClauseType
from models.document import Definition
from models.edge import Edge, EdgeType


@dataclass
class ClauseGraph:
    clauses: list[Clause]
    edges: list[Edge]
    definitions: list[Definition]
    title: str
    unresolved: int = 0
    type_counts: dict[str, int] = field(default_factory=dict)

    @property
    def resolved(self) -> int:
        return sum(1 for e in self.edges if e.type is EdgeType.REFERENCES and e.dst is not None)


def build_graph(doc_id: str, document: DocumentText, segments: list[Segment], fallback_title: str) -> ClauseGraph:
    clauses = _clauses(doc_id, document, segments)
    reference_edges = _reference_edges(clauses, segments)
    definitions = _define(clauses, reference_edges)
    edges = _parent_edges(clauses)
    edges += _definition_edges(clauses, definitions)
    edges += reference_edges
    types = Counter(c.clause_type.value for c in clauses)
    return ClauseGraph(
        clauses=clauses,
        edges=edges,
        definitions=definitions,
        title=_title(clauses) or fallback_title,
        unresolved=sum(1 for e in reference_edges if e.dst is None),
        type_counts=dict(types.most_common()),
    )


def _clauses(doc_id: str, document: DocumentText, segments: list[Segment]) -> list[Clause]:
    ids = {id(s): f"{doc_id}:{s.path}" for s in segments}
    clauses: list[Clause] = []
    types: dict[int, ClauseType] = {}
    for order, segment in enumerate(segments):
        raw = document.text[segment.start : segment.end]
        text = raw.rstrip()
        end = segment.start + len(text)
        parent = segment.parent
        parent_type = types.get(id(parent)) if parent is not None else None
        clause_type, topics = classify(segment.heading, text, segment.kind, parent_type)
        types[id(segment)] = clause_type
        clauses.append(
            Clause(
                clause_id=ids[id(segment)],
                doc_id=doc_id,
                ref=segment.ref,
                path=segment.path,
                heading=segment.heading,
                parent_id=ids[id(parent)] if parent is not None else None,
                parent_ref=parent.ref if parent is not None else None,
                level=segment.level,
                kind=segment.kind,
                clause_type=clause_type,
                topics=topics,
                order=order,
                text=text,
                page_start=document.page_at(segment.start),
                page_end=document.page_at(max(segment.start, end - 1)),
                char_start=segment.start,
                char_end=end,
            )
        )
    return clauses


def _define(clauses: list[Clause], reference_edges: list[Edge]) -> list[Definition]:
    """Find definitions clause by clause; the strongest, then first, definition of a term wins.

    "X" means ... beats (the "X"), which beats "X" has the meaning given in Clause 3.1. When
    only the pointer is found, the clause it points to is the definition: that is where the
    meaning is, and the clauses using the term then reach it in one step, not through the
    pointer (its section often gives the meaning in words no rule reads as a definition:
    "the Parties shall establish a joint development committee ...").
    """
    glossary_ids: set[str] = set()
    chosen: dict[str, tuple[FoundDefinition, Clause]] = {}
    for clause in clauses:
        if clause.kind is ClauseKind.TOC:
            continue
        entry = clause.parent_id in glossary_ids
        in_glossary = entry or is_glossary(clause.heading, clause.text)
        if in_glossary:
            glossary_ids.add(clause.clause_id)
        for found in find_definitions(clause.text, glossary=in_glossary, entry=entry):
            clause.defines.append(found.term)
            current = chosen.get(found.term)
            if current is None or found.strength > current[0].strength:
                chosen[found.term] = (found, clause)
    targets = _pointer_targets(clauses, reference_edges)
    for term, (found, clause) in list(chosen.items()):
        if found.strength is Strength.POINTER and (target := targets(clause, found.start)) is not None:
            chosen[term] = (found, target)
            target.defines.append(term)
    # Each defining clause lists only the terms it is the chosen definition of.
    for clause in clauses:
        clause.defines = [t for t in dict.fromkeys(clause.defines) if chosen[t][1] is clause]
    return [Definition(term=t, clause_id=c.clause_id, ref=c.ref) for t, (_, c) in chosen.items()]


_POINTER_REACH = 250  # characters after a pointing term within which its "in Section 3.1" is written


def _pointer_targets(clauses: list[Clause], reference_edges: list[Edge]) -> Callable[[Clause, int], Clause | None]:
    """A function (pointing clause, where the term starts) -> the clause the pointer's first
    resolved reference names, or None (a schedule not read, another agreement's section)."""
    by_id = {c.clause_id: c for c in clauses}
    cited: dict[str, list[Edge]] = {}
    for edge in reference_edges:
        if edge.dst is not None:
            cited.setdefault(edge.src, []).append(edge)

    def target(clause: Clause, start: int) -> Clause | None:
        window = clause.text[start : start + _POINTER_REACH]
        written = [(window.find(e.label), e) for e in cited.get(clause.clause_id, []) if e.label and e.label in window]
        return by_id[min(written, key=lambda w: w[0])[1].dst] if written else None

    return target


def _parent_edges(clauses: list[Clause]) -> list[Edge]:
    refs = {c.clause_id: c.ref for c in clauses}
    return [
        Edge(doc_id=c.doc_id, type=EdgeType.PARENT_OF, src=c.parent_id, dst=c.clause_id,
             src_ref=refs[c.parent_id], dst_ref=c.ref)
        for c in clauses
        if c.parent_id is not None
    ]


def _definition_edges(clauses: list[Clause], definitions: list[Definition]) -> list[Edge]:
    definer = {d.term: d for d in definitions}
    matcher = TermMatcher(list(definer))
    edges: list[Edge] = []
    for clause in clauses:
        if clause.kind is ClauseKind.TOC:
            continue
        used = [t for t in matcher.terms_in(clause.text) if definer[t].clause_id != clause.clause_id]
        clause.terms_used = used
        for term in used:
            source = definer[term]
            edges.append(
                Edge(doc_id=clause.doc_id, type=EdgeType.DEFINES, src=source.clause_id, dst=clause.clause_id,
                     src_ref=source.ref, dst_ref=clause.ref, label=term)
            )
    return edges


def _reference_edges(clauses: list[Clause], segments: list[Segment]) -> list[Edge]:
    containers = [s.container.ref if s.container is not None else None for s in segments]
    resolver = ReferenceResolver([(c.ref, container) for c, container in zip(clauses, containers)])
    by_ref = {(container, c.ref): c for c, container in zip(clauses, containers)}
    body = {c.ref: c for c, container in zip(clauses, containers) if container is None}
    clauses_by_id = {c.clause_id: c for c in clauses}
    edges: list[Edge] = []
    seen: set[tuple[str, str | None, str]] = set()

    def target_clause(ref: str, container: str | None) -> Clause | None:
        return by_ref.get((container, ref)) or body.get(ref)

    for clause, container in zip(clauses, containers):
        if clause.kind is ClauseKind.TOC:
            continue
        previous_target: str | None = None
        text = without_toc_entries(clause.text)
        references = find_references(text)
        for found in references:
            if written_inline(found, text, references):
                previous_target = None
                continue  # "options (a) and (b) above": this clause's own items, not clauses
            target_ref = resolver.resolve(found, clause.ref, container)
            targets: list[str] = []
            if target_ref is not None:
                if found.kind.endswith("-range-end") and previous_target is not None:
                    targets += resolver.range_between(previous_target, target_ref, container)
                targets.append(target_ref)
            elif (parts := resolver.parts_of(found, clause.ref, container)) is not None:
                targets = parts
                if not parts:  # "this Paragraph 18", written inside 18's own parts: no other clause
                    previous_target = None
                    continue
            previous_target = target_ref
            if not targets and found.kind == "relative" and _enumerated_inline(found.target, clause, clauses_by_id):
                continue  # "clause (ii)" of an enumeration written inside this clause's own text
            if not targets:
                key = (clause.clause_id, None, f"{found.kind}:{found.target}")
                if key not in seen:
                    seen.add(key)
                    edges.append(
                        Edge(doc_id=clause.doc_id, type=EdgeType.REFERENCES, src=clause.clause_id, dst=None,
                             src_ref=clause.ref, dst_ref=None, label=found.text)
                    )
                continue
            for ref in targets:
                target = target_clause(ref, container)
                if target is None or target.clause_id == clause.clause_id:
                    continue
                key = (clause.clause_id, target.clause_id, "")
                if key in seen:
                    continue
                seen.add(key)
                edges.append(
                    Edge(doc_id=clause.doc_id, type=EdgeType.REFERENCES, src=clause.clause_id, dst=target.clause_id,
                         src_ref=clause.ref, dst_ref=target.ref, label=found.text)
                )
    return edges


def _enumerated_inline(label: str, clause: Clause, by_id: dict[str, Clause]) -> bool:
    """Is "(ii)" one of the items written inline in this clause or the clause it sits in?"""
    first = re.match(r"\([^)]*\)", label)
    if first is None:
        return False
    node: Clause | None = clause
    for _ in range(2):
        if node is None:
            return False
        if node.text.count(first.group(0)) >= (2 if node is clause else 1):
            return True
        node = by_id.get(node.parent_id) if node.parent_id else None
    return False


_TITLE_WORDS = re.compile(
    r"\b(?:agreement|contract|license|licence|lease|amendment|addendum|terms|deed|memorandum|"
    r"understanding|arrangement|plan|policy|framework|order|statement of work)\b",
    re.IGNORECASE,
)
_NOT_TITLE = re.compile(r"^(?:exhibit|ex-)\s*\d|^source:|confidential|^page\b|\bomitted\b|\*\*\*", re.IGNORECASE)


def _title(clauses: list[Clause]) -> str:
    """The contract's name: the first short line near the top that names an agreement."""
    head = next((c for c in clauses if c.kind is not ClauseKind.TOC), None)
    if head is None:
        return ""
    for line in head.text.splitlines()[:25]:
        line = line.strip()
        words = line.split()
        if 1 <= len(words) <= 12 and _TITLE_WORDS.search(line) and not _NOT_TITLE.search(line):
            if line.isupper() or sum(w[:1].isupper() for w in words) >= len(words) * 0.6:
                return line.rstrip(".,;:")
    return ""
