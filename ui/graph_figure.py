"""The plotly drawing of a clause graph: nodes coloured by clause type, edges by type, the
clauses of the last answer and the path between them picked out."""

from __future__ import annotations

import plotly.graph_objects as go

from engine.service import GraphLayout
from models.edge import EdgeType

EDGE_STYLE = {
    EdgeType.PARENT_OF: ("#b8c2cc", 0.6, "Hierarchy (PARENT_OF)"),
    EdgeType.REFERENCES: ("#d9822b", 0.9, "Cross-reference (REFERENCES)"),
    EdgeType.DEFINES: ("#2b8a3e", 0.5, "Definition (DEFINES)"),
}
PATH_COLOUR = "#c92a2a"
LABEL_NODES_UP_TO = 80  # beyond this the refs would overprint each other; hover still names every node
ARC_POINTS = 16


def graph_figure(
    layout: GraphLayout,
    edge_types: set[EdgeType],
    cited: set[str] = frozenset(),
    path_nodes: set[str] = frozenset(),
    path_edges: set[tuple[str, str]] = frozenset(),
) -> go.Figure:
    figure = go.Figure()
    nodes = layout.nodes
    labelled = len(nodes) <= LABEL_NODES_UP_TO
    for edge_type in (EdgeType.PARENT_OF, EdgeType.DEFINES, EdgeType.REFERENCES):
        if edge_type not in edge_types:
            continue
        colour, width, name = EDGE_STYLE[edge_type]
        xs, ys = _segments([(link.src, link.dst) for link in layout.links if link.type is edge_type], nodes, curved=edge_type is not EdgeType.PARENT_OF)
        figure.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", line={"color": colour, "width": width}, name=name, hoverinfo="skip"))
    if path_edges:
        xs, ys = _segments(list(path_edges), nodes, curved=True)
        figure.add_trace(go.Scattergl(x=xs, y=ys, mode="lines", line={"color": PATH_COLOUR, "width": 3}, name="Path between cited clauses", hoverinfo="skip"))
    by_type: dict[str, list] = {}
    for node in nodes.values():
        by_type.setdefault(node.clause_type, []).append(node)
    for clause_type, members in sorted(by_type.items()):
        figure.add_trace(
            go.Scattergl(
                x=[n.x for n in members], y=[n.y for n in members], mode="markers+text" if labelled else "markers",
                name=clause_type.replace("_", " "), text=[n.ref if labelled else "" for n in members], textposition="bottom center",
                textfont={"size": 9, "color": "#555"},
                marker={"size": [14 if n.clause_id in cited else 10 if n.clause_id in path_nodes else 7 for n in members],
                        "line": {"width": [2.5 if n.clause_id in cited or n.clause_id in path_nodes else 0 for n in members], "color": PATH_COLOUR}},
                customdata=[n.clause_id for n in members],
                hovertext=[f"<b>{n.ref}</b> {n.heading}<br>{clause_type.replace('_', ' ')} · page {n.page}" for n in members],
                hoverinfo="text",
            )
        )
    figure.update_layout(
        height=620, margin={"l": 10, "r": 10, "t": 10, "b": 10}, dragmode="pan", clickmode="event+select",
        xaxis={"visible": False}, yaxis={"visible": False}, legend={"orientation": "h", "y": -0.02},
        plot_bgcolor="white",
    )
    return figure


def _segments(pairs: list[tuple[str, str]], nodes, curved: bool = False) -> tuple[list, list]:
    """Line segments separated by None; a cross-reference or definition is drawn as an arc
    over the page, higher the farther it reaches, so arcs between clauses on one level do
    not lie on top of each other."""
    xs: list = []
    ys: list = []
    for src, dst in pairs:
        if src not in nodes or dst not in nodes:
            continue
        (x0, y0), (x1, y1) = (nodes[src].x, nodes[src].y), (nodes[dst].x, nodes[dst].y)
        if not curved:
            xs += [x0, x1, None]
            ys += [y0, y1, None]
            continue
        lift = 0.35 + 0.6 * abs(x1 - x0) ** 0.5
        for step in range(ARC_POINTS + 1):
            t = step / ARC_POINTS
            xs.append(x0 + (x1 - x0) * t)
            ys.append(y0 + (y1 - y0) * t + lift * 4 * t * (1 - t))
        xs.append(None)
        ys.append(None)
    return xs, ys
