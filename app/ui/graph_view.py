"""The interaction graph as the surface draws it: layout, drawing spec for vis-network, clicks.

The graph is drawn with opaque node ids (``n0``..., ``e0``... behind a per-scheme prefix),
never with agent names, and with no titles at all: streamlit-agraph inserts a title as HTML
and passes it to ``window.open`` on double-click (without one, its handler stops harmlessly),
and vis-network would show even an empty title as a tooltip. Labels are drawn on the canvas
as plain text (no ``font.multi``), so a name there cannot become markup. Every handoff pair
gets a small "handle" node near its midpoint, because the component reports node clicks only;
the edge is drawn as two straight segments through it.

The stored value and its edge keys are app/types/agent_interaction_graph.py's. No Streamlit
here: the surface (app/ui/surfaces/agent_interaction_graph.py) turns these dicts into agraph
objects.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Iterable

from app.types.agent_interaction_graph import (CRITICAL, NORMAL, PROBLEMATIC, cycle_edge, edge_state, normalize,
                                              toggle_node)

# Drawing units: vis-network fits the whole drawing into the canvas, so these are only
# proportions; they are chosen near the canvas size in pixels so labels stay readable.
MIN_NODE_DISTANCE = 130.0
BASE_SCALE = 150.0
NODE_SIZE_MIN, NODE_SIZE_MAX = 10.0, 24.0
HANDLE_OFFSET = 20.0  # sideways shift of a handle when the reverse handoff exists too
HANDLE_CLEARANCE = 30.0


# --- layout --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GNode:
    id: str
    agent: str
    steps: int
    x: float
    y: float
    size: float


@dataclass(frozen=True)
class GEdge:
    id: str  # the id of its handle node
    src: str
    dst: str
    count: int
    x: float  # handle position
    y: float
    width: float


@dataclass
class Layout:
    nodes: list[GNode]
    edges: list[GEdge]
    prefix: str = ""

    def node_of(self, agent: str) -> GNode:
        return next(n for n in self.nodes if n.agent == agent)


def _unit_positions(agents: list[str], edges: list[tuple[str, str, int]], seed: int) -> dict[str, tuple[float, float]]:
    """Positions in about [-1, 1]²: a seeded spring layout of who hands off to whom (unweighted,
    so busy pairs do not collapse onto each other), or a circle in trace order if it crowds nodes."""
    import networkx as nx

    n = len(agents)
    if n == 0:
        return {}
    if n == 1:
        return {agents[0]: (0.0, 0.0)}
    g = nx.Graph()
    g.add_nodes_from(agents)
    g.add_edges_from((a, b) for a, b, _ in edges if a != b)
    pos = nx.spring_layout(g, seed=seed, weight=None) if n > 2 else nx.circular_layout(g)
    pts = {a: (float(pos[a][0]), float(pos[a][1])) for a in agents}
    if n > 2 and _min_distance(list(pts.values())) < 0.35:
        pos = nx.circular_layout(g)
        pts = {a: (float(pos[a][0]), float(pos[a][1])) for a in agents}
    return pts


def _min_distance(points: list[tuple[float, float]]) -> float:
    best = math.inf
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            best = min(best, math.dist(points[i], points[j]))
    return best


def layout(agents: Iterable[str], step_counts: dict[str, int], edges: Iterable[tuple[str, str, int]],
           prefix: str = "", seed: int = 42) -> Layout:
    """Fixed positions computed from the trace alone: the same trace always draws the same."""
    agents = list(dict.fromkeys(agents))
    edges = [(a, b, int(c)) for a, b, c in edges if a in agents and b in agents and a != b]
    unit = _unit_positions(agents, edges, seed)
    pts = list(unit.values())
    scale = BASE_SCALE
    if len(pts) > 1:
        scale = max(BASE_SCALE, MIN_NODE_DISTANCE / max(_min_distance(pts), 1e-6))
    scale = min(scale, 4000.0)
    most = max([step_counts.get(a, 0) for a in agents] + [1])
    nodes = []
    for i, a in enumerate(agents):
        x, y = unit[a]
        k = step_counts.get(a, 0)
        size = NODE_SIZE_MIN + (NODE_SIZE_MAX - NODE_SIZE_MIN) * math.sqrt(k / most)
        nodes.append(GNode(f"{prefix}n{i}", a, k, round(x * scale, 1), round(y * scale, 1), round(size, 1)))
    where = {nd.agent: nd for nd in nodes}
    pairs = {(a, b) for a, b, _ in edges}
    top = max([c for _, _, c in edges] + [1])
    # obstacles a handle keeps clear of: each node and the label under it
    placed: list[tuple[float, float, float]] = []
    for nd in nodes:
        placed.append((nd.x, nd.y, nd.size + 10.0))
        placed.append((nd.x, nd.y + nd.size + 24.0, max(28.0, min(len(nd.agent), LABEL_LIMIT) * 4.5)))
    out = []
    for j, (a, b, c) in enumerate(edges):
        pa, pb = where[a], where[b]
        dx, dy = pb.x - pa.x, pb.y - pa.y
        length = math.hypot(dx, dy) or 1.0
        # the right-hand side of a→b: a and b's two directions get opposite sides
        px, py = (dy / length, -dx / length)
        off = HANDLE_OFFSET if (b, a) in pairs else 0.0
        best, best_gap = None, -math.inf
        for t in (0.5, 0.42, 0.58, 0.35, 0.65, 0.28, 0.72):
            cx, cy = pa.x + dx * t + px * off, pa.y + dy * t + py * off
            gap = min((math.hypot(cx - x, cy - y) - r for x, y, r in placed), default=math.inf)
            if gap >= HANDLE_CLEARANCE:
                best = (cx, cy)
                break
            if gap > best_gap:
                best, best_gap = (cx, cy), gap
        hx, hy = round(best[0], 1), round(best[1], 1)
        placed.append((hx, hy, 12.0))
        width = 2.0 if top == 1 else 1.5 + 6.5 * (c - 1) / (top - 1)
        out.append(GEdge(f"{prefix}e{j}", a, b, c, hx, hy, round(width, 2)))
    return Layout(nodes, out, prefix)


# --- clicks --------------------------------------------------------------------------------------

def resolve(lay: Layout, node_id: Any) -> tuple[str, Any] | None:
    """("node", agent) or ("edge", (from, to)) for a clicked id of this drawing, else None."""
    for n in lay.nodes:
        if n.id == node_id:
            return "node", n.agent
    for e in lay.edges:
        if e.id == node_id:
            return "edge", (e.src, e.dst)
    return None


def apply_click(value: Any, lay: Layout, node_id: Any) -> dict | None:
    """The value after a click on `node_id`; None if the id is not part of this drawing."""
    hit = resolve(lay, node_id)
    agents = [n.agent for n in lay.nodes]
    if hit is None:
        return None
    kind, what = hit
    if kind == "node":
        return toggle_node(value, what, agents)
    return cycle_edge(value, what[0], what[1], agents)


def renamed(lay: Layout, prefix: str) -> Layout:
    """The same drawing with its ids behind another prefix (see ``clicks_prefix``)."""
    cut = len(lay.prefix)
    return Layout([replace(n, id=prefix + n.id[cut:]) for n in lay.nodes],
                  [replace(e, id=prefix + e.id[cut:]) for e in lay.edges], prefix)


DOUBLE_CLICK = 0.8  # seconds: a second click on the same node this soon after one is the same click


def second_of_double_click(hit: tuple, now: float, last: Any) -> bool:
    """Whether a click on `hit` (resolve()'s answer) at `now` (seconds) is the second half of a
    double-click on what was clicked last (`last`: (hit, when) of the previous handled click).
    After a double-click, vis-network reports a "hold" on the node under the pointer, which
    selects the renamed node: a click 0.25-0.4 s after the first is handled (measured; later
    on a loaded machine). A double-click means one toggle, not two."""
    return (isinstance(last, (list, tuple)) and len(last) == 2 and _as_key(last[0]) == _as_key(hit)
            and 0 <= now - last[1] < DOUBLE_CLICK)


def _as_key(x: Any) -> Any:
    return tuple(_as_key(v) for v in x) if isinstance(x, (list, tuple)) else x


def clicks_prefix(scheme_index: int, clicks: int) -> str:
    """The id prefix of a scheme's graph after `clicks` handled clicks.

    The component keeps returning its last click on later reruns, and vis-network reports a
    click on the node already selected as nothing at all. With the number of handled clicks in
    every id, a handled click's id is never drawn again (its value, returned again, resolves to
    nothing), and the drawing that follows a click holds new ids, so the selection is emptied
    and the same agent can be clicked again, while the graph is updated in place (a fresh
    component for each click cost a second: a new iframe, vis-network loaded and drawn again)."""
    return f"g{scheme_index}-{clicks}-"


# --- drawing spec (plain dicts for agraph's Node / Edge) -------------------------------------------

NODE_COLOUR = {False: "#8fb3de", True: "#d62728"}
EDGE_COLOUR = {NORMAL: "#8c8c8c", CRITICAL: "#d62728", PROBLEMATIC: "#e07b00"}
STATE_MARK = {NORMAL: "", CRITICAL: "★ critical", PROBLEMATIC: "⚠ problematic"}
LABEL_LIMIT = 28


def short_label(name: str, limit: int = LABEL_LIMIT) -> str:
    s = " ".join(str(name).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def drawing(lay: Layout, value: Any) -> tuple[list[dict], list[dict]]:
    """Node and edge option dicts for vis-network: positions fixed, no titles, states in words."""
    agents = [n.agent for n in lay.nodes]
    v = normalize(value, agents)
    font = {"size": 17, "color": "#1f2430", "strokeWidth": 4, "strokeColor": "#ffffff"}
    nodes: list[dict] = []
    for n in lay.nodes:
        crit = n.agent in v["critical_nodes"]
        label = short_label(n.agent) + ("\n★ critical path" if crit else "") + f"\n{n.steps} step" + (
            "" if n.steps == 1 else "s")
        nodes.append({"id": n.id, "label": label, "x": n.x, "y": n.y,
                      "size": n.size if not crit else n.size + 4, "shape": "star" if crit else "dot",
                      "color": NODE_COLOUR[crit], "borderWidth": 3 if crit else 1, "font": font,
                      "physics": False, "fixed": {"x": True, "y": True}})
    edges: list[dict] = []
    for e in lay.edges:
        state = edge_state(v, e.src, e.dst)
        colour = EDGE_COLOUR[state]
        mark = STATE_MARK[state]
        label = f"{e.count}×" + (f" {mark}" if mark else "")
        nodes.append({"id": e.id, "label": label, "x": e.x, "y": e.y, "shape": "box",
                      "size": 8, "margin": 4, "borderWidth": 2 if state == NORMAL else 3,
                      "shapeProperties": {"borderDashes": [4, 3] if state == PROBLEMATIC else False},
                      "color": {"background": "#ffffff", "border": colour,
                                "highlight": {"background": "#fff3c4", "border": colour}},
                      "font": {"size": 14, "color": "#1f2430"},
                      "physics": False, "fixed": {"x": True, "y": True}})
        src, dst = lay.node_of(e.src).id, lay.node_of(e.dst).id
        common = {"color": colour, "width": e.width, "dashes": state == PROBLEMATIC, "smooth": False,
                  "selectionWidth": 0}
        # ids of their own: the component updates its edges in place by id (without one, a
        # changed edge was added beside the old one, which stayed drawn under it)
        edges.append({"id": f"{e.id}-in", "source": src, "to": e.id, "arrows": {"to": {"enabled": False}},
                      **common})
        edges.append({"id": f"{e.id}-out", "source": e.id, "to": dst,
                      "arrows": {"to": {"enabled": True, "scaleFactor": 0.7}}, **common})
    nodes.extend(_padding(lay, nodes, font["size"], prefix=lay.prefix))
    return nodes, edges


def _padding(lay: Layout, nodes: list[dict], font_size: int, prefix: str) -> list[dict]:
    """Two invisible corner nodes around the labels: vis fits the view to node shapes only,
    which would cut off the names of agents at the edge of the drawing."""
    if not lay.nodes:
        return []
    char_w, line_h = 0.6 * font_size, 1.25 * font_size
    left = right = top = bottom = None
    for spec in nodes:
        lines = spec["label"].split("\n")
        half_w = max(max(len(line) for line in lines) * char_w / 2, spec.get("size", 8) + 4)
        x, y, r = spec["x"], spec["y"], spec.get("size", 8)
        below = r + 6 + len(lines) * line_h if spec["shape"] != "box" else r + 6
        left = x - half_w if left is None else min(left, x - half_w)
        right = x + half_w if right is None else max(right, x + half_w)
        top = y - r - 6 if top is None else min(top, y - r - 6)
        bottom = y + below if bottom is None else max(bottom, y + below)
    clear = {"background": "rgba(0,0,0,0)", "border": "rgba(0,0,0,0)",
             "highlight": {"background": "rgba(0,0,0,0)", "border": "rgba(0,0,0,0)"}}
    return [{"id": f"{prefix}pad{i}", "label": "", "x": round(x, 1), "y": round(y, 1),
             "shape": "dot", "size": 1, "color": clear, "borderWidth": 0, "chosen": False,
             "physics": False, "fixed": {"x": True, "y": True}}
            for i, (x, y) in enumerate([(left, top), (right, bottom)])]


def vis_options(height: int = 440) -> dict:
    """Options for the component: physics off, nothing draggable."""
    return {
        "height": f"{height}px", "width": "100%",
        "physics": {"enabled": False, "stabilization": {"enabled": False}},
        "layout": {"hierarchical": {"enabled": False}, "randomSeed": 42},
        "interaction": {"dragNodes": False, "dragView": False, "zoomView": False, "hover": False,
                        "selectConnectedEdges": False, "multiselect": False},
        "edges": {"smooth": False},
    }
