"""app.graph: edge keys, the stored value, layout, drawing spec and click handling."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.types import agent_interaction_graph as graph
from app.ui import graph_view as view
from app.traces.derive import derive
from app.traces.readers import read_file
from app.project.workspace import open_project
from tests.conftest import DATASETS, ROOT

INJECTED = '<img src=x onerror="document.title=\'pwned\'">'


# --- edge keys -----------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, key", [
    ("Planner", "Critic", "Planner->Critic"),
    ("gpt-4", "claude-3", "gpt-4->claude-3"),  # ordinary dashes stay verbatim
    ("a->b", "c", "a-\\>b->c"),
    ("a", "b->c", "a->b-\\>c"),
    ("a-", ">b", "a-->\\>b"),
    ("back\\slash", "x", "back\\\\slash->x"),
    ("", "", "->"),
    ("->", "->", "-\\>->-\\>"),
])
def test_edge_key_literal(a, b, key):
    assert graph.edge_key(a, b) == key
    assert graph.parse_edge_key(key) == (a, b)


@pytest.mark.parametrize("bad", ["PlannerCritic", "a>b", ">b", "a->b->c", "a\\x->b", "a->b\\", "a-\\>b", 3, None])
def test_parse_edge_key_rejects_malformed(bad):
    with pytest.raises(ValueError):
        graph.parse_edge_key(bad)


names = st.text(alphabet=st.sampled_from(list("ab->\\ <\"'é\n")), max_size=8) | st.text(max_size=12)


@settings(max_examples=200, deadline=None)
@given(names, names)
def test_edge_key_round_trips(a, b):
    assert graph.parse_edge_key(graph.edge_key(a, b)) == (a, b)


@settings(max_examples=200, deadline=None)
@given(names, names, names, names)
def test_edge_keys_never_collide(a, b, c, d):
    if (a, b) != (c, d):
        assert graph.edge_key(a, b) != graph.edge_key(c, d)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(names, names, st.sampled_from(graph.EDGE_STATES)), max_size=6))
def test_value_round_trips_through_set_edge(changes):
    value = graph.empty_value()
    expected: dict[tuple[str, str], str] = {}
    for a, b, state in changes:
        value = graph.set_edge(value, a, b, state)
        expected[(a, b)] = state
    for (a, b), state in expected.items():
        assert graph.edge_state(value, a, b) == state
    assert {graph.parse_edge_key(k) for k in value["edges"]} == {p for p, s in expected.items() if s != "normal"}


# --- the stored value ----------------------------------------------------------------------------

AGENTS = ["Planner", "Coder", "Critic"]


def test_toggle_node_on_and_off_in_agent_order():
    v = graph.toggle_node(None, "Critic", AGENTS)
    v = graph.toggle_node(v, "Planner", AGENTS)
    assert v == {"critical_nodes": ["Planner", "Critic"], "edges": {}}
    v = graph.toggle_node(v, "Critic", AGENTS)
    assert v == {"critical_nodes": ["Planner"], "edges": {}}
    v = graph.toggle_node(v, "Planner", AGENTS)
    assert v == graph.empty_value() and graph.is_empty(v)


def test_set_node_is_idempotent():
    v = graph.set_node(None, "Coder", True, AGENTS)
    assert graph.set_node(v, "Coder", True, AGENTS) == v
    assert graph.set_node(v, "Planner", False, AGENTS) == v


def test_cycle_edge_normal_critical_problematic_normal():
    v = graph.empty_value()
    v = graph.cycle_edge(v, "Planner", "Coder", AGENTS)
    assert v["edges"] == {"Planner->Coder": "critical"}
    v = graph.cycle_edge(v, "Planner", "Coder", AGENTS)
    assert v["edges"] == {"Planner->Coder": "problematic"}
    v = graph.cycle_edge(v, "Planner", "Coder", AGENTS)
    assert v == graph.empty_value()  # normal edges are left out


def test_next_state():
    assert [graph.next_state(s) for s in graph.EDGE_STATES] == ["critical", "problematic", "normal"]
    assert graph.next_state("bogus") == "critical"


def test_set_edge_rejects_unknown_state():
    with pytest.raises(ValueError):
        graph.set_edge(None, "a", "b", "broken")


def test_normalize_cleans_orders_and_keeps_unknown_names():
    raw = {"critical_nodes": ["Ghost", "Critic", "Planner", "Critic"],
           "edges": {"Critic->Planner": "problematic", "Planner->Coder": "critical",
                     "Coder->Critic": "normal", "bad key": "critical", "Coder->Planner": "weird"}}
    v = graph.normalize(raw, AGENTS)
    assert v == {"critical_nodes": ["Planner", "Critic", "Ghost"],
                 "edges": {"Planner->Coder": "critical", "Critic->Planner": "problematic"}}
    assert graph.normalize("nonsense", AGENTS) == graph.empty_value()
    assert graph.normalize({"critical_nodes": "x", "edges": []}) == graph.empty_value()


def test_summary_separates_what_the_trace_lacks():
    v = {"critical_nodes": ["Planner", "Ghost"], "edges": {"Planner->Coder": "critical", "X->Y": "problematic"}}
    s = graph.summarize(v, AGENTS, [("Planner", "Coder", 3), ("Coder", "Critic", 1)])
    assert s.critical == ["Planner"] and s.critical_elsewhere == ["Ghost"]
    assert s.flagged == [("Planner", "Coder", "critical", 3)]
    assert s.flagged_elsewhere == [("X", "Y", "problematic")]


# --- layout --------------------------------------------------------------------------------------

def _demo_derivations():
    ws = open_project(ROOT / "configs" / "demo.yaml")
    out = [(it.id, derive(it.data)) for it in ws.items]
    # and the shared Who&When runs when beside the clone (a bare clone: the demo's four in data/whowhen)
    for path in sorted((DATASETS / "whowhen").rglob("*.json")):
        items, _ = read_file(path)
        out += [(it.id, derive(it.data)) for it in items]
    return out


DERIVATIONS = _demo_derivations()


def _check_layout(lay: view.Layout, agents, edges):
    assert [n.agent for n in lay.nodes] == list(agents)
    assert [(e.src, e.dst, e.count) for e in lay.edges] == [(a, b, c) for a, b, c in edges]
    ids = [n.id for n in lay.nodes] + [e.id for e in lay.edges]
    assert len(ids) == len(set(ids))
    pts = [(n.x, n.y) for n in lay.nodes]
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            assert math.dist(pts[i], pts[j]) >= view.MIN_NODE_DISTANCE - 1
    for e in lay.edges:  # a handle never sits on an agent
        for n in lay.nodes:
            assert math.dist((e.x, e.y), (n.x, n.y)) > n.size
    top = max([c for _, _, c in edges] + [1])
    for e in lay.edges:
        assert 1 <= e.width <= 8 and (e.count < top or top == 1 or e.width == max(x.width for x in lay.edges))


@pytest.mark.parametrize("item_id, d", DERIVATIONS, ids=[i for i, _ in DERIVATIONS])
def test_layout_of_real_traces(item_id, d):
    lay = view.layout(d.agents, d.step_counts, d.edges, prefix="g1-")
    _check_layout(lay, d.agents, d.edges)
    assert view.layout(d.agents, d.step_counts, d.edges, prefix="g1-") == lay  # stays put
    assert [n.id for n in lay.nodes] == [f"g1-n{i}" for i in range(len(d.agents))]  # opaque ids


def test_layout_edge_width_grows_with_count():
    lay = view.layout(["a", "b", "c"], {"a": 5, "b": 3, "c": 1}, [("a", "b", 1), ("b", "c", 4), ("c", "a", 2)])
    w = {(e.src, e.dst): e.width for e in lay.edges}
    assert w[("a", "b")] < w[("c", "a")] < w[("b", "c")]
    size = {n.agent: n.size for n in lay.nodes}
    assert size["a"] > size["b"] > size["c"]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 12, 30])
def test_layout_sizes(n):
    agents = [f"agent {i}" for i in range(n)]
    edges = [(agents[i], agents[(i + 1) % n], 1) for i in range(n)] if n > 1 else []
    lay = view.layout(agents, {a: 1 for a in agents}, edges)
    _check_layout(lay, agents, edges)


def test_layout_reciprocal_handles_are_apart():
    lay = view.layout(["a", "b"], {"a": 1, "b": 1}, [("a", "b", 1), ("b", "a", 1)])
    (e1, e2) = lay.edges
    assert math.dist((e1.x, e1.y), (e2.x, e2.y)) >= 2 * view.HANDLE_OFFSET - 1


# --- drawing and clicks --------------------------------------------------------------------------

def test_drawing_is_safe_and_text_carries_state():
    agents = ["Planner", INJECTED, "Critic"]
    edges = [("Planner", INJECTED, 2), (INJECTED, "Critic", 1), ("Critic", "Planner", 1)]
    lay = view.layout(agents, {a: 2 for a in agents}, edges, prefix="g3-")
    value = {"critical_nodes": [INJECTED],
             "edges": {graph.edge_key("Planner", INJECTED): "critical",
                       graph.edge_key(INJECTED, "Critic"): "problematic"}}
    nodes, vis_edges = view.drawing(lay, value)
    ids = [n["id"] for n in nodes]
    assert len(ids) == len(set(ids))
    for n in nodes:
        assert "title" not in n  # never HTML, never a URL for double-click to open
        assert INJECTED not in n["id"] and n["id"].startswith("g3-")
        assert n["physics"] is False and n["fixed"] == {"x": True, "y": True}
    by_id = {n["id"]: n for n in nodes}
    inj = by_id[lay.node_of(INJECTED).id]
    assert "critical path" in inj["label"] and inj["shape"] == "star"
    assert "critical" not in by_id[lay.node_of("Planner").id]["label"]
    handles = {(e.src, e.dst): by_id[e.id] for e in lay.edges}
    # the box carries the state as a sign (issue 27: short boxes stay clear of the labels); the
    # line under the graph says it in words
    assert handles[("Planner", INJECTED)]["label"] == "2× ★"
    assert handles[(INJECTED, "Critic")]["label"] == "1× ⚠"
    assert handles[("Critic", "Planner")]["label"] == "1×"
    assert all("width" in e and "value" not in e for e in vis_edges)  # never mix width and value
    assert len(vis_edges) == 2 * len(lay.edges)
    dashed = [e for e in vis_edges if e["dashes"]]
    assert len(dashed) == 2  # the problematic pair's two segments
    arrows = [e for e in vis_edges if e["arrows"]["to"]["enabled"]]
    assert {e["to"] for e in arrows} == {n.id for n in lay.nodes}


def test_drawing_pads_the_view_around_labels():
    lay = view.layout(["A very long agent name indeed", "b"], {}, [("b", "A very long agent name indeed", 1)])
    nodes, _ = view.drawing(lay, None)
    pads = [n for n in nodes if "pad" in n["id"]]
    real = [n for n in nodes if "pad" not in n["id"]]
    assert len(pads) == 2
    assert pads[0]["x"] < min(n["x"] for n in real) and pads[1]["x"] > max(n["x"] for n in real)
    assert view.resolve(lay, pads[0]["id"]) is None


def test_apply_click():
    lay = view.layout(AGENTS, {}, [("Planner", "Coder", 1), ("Coder", "Critic", 1)], prefix="g0-")
    v = view.apply_click(None, lay, "g0-n2")
    assert v == {"critical_nodes": ["Critic"], "edges": {}}
    v = view.apply_click(v, lay, "g0-e1")
    assert v["edges"] == {"Coder->Critic": "critical"}
    v = view.apply_click(v, lay, "g0-e1")
    assert v["edges"] == {"Coder->Critic": "problematic"}
    v = view.apply_click(v, lay, "g0-e1")
    v = view.apply_click(v, lay, "g0-n2")
    assert graph.is_empty(v)
    assert view.apply_click(v, lay, "g0-pad0") is None
    assert view.apply_click(v, lay, "n2") is None  # another scheme's graph
    assert view.resolve(lay, "g0-n0") == ("node", "Planner")
    assert view.resolve(lay, "g0-e0") == ("edge", ("Planner", "Coder"))


def test_ids_after_a_click_are_new_and_the_clicked_one_is_stale():
    lay = view.layout(AGENTS, {}, [("Planner", "Coder", 1), ("Coder", "Critic", 1)], prefix=view.clicks_prefix(0, 0))
    v = view.apply_click(None, lay, "g0-0-n0")
    assert v["critical_nodes"] == ["Planner"]
    after = view.renamed(lay, view.clicks_prefix(0, 1))
    assert [n.id for n in after.nodes] == ["g0-1-n0", "g0-1-n1", "g0-1-n2"]
    assert [e.id for e in after.edges] == ["g0-1-e0", "g0-1-e1"]
    assert [(n.agent, n.x, n.y) for n in after.nodes] == [(n.agent, n.x, n.y) for n in lay.nodes]  # stays put
    assert view.apply_click(v, after, "g0-0-n0") is None  # returned again on a later rerun: not a click
    assert view.apply_click(v, after, "g0-1-n0")["critical_nodes"] == []  # the same agent clicked again
    assert view.apply_click(v, after, None) is None and view.apply_click(v, after, "") is None


def test_a_double_click_is_one_click():
    hit = ("node", "Planner")
    assert not view.second_of_double_click(hit, 10.0, None)
    assert view.second_of_double_click(hit, 10.3, (hit, 10.0))
    assert view.second_of_double_click(hit, 10.3, [["node", "Planner"], 10.0])  # as kept in the session
    assert not view.second_of_double_click(hit, 10.9, (hit, 10.0))  # clicked again later: a click
    assert not view.second_of_double_click(("node", "Coder"), 10.1, (hit, 10.0))
    assert not view.second_of_double_click(("edge", ("Planner", "Coder")), 10.1, (hit, 10.0))


def test_vis_options_and_edge_ids():
    a = view.vis_options()
    assert a["physics"]["enabled"] is False and a["interaction"]["dragNodes"] is False
    lay = view.layout(AGENTS, {}, [("Planner", "Coder", 1), ("Coder", "Critic", 1)], prefix="g0-0-")
    _nodes, edges = view.drawing(lay, None)
    ids = [e["id"] for e in edges]
    assert ids == ["g0-0-e0-in", "g0-0-e0-out", "g0-0-e1-in", "g0-0-e1-out"]  # updated in place by id


@pytest.mark.parametrize("item_id, d", DERIVATIONS, ids=[i for i, _ in DERIVATIONS])
def test_no_label_box_or_node_overlaps_whatever_is_marked(item_id, d):
    """Issue 27: node labels collided with the handoffs' count boxes once a node was marked
    critical. The layout keeps room for the widest state of every label and box."""
    lay = view.layout(d.agents, d.step_counts, d.edges, prefix="g1-")
    assert view.overlaps(lay) == []
    everything = {"critical_nodes": list(d.agents),
                  "edges": {graph.edge_key(a, b): "problematic" for a, b, _ in d.edges}}
    nodes, _ = view.drawing(lay, everything)
    by_id = {n["id"]: n for n in nodes}
    for n in lay.nodes:  # what is drawn fits in the room kept for it
        lines = by_id[n.id]["label"].split("\n")
        _, label = view.node_rects(n)
        assert len(lines) <= 3 and max(len(x) for x in lines) * 0.6 * view.NODE_FONT <= label[2] - label[0] + 0.01
    for e in lay.edges:
        box = view.box_rect(e.x, e.y, e.count)
        assert len(by_id[e.id]["label"]) * 0.6 * view.BOX_FONT <= box[2] - box[0]


def test_nodes_take_their_agents_colour():
    """Issue 27: every node was one blue while the trace coloured each agent."""
    from app.traces.palette import agent_hex
    lay = view.layout(["Coder", "Tester", "Manager"], {}, [("Coder", "Tester", 1)])
    nodes, _ = view.drawing(lay, {"critical_nodes": ["Tester"], "edges": {}})
    by_id = {n["id"]: n for n in nodes}
    for n in lay.nodes:
        assert by_id[n.id]["color"]["background"] == agent_hex(n.agent)
    crit = by_id[lay.node_of("Tester").id]
    assert crit["shape"] == "star" and crit["borderWidth"] > 1 and "critical path" in crit["label"]
