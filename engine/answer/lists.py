"""The list a quote announces: "... may terminate this Agreement if:" says nothing without
the conditions that follow. They are written on in the same clause ("... revenue less: 1)
third party expenses ...; and 2) ..."), or they are its parts, clauses of their own ("Upon
termination of this Agreement for any reason:" over (i), (ii), (iii)).
"""

from __future__ import annotations

import re

from engine.store.graphcache import DocGraph
from engine.text.matching import sentence_spans
from models.clause import Clause

#: what opens an item of a list written on after its lead-in: "(a)", "(iv)", "1)", "2.", "b.", a bullet
_LIST_ITEM = re.compile(r"\s*(?:\((?:[a-zA-Z]|[ivxIVX]{1,5}|\d{1,2})\)|(?:[a-zA-Z]|[ivxIVX]{1,5}|\d{1,2})[.)](?!\d)|[•●○◦▪■►·–-])\s*\S")


def _opens_list(text: str, end: int) -> bool:
    """Does text[:end] end by announcing a list ("... may terminate this Agreement if:")?"""
    return text[:end].rstrip().endswith(":")


def list_end(text: str, end: int, max_chars: int) -> int:
    """Where a quote ending at `end` should end: a quote that opens a list the clause writes on
    ("... revenue less: 1) third party expenses ...; and 2) internally paid commissions") takes
    as many whole items as fit in `max_chars` after it, or the first cut at a word. Without its
    items such a quote says nothing: the conditions are the answer."""
    if max_chars <= 0 or not _opens_list(text, end) or not _LIST_ITEM.match(text, end):
        return end
    limit = min(len(text), end + max_chars)
    whole = [stop for _, stop in sentence_spans(text, end) if stop <= limit]
    if whole:
        return whole[-1]
    cut = text.rfind(" ", end, limit)
    return cut if cut > end else limit


def listed_parts(graphs: dict[str, DocGraph], clause: Clause, end: int, max_chars: int) -> list[tuple[Clause, int, int]]:
    """The items of the list a quote opens when the clause ends with it and its parts are the
    items ("Upon termination of this Agreement for any reason:" over (i), (ii), (iii)): each
    part whole, in order, an item's own list right after it, while they fit in `max_chars`;
    the first cut at a word if none does."""
    graph = graphs.get(clause.doc_id)
    if max_chars <= 0 or graph is None or clause.text[end:].strip() or not _opens_list(clause.text, end):
        return []
    items: list[tuple[Clause, int, int]] = []
    _take_parts(graph, clause, max_chars, items)
    return items


def _take_parts(graph: DocGraph, clause: Clause, room: int, items: list[tuple[Clause, int, int]]) -> int:
    """Append the clause's parts to `items` while they fit in `room`; the room left, -1 once full."""
    parts = sorted((graph.by_id[p] for p in graph.parts(clause.clause_id) if p in graph.by_id), key=lambda part: part.order)
    for part in parts:
        length = len(part.text.rstrip())
        if length > room:
            if not items and (cut := part.text.rfind(" ", 0, room)) > 0:
                items.append((part, 0, cut))
            return -1
        items.append((part, 0, length))
        room -= length
        if _opens_list(part.text, length) and (room := _take_parts(graph, part, room, items)) < 0:
            return -1
    return room
