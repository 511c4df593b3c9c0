"""The clause graph as drawn: layout in reading order and the path joining an answer's clauses."""

from __future__ import annotations

from engine.views.graph_layout import joining_path, layout
from models.edge import EdgeType
from tests.conftest import GCLOUD
from ui.graph_figure import graph_figure


def test_the_layout_reads_like_the_contract(sample_library):
    graph = sample_library.graph(sample_library.find(GCLOUD.name).doc_id)
    drawn = layout(graph)
    assert len(drawn.nodes) == len(graph.clauses) == 268  # the glossary row "'Group' ... are defined in section 1159 of the Companies Act" is one
    by_ref = {n.ref: n for n in drawn.nodes.values()}
    assert by_ref["4.6"].x < by_ref["4.6.1"].x < by_ref["4.6.2"].x < by_ref["8.7"].x  # document order
    assert by_ref["4.6"].y == -2 and by_ref["4.6.1"].y == -3  # depth downwards
    assert layout(graph) is drawn  # laid out once, then kept
    assert sum(1 for link in drawn.links if link.type is EdgeType.REFERENCES and (by_ref["4.6.1"].clause_id, by_ref["4.6.2"].clause_id) == (link.src, link.dst)) == 1


def test_the_path_joins_the_cited_clauses_through_the_graph(sample_library):
    graph = sample_library.graph(sample_library.find(GCLOUD.name).doc_id)
    ids = {c.ref: c.clause_id for c in graph.clauses}
    nodes, edges = joining_path(graph, [ids["4.6.1"], ids["4.6.2"]], {EdgeType.REFERENCES})
    assert nodes == {ids["4.6.1"], ids["4.6.2"]} and edges == {tuple(sorted((ids["4.6.1"], ids["4.6.2"])))}
    nodes, edges = joining_path(graph, [ids["4.6.2"], ids["4.6.3"]], {EdgeType.PARENT_OF})
    assert nodes == {ids["4.6"], ids["4.6.2"], ids["4.6.3"]} and len(edges) == 2  # through their parent


def test_the_figure_marks_cited_clauses_and_draws_only_the_chosen_edges(sample_library):
    graph = sample_library.graph(sample_library.find(GCLOUD.name).doc_id)
    ids = {c.ref: c.clause_id for c in graph.clauses}
    figure = graph_figure(layout(graph), {EdgeType.REFERENCES}, cited={ids["4.6.1"]}, path_nodes={ids["4.6.1"]}, path_edges=set())
    names = [trace.name for trace in figure.data]
    assert "Cross-reference (REFERENCES)" in names and "Definition (DEFINES)" not in names
    marked = [(trace.customdata[i], size) for trace in figure.data if trace.customdata is not None for i, size in enumerate(trace.marker.size) if size == 14]
    assert marked == [(ids["4.6.1"], 14)]
