"""Tests for app.timeline: lanes, bars, shading, markers, clicks, the stored value."""
import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from app.ui import contention_view as tl
from app.traces.contention import Region, find_regions
from app.traces.timed_calls import Call, normalize_calls
from app.traces.derive import derive
from app.traces.timeparse import parse_duration, parse_time
from app.traces.palette import agent_hex
from tests.conftest import ROOT, shared_files


def tick_text(tick: str) -> str:
    """A lane's label without the span that colours it in its agent's colour."""
    return tick.split(">", 1)[1].rsplit("</span>", 1)[0] if tick.startswith("<span") else tick


def demo(item_id):
    for line in (ROOT / "data" / "demo_runs.jsonl").read_text().splitlines():
        d = json.loads(line)
        if d["id"] == item_id:
            return d
    raise KeyError(item_id)


def calls_of(*specs):
    """Calls from (agent, start, end[, resource[, tool]])."""
    out = []
    for i, (agent, start, end, *rest) in enumerate(specs):
        resource = rest[0] if rest else "db"
        tool = rest[1] if len(rest) > 1 else f"t{i}"
        out.append(Call(i, agent, tool, resource, start, end))
    return out


# --- times ---------------------------------------------------------------------------------------

def test_time_kind():
    assert tl.time_kind([{"start": 0, "end": 1.5}, {"start": "2", "end": "3.5"}]) == tl.SECONDS
    assert tl.time_kind([{"start": 0, "end": 1}, {"start": "2025-03-01T10:00:00Z", "end": 5}]) == tl.DATETIME
    assert tl.time_kind([]) == tl.SECONDS
    assert tl.time_kind(None) == tl.SECONDS
    assert tl.time_kind(["junk", {"start": None}]) == tl.SECONDS


def test_formatting():
    t = parse_time("2025-03-01T10:00:03.500Z")
    assert tl.to_datetime(t) == datetime(2025, 3, 1, 10, 0, 3, 500000)
    assert tl.fmt_time(t, tl.DATETIME) == "2025-03-01 10:00:03.500 UTC"
    assert tl.fmt_time(parse_time("2025-03-01T10:00:03Z"), tl.DATETIME) == "2025-03-01 10:00:03 UTC"
    assert tl.fmt_time(4.5, tl.SECONDS) == "4.5 s"
    assert tl.fmt_time(None, tl.SECONDS) == "—"
    assert tl.fmt_span(0, 60, tl.SECONDS) == "0 – 60 s (60 s)"
    assert tl.fmt_span(50, 400, tl.SECONDS) == "50 – 400 s (5 min 50 s)"
    a, b = parse_time("2025-03-01T10:00:00Z"), parse_time("2025-03-01T10:00:11Z")
    assert tl.fmt_span(a, b, tl.DATETIME) == "2025-03-01 10:00:00 – 10:00:11 UTC (11 s)"
    assert tl.fmt_duration(3 * 3600 + 120) == "3 h 2 min"


def test_window_step_and_zoom():
    assert tl.window_step(0, 420) == 5
    assert tl.window_step(0, 21) == 0.2
    assert tl.window_step(0, 0) == 1.0
    r = Region(0, "db", 50, 60, (1, 2), ("A", "B"))
    assert tl.zoom_window(r, (0, 420)) == (45, 65)
    assert tl.zoom_window(Region(0, "db", 0, 400, (1, 2), ("A", "B")), (0, 420)) == (0, 420)


# --- building the timeline -----------------------------------------------------------------------

def test_lanes_bars_and_shading_on_literal_calls():
    calls = calls_of(("A", 0.0, 10.0), ("B", 5.0, 15.0), ("C", 2.0, 3.0, "other"), ("D", 8.0, 9.0))
    regions = find_regions(calls)
    assert [r.calls for r in regions] == [(0, 1, 3)]
    t = tl.build(calls, regions, agents=["D", "C", "B", "A"])
    assert t.lanes == ["D", "C", "B", "A"]  # the trace's agent order
    assert [(b.call, b.lane, b.region) for b in t.bars] == [(0, 3, 0), (1, 2, 0), (2, 1, None), (3, 0, 0)]
    # region 0 involves lanes D(0), B(2), A(3): two rectangles, never over C's lane
    assert [(s.lane_from, s.lane_to) for s in t.shades] == [(0, 0), (2, 3)]
    assert {m.customdata for m in t.markers} == {"region:0"}
    assert [m.lane for m in t.markers] == [pytest.approx(-0.42), pytest.approx(1.58)]


def test_resource_filter_and_window():
    calls = calls_of(("A", 0.0, 10.0, "db"), ("B", 5.0, 15.0, "db"), ("A", 100.0, 110.0, "api"),
                     ("C", 105.0, 120.0, "api"))
    regions = find_regions(calls)
    t = tl.build(calls, regions, only=["api"])
    assert t.lanes == ["A", "C"] and [b.call for b in t.bars] == [2, 3]
    assert {s.region for s in t.shades} == {1}
    t = tl.build(calls, regions, window=(90.0, 200.0))
    assert t.lanes == ["A", "B", "C"]  # lanes stay while the window moves
    assert [b.call for b in t.bars] == [2, 3] and {m.region for m in t.markers} == {1}
    assert [r.index for r in tl.visible_regions(regions, [], (0, 4))] == [0]
    assert [r.index for r in tl.visible_regions(regions, ["db"], (90, 200))] == []


def test_lane_runs():
    assert tl.lane_runs([3, 0, 1, 1]) == [(0, 1), (3, 3)]
    assert tl.lane_runs([]) == []


def test_problem_calls_are_listed_not_dropped():
    raw = [{"agent": "A", "tool": "x", "start": 0, "end": 5},
           {"agent": "B", "tool": "y", "start": 9, "end": 2},
           {"agent": "C", "tool": "z", "start": 1},
           "junk",
           {"agent": "D", "start": 1, "end": 2}]
    calls, _ = normalize_calls(raw)
    lines = tl.problem_lines(calls)
    assert len(lines) == 4
    assert lines[0].startswith("call 1 (B, y), not drawn: calls[1].end: expected a time at or after start")
    assert "call 2 (C, z), not drawn" in lines[1] and "call 3" in lines[2]
    assert lines[3].startswith("call 4 (D, (unknown)), drawn:")
    t = tl.build(calls, find_regions(calls))
    assert [b.call for b in t.bars] == [0, 4]


def test_shape_cap_keeps_markers():
    calls = []
    for k in range(50):
        calls += [Call(2 * k, "A", "t", f"r{k}", k * 10.0, k * 10 + 5.0),
                  Call(2 * k + 1, "B", "t", f"r{k}", k * 10 + 1.0, k * 10 + 6.0)]
    regions = find_regions(calls)
    assert len(regions) == 50
    t = tl.build(calls, regions, max_shapes=10)
    assert [s.region for s in t.shades] == list(range(10))  # the first regions, in order
    assert len({m.region for m in t.markers}) == 50  # every region stays clickable
    assert t.shades_left_out == 40 and "10 of 50" in t.notes[0]


def test_thousands_of_calls_stay_bounded():
    calls = [Call(i, f"agent{i % 7}", "tool", f"res{i % 40}", float(i), i + 3.5) for i in range(5000)]
    regions = find_regions(calls)
    t = tl.build(calls, regions, agents=[f"agent{i}" for i in range(7)])
    assert len(t.bars) == 5000 and len(t.lanes) == 7
    assert len(t.shades) <= tl.MAX_SHAPES
    fig = tl.figure(t)
    assert len(fig.data) == 2 and len(fig.layout.shapes) == len(t.shades)  # two traces, whatever n


# --- the Plotly figure ---------------------------------------------------------------------------

def test_figure_numeric_seconds_code_team():
    data = demo("code-team-002")
    d = derive(data)
    assert tl.time_kind(data["calls"]) == tl.SECONDS
    t = tl.build(d.calls, d.contentions, d.agents, tl.SECONDS, window=tl.time_bounds(d.calls))
    assert t.lanes == ["Coder", "Tester", "Reviewer"]
    fig = tl.figure(t)
    bars, markers = fig.data
    assert list(bars.customdata) == [f"call:{i}" for i in range(6)]
    assert list(bars.base) == [0.0, 50.0, 55.0, 30.0, 410.0, 415.0]
    # a bar is drawn at least MIN_BAR_SHARE of the window wide (issue 27: short calls stay visible)
    assert tl.min_bar(t) == pytest.approx(420 * tl.MIN_BAR_SHARE)
    assert list(bars.x) == pytest.approx([42.0, 350.0, 345.0, 30.0, 5.04, 5.04])
    assert list(bars.y) == [0, 0, 1, 1, 0, 2]
    assert bars.text[0] == "run_tests ⚠#0" and bars.text[4] == "git_push"
    assert list(markers.customdata) == ["region:0", "region:1"]
    assert list(markers.text) == ["#0", "#1"]
    assert fig.layout.xaxis.type == "linear"
    assert [tick_text(x) for x in fig.layout.yaxis.ticktext] == ["Coder", "Tester", "Reviewer"]
    assert fig.layout.yaxis.ticktext[0] == f'<span style="color:{agent_hex("Coder")}">Coder</span>'  # one palette
    shapes = fig.layout.shapes
    assert [(s.x0, s.x1, s.y0, s.y1) for s in shapes] == [(0, 60, -0.45, 1.45), (50, 400, -0.45, 1.45)]
    assert {s.line.width for s in shapes} == {1}  # no region stands out: the selection is not drawn
    # a click selects a point in the browser, but nothing is dimmed (the chart never shows a selection)
    assert bars.unselected.marker.opacity == 1 and markers.unselected.marker.opacity == 1
    assert fig.layout.clickmode == "event"  # a click is reported, never kept as a selection
    assert bars.marker.pattern.shape[0] == "/" and bars.marker.pattern.shape[4] == ""  # hatching kept


def test_figure_iso_times_trip_planner():
    data = demo("trip-planner-001")
    d = derive(data)
    assert tl.time_kind(data["calls"]) == tl.DATETIME
    t = tl.build(d.calls, d.contentions, d.agents, tl.DATETIME)
    fig = tl.figure(t)
    bars = fig.data[0]
    assert fig.layout.xaxis.type == "date"
    assert bars.base[0] == datetime(2025, 3, 1, 10, 0, 0)
    assert bars.x[0] == 4500.0  # milliseconds on a date axis
    assert t.lanes == ["Planner", "FlightAgent", "HotelAgent", "FoodAgent", "Critic"]
    # region 0: booking_api over FlightAgent, HotelAgent, FoodAgent (lanes 1-3) as one box;
    # region 1: shared_doc, Planner (lane 0) and Critic (lane 4): two boxes, not over lanes 1-3
    assert [(s.region, s.lane_from, s.lane_to) for s in t.shades] == [(0, 1, 3), (1, 0, 0), (1, 4, 4)]
    assert fig.layout.shapes[0].x0 == datetime(2025, 3, 1, 10, 0, 0)
    assert fig.layout.shapes[0].x1 == datetime(2025, 3, 1, 10, 0, 11)
    hover = bars.hovertext[0]
    assert "search_flights" in hover and "resource: booking_api" in hover
    assert "start: 2025-03-01 10:00:00 UTC" in hover and "end: 2025-03-01 10:00:04.500 UTC" in hover
    # payment_gateway calls only touch ([12, 15) and [15, 18)): no region
    assert bars.text[3] == "book_flight" and bars.text[4] == "book_hotel"


def test_trace_text_is_html_escaped():
    evil = '<img src=x onerror="alert(1)">'
    calls = calls_of((evil, 0.0, 5.0, "<b>r</b>", "<a href='javascript:x'>t</a>"), ("B", 1.0, 4.0, "<b>r</b>"))
    t = tl.build(calls, find_regions(calls))
    fig = tl.figure(t)
    spec = fig.to_json()
    for raw in (evil, "<b>r</b>", "<a href"):
        assert raw not in spec
    assert fig.layout.yaxis.ticktext[0].startswith('<span style="color:#')  # the agent's colour
    assert "&lt;img src=x" in fig.layout.yaxis.ticktext[0]
    assert "&lt;a href=&#39;javascript:x&#39;&gt;t&lt;/a&gt;" in fig.data[0].text[0]
    assert "resource: &lt;b&gt;r&lt;/b&gt;" in fig.data[0].hovertext[0]


# --- clicks --------------------------------------------------------------------------------------

def test_parse_point():
    assert tl.parse_point({"customdata": "call:3"}) == ("call", 3)
    assert tl.parse_point({"customdata": ["region:12"]}) == ("region", 12)
    for bad in ({}, {"customdata": 3}, {"customdata": "x:1"}, {"customdata": "call:x"}, None, "junk"):
        assert tl.parse_point(bad) is None


def test_clicked_region():
    regions = [Region(0, "db", 0, 10, (0, 1), ("A", "B")), Region(1, "api", 20, 30, (3, 4), ("A", "C"))]
    assert tl.clicked_region([{"customdata": "call:4", "point_index": 0}], regions) == (
        1, "Call 4 is in region #1: selected.")
    assert tl.clicked_region([{"customdata": "region:0"}], regions) == (0, "Region #0 selected on the chart.")
    assert tl.clicked_region([{"customdata": "call:2"}], regions) == (None, "Call 2 is in no contention region.")
    assert tl.clicked_region([], regions) == (None, "")
    assert tl.clicked_region([{"customdata": "region:9"}], regions) == (None, "")


def test_page_of():
    regions = [Region(i, "db", i, i + 1, (2 * i, 2 * i + 1), ("A", "B")) for i in range(25)]
    assert tl.page_of(0, regions, 10) == 0 and tl.page_of(24, regions, 10) == 2
    assert tl.page_of(24, regions[::2], 10) == 1
    assert tl.page_of(99, regions, 10) is None
    assert tl.page_count(0, 10) == 1 and tl.page_count(21, 10) == 3


# --- the value -----------------------------------------------------------------------------------

def test_value_builders():
    v = tl.set_label({}, 2, "deadlock")
    assert v == {"contentions": {"2": "deadlock"}}
    v = tl.set_label(v, 0, "benign")
    assert v == {"contentions": {"0": "benign", "2": "deadlock"}}
    assert list(v["contentions"]) == ["0", "2"]
    v = tl.set_label(v, 2, tl.UNLABELLED)
    assert v == {"contentions": {"0": "benign"}}
    v = tl.set_label(v, 0, None)
    assert v == {"contentions": {}} and tl.is_empty(v)
    assert tl.labels_of({"contentions": {"1": "x", "a": "y", "2": 3, " 3": "z", "-1": "w"}}) == {1: "x", -1: "w"}
    assert tl.labels_of(None) == {} and tl.labels_of({"contentions": []}) == {}


@given(hs.dictionaries(hs.integers(0, 500), hs.sampled_from(["deadlock", "benign", "race_condition"])))
def test_value_round_trip(labels):
    v = tl.to_value(labels)
    assert json.loads(json.dumps(v)) == v
    assert tl.labels_of(v) == labels


# --- real traces: TRAIL tool spans with ISO times ------------------------------------------------

def trail_calls(path: Path) -> list[dict]:
    """Every TOOL span as a call: the enclosing AGENT span names the agent."""
    out = []

    def walk(span, agent):
        attrs = span.get("span_attributes") or {}
        kind = attrs.get("openinference.span.kind")
        if kind == "AGENT":
            agent = span["span_name"]
        if kind == "TOOL":
            start = datetime.fromisoformat(span["timestamp"].replace("Z", "+00:00"))
            end = start + timedelta(seconds=parse_duration(span["duration"]))
            out.append({"agent": agent, "tool": attrs.get("tool.name") or span["span_name"],
                        "start": span["timestamp"], "end": end.isoformat()})
        for c in span.get("child_spans") or []:
            walk(c, agent)

    for s in json.loads(path.read_text())["spans"]:
        walk(s, None)
    return out


TRAIL = (shared_files("trail", "gaia/*.json", stand_in=ROOT / "data" / "trail" / "gaia")
         + shared_files("trail", "swe-bench/*.json"))


@pytest.mark.parametrize("path", TRAIL, ids=lambda p: p.stem[:8])
def test_real_trail_trace(path):
    raw = trail_calls(path)
    if not raw:
        pytest.skip("this TRAIL run made no tool calls")
    d = derive({"steps": [], "calls": raw})
    assert not d.problems
    assert tl.time_kind(raw) == tl.DATETIME
    t = tl.build(d.calls, d.contentions, d.agents, tl.DATETIME, window=tl.time_bounds(d.calls))
    assert len(t.bars) == len(raw)
    assert set(t.lanes) == {c["agent"] for c in raw}
    fig = tl.figure(t)
    first = min(d.calls, key=lambda c: c.start)
    assert min(fig.data[0].base) == tl.to_datetime(first.start)
    assert fig.layout.xaxis.type == "date"
    json.loads(fig.to_json())  # serialisable as Streamlit sends it


def test_bars_labelled_only_when_few_are_in_view():
    """Many bars carry no text (Plotly would create, measure and hide each label); the hatching
    still marks contended calls and the hover names every call."""
    calls = [Call(i, f"agent{i % 3}", f"tool{i % 5}", f"res{i % 4}", float(i), i + 10.5) for i in range(200)]
    regions = find_regions(calls)
    few = tl.build(calls, regions, window=(0.0, 20.0))
    assert 0 < len(few.bars) <= tl.BAR_LABELS_UP_TO and tl.bar_labels(few)
    bars = tl.figure(few).data[0]
    assert bars.textposition == "auto" and bars.text[0].startswith("tool0")
    assert any("⚠#" in x for x in bars.text)
    many = tl.build(calls, regions)
    assert len(many.bars) == 200 and not tl.bar_labels(many)
    bars = tl.figure(many).data[0]
    assert bars.text is None and bars.textposition == "none"
    assert "/" in bars.marker.pattern.shape and all(h.startswith("<b>tool") for h in bars.hovertext)


def test_margins_fixed_from_the_lane_labels():
    """Plotly's automatic margins draw a chart twice (measure, then draw again): the figure sets
    them itself, wide enough for the widest lane label, which is shortened to about LABEL_PX."""
    names = ["W" * 40, "Research Coordinator Agent v2 (primary)", "C"]
    calls = [Call(i, names[i % 3], "t", "r", float(i), i + 2.0) for i in range(6)]
    t = tl.build(calls, find_regions(calls), agents=names)
    fig = tl.figure(t)
    labels = [tick_text(x) for x in fig.layout.yaxis.ticktext]
    assert labels[2] == "C" and all(x.endswith("…") for x in labels[:2])
    assert all(tl.label_px(x) <= tl.LABEL_PX for x in labels) and len(labels[1]) <= tl.LABEL_CHARS
    assert labels[1].startswith("Research Coordinator")
    m = fig.layout.margin
    assert m.autoexpand is False and fig.layout.yaxis.automargin is False and fig.layout.xaxis.automargin is False
    assert max(tl.label_px(x) for x in labels) < m.l <= tl.LABEL_PX + 20
    wide = tl.lane_label("研究协调代理程序负责人" * 2)  # full-width characters: about an em each
    assert wide.endswith("…") and tl.label_px(wide) <= tl.LABEL_PX and len(wide) <= 14
    short = tl.figure(tl.build([Call(0, "Al", "t", "r", 0.0, 1.0)], [], agents=["Al"]))
    assert short.layout.margin.l < 40 and short.layout.margin.b < tl.margins(["Al"], date=True)["b"]


def test_region_lines_name_the_calls_as_plain_text():
    calls = {i: Call(i, f"agent\n{i}", "<b>lock</b>", "db", float(i), i + 5.0) for i in range(10)}
    r = Region(3, "db", 0.0, 14.0, tuple(range(10)), ("agent\n0", "agent\n1"))
    when, named = tl.region_lines(r, calls, tl.SECONDS)
    assert when.startswith(tl.fmt_span(0.0, 14.0, tl.SECONDS)) and when.endswith("agents: agent 0, agent 1")
    # the first CALLS_NAMED calls, one line each, as text (the cards put it in with textContent)
    assert named.startswith("calls: 0 <b>lock</b> (agent 0); 1 <b>lock</b> (agent 1)")
    assert named.endswith(f"and {10 - tl.CALLS_NAMED} more") and f"{tl.CALLS_NAMED} <b>lock</b>" not in named


def test_unix_seconds_are_clock_times():
    """Issue 27: TRAIL gives span times as Unix seconds (1.742e9); they are drawn as clock times,
    not as "1.742403B … time (s)". Seconds from a run's start stay seconds."""
    assert tl.time_kind([{"start": 1742402569.672146, "end": 1742402569.67756}]) == tl.DATETIME
    assert tl.time_kind([{"start": "1742402569.6", "end": "1742402570"}]) == tl.DATETIME
    assert tl.time_kind([{"start": 0, "end": 1742402569}]) == tl.SECONDS  # 0 is not a Unix time here
    assert tl.time_kind([{"start": 10 ** 400, "end": 1}]) == tl.SECONDS  # too large for a float
    assert tl.time_kind([{"start": True, "end": 5}]) == tl.SECONDS


def test_a_trail_run_is_drawn_in_clock_time_with_every_call_visible():
    """The TRAIL run in data/trail: calls of 0.2-6 ms in a 73 s run are drawn on a date axis,
    each at least MIN_BAR_SHARE of the window wide; the hover keeps the true duration."""
    from app.traces.readers import read_path
    items, _, _ = read_path(ROOT / "data" / "trail" / "gaia" / "512475a321c616e45337da3575f6a185.json")
    data = items[0].data
    d = derive(data)
    assert tl.time_kind(data["calls"]) == tl.DATETIME
    bounds = tl.time_bounds(d.calls)
    t = tl.build(d.calls, d.contentions, d.agents, tl.DATETIME, window=bounds)
    fig = tl.figure(t)
    assert fig.layout.xaxis.type == "date" and fig.layout.xaxis.title.text == "time (UTC)"
    bars = fig.data[0]
    span_ms = (bounds[1] - bounds[0]) * 1000
    assert len(bars.x) == 3 and all(x >= span_ms * tl.MIN_BAR_SHARE * 0.999 for x in bars.x)
    assert all(b.end - b.start < 0.01 for b in t.bars)  # the calls themselves last milliseconds
    assert "duration: 0.006 s" in bars.hovertext[0] or "duration: 0.005 s" in bars.hovertext[0]
    assert bars.text[0].startswith("inspect_file_as_text")  # labelled (beside the bar when short)
    assert bars.insidetextfont.color == tl.LABEL_ON_BAR
