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
