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

from app.traces.palette import agent_hex
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


NODE_FONT, BOX_FONT = 17, 14  # label sizes in drawing units (the canvas draws them at about 1:1)
BOX_MARGIN = 4
LABEL_GAP = 6.0  # space kept between any two drawn things (labels, boxes, nodes)
MAX_SPREADS = 10  # times the layout is spread out further until nothing overlaps


def _chars_w(n: int, font: int) -> float:
    return n * 0.6 * font  # vis-network's sans-serif: about 0.6 em a character, a little generous


Rect = tuple[float, float, float, float]  # left, top, right, bottom


def node_rects(nd: GNode) -> list[Rect]:
    """Where a node and its label are drawn, in the state that takes the most room (its name,
    its steps and "★ critical path" on three lines under the dot): the layout keeps this clear
    whatever is marked, so marking never makes labels collide."""
    lines = [short_label(nd.agent), CRITICAL_LINE, f"{nd.steps} steps"]
    half = _chars_w(max(len(x) for x in lines), NODE_FONT) / 2
    top = nd.y + nd.size + 4
    r = nd.size + 4  # the star drawn for a critical node is a little larger than the dot
    return [(nd.x - r, nd.y - r, nd.x + r, nd.y + r),
            (nd.x - half, top, nd.x + half, top + 3 * 1.25 * NODE_FONT)]


def box_rect(x: float, y: float, count: int) -> Rect:
    """Where a handoff's count box is drawn, in its widest state ("12× ⚠")."""
    w = _chars_w(len(edge_label(count, PROBLEMATIC)), BOX_FONT) / 2 + BOX_MARGIN + 3
    h = 1.25 * BOX_FONT / 2 + BOX_MARGIN + 3
    return (x - w, y - h, x + w, y + h)


def _overlap(a: Rect, b: Rect, gap: float = LABEL_GAP) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def overlaps(lay: Layout) -> list[tuple[str, str]]:
    """Pairs of drawn things (node, label, count box) of different nodes or handoffs that would
    overlap: none for a layout this module made (checked by the tests on every demo trace)."""
    things: list[tuple[str, Rect]] = [(nd.id, r) for nd in lay.nodes for r in node_rects(nd)]
    things += [(e.id, box_rect(e.x, e.y, e.count)) for e in lay.edges]
    return [(a, b) for i, (a, ra) in enumerate(things) for b, rb in things[i + 1:]
            if a != b and _overlap(ra, rb)]


def layout(agents: Iterable[str], step_counts: dict[str, int], edges: Iterable[tuple[str, str, int]],
           prefix: str = "", seed: int = 42) -> Layout:
    """Fixed positions computed from the trace alone: the same trace always draws the same.
    Spread out until no label, node or count box overlaps another (vis-network fits the whole
    drawing into the canvas, so spreading costs only some size on screen)."""
    agents = list(dict.fromkeys(agents))
    edges = [(a, b, int(c)) for a, b, c in edges if a in agents and b in agents and a != b]
    unit = _unit_positions(agents, edges, seed)
    pts = list(unit.values())
    scale = BASE_SCALE
    if len(pts) > 1:
        scale = max(BASE_SCALE, MIN_NODE_DISTANCE / max(_min_distance(pts), 1e-6))
    scale = min(scale, 4000.0)
    best = None
    for _ in range(MAX_SPREADS):
        lay, clashes = _placed(agents, step_counts, edges, unit, scale, prefix)
        if best is None or clashes < best[1]:
            best = (lay, clashes)
        if not clashes:
            break
        scale *= 1.3
    return best[0]


def _placed(agents, step_counts, edges, unit, scale: float, prefix: str) -> tuple[Layout, int]:
    """The layout at this scale, and how many of its count boxes could not be kept clear."""
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
    # what a count box keeps clear of: every node, every label, the boxes placed before it
    placed: list[Rect] = [r for nd in nodes for r in node_rects(nd)]
    clashes = sum(1 for i, a in enumerate(placed) for b in placed[i + 1:] if _overlap(a, b))
    clashes -= sum(1 for nd in nodes if _overlap(*node_rects(nd)))  # a node and its own label touch
    out = []
    for j, (a, b, c) in enumerate(edges):
        pa, pb = where[a], where[b]
        dx, dy = pb.x - pa.x, pb.y - pa.y
        length = math.hypot(dx, dy) or 1.0
        # the right-hand side of a→b: a and b's two directions get opposite sides
        px, py = (dy / length, -dx / length)
        off = HANDLE_OFFSET if (b, a) in pairs else 0.0
        best, best_hits = None, math.inf
        for t in (0.5, 0.42, 0.58, 0.35, 0.65, 0.28, 0.72, 0.22, 0.78):
            cx, cy = pa.x + dx * t + px * off, pa.y + dy * t + py * off
            hits = sum(1 for r in placed if _overlap(box_rect(cx, cy, c), r))
            if hits < best_hits:
                best, best_hits = (cx, cy), hits
            if not hits:
                break
        clashes += best_hits
        hx, hy = round(best[0], 1), round(best[1], 1)
        placed.append(box_rect(hx, hy, c))
        width = 2.0 if top == 1 else 1.5 + 6.5 * (c - 1) / (top - 1)
        out.append(GEdge(f"{prefix}e{j}", a, b, c, hx, hy, round(width, 2)))
    return Layout(nodes, out, prefix), clashes


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

EDGE_COLOUR = {NORMAL: "#8c8c8c", CRITICAL: "#1f2430", PROBLEMATIC: "#e07b00"}
# a box carries its state as a sign (the line under the graph says it in words): a short box
# stays clear of the labels around it
STATE_MARK = {NORMAL: "", CRITICAL: "★", PROBLEMATIC: "⚠"}
CRITICAL_LINE = "★ critical path"
CRITICAL_BORDER = "#1f2430"  # a critical agent: a star with a thick dark border, and the words
LABEL_LIMIT = 28


def edge_label(count: int, state: str) -> str:
    mark = STATE_MARK[state]
    return f"{count}×" + (f" {mark}" if mark else "")


def short_label(name: str, limit: int = LABEL_LIMIT) -> str:
    s = " ".join(str(name).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def drawing(lay: Layout, value: Any) -> tuple[list[dict], list[dict]]:
    """Node and edge option dicts for vis-network: positions fixed, no titles, states in words."""
    agents = [n.agent for n in lay.nodes]
    v = normalize(value, agents)
    font = {"size": NODE_FONT, "color": "#1f2430", "strokeWidth": 4, "strokeColor": "#ffffff"}
    nodes: list[dict] = []
    for n in lay.nodes:
        crit = n.agent in v["critical_nodes"]
        # the name, the steps, and the critical mark last: marking adds a line below, where the
        # layout kept room for it (node_rects)
        label = short_label(n.agent) + f"\n{n.steps} step" + ("" if n.steps == 1 else "s") + (
            f"\n{CRITICAL_LINE}" if crit else "")
        colour = agent_hex(n.agent)  # the agent's colour in the trace, the timeline, the summary
        nodes.append({"id": n.id, "label": label, "x": n.x, "y": n.y,
                      "size": n.size, "shape": "star" if crit else "dot",
                      "color": {"background": colour, "border": CRITICAL_BORDER if crit else colour,
                                "highlight": {"background": colour, "border": CRITICAL_BORDER}},
                      "borderWidth": 4 if crit else 1, "font": font,
                      "physics": False, "fixed": {"x": True, "y": True}})
    edges: list[dict] = []
    for e in lay.edges:
        state = edge_state(v, e.src, e.dst)
        colour = EDGE_COLOUR[state]
        label = edge_label(e.count, state)
        nodes.append({"id": e.id, "label": label, "x": e.x, "y": e.y, "shape": "box",
                      "size": 8, "margin": BOX_MARGIN, "borderWidth": 2 if state == NORMAL else 3,
                      "shapeProperties": {"borderDashes": [4, 3] if state == PROBLEMATIC else False},
                      "color": {"background": "#ffffff", "border": colour,
                                "highlight": {"background": "#fff3c4", "border": colour}},
                      "font": {"size": BOX_FONT, "color": "#1f2430"},
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
