"""The tool-contention timeline, without Streamlit: lanes, bars, shading, clicks, paging, cards.

One lane per agent, each timed call a bar from its start to its end labelled with its
tool; every contention region (app/traces/contention.py) is shaded on the lanes of the agents
whose calls it involves (contiguous lanes merged into one rectangle) and carries a
clickable marker "#N". Times are float seconds (app/timeparse.py); when the trace gave
ISO 8601 text, or numbers that can only be Unix times (TRAIL's spans: 1.74e9 s), the axis shows
clock (UTC) time, otherwise seconds. A call of any length is drawn at least MIN_BAR_SHARE of the
time in view wide, so a call of a few milliseconds in a run of minutes stays visible and
clickable (its hover gives its true start, end and duration).

Everything from the trace reaches Plotly HTML-escaped: Plotly renders a subset of HTML
(`<b>`, `<a href>`, `<br>`) in hover text, tick labels and bar text.

Used by the tool-contention surface (app/ui/surfaces/tool_contention.py) only; the stored
value's helpers live with the type (app/types/tool_contention.py) and are named here too, so
that the surface reads the timeline and the value through one module.
"""
from __future__ import annotations

import html
import math
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable

from app.paging import page_count  # noqa: F401  (the surface pages the regions with it)
from app.traces.contention import Call, Region
from app.traces.palette import agent_hex
# the calls' times as the chart writes them (kept apart: plain functions of times, no drawing)
from app.traces.clock import (DATETIME, SECONDS, UNIX_FROM, UNIX_TO, axis_value, fmt_duration,  # noqa: F401
                              fmt_span, fmt_time, time_kind, to_datetime)
from app.traces.trace import one_line
from app.types.tool_contention import KEY, UNLABELLED, is_empty, labels_of, set_label, to_value  # noqa: F401

MAX_SHAPES = 400  # shaded rectangles drawn at most (Plotly slows down with many shapes)
LABEL_CHARS = 24  # lane names longer than this are shortened on the axis


# --- what is drawn -------------------------------------------------------------------------------

def timed(c: Call) -> bool:
    """A call with a start and an end (end >= start) can be drawn."""
    return c.start is not None and c.end is not None and c.end >= c.start


def problem_lines(calls: Iterable[Call]) -> list[str]:
    """One plain-text line per call with a problem: which call, and what is wrong."""
    out = []
    for c in calls:
        if c.problem:
            drawn = "drawn" if timed(c) else "not drawn"
            out.append(f"call {c.index} ({c.agent}, {c.tool}), {drawn}: {c.problem}")
    return out


def resources(calls: Iterable[Call]) -> list[str]:
    """Resources of the drawable calls, in first-seen order."""
    return list(dict.fromkeys(c.resource for c in calls if timed(c)))


def time_bounds(calls: Iterable[Call]) -> tuple[float, float] | None:
    ts = [(c.start, c.end) for c in calls if timed(c)]
    if not ts:
        return None
    return min(s for s, _ in ts), max(e for _, e in ts)


FIRST_VIEW_CALLS = 120  # a longer run opens on the time window of its first this-many calls


def first_window(calls: Iterable[Call], bounds: tuple[float, float] | None,
                 limit: int = FIRST_VIEW_CALLS) -> tuple[float, float] | None:
    """The time window a run's timeline opens on: the whole run when it has at most `limit`
    drawable calls, else from its start to the start of call number `limit` (in start order),
    so that a long run opens legible and fast to draw; zoom and "Show the whole run" widen it."""
    if bounds is None:
        return None
    starts = sorted(c.start for c in calls if timed(c))
    if len(starts) <= limit:
        return bounds
    return bounds[0], max(starts[limit], bounds[0])


def call_regions(regions: Iterable[Region]) -> dict[int, int]:
    """Call index -> index of the region holding it."""
    return {c: r.index for r in regions for c in r.calls}


def _overlaps(start: float, end: float, window: tuple[float, float] | None) -> bool:
    if window is None:
        return True
    lo, hi = window
    return start <= hi and end >= lo


def visible_regions(regions: Iterable[Region], only: Iterable[str] | None = None,
                    window: tuple[float, float] | None = None) -> list[Region]:
    """Regions on the chosen resources (all when `only` is empty) that reach into the window."""
    keep = set(only or ())
    return [r for r in regions if (not keep or r.resource in keep) and _overlaps(r.start, r.end, window)]


def lane_order(calls: Iterable[Call], agents: Iterable[str] = ()) -> list[str]:
    """Agents with drawable calls: in the trace's agent order first, then the others as seen."""
    with_calls = list(dict.fromkeys(c.agent for c in calls if timed(c)))
    present = set(with_calls)
    ordered = [a for a in dict.fromkeys(agents) if a in present]
    return ordered + [a for a in with_calls if a not in set(ordered)]


def lane_runs(lanes: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted lane positions grouped into contiguous runs: [0, 1, 3] -> [(0, 1), (3, 3)]."""
    runs: list[list[int]] = []
    for i in sorted(set(lanes)):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return [(a, b) for a, b in runs]


@dataclass(frozen=True)
class Bar:
    call: int
    lane: int
    agent: str
    tool: str
    resource: str
    start: float
    end: float
    region: int | None

    @property
    def customdata(self) -> str:
        return f"call:{self.call}"


@dataclass(frozen=True)
class Shade:
    region: int
    start: float
    end: float
    lane_from: int
    lane_to: int


@dataclass(frozen=True)
class Marker:
    region: int
    x: float
    lane: float
    resource: str
    start: float
    end: float
    agents: tuple[str, ...]

    @property
    def customdata(self) -> str:
        return f"region:{self.region}"


@dataclass
class Timeline:
    kind: str
    lanes: list[str]
    bars: list[Bar]
    shades: list[Shade]
    markers: list[Marker]
    window: tuple[float, float] | None
    shades_left_out: int = 0  # regions in view whose shading was not drawn (over MAX_SHAPES)
    notes: list[str] = field(default_factory=list)


def build(calls: list[Call], regions: list[Region], agents: Iterable[str] = (), kind: str = SECONDS,
          only: Iterable[str] | None = None, window: tuple[float, float] | None = None,
          max_shapes: int = MAX_SHAPES) -> Timeline:
    """What the chart shows for these calls and regions, filtered to resources and a window.

    Nothing here depends on which region the annotator selected: the figure stays byte-identical
    when the selection changes, so the browser keeps the chart it drew instead of drawing it
    again (Streamlit remounts a chart whose spec changed). The selection is shown in text under
    the chart and in the list (app/ui/surfaces/tool_contention.py).

    Lanes are the agents with drawable calls on the chosen resources (stable while the
    window moves). Bars are those calls reaching into the window. Each visible region is
    shaded over the lanes of its agents only, one rectangle per contiguous run of lanes,
    and gets a marker "#N" at its middle above each rectangle (customdata "region:N").
    """
    keep = set(only or ())
    drawable = [c for c in calls if timed(c) and (not keep or c.resource in keep)]
    lanes = lane_order(drawable, agents)
    lane_of = {a: i for i, a in enumerate(lanes)}
    region_of = call_regions(regions)
    by_index = {c.index: c for c in calls}
    bars = [Bar(c.index, lane_of[c.agent], c.agent, c.tool, c.resource, c.start, c.end,
                region_of.get(c.index))
            for c in drawable if _overlaps(c.start, c.end, window)]
    shades: list[Shade] = []
    markers: list[Marker] = []
    left_out = 0
    shown = visible_regions(regions, keep, window)
    for r in sorted(shown, key=lambda r: r.index):
        region_lanes = [lane_of[by_index[c].agent] for c in r.calls
                        if c in by_index and by_index[c].agent in lane_of]
        if not region_lanes:
            continue
        runs = lane_runs(region_lanes)
        if len(shades) + len(runs) <= max_shapes:
            shades.extend(Shade(r.index, r.start, r.end, a, b) for a, b in runs)
        else:
            left_out += 1
            runs = runs[:1]
        # one marker per shaded run, so a region split over distant lanes is named on each part
        markers.extend(Marker(r.index, (r.start + r.end) / 2, a - 0.42, r.resource, r.start, r.end,
                              r.agents) for a, _ in runs)
    markers.sort(key=lambda m: (m.region, m.lane))
    notes = []
    if left_out:
        notes.append(f"Shading drawn for {len(shown) - left_out} of {len(shown)} regions in view; "
                     "narrow the time window or the resources to see the rest (every region still "
                     "has its #marker).")
    return Timeline(kind, lanes, bars, shades, markers, window, left_out, notes)


# --- Plotly --------------------------------------------------------------------------------------

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


# --- clicks --------------------------------------------------------------------------------------

def parse_point(point: Any) -> tuple[str, int] | None:
    """("call", N) or ("region", N) from a selected point's customdata, else None."""
    if not isinstance(point, dict):
        try:
            point = dict(point)
        except (TypeError, ValueError):
            return None
    cd = point.get("customdata")
    if isinstance(cd, (list, tuple)):
        cd = cd[0] if cd else None
    if not isinstance(cd, str) or ":" not in cd:
        return None
    what, _, num = cd.partition(":")
    if what not in ("call", "region"):
        return None
    try:
        return what, int(num)
    except ValueError:
        return None


def clicked_region(points: Iterable[Any], regions: Iterable[Region]) -> tuple[int | None, str]:
    """The region a click selects, and a line saying what was clicked.

    A region marker selects its region; a bar selects the region holding its call.
    A bar outside every region selects nothing (the message says so)."""
    regions = list(regions)
    known = {r.index for r in regions}
    of_call = call_regions(regions)
    for p in points or []:
        target = parse_point(p)
        if target is None:
            continue
        what, n = target
        if what == "region" and n in known:
            return n, f"Region #{n} selected on the chart."
        if what == "call":
            r = of_call.get(n)
            if r is not None:
                return r, f"Call {n} is in region #{r}: selected."
            return None, f"Call {n} is in no contention region."
    return None, ""


# --- paging --------------------------------------------------------------------------------------

def page_of(region: int, listed: list[Region], size: int) -> int | None:
    for pos, r in enumerate(listed):
        if r.index == region:
            return pos // size
    return None


def window_step(lo: float, hi: float) -> float:
    """A slider step giving about 200 positions over the span, on a 1-2-5 scale."""
    span = hi - lo
    if span <= 0:
        return 1.0
    raw = span / 200
    p = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * p:
            return m * p
    return 10 * p


def zoom_window(r: Region, bounds: tuple[float, float]) -> tuple[float, float]:
    """A window around a region with a margin of half its length, kept inside the run."""
    pad = max((r.end - r.start) * 0.5, (bounds[1] - bounds[0]) * 0.01)
    return max(bounds[0], r.start - pad), min(bounds[1], r.end + pad)



# --- region cards --------------------------------------------------------------------------------

CALLS_NAMED = 8  # calls named on a region's card; more are counted


def region_lines(r: Region, calls: dict[int, Call], kind: str) -> list[str]:
    """What a region's card says under its head, as plain text: when and which agents, then
    the calls in it (`calls`: every call by its index)."""
    named = [f"{c} {one_line(calls[c].tool)} ({one_line(calls[c].agent)})" for c in r.calls[:CALLS_NAMED]
             if c in calls]
    more = f" and {len(r.calls) - CALLS_NAMED} more" if len(r.calls) > CALLS_NAMED else ""
    return [f"{fmt_span(r.start, r.end, kind)} · agents: {one_line(', '.join(r.agents), 200)}",
            f"calls: {one_line('; '.join(named), 300)}{more}"]
