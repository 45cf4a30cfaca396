"""Agent interaction graph: mark the critical path and flag handoffs, by click or by keyboard.

The graph (streamlit-agraph) is drawn from `app.graph`: fixed positions, physics off, opaque
node ids and empty titles. A click on an agent toggles it; a click on a handoff's count box
(its handle) cycles normal → critical → problematic. The ids hold the number of clicks handled
(view.clicks_prefix), so a stale return value is never applied again and the same node can be
clicked again, with the graph updated in place. The click is applied and the graph redrawn in
the same script run.

Below it, the same marks as instant cards (app/ui/instant_scheme.py, issue 31): one card of the
agents on the critical path (each in its colour) and a card per handoff pair (normal / ★ critical
/ ⚠ problematic). A click paints on the card at once and is saved behind; the save reruns the
scheme's fragment, so the graph and the text summary are drawn again from what is stored. A
failed save says why on its card and that rerun draws the stored value everywhere.

Every change is saved as what it changed from the value its card (or the drawing) was drawn
from (`base`), on top of what is on disk (app/types/merge.py): a second tab of the same annotator
never unmarks what this one marked; a handoff another tab set to another state meanwhile keeps
it, the card says so, and every card shows the disk.
"""
from __future__ import annotations

import json
import time

import streamlit as st
from streamlit_agraph import Edge, Node, _agraph

from app.types import agent_interaction_graph as graph
from app.project.config import Scheme
from app.traces.palette import agent_hex
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import graph_view as view, shell, suggestion_view
from app.ui.instant_scheme import clean_card, scheme_card
from app.ui.state import follow, widget_key
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
    clean graph marks, and a save from the drawing that says when on the graph's saved line."""
    def key(*parts):
        return widget_key("graph", scheme.name, item.id, *parts)

    def current() -> dict:
        ann = shell.load(ws, item, scheme.name)
        return graph.normalize(ann.value if ann else None, agents)

    def commit(value: dict, base: dict) -> None:  # (base: the value the drawing was drawn from)
        shell.card_saved(ws, item, scheme, graph.normalize(value, agents), key("saved"), empty=graph.is_empty(value),
                         base=base)
    return key, current, commit


def _place(scheme: Scheme, *parts) -> str:
    """A card keyed by its place on the page, not by item or handoff: on the next item (or page
    of handoffs) the browser updates the same cards; each names what it holds (`holds`)."""
    return widget_key("graph", scheme.name, "place", *parts)


def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    """The graph first (what the page is for), then its cards: the whole surface is the
    scheme's fragment (app/ui/page.py), so a card's save or a click on the drawing reruns all
    of it, and the drawing, the summary and every card show what is stored."""
    d = shell.derivation(item, scheme)
    agents = list(d.agents)
    key, current, commit = _bound(ws, item, scheme, agents)

    if not agents:
        st.info("This trace names no agents, so there is no graph to mark.")
    else:
        _graph(ws, item, scheme)
        drawn = current()
        hint = suggestion_view.path(item, d)
        offered = suggestion_view.slot()  # (on the page either way: the cards below keep their places)
        if hint is not None and set(drawn["critical_nodes"]) != set(hint.agents):
            def accept():  # the suggested agents critical, and the handoffs between them the trace has
                value = drawn
                for agent in hint.agents:
                    value = graph.set_node(value, agent, True, agents)
                for a, b in (e for e in hint.edges if any(e == (x, y) for x, y, _n in d.edges)):
                    value = graph.set_edge(value, a, b, graph.CRITICAL, agents)
                commit(value, drawn)

            with offered:
                suggestion_view.offer("critical path", hint.reason, key("accept"), accept)
        forget_saved_line = lambda: st.session_state.pop(key("saved"), None)  # noqa: E731 (the card says it)
        _critical_card(ws, item, scheme, agents, d.step_counts, forget_saved_line)
        _edge_cards(ws, item, scheme, agents, d.edges, forget_saved_line)

    clean_card(ws, item, scheme, empty=graph.empty_value(),
               refuse=lambda stored: None if graph.is_empty(stored) else
               "agents or handoffs are marked: clear them first to record “nothing to flag”",
               tip="Record that you looked at this graph and found no critical path or handoff to flag "
                   "(only while nothing is marked)")
    return shell.CARDS


def _graph(ws: Workspace, item: Item, scheme: Scheme) -> None:
    """The graph and the live summary, drawn from what is stored (after applying a click on
    the drawing, if the component reported one)."""
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
    # keeps its key: clicks and the cards below update the drawing in place.
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
            commit(view.apply_click(seen, lay, clicked), seen)
            value = current()
        lay = view.renamed(lay, view.clicks_prefix(scheme.index, clicks))
    st.session_state[k_drawn] = value
    nodes, edges = _nodes_and_edges(lay, value)
    _draw(nodes, edges, _Options(view.vis_options()), key("canvas"))
    st.caption("Click an agent to put it on the critical path (click again to take it off); click a "
               "handoff's count box to cycle it normal → ★ critical → ⚠ problematic. "
               "The cards below do the same, with keys 1–9 on the current card.")
    # one container, however many lines it holds: the cards below keep their places (see
    # suggestion_view.slot)
    with st.container():
        for line in summary_lines(graph.summarize(value, agents, d.edges)):  # the live summary, in words
            st.markdown(line)
        if key("saved") in st.session_state:  # what the last click on the drawing saved
            note = shell.card_note(key("saved")).removeprefix(" · ")
            st.caption(md(note[:1].upper() + note[1:]))  # "Saved HH:MM:SS", or why it was not saved


def _critical_card(ws: Workspace, item: Item, scheme: Scheme, agents: list[str], step_counts: dict,
                   on_saved) -> None:
    """The agents on the critical path: one multi-choice card, each agent in its colour."""
    def with_critical(picked: list[str], base) -> dict:
        value = graph.normalize(base, agents)
        for agent in agents:
            value = graph.set_node(value, agent, agent in picked, agents)
        return value

    with st.container(border=True):  # a card of its own for the keys (j / k, then 1–9)
        scheme_card(ws, item, scheme, _place(scheme, "critical"), title="Critical path (agents)",
                    options=agents, multi=True, holds="critical", own_fragment=False, on_saved=on_saved,
                    chosen=lambda v: [a for a in graph.normalize(v, agents)["critical_nodes"] if a in agents],
                    build=with_critical, colours={a: agent_hex(a) for a in agents},
                    tips={a: f"{_plural(step_counts.get(a, 0), 'step')} in this trace" for a in agents})


def _edge_cards(ws: Workspace, item: Item, scheme: Scheme, agents: list[str], edges, on_saved) -> None:
    """A radio card per handoff pair (normal / ★ critical / ⚠ problematic), paged by twenty."""
    if not edges:
        st.caption("No handoffs: every step is by the same agent.")
        return
    st.markdown("**Handoffs** (state of each pair)")
    shown = edges
    n_pages = (len(edges) + EDGES_PER_PAGE - 1) // EDGES_PER_PAGE
    if n_pages > 1:
        k_page = _place(scheme, "edge-page")
        follow(_place(scheme, "edge-page-holds"), item.id, {k_page: 0})  # another item opens on its first page
        page = st.selectbox("Handoff page", list(range(n_pages)), key=k_page,
                            format_func=lambda p: f"Pairs {p * EDGES_PER_PAGE + 1}–"
                                                  f"{min(len(edges), (p + 1) * EDGES_PER_PAGE)} of {len(edges)}")
        shown = edges[page * EDGES_PER_PAGE:(page + 1) * EDGES_PER_PAGE]
    for row in range(0, len(shown), 2):  # two a row, in reading order (the keys' j / k go so)
        for col, (slot, (a, b, n)) in zip(st.columns(2), enumerate(shown[row:row + 2], start=row)):
            with col, st.container(border=True):
                _edge_card(ws, item, scheme, agents, a, b, n, slot, on_saved)


def _edge_card(ws: Workspace, item: Item, scheme: Scheme, agents: list[str], a: str, b: str, n: int,
               slot: int, on_saved) -> None:
    def with_state(picked: list[str], base) -> dict:
        return graph.set_edge(graph.normalize(base, agents), a, b, picked[0] if picked else graph.NORMAL, agents)

    # nothing stored: no state chosen ("Not annotated yet"); else the pair's state, normal included
    scheme_card(ws, item, scheme, _place(scheme, "edge", slot), title=f"{a} → {b} ({_plural(n, 'handoff')})",
                options=list(graph.EDGE_STATES), labels=STATE_WORDS, multi=False, holds=graph.edge_key(a, b),
                own_fragment=False, on_saved=on_saved, colours=dict(view.EDGE_COLOUR),
                chosen=lambda v: [] if v is None else [graph.edge_state(graph.normalize(v, agents), a, b)],
                build=with_state)
