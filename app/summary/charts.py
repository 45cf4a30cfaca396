"""Plotly figures of the summary (app/summary.py), shared by the summary page and the HTML report.

Every string that comes from a trace or an annotation (agent names, tools, resources, labels)
is HTML-escaped before it reaches Plotly, which renders a subset of HTML (`<b>`, `<a href>`,
`<br>`) in tick labels, hover text and annotations. Each figure has a table with the same
numbers (the callers show the records the figure was built from). No Streamlit here.

An agent has the colour it has on the trace, the graph and the timeline (app/traces/palette.py):
bars of one agent are filled with it, an agent's name on an axis is written in it, a node of
the interaction graph is filled with it. The name is always written too: never colour alone.
"""
from __future__ import annotations

import html
import math
from typing import Any

import plotly.graph_objects as go

from app.traces.palette import agent_hex

RED, ORANGE, GREY, BLUE = "#c0392b", "#e67e22", "#95a5a6", "#2e86de"
LAYOUT = dict(margin=dict(l=10, r=10, t=40, b=10), height=340, template="plotly_white")


def e(text: Any) -> str:
    """Plain text made safe for Plotly labels (and HTML)."""
    # quotes as numeric references: Plotly decodes those, but shows "&quot;" literally
    return html.escape("" if text is None else str(text), quote=False).replace('"', "&#34;").replace("'", "&#39;")


# fields of the summary's records that hold an agent's name (drawn in the agent's colour)
AGENT_FIELDS = frozenset({"agent", "annotated_agent", "gold_agent"})


def agent_label(name: Any) -> str:
    """An agent's name for a Plotly label, escaped, written in the agent's colour."""
    return f'<span style="color:{agent_hex(name)}">{e(name)}</span>'


def colour_agent_axis(fig: go.Figure, axis: str, names: list) -> None:
    """Write the agents on a category axis ("x" or "y", whose categories are the escaped names)
    in their colours."""
    names = list(dict.fromkeys(names))
    (fig.update_xaxes if axis == "x" else fig.update_yaxes)(
        tickmode="array", tickvals=[e(n) for n in names], ticktext=[agent_label(n) for n in names])


def _empty(title: str) -> go.Figure:
    """A chart with nothing in it: its title and a note, no axes (Plotly's default ranges on
    no data, -1 to 6, read as numbers that mean something), a third of a chart's height."""
    fig = go.Figure()
    fig.update_layout(title=e(title), **{**LAYOUT, "height": 120})
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.add_annotation(text="nothing to show yet", showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return fig


def bar(records: list[dict], x: str, y: str, title: str, color: str | None = None,
        horizontal: bool = False, percent: bool = False) -> go.Figure:
    """Bars of `y` per `x`, stacked per `color` when given. Bars of agents are in the agents'
    colours: one colour per agent group (`color` an agent field), else per bar (`x` an agent field,
    whose names on the axis are coloured too)."""
    if not records:
        return _empty(title)
    groups: dict[Any, list[dict]] = {}
    for r in records:
        groups.setdefault(r.get(color) if color else None, []).append(r)
    fig = go.Figure()
    for g, rows in groups.items():
        xs = [e(r[x]) for r in rows]
        ys = [r[y] if r[y] is not None else 0 for r in rows]
        text = [f"{v:.0%}" if percent else (f"{v:g}" if isinstance(v, (int, float)) else "") for v in ys]
        kw = dict(x=ys, y=xs, orientation="h") if horizontal else dict(x=xs, y=ys)
        if color in AGENT_FIELDS:
            kw["marker_color"] = agent_hex(g)
        elif not color and x in AGENT_FIELDS:
            kw["marker_color"] = [agent_hex(r[x]) for r in rows]
        fig.add_trace(go.Bar(name=e(g) if color else e(y), text=text, textposition="auto",
                             hovertemplate="%{x}: %{y}<extra></extra>" if not horizontal else
                             "%{y}: %{x}<extra></extra>", **kw))
    fig.update_layout(title=e(title), barmode="stack", showlegend=bool(color), **LAYOUT)
    if x in AGENT_FIELDS:
        colour_agent_axis(fig, "y" if horizontal else "x", [r[x] for r in records])
    if percent:
        (fig.update_xaxes if horizontal else fig.update_yaxes)(tickformat=".0%", range=[0, 1])
    return fig


def heatmap(records: list[dict], x: str, y: str, z: str, title: str, zmin=None, zmax=None,
            fmt: str = "{:.2f}", colorscale: str = "RdYlGn") -> go.Figure:
    """`z` per `x` and `y`. Counts: pass zmin=0 and a one-hue scale ("Reds"), so a count of 1
    never reads as the scale's far end. Agents on an axis are written in their colours."""
    if not records:
        return _empty(title)
    xs = list(dict.fromkeys(r[x] for r in records))
    ys = list(dict.fromkeys(r[y] for r in records))
    grid = [[None] * len(xs) for _ in ys]
    text = [[""] * len(xs) for _ in ys]
    for r in records:
        i, j = ys.index(r[y]), xs.index(r[x])
        grid[i][j] = r[z]
        n = r.get("n")
        text[i][j] = (fmt.format(r[z]) if r[z] is not None else "–") + (f" (n={n})" if n is not None else "")
    fig = go.Figure(go.Heatmap(z=grid, x=[e(v) for v in xs], y=[e(v) for v in ys], text=text,
                               texttemplate="%{text}", colorscale=colorscale, zmin=zmin, zmax=zmax,
                               hovertemplate="%{y} · %{x}: %{text}<extra></extra>"))
    fig.update_layout(title=e(title), **{**LAYOUT, "height": max(260, 60 + 40 * len(ys))})
    for axis, field, names in (("x", x, xs), ("y", y, ys)):
        if field in AGENT_FIELDS:
            colour_agent_axis(fig, axis, names)
    return fig


def scorecard_heatmap(agents: list[dict], scale: int | None = None) -> go.Figure:
    return heatmap(agents, "dimension", "agent", "mean", "Mean score per agent and dimension",
                   zmin=1, zmax=scale)


def interaction_graph(inter: dict, title: str = "Interaction graph across runs") -> go.Figure:
    """Agents on a circle, each in its colour, one arrow per ordered pair: width by handoffs, colour
    and label by how often the pair was marked critical (red) or problematic (orange) on the
    interaction graph. An agent marked critical has a red ring and a "⚠" before its name.
    With many edges only the marked ones carry a label; every edge has its numbers on hover
    (and in the table the callers show beside the figure)."""
    nodes = inter.get("nodes") or []
    edges = inter.get("edges") or []
    names = list(dict.fromkeys([n["agent"] for n in nodes] + [x for ed in edges for x in (ed["src"], ed["dst"])]))
    if not names:
        return _empty(title)
    k = len(names)
    pos = {a: (math.cos(2 * math.pi * i / k + math.pi / 2), math.sin(2 * math.pi * i / k + math.pi / 2))
           for i, a in enumerate(names)}
    most = max([ed["handoffs"] for ed in edges] + [1])
    arrows, lx, ly, ltext, lhover, lcolour = [], [], [], [], [], []
    for ed in edges:
        (x0, y0), (x1, y1) = pos[ed["src"]], pos[ed["dst"]]
        # shift each edge a little to its left so A→B and B→A stay apart
        dx, dy = x1 - x0, y1 - y0
        norm = math.hypot(dx, dy) or 1.0
        ox, oy = -dy / norm * 0.05, dx / norm * 0.05
        colour = RED if ed["critical"] else ORANGE if ed["problematic"] else GREY
        arrows.append(dict(x=x1 + ox - dx * 0.12, y=y1 + oy - dy * 0.12, ax=x0 + ox + dx * 0.12,
                           ay=y0 + oy + dy * 0.12, xref="x", yref="y", axref="x", ayref="y", showarrow=True,
                           arrowhead=3, arrowsize=1, arrowwidth=1 + 4 * ed["handoffs"] / most, arrowcolor=colour,
                           text=""))
        label = f"{ed['handoffs']} handoffs"
        if ed["critical"] or ed["problematic"]:
            label += f" · {ed['critical']} critical · {ed['problematic']} problematic"
        if ed.get("handoff_review_flags"):
            label += f" · {ed['handoff_review_flags']} flagged"
        lx.append((x0 + x1) / 2 + ox * 2)
        ly.append((y0 + y1) / 2 + oy * 2)
        marked = ed["critical"] or ed["problematic"] or ed.get("handoff_review_flags")
        ltext.append(e(label) if marked or len(edges) <= 8 else "")  # many edges: label the flagged ones
        lhover.append(e(f"{ed['src']} → {ed['dst']}: {label}"))
        lcolour.append(colour)
    fig = go.Figure(layout=dict(annotations=arrows))
    if edges:
        fig.add_trace(go.Scatter(x=lx, y=ly, mode="text+markers", text=ltext, marker=dict(size=8, opacity=0),
                                 textfont=dict(size=10, color=lcolour), hoverinfo="text", hovertext=lhover,
                                 showlegend=False))
    crit = {n["agent"]: n.get("critical_marks", 0) for n in nodes}
    fig.add_trace(go.Scatter(
        x=[pos[a][0] for a in names], y=[pos[a][1] for a in names], mode="markers+text",
        text=[("⚠ " if crit.get(a) else "") + e(a) for a in names], textposition="top center",
        marker=dict(size=26, color=[agent_hex(a) for a in names],
                    line=dict(width=[4 if crit.get(a) else 1 for a in names],
                              color=[RED if crit.get(a) else "#ffffff" for a in names])),
        hovertext=[e(f"{a}: marked critical {crit.get(a, 0)} time(s)") for a in names], hoverinfo="text",
        showlegend=False))
    fig.update_xaxes(visible=False, range=[-1.5, 1.5])
    fig.update_yaxes(visible=False, range=[-1.4, 1.5], scaleanchor="x")
    fig.update_layout(title=e(title), **{**LAYOUT, "height": 480 if k <= 8 else 640})
    return fig


def position_histogram(att: dict) -> go.Figure:
    return bar(att.get("position_histogram") or [], "part_of_run", "count",
               "Where in the run the decisive step falls")


def blame(att: dict) -> go.Figure:
    return bar(att.get("blame") or [], "agent", "count", "How often each agent is blamed")


def gold_accuracy(gold: dict) -> go.Figure:
    rows = []
    for who, g in gold.items():
        for key, label in (("agent_accuracy", "agent"), ("step_accuracy", "step (exact)"),
                           ("step_accuracy_within_k", f"step (±{g.get('k', 1)})")):
            if g.get(key) is not None:
                rows.append({"annotator": who, "measure": label, "accuracy": g[key]})
    if not rows:
        return _empty("Accuracy against gold")
    fig = go.Figure()
    for m in dict.fromkeys(r["measure"] for r in rows):
        part = [r for r in rows if r["measure"] == m]
        fig.add_trace(go.Bar(name=e(m), x=[e(r["annotator"]) for r in part], y=[r["accuracy"] for r in part],
                             text=[f"{r['accuracy']:.0%}" for r in part], textposition="auto"))
    fig.update_layout(title="Accuracy against gold", barmode="group", **LAYOUT)
    fig.update_yaxes(tickformat=".0%", range=[0, 1])
    return fig
