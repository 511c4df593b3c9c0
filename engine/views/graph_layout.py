"""A document's clause graph laid out for drawing, and the path that joins an answer's clauses.

The layout reads like the contract: clauses left to right in document order, depth downwards
(a section above its sub-clauses), so a reader finds "8.2" where they expect it and the
cross-reference and definition arcs show how far a clause reaches. It is computed once per
graph and kept (a 500-clause contract costs milliseconds, but the page redraws often).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from dataclasses import dataclass

from engine.store.graphcache import DocGraph
from models.edge import EdgeType


@dataclass(frozen=True)
class Node:
    clause_id: str
    ref: str
    heading: str
    clause_type: str
    page: int
    x: float
    y: float


@dataclass(frozen=True)
class Link:
    src: str
    dst: str
    type: EdgeType
    label: str


@dataclass(frozen=True)
class GraphLayout:
    nodes: dict[str, Node]
    links: list[Link]


_CACHE_SIZE = 32
_layouts: OrderedDict[tuple[str, str], GraphLayout] = OrderedDict()
_lock = threading.Lock()


def layout(graph: DocGraph) -> GraphLayout:
    """The graph's layout, computed on first use for this version of the document."""
    key = (graph.doc_id, graph.document.ingested_at.isoformat())
    with _lock:
        if key in _layouts:
            _layouts.move_to_end(key)
            return _layouts[key]
    ordered = sorted(graph.clauses, key=lambda c: c.order)
    nodes = {
        c.clause_id: Node(c.clause_id, c.ref, c.heading, c.clause_type.value, c.page_start, float(index), -float(c.level))
        for index, c in enumerate(ordered)
    }
    links = [
        Link(edge.src, edge.dst, edge.type, edge.label)
        for edges in graph.out_edges.values()
        for edge in edges
        if edge.src in nodes and edge.dst in nodes
    ]
    result = GraphLayout(nodes, links)
    with _lock:
        _layouts[key] = result
        while len(_layouts) > _CACHE_SIZE:
            _layouts.popitem(last=False)
    return result


def joining_path(graph: DocGraph, clause_ids: list[str], edge_types: set[EdgeType] | None = None) -> tuple[set[str], set[tuple[str, str]]]:
    """The clauses and edges on the shortest paths (edges taken either way) from the first
    clause to each of the others: how an answer's clauses hang together in the graph."""
    wanted = [c for c in dict.fromkeys(clause_ids) if c in graph.by_id]
    if len(wanted) < 2:
        return set(wanted), set()
    neighbours: dict[str, list[str]] = {}
    for edges in graph.out_edges.values():
        for edge in edges:
            if edge_types is None or edge.type in edge_types:
                neighbours.setdefault(edge.src, []).append(edge.dst)
                neighbours.setdefault(edge.dst, []).append(edge.src)
    start = wanted[0]
    previous = {start: None}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        for following in neighbours.get(current, []):
            if following not in previous:
                previous[following] = current
                queue.append(following)
    on_path, edges_on_path = set(wanted), set()
    for target in wanted[1:]:
        step = target
        while step in previous and previous[step] is not None:
            before = previous[step]
            edges_on_path.add(tuple(sorted((before, step))))
            on_path.add(before)
            step = before
    return on_path, edges_on_path
