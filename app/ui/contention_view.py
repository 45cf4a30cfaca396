"""The tool-contention timeline, without Streamlit: what the surface reads through one module.

The timeline's content (lanes, bars, shading, markers) is app/ui/contention_lanes.py, its Plotly
figure app/ui/contention_chart.py, the calls' times app/traces/clock.py and the stored value's
helpers app/types/tool_contention.py; they are named here too, so that the surface reads the
timeline and the value through one module. This module adds what turns clicks into a region,
pages the regions and writes a region's card.

Used by the tool-contention surface (app/ui/surfaces/tool_contention.py) only.
"""
from __future__ import annotations

import math
from typing import Any, Iterable

from app.paging import page_count  # noqa: F401  (the surface pages the regions with it)
from app.traces.contention import Region
from app.traces.timed_calls import Call
# the calls' times as the chart writes them (kept apart: plain functions of times, no drawing)
from app.traces.clock import (DATETIME, SECONDS, UNIX_FROM, UNIX_TO, axis_value, fmt_duration,  # noqa: F401
                              fmt_span, fmt_time, time_kind, to_datetime)
from app.traces.trace import one_line
from app.types.tool_contention import KEY, UNLABELLED, is_empty, labels_of, set_label, to_value  # noqa: F401
from app.ui.contention_chart import (BAR_LABELS_UP_TO, CALL_COLOUR, CONTENDED_COLOUR, LABEL_CHARS,  # noqa: F401
                                     LABEL_ON_BAR, LABEL_PX, MIN_BAR_SHARE, bar_hover, bar_labels, drawn_length,
                                     esc, figure, label_px, lane_label, lane_tick, margins, marker_hover, min_bar)
from app.ui.contention_lanes import (FIRST_VIEW_CALLS, MAX_SHAPES, Bar, Marker, Shade, Timeline,  # noqa: F401
                                     build, call_regions, first_window, lane_order, lane_runs, problem_lines,
                                     resources, time_bounds, timed, visible_regions)

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
