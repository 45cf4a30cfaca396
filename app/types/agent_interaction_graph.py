"""The agent interaction graph: the stored value, its edge keys and its part of the summary.

Stored value (the `value` of an `agent_interaction_graph` row)::

    {"critical_nodes": [agent, ...], "edges": {"A->B": "critical" | "problematic"}}

Edges back at "normal" are left out. Critical nodes are listed in the trace's agent order
(first seen first); names the trace no longer has are kept after them, so a value made on
other data is never silently lost.

Edge keys: ``escape(A) + "->" + escape(B)`` where `escape` writes ``\\`` as ``\\\\`` and
``>`` as ``\\>`` and leaves every other character alone. An escaped name therefore holds no
unescaped ``>``: the first unescaped ``>`` of a key is the separator's, so ``parse_edge_key``
recovers both names for any pair, including names that contain ``->`` (``"a->b"`` and ``"c"``
give ``a-\\>b->c``). Ordinary names (``gpt-4``, ``Planner``) appear verbatim.

Its layout, drawing and clicks are app/ui/graph_view.py's. No Streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import pandas as pd

from app.stats.agreement import Disagreements, jaccard, judgements, nominal, sets_of, show_set, with_default
from app.traces.derive import Derivation
from app.types import checks as c
from app.types.base import AnnotationType, Scheme
from app.types.panel import SchemeRows

NORMAL, CRITICAL, PROBLEMATIC = "normal", "critical", "problematic"
EDGE_STATES = (NORMAL, CRITICAL, PROBLEMATIC)
FLAGGED = (CRITICAL, PROBLEMATIC)
SEP = "->"


# --- edge keys -----------------------------------------------------------------------------------

def escape_name(name: str) -> str:
    return str(name).replace("\\", "\\\\").replace(">", "\\>")


def edge_key(src: str, dst: str) -> str:
    return escape_name(src) + SEP + escape_name(dst)


def parse_edge_key(key: str) -> tuple[str, str]:
    """The (from, to) names of an edge key; ValueError if it is not one."""
    if not isinstance(key, str):
        raise ValueError(f"edge key must be a string, got {type(key).__name__}")
    names: list[list[str]] = [[]]
    i, n = 0, len(key)
    while i < n:
        c = key[i]
        if c == "\\":
            if i + 1 >= n or key[i + 1] not in "\\>":
                raise ValueError(f"bad escape at position {i} in edge key {key!r}")
            names[-1].append(key[i + 1])
            i += 2
            continue
        if c == ">":
            # the separator's ">": the name so far must end with its "-"
            # (escapes only ever produce "\\" or ">", so a "-" here is a literal one)
            if len(names) > 1 or not names[0] or names[0][-1] != "-":
                raise ValueError(f"unescaped '>' in edge key {key!r}")
            names[0].pop()
            names.append([])
            i += 1
            continue
        names[-1].append(c)
        i += 1
    if len(names) != 2:
        raise ValueError(f"no '->' separating two agent names in edge key {key!r}")
    return "".join(names[0]), "".join(names[1])


# --- the stored value ----------------------------------------------------------------------------

def empty_value() -> dict:
    return {"critical_nodes": [], "edges": {}}


def normalize(value: Any, agents: Iterable[str] = ()) -> dict:
    """A clean copy of a stored value: known agents first in trace order, edges sorted."""
    if not isinstance(value, dict):
        return empty_value()
    raw_nodes = value.get("critical_nodes")
    names = [str(x) for x in raw_nodes] if isinstance(raw_nodes, list) else []
    order = {a: i for i, a in enumerate(agents)}
    seen = list(dict.fromkeys(names))
    known = sorted((a for a in seen if a in order), key=order.__getitem__)
    others = [a for a in seen if a not in order]
    raw_edges = value.get("edges")
    edges: dict[str, str] = {}
    if isinstance(raw_edges, dict):
        for k, state in raw_edges.items():
            if state in FLAGGED:
                try:
                    a, b = parse_edge_key(k)
                except ValueError:
                    continue
                edges[edge_key(a, b)] = state

    def sort_key(k):
        a, b = parse_edge_key(k)
        return (order.get(a, len(order)), a, order.get(b, len(order)), b)

    return {"critical_nodes": known + others, "edges": {k: edges[k] for k in sorted(edges, key=sort_key)}}


def is_empty(value: Any) -> bool:
    v = normalize(value)
    return not v["critical_nodes"] and not v["edges"]


def is_critical(value: dict, agent: str) -> bool:
    return agent in (value or {}).get("critical_nodes", [])


def set_node(value: Any, agent: str, on: bool, agents: Iterable[str] = ()) -> dict:
    agents = list(agents)
    v = normalize(value, agents)
    nodes = [a for a in v["critical_nodes"] if a != agent]
    if on:
        nodes.append(agent)
    v["critical_nodes"] = nodes
    return normalize(v, agents)


def toggle_node(value: Any, agent: str, agents: Iterable[str] = ()) -> dict:
    agents = list(agents)
    return set_node(value, agent, not is_critical(normalize(value, agents), agent), agents)


def edge_state(value: Any, src: str, dst: str) -> str:
    edges = value.get("edges") if isinstance(value, dict) else None
    state = edges.get(edge_key(src, dst)) if isinstance(edges, dict) else None
    return state if state in FLAGGED else NORMAL


def set_edge(value: Any, src: str, dst: str, state: str, agents: Iterable[str] = ()) -> dict:
    if state not in EDGE_STATES:
        raise ValueError(f"edge state must be one of {EDGE_STATES}, got {state!r}")
    agents = list(agents)
    v = normalize(value, agents)
    key = edge_key(src, dst)
    v["edges"].pop(key, None)
    if state != NORMAL:
        v["edges"][key] = state
    return normalize(v, agents)


def next_state(state: str) -> str:
    """normal → critical → problematic → normal."""
    i = EDGE_STATES.index(state) if state in EDGE_STATES else 0
    return EDGE_STATES[(i + 1) % len(EDGE_STATES)]


def cycle_edge(value: Any, src: str, dst: str, agents: Iterable[str] = ()) -> dict:
    return set_edge(value, src, dst, next_state(edge_state(value, src, dst)), agents)


@dataclass(frozen=True)
class Summary:
    critical: list[str]  # in trace order
    critical_elsewhere: list[str]  # saved names this trace does not have
    flagged: list[tuple[str, str, str, int]]  # (from, to, state, handoffs) for edges in the trace
    flagged_elsewhere: list[tuple[str, str, str]]  # saved edges the trace does not have


def summarize(value: Any, agents: Iterable[str], edges: Iterable[tuple[str, str, int]]) -> Summary:
    agents = list(agents)
    edges = list(edges)
    v = normalize(value, agents)
    known = set(agents)
    counts = {(a, b): n for a, b, n in edges}
    flagged, elsewhere = [], []
    for a, b, _ in edges:
        state = edge_state(v, a, b)
        if state != NORMAL:
            flagged.append((a, b, state, counts[(a, b)]))
    for k, state in v["edges"].items():
        a, b = parse_edge_key(k)
        if (a, b) not in counts:
            elsewhere.append((a, b, state))
    return Summary([a for a in v["critical_nodes"] if a in known],
                   [a for a in v["critical_nodes"] if a not in known], flagged, elsewhere)


# --- the summary -------------------------------------------------------------------------------

def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and bool({"critical_nodes", "edges"} & set(value))


def rows(value: Any, scheme: Scheme) -> list[dict]:
    """A row per critical node (`agent`) and per marked edge (`src`, `dst`, `state`; the other
    columns None), of the value as normalize() reads it."""
    clean = normalize(value)
    nodes = [{"agent": agent, "src": None, "dst": None, "state": None} for agent in clean["critical_nodes"]]
    edges = [{"agent": None, "src": a, "dst": b, "state": state}
             for (a, b), state in ((parse_edge_key(k), state) for k, state in clean["edges"].items())]
    return nodes + edges


def _edges_of(scheme_rows: SchemeRows, item_id: str) -> list[dict]:
    """The trace's edges (ordered pairs handing off) of one item, in the derivation's order."""
    derivation = scheme_rows.derive(item_id)
    return [] if derivation is None else [{"src": a, "dst": b} for a, b, _n in derivation.edges]


def _edge_name(edge: dict) -> str:
    return f"edge {edge['src']} → {edge['dst']}"


def agreement(scheme_rows: SchemeRows, disagreements: Disagreements) -> dict:
    """The sets of critical nodes and of marked edges (Jaccard, an annotator who marked none
    giving the empty set), and the state of each edge of the trace (nominal, "normal" where an
    annotator left it alone; marks on edges the trace no longer has are left out)."""
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    every = panel.per_item()
    nodes = given[given["agent"].notna()] if len(given) else given
    marked = given[given["state"].notna()] if len(given) else given
    critical = sets_of(nodes["item"], nodes["rater"], nodes.get("agent", []))
    pairs = list(zip(marked["src"].tolist(), marked["dst"].tolist())) if len(marked) else []
    flagged = sets_of(marked["item"], marked["rater"], pd.Series(pairs, dtype=object))
    edges = panel.objects(lambda item: _edges_of(scheme_rows, item), _edge_name)
    on_trace = edges.attach(marked[["item", "rater", "src", "dst", "state"]] if len(marked) else marked,
                            on=["src", "dst"])
    states = with_default(judgements(on_trace["unit"], on_trace["rater"], on_trace.get("state", [])),
                          edges.every_rater(), NORMAL)
    critical = with_default(critical, every, frozenset())
    shown = critical.assign(value=[tuple(sorted(x)) for x in critical["value"]])  # (a set read in name order)
    disagreements.add(shown, lambda unit: (panel.items[unit], "critical nodes"), "graph", show_set)
    frame = edges.frame  # (each edge named once, in unit order: a row lookup per unit cost more than the rest)
    named = [(panel.items[item], _edge_name({"src": src, "dst": dst}))
             for item, src, dst in zip(frame["item"].tolist(), frame.get("src", pd.Series()).tolist(),
                                       frame.get("dst", pd.Series()).tolist())]
    disagreements.add(states, named.__getitem__, "graph")
    return {"critical_nodes": jaccard(critical),
            "flagged_edges": jaccard(with_default(flagged, every, frozenset())),
            "edge_state": nominal(states)}


def objects(value: Any, derivation: Derivation | None) -> Any:
    """Each marked edge's agents and how many handoffs the trace has between them now."""
    if derivation is None or not isinstance(value, dict):
        return None
    counts = {(a, b): n for a, b, n in derivation.edges}
    out = {}
    for key in (value.get("edges") or {}):
        try:
            a, b = parse_edge_key(key)
        except ValueError:
            continue
        out[key] = {"from": a, "to": b, "handoffs": counts.get((a, b), 0)}
    return {"edges": out}


# (no rollup of its own: its marks are counted in the summary's interaction graph across runs,
# app/summary/interaction.py)
def validate(value: Any, scheme: Scheme, derivation: Derivation | None) -> list[str]:
    """Critical nodes among the run's agents; marked edges between two agents the run hands
    off between, each critical or problematic."""
    if not isinstance(value, dict):
        return [c.shape(value, dict)]
    out = c.keys(value, ["critical_nodes", "edges"])
    agents = c.agents_of(derivation)
    nodes = value.get("critical_nodes", [])
    if not isinstance(nodes, list):
        out.append(c.shape(nodes, list, "critical nodes"))
    else:
        out += c.gather(*(c.agent(a, agents, "critical node") for a in nodes))
    edges = value.get("edges", {})
    if not isinstance(edges, dict):
        return out + [c.shape(edges, dict, "edges")]
    pairs = None if derivation is None else {(a, b) for a, b, _n in derivation.edges}
    for key, state in edges.items():
        try:
            a, b = parse_edge_key(key)
        except ValueError as e:
            out.append(f"edge {c.show(key)}: {e}")
            continue
        out += c.gather(c.one_of(state, EDGE_STATES, f"edge {c.show(key)}"))
        if pairs is not None and (a, b) not in pairs:
            out.append(f"edge {c.show(key)}: this run has no handoff from {c.show(a)} to {c.show(b)}")
    return out


def parts(value: Any, scheme: Scheme) -> dict:
    """Each critical node, and each marked edge's state."""
    clean = normalize(value)
    found: dict = {("critical node", a): True for a in clean["critical_nodes"]}
    # ("edge", from, "→", to): read as "edge Coder → Tester" in a conflict's words, its state the value
    found.update({("edge", *_arrow(k)): state for k, state in clean["edges"].items()})
    return found


def _arrow(key: str) -> tuple[str, str, str]:
    src, dst = parse_edge_key(key)
    return src, "→", dst


def join(fields: dict, scheme: Scheme) -> dict:
    return normalize({"critical_nodes": [f[1] for f in fields if f[0] == "critical node"],
                      "edges": {edge_key(f[1], f[3]): x for f, x in fields.items() if f[0] == "edge"}})


TYPE = AnnotationType(
    name="agent_interaction_graph", title="Interaction graph", page="pages/agent_interaction_graph.py", trace=True,
    rows=rows, agreement=agreement, looks_like=looks_like, objects=objects, validate=validate, parts=parts,
    join=join,
    headline=lambda measures: measures.get("critical_nodes"))
