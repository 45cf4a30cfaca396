"""The tool-contention timeline drawn with Plotly: bars, region shading, markers, lane labels.

Times are float seconds (app/timeparse.py); when the trace gave ISO 8601 text, or numbers that
can only be Unix times (TRAIL's spans: 1.74e9 s), the axis shows clock (UTC) time, otherwise
seconds. A call of any length is drawn at least MIN_BAR_SHARE of the time in view wide, so a
call of a few milliseconds in a run of minutes stays visible and clickable (its hover gives its
true start, end and duration).

Everything from the trace reaches Plotly HTML-escaped: Plotly renders a subset of HTML
(`<b>`, `<a href>`, `<br>`) in hover text, tick labels and bar text.
"""
from __future__ import annotations

import html
import math
import unicodedata
from typing import Any

from app.traces.clock import DATETIME, axis_value, fmt_duration, fmt_span, fmt_time
from app.traces.palette import agent_hex
from app.traces.trace import one_line
from app.ui.contention_lanes import Bar, Marker, Timeline

LABEL_CHARS = 24  # lane names longer than this are shortened on the axis


# dark enough for white labels on them (contrast above 4.5:1: #3949ab 7.6:1, #b71c1c 6.6:1)
CALL_COLOUR = "#3949ab"
CONTENDED_COLOUR = "#b71c1c"
LABEL_ON_BAR = "#ffffff"
MIN_BAR_SHARE = 0.012  # of the time in view: about 4-6 px in the page's chart column
SHADE_COLOUR = "rgba(255, 161, 90, 0.22)"
# The chart never shows a selection (it would go stale when the list selects another region
# without the chart being drawn again): a click is an event only (clickmode below), and should
# Plotly select points anyway, nothing dims.
_NO_DIMMING = dict(selected=dict(marker=dict(opacity=1)), unselected=dict(marker=dict(opacity=1)))


def esc(text: Any, limit: int | None = None) -> str:
    """Trace text for a Plotly label: shortened, one line, HTML-escaped."""
    s = one_line(text, limit)
    # quotes as numeric references: Plotly decodes those, but shows "&quot;" literally
    return html.escape(s, quote=False).replace('"', "&#34;").replace("'", "&#39;")


def bar_hover(b: Bar, kind: str) -> str:
    where = f"region #{b.region}" if b.region is not None else "no contention"
    return (f"<b>{esc(b.tool, 80)}</b><br>agent: {esc(b.agent, 80)}<br>resource: {esc(b.resource, 80)}"
            f"<br>start: {esc(fmt_time(b.start, kind))}<br>end: {esc(fmt_time(b.end, kind))}"
            f"<br>duration: {fmt_duration(b.end - b.start)}<br>call {b.call} · {where}")


def marker_hover(m: Marker, kind: str) -> str:
    return (f"<b>Contention region #{m.region}</b><br>resource: {esc(m.resource, 80)}"
            f"<br>{esc(fmt_span(m.start, m.end, kind))}<br>agents: {esc(', '.join(m.agents), 160)}")


BAR_LABELS_UP_TO = 40  # bars in view: more, and the bars carry no tool names (the hover does)


def bar_labels(t: Timeline) -> bool:
    """Whether the bars are labelled with their tools (few enough bars in view to read them)."""
    return len(t.bars) <= BAR_LABELS_UP_TO


# widths in px of characters in the axis' 12 px sans-serif, a little generous (no browser to measure)
_NARROW, _WIDE = set("iljtfrI.,:;'!|() "), set("WMmw@%")
LABEL_PX = 170  # a lane name is shortened to about this width: the plot keeps most of the column


def _char_px(c: str) -> float:
    if c.isascii():
        return 3.8 if c in _NARROW else 11.5 if c in _WIDE else 8.2 if c.isupper() else 6.6
    # full-width (CJK, most emoji) and the ellipsis take about an em; other letters like capitals
    return 12.5 if c == "…" or unicodedata.east_asian_width(c) in ("W", "F") else 8.2


def label_px(text: str) -> float:
    """About how wide a text is drawn on the axis."""
    return sum(_char_px(c) for c in text)


def lane_label(agent: Any) -> str:
    """A lane's name as the axis shows it: one line, at most LABEL_CHARS characters and about
    LABEL_PX wide (the hover of each bar names the agent in full)."""
    s = " ".join(("" if agent is None else str(agent)).split())
    if len(s) > LABEL_CHARS:
        s = s[:LABEL_CHARS - 1] + "…"
    while len(s) > 1 and label_px(s) > LABEL_PX:
        s = s[:-2] + "…"
    return s


def margins(labels: list[str], date: bool) -> dict:
    """The chart's margins: room on the left for the widest lane label, below for the time axis
    (a date axis writes the day under the first time of day). Fixed here, not grown by Plotly:
    its automatic margins measure the drawn labels and then draw the whole chart a second time
    (half the time of a new item's chart)."""
    widest = max((label_px(a) for a in labels), default=30)
    return dict(l=int(18 + widest), r=10, t=36, b=72 if date else 52, autoexpand=False)


def min_bar(t: Timeline) -> float:
    """The shortest drawn bar, in seconds: MIN_BAR_SHARE of the time in view."""
    if t.window is not None:
        lo, hi = t.window
    elif t.bars:
        lo, hi = min(b.start for b in t.bars), max(b.end for b in t.bars)
    else:
        return 0.0
    span = hi - lo
    return span * MIN_BAR_SHARE if math.isfinite(span) and span > 0 else 0.0


def drawn_length(b: Bar, shortest: float) -> float:
    """A bar's drawn length in seconds: its duration, or `shortest` if it is shorter."""
    return max(b.end - b.start, shortest)


def lane_tick(agent: str, label: str) -> str:
    """A lane's axis label in its agent's colour (the one the trace and the graph use)."""
    return f'<span style="color:{agent_hex(agent)}">{esc(label)}</span>'


def figure(t: Timeline):
    """The Plotly figure: bars (customdata "call:N"), region shading, markers ("region:N").

    Built from plain dicts and not validated property by property: with thousands of
    bars or hundreds of shapes, Plotly's validation costs far more than drawing."""
    import plotly.graph_objects as go

    date = t.kind == DATETIME
    scale = 1000.0 if date else 1.0  # a date axis measures bar lengths in milliseconds
    labelled = bar_labels(t)
    shortest = min_bar(t)
    bars = dict(
        type="bar", name="tool calls", orientation="h",
        y=[b.lane for b in t.bars],
        base=[axis_value(b.start, t.kind) for b in t.bars],
        x=[drawn_length(b, shortest) * scale for b in t.bars],
        width=0.6,
        # tool names on the bars only while there is room to read them: with many bars most would
        # not fit, yet Plotly creates, measures and hides each one (a forced layout per distinct
        # text), which was most of a long run's drawing; the hover names every call's tool
        text=[esc(b.tool, 40) + ("" if b.region is None else f" ⚠#{b.region}") for b in t.bars] if labelled else None,
        # a label that does not fit inside its bar is written beside it ("auto"), white on the bar
        textposition="auto" if labelled else "none", insidetextanchor="start",
        insidetextfont=dict(color=LABEL_ON_BAR), cliponaxis=False,
        hovertext=[bar_hover(b, t.kind) for b in t.bars], hoverinfo="text",
        customdata=[b.customdata for b in t.bars],
        marker=dict(
            color=[CALL_COLOUR if b.region is None else CONTENDED_COLOUR for b in t.bars],
            line=dict(width=1, color="rgba(30, 30, 30, 0.6)"),
            # calls in a region are hatched too: never colour alone
            pattern=dict(shape=["" if b.region is None else "/" for b in t.bars],
                         fgcolor="rgba(255, 255, 255, 0.5)"),
        ),
        showlegend=False, **_NO_DIMMING,
    )
    markers = dict(
        type="scatter", name="contention regions", mode="markers+text",
        x=[axis_value(m.x, t.kind) for m in t.markers],
        y=[m.lane for m in t.markers],
        text=[f"#{m.region}" for m in t.markers],
        textposition="middle right",
        textfont=dict(size=12),
        hovertext=[marker_hover(m, t.kind) for m in t.markers], hoverinfo="text",
        customdata=[m.customdata for m in t.markers],
        marker=dict(symbol="diamond", size=12, color="rgba(217, 95, 2, 0.95)", line=dict(width=1, color="black")),
        showlegend=False, **_NO_DIMMING,
    )
    shapes = [dict(
        type="rect", xref="x", yref="y", layer="below",
        x0=axis_value(s.start, t.kind), x1=axis_value(s.end, t.kind),
        y0=s.lane_from - 0.45, y1=s.lane_to + 0.45,
        fillcolor=SHADE_COLOUR, line=dict(color="rgba(217, 95, 2, 0.9)", width=1, dash="dot"),
    ) for s in t.shades]
    n = len(t.lanes)
    xr = None
    if t.window is not None:
        lo, hi = t.window
        pad = (hi - lo) * 0.02 or 1.0
        xr = [axis_value(lo - pad, t.kind), axis_value(hi + pad, t.kind)]
    labels = [lane_label(a) for a in t.lanes]
    layout = dict(
        shapes=shapes,
        yaxis=dict(tickmode="array", tickvals=list(range(n)),
                   ticktext=[lane_tick(a, label) for a, label in zip(t.lanes, labels)],
                   range=[n - 0.5, -0.7], fixedrange=True, showgrid=False, automargin=False),
        xaxis=dict(type="date" if date else "linear", range=xr, automargin=False,
                   title=dict(text="time (UTC)" if date else "time (s)", standoff=8)),
        barmode="overlay", height=max(240, 110 + 44 * n), margin=margins(labels, date),
        uniformtext=dict(minsize=8, mode="hide"), hovermode="closest", clickmode="event",
        dragmode="zoom",
    )
    return go.Figure(data=[bars, markers], layout=layout, _validate=False)
