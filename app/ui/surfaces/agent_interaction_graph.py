"""Agent interaction graph: mark the critical path and flag handoffs, by click or by keyboard.

The graph (streamlit-agraph) is drawn from `app.graph`: fixed positions, physics off, opaque
node ids and empty titles. A click on an agent toggles it; a click on a handoff's count box
(its handle) cycles normal → critical → problematic. The ids hold the number of clicks handled
(view.clicks_prefix), so a stale return value is never applied again and the same node can be
clicked again, with the graph updated in place. The click is applied and the graph redrawn in
the same script run. Below it, a toggle per agent, a choice per handoff and a text summary do the same
without a mouse. The graph, the summary and the agents' toggles are a fragment of their own: a
toggle or an agent click re-runs only them, not the (up to twenty) handoff controls; a handoff
change re-runs the scheme's fragment, and a click on a handoff's handle the page.

Every change is saved as what it changed from the value its controls (or the drawing) were drawn
from (`base`), on top of what is on disk (app/types/merge.py): a second tab of the same annotator
never unmarks what this one marked; a handoff another tab set to another state meanwhile keeps
it, the graph's saved line says so, and every control shows the disk.
"""
from __future__ import annotations

import json
import time

import streamlit as st
from streamlit_agraph import Edge, Node, _agraph

from app.types import agent_interaction_graph as graph
from app.store.storage import STATUS_REVIEWED_CLEAN
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import graph_view as view, shell, state, suggestion_view
from app.ui.state import widget_key
from app.ui.text import md, visible

EDGES_PER_PAGE = 20
STATE_WORDS = {graph.NORMAL: "normal", graph.CRITICAL: "★ critical", graph.PROBLEMATIC: "⚠ problematic"}


class _Options:
    """What agraph() serialises (it dumps `config.__dict__`)."""

    def __init__(self, options: dict):
        self.__dict__.update(options)


def _nodes_and_edges(lay: view.Layout, value: dict) -> tuple[list[Node], list[Edge]]:
    node_specs, edge_specs = view.drawing(lay, value)
    nodes = []
    for spec in node_specs:
        spec = dict(spec, label=visible(spec.get("label", "")))  # hidden characters shown
        node = Node(id=spec.pop("id"), **spec)
        # Node() sets the title to the id when none is given; the component would insert it as
        # HTML and window.open() it on double-click. Without a title neither happens.
        vars(node).pop("title", None)
        nodes.append(node)
    edges = []
    for spec in edge_specs:
        spec = dict(spec)
        edges.append(Edge(source=spec.pop("source"), target=spec.pop("to"), **spec))
    return nodes, edges


def _draw(nodes: list[Node], edges: list[Edge], options: _Options, key: str):
    """streamlit-agraph's agraph() (the same arguments to the same component), with a key:
    agraph() takes none, and an unkeyed component is a new iframe whenever its drawing changes."""
    data = {"nodes": [n.to_dict() for n in nodes], "edges": [e.to_dict() for e in edges]}
    return _agraph(data=json.dumps(data), config=json.dumps(options.__dict__), key=key, default=None)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def summary_lines(s: graph.Summary) -> list[str]:
    """The live summary as Markdown lines (names escaped)."""
    crit = ", ".join(md(a) for a in s.critical) if s.critical else "none marked"
    lines = [f"**Critical path:** {crit}"]
    if s.flagged:
        parts = [f"{md(a)} → {md(b)}: **{STATE_WORDS[st_]}**" for a, b, st_, _ in s.flagged]
        lines.append("**Flagged handoffs:** " + "; ".join(parts))
    else:
        lines.append("**Flagged handoffs:** none flagged")
    if s.critical_elsewhere or s.flagged_elsewhere:
        extra = [md(a) for a in s.critical_elsewhere] + [
            f"{md(a)} → {md(b)}: {STATE_WORDS[st_]}" for a, b, st_ in s.flagged_elsewhere]
        lines.append("**Saved but not in this trace** (kept; the data changed): " + "; ".join(extra))
    return lines


def _bound(ws: Workspace, item: Item, scheme: Scheme, agents: list[str]):
    """(key, current, commit) for this scheme on this item: widget keys, the stored value as
    clean graph marks, and a save that says when in the summary (the graph's part re-runs alone)."""
    def key(*parts):
        return widget_key("graph", scheme.name, item.id, *parts)

    def current() -> dict:
        ann = shell.load(ws, item, scheme.name)
        return graph.normalize(ann.value if ann else None, agents)

    def commit(value: dict, base: dict) -> None:  # (base: the value the control was drawn from)
        shell.card_saved(ws, item, scheme, graph.normalize(value, agents), key("saved"), empty=graph.is_empty(value),
                         base=base)
    return key, current, commit


def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    d = shell.derivation(item, scheme)
    agents = list(d.agents)
    key, current, commit = _bound(ws, item, scheme, agents)

    if not agents:
        st.info("This trace names no agents, so there is no graph to mark.")
    else:
        drawn = current()  # (what the controls below are drawn from)
        hint = suggestion_view.path(item, d)
        if hint is not None and set(drawn["critical_nodes"]) != set(hint.agents):
            def accept():  # the suggested agents critical, and the handoffs between them the trace has
                value = drawn
                for agent in hint.agents:
                    value = graph.set_node(value, agent, True, agents)
                for a, b in (e for e in hint.edges if any(e == (x, y) for x, y, _n in d.edges)):
                    value = graph.set_edge(value, a, b, graph.CRITICAL, agents)
                commit(value, drawn)
                st.session_state[state.FULL_RERUN] = True  # the handoffs' controls show it too

            suggestion_view.offer("critical path", hint.reason, key("accept"), accept)
        _graph_and_agents(ws, item, scheme)
        # the handoffs' controls are outside the graph's fragment: a toggle above does not redraw
        # them; a change here re-runs the scheme, the graph with it
        _edge_controls(d.edges, current(), key, commit, agents)  # (after a click on the drawing above)

    def clean():
        if not graph.is_empty(current()):  # the graph's part re-runs alone: this button checks here
            st.toast("Agents or handoffs are marked: clear them first to record \"nothing to flag\". "
                     "Nothing changed.")
            return
        shell.save(ws, item, scheme.name, scheme.type, graph.empty_value(), status=STATUS_REVIEWED_CLEAN)

    st.button("Reviewed, nothing to flag", key=key("clean"), on_click=clean,
              help="Record that you looked at this graph and found no critical path or handoff to flag "
                   "(only while nothing is marked)")
    return shell.CARDS


@st.fragment
def _graph_and_agents(ws: Workspace, item: Item, scheme: Scheme) -> None:
    """The graph, the live summary and the agents' toggles, a fragment of its own: a toggle (or
    a click on an agent) re-runs and redraws only these. A click on a handoff's handle changes
    what the handoffs' controls below show, so it asks for the whole page."""
    d = shell.derivation(item, scheme)
    agents = list(d.agents)
    key, current, commit = _bound(ws, item, scheme, agents)

    value = current()
    k_clicks, k_drawn = key("clicks"), key("drawn")
    clicks = st.session_state.setdefault(k_clicks, 0)
    # the layout (a spring layout: ms per run) once per derivation, its ids renamed per click
    lay = view.renamed(shell.per_derivation(d, f"graph.layout:{scheme.index}", lambda: view.layout(
        agents, d.step_counts, d.edges, prefix=view.clicks_prefix(scheme.index, 0))),
        view.clicks_prefix(scheme.index, clicks))
    # The click the graph reported, read before the graph is drawn: it is applied and the graph
    # drawn once, in this run. Every id holds the number of clicks handled, so this click's id
    # is not drawn again: the value the component keeps returning is never applied twice, and
    # the new ids empty its selection, so the same agent can be clicked again. The component
    # keeps its key: clicks and the controls below update the drawing in place.
    clicked = st.session_state.get(key("canvas"))
    hit = view.resolve(lay, clicked)
    if hit is not None:  # a click on the drawing on screen: the next drawing has new ids
        clicks += 1
        st.session_state[k_clicks] = clicks
        now, k_last = time.monotonic(), key("last")
        if not view.second_of_double_click(hit, now, st.session_state.get(k_last)):
            st.session_state[k_last] = (hit, now)
            # the click was made on the last drawing: its change from what that showed is saved
            seen = st.session_state.get(k_drawn, value)
            new = view.apply_click(seen, lay, clicked)
            commit(new, seen)
            if graph.normalize(new, agents)["edges"] != seen["edges"]:
                st.session_state[state.FULL_RERUN] = True  # the handoffs' controls show it too
            value = current()
        lay = view.renamed(lay, view.clicks_prefix(scheme.index, clicks))
    shell.rerun_if_asked()
    st.session_state[k_drawn] = value
    nodes, edges = _nodes_and_edges(lay, value)
    _draw(nodes, edges, _Options(view.vis_options()), key("canvas"))
    st.caption("Click an agent to put it on the critical path (click again to take it off); click a "
               "handoff's count box to cycle it normal → ★ critical → ⚠ problematic. "
               "The controls below do the same with the keyboard.")
    for line in summary_lines(graph.summarize(value, agents, d.edges)):  # the live summary, in words
        st.markdown(line)
    if key("saved") in st.session_state:  # this part re-runs alone: it says when it saved
        note = shell.card_note(key("saved")).removeprefix(" · ")
        st.caption(md(note[:1].upper() + note[1:]))  # "Saved HH:MM:SS", or why it was not saved
    _node_controls(agents, d.step_counts, value, key, commit)


def _node_controls(agents, step_counts, value, key, commit) -> None:
    st.markdown("**Critical path** (one toggle per agent)")
    cols = st.columns(2)
    for i, agent in enumerate(agents):
        k = key("node", agent)
        st.session_state[k] = graph.is_critical(value, agent)  # the stored value is the truth

        def changed(agent=agent, k=k):
            commit(graph.set_node(value, agent, bool(st.session_state[k]), agents), value)

        cols[i % 2].toggle(f"Critical path: {md(agent)}", key=k, on_change=changed,
                           help=f"{_plural(step_counts.get(agent, 0), 'step')} in this trace")


def _edge_controls(edges, value, key, commit, agents) -> None:
    if not edges:
        st.caption("No handoffs: every step is by the same agent.")
        return
    st.markdown("**Handoffs** (state of each pair)")
    shown = edges
    n_pages = (len(edges) + EDGES_PER_PAGE - 1) // EDGES_PER_PAGE
    if n_pages > 1:
        k_page = key("edge-page")
        page = st.selectbox("Handoff page", list(range(n_pages)), key=k_page,
                            format_func=lambda p: f"Pairs {p * EDGES_PER_PAGE + 1}–"
                                                  f"{min(len(edges), (p + 1) * EDGES_PER_PAGE)} of {len(edges)}")
        shown = edges[page * EDGES_PER_PAGE:(page + 1) * EDGES_PER_PAGE]
    cols = st.columns(2)
    for i, (a, b, n) in enumerate(shown):
        k = key("edge", graph.edge_key(a, b))
        st.session_state[k] = graph.edge_state(value, a, b)

        def changed(a=a, b=b, k=k):
            commit(graph.set_edge(value, a, b, st.session_state[k], agents), value)

        cols[i % 2].selectbox(f"{md(a)} → {md(b)} ({_plural(n, 'handoff')})", graph.EDGE_STATES, key=k,
                              format_func=STATE_WORDS.__getitem__, on_change=changed)
