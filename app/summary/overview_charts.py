"""Plotly figures of the summary's Overview (app/summary/overview.py), for the page and the report.

Counts are drawn on scales that start at zero; rates as percentages. Every name from a trace or
an annotation is HTML-escaped (charts.e) before it reaches Plotly; an agent is drawn in its
colour (app/traces/palette.py, as on the trace, the graph and the timeline). No Streamlit here.
"""
from __future__ import annotations

import plotly.graph_objects as go

from app.summary.charts import BLUE, LAYOUT, _empty, colour_agent_axis, e, heatmap
from app.traces.palette import agent_hex

FIRST_PLACE_EDGE = "#1b1b1b"  # the outline of the agents sharing first place


def blamed(entry: dict) -> go.Figure:
    """Attributions per agent, each bar in its agent's colour; the agents sharing first place are
    outlined alike and their bars say "most blamed" (a tie is a tie)."""
    agents = entry.get("agents") or []
    title = "Most-blamed agents"
    if not agents:
        return _empty(title)
    rows = list(reversed(agents))  # the most blamed at the top
    fig = go.Figure(go.Bar(
        x=[r["count"] for r in rows], y=[e(r["agent"]) for r in rows], orientation="h",
        marker=dict(color=[agent_hex(r["agent"]) for r in rows],
                    line=dict(width=[3 if r["rank"] == 1 else 0 for r in rows], color=FIRST_PLACE_EDGE)),
        text=[("most blamed · " if r["rank"] == 1 else "") + f"{r['count']} · {r['runs']} of {entry['failed_runs']} "
              "failed runs" for r in rows],
        textposition="auto", hovertemplate="%{y}: %{x} attributions<extra></extra>"))
    fig.update_layout(title=title, **{**LAYOUT, "height": max(200, 80 + 32 * len(rows))})
    fig.update_xaxes(rangemode="tozero", title="attributions")
    colour_agent_axis(fig, "y", [r["agent"] for r in rows])
    return fig


def mast_by_agent(entry: dict) -> go.Figure:
    """MAST tags per acting agent and category: a count heatmap, its scale from zero."""
    cells = entry.get("cells") or []
    if not cells:
        return _empty("MAST failure modes by agent")
    order = [a["agent"] for a in entry.get("agents") or []]
    cells = sorted(cells, key=lambda c: (order.index(c["agent"]) if c["agent"] in order else len(order)))
    fig = heatmap(cells, "category", "agent", "tags", "MAST failure modes by agent (tags)", zmin=0,
                  fmt="{:.0f}", colorscale="Reds")
    fig.update_yaxes(autorange="reversed")
    return fig


def team_means(entry: dict, scale: int | None = None) -> go.Figure:
    """Each team dimension's mean score with its 95% interval."""
    dims = [d for d in entry.get("dimensions") or [] if d.get("mean") is not None]
    title = "Team scores: mean and 95% interval"
    if not dims:
        return _empty(title)
    fig = go.Figure(go.Scatter(
        x=[d["mean"] for d in dims], y=[e(d["dimension"]) for d in dims], mode="markers+text",
        marker=dict(size=12, color=BLUE), text=[f"{d['mean']:.1f}" for d in dims], textposition="top center",
        error_x=dict(type="data", symmetric=False,
                     array=[(d["ci_high"] - d["mean"]) if d.get("ci_high") is not None else 0 for d in dims],
                     arrayminus=[(d["mean"] - d["ci_low"]) if d.get("ci_low") is not None else 0 for d in dims]),
        hovertemplate="%{y}: %{x:.2f}<extra></extra>"))
    fig.update_layout(title=title, **{**LAYOUT, "height": max(200, 90 + 45 * len(dims))})
    fig.update_xaxes(range=[1, scale] if scale else None, title="score")
    return fig


def flag_matrix(matrix: dict, limit: int = 40, title: str = "Handoffs flagged, from agent (row) to agent (column)",
                flagged: str = "flagged") -> go.Figure:
    """Agents × agents (from the row to the column): the share flagged, 0–100% (handoffs on a
    handoff review; graph reviews marking the pair problematic: overview.graph_matrix), agents
    of the same name across runs merged, the busiest `limit` agents. Cells nothing reviewed are
    blank. Stays legible at 30 agents: one row per agent, the height follows."""
    agents = (matrix.get("agents") or [])[:limit]
    if not agents:
        return _empty(title)
    at = {a: i for i, a in enumerate(agents)}
    z = [[None] * len(agents) for _ in agents]
    text = [[""] * len(agents) for _ in agents]
    for c in matrix["cells"]:
        if c["src"] in at and c["dst"] in at and c["reviewed"]:
            i, j = at[c["src"]], at[c["dst"]]
            z[i][j] = c["flag_rate"]
            text[i][j] = f"{c['flag_rate']:.0%} of {c['reviewed']}" + (
                f" · {c['critical']} critical" if c.get("critical") else "")
    labels = [e(a) for a in agents]
    fig = go.Figure(go.Heatmap(z=z, x=labels, y=labels, text=text, zmin=0, zmax=1, colorscale="Reds",
                               texttemplate="%{text}" if len(agents) <= 12 else None,
                               colorbar=dict(tickformat=".0%", title=flagged),
                               hovertemplate="%{y} → %{x}: %{text}<extra></extra>", xgap=1, ygap=1))
    side = max(320, 140 + 24 * len(agents))
    fig.update_layout(title=title, **{**LAYOUT, "height": side, "margin": dict(l=10, r=10, t=40, b=10)})
    fig.update_xaxes(tickangle=-45, side="bottom", tickfont=dict(size=11), title="to")
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=11), title="from")
    colour_agent_axis(fig, "x", agents)
    colour_agent_axis(fig, "y", agents)
    return fig
