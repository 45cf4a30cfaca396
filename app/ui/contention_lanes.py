"""The tool-contention timeline's content, without Plotly: lanes, bars, shading and markers.

One lane per agent, each timed call a bar from its start to its end; every contention region
(app/traces/contention.py) is shaded on the lanes of the agents whose calls it involves
(contiguous lanes merged into one rectangle) and carries a marker "#N". Plain data, so that the
chart (app/ui/contention_chart.py) only draws it and tests read it without a figure.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from app.traces.clock import SECONDS
from app.traces.contention import Region
from app.traces.timed_calls import Call

MAX_SHAPES = 400  # shaded rectangles drawn at most (Plotly slows down with many shapes)

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
