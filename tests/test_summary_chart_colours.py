"""Issue 27, point 4: an agent has one colour everywhere, the summary's charts included.

The colour is the agent palette's (app/traces/palette.py), which the trace, the graph and the
timeline draw; the charts' figures are read as Plotly dicts, nothing drawn."""
import re

from app.summary import charts, overview_charts
from app.traces.palette import agent_hex

AGENTS = ["Orchestrator", "WebSurfer", "Coder", "<b>Evil</b>"]


def tick_colours(axis: dict) -> dict[str, str]:
    """Axis category -> the colour its tick label is written in."""
    out = {}
    for value, text in zip(axis["tickvals"], axis["ticktext"]):
        m = re.fullmatch(r'<span style="color:(#[0-9a-f]{6})">(.*)</span>', text)
        assert m and m.group(2) == value, text  # the name itself, escaped, inside the colour
        out[value] = m.group(1)
    return out


def test_blame_bars_and_names_are_in_each_agents_colour():
    fig = charts.blame({"blame": [{"agent": a, "count": i + 1} for i, a in enumerate(AGENTS)]}).to_dict()
    (bars,) = fig["data"]
    assert list(bars["marker"]["color"]) == [agent_hex(a) for a in AGENTS]
    assert tick_colours(fig["layout"]["xaxis"]) == {charts.e(a): agent_hex(a) for a in AGENTS}
    assert "<b>" not in str(fig["layout"]["xaxis"]["ticktext"])  # trace text stays escaped


def test_bars_stacked_per_agent_take_the_agents_colours():
    recs = [{"category": c, "agent": a, "tags": 1} for a in AGENTS[:2] for c in ("spec", "verification")]
    fig = charts.bar(recs, "category", "tags", "Tags", color="agent").to_dict()
    assert {t["name"]: t["marker"]["color"] for t in fig["data"]} == {a: agent_hex(a) for a in AGENTS[:2]}


def test_agent_axes_of_mast_bars_scorecards_and_gold_confusion_are_in_the_agents_colours():
    mast = charts.bar([{"agent": a, "category": "spec", "tags": 2} for a in AGENTS], "agent", "tags", "Tags",
                      color="category").to_dict()
    assert tick_colours(mast["layout"]["xaxis"]) == {charts.e(a): agent_hex(a) for a in AGENTS}
    score = charts.scorecard_heatmap([{"agent": a, "dimension": "d", "mean": 3.0} for a in AGENTS], 5).to_dict()
    assert tick_colours(score["layout"]["yaxis"]) == {charts.e(a): agent_hex(a) for a in AGENTS}
    confusion = charts.heatmap([{"annotated_agent": "Coder", "gold_agent": "WebSurfer", "count": 1}],
                               "annotated_agent", "gold_agent", "count", "Gold × annotated", zmin=0).to_dict()
    assert tick_colours(confusion["layout"]["xaxis"]) == {"Coder": agent_hex("Coder")}
    assert tick_colours(confusion["layout"]["yaxis"]) == {"WebSurfer": agent_hex("WebSurfer")}


def test_overview_blame_is_in_the_agents_colours_and_a_tie_is_outlined_alike():
    entry = {"failed_runs": 4, "agents": [
        {"agent": "Coder", "count": 3, "runs": 2, "rank": 1}, {"agent": "Tester", "count": 3, "runs": 2, "rank": 1},
        {"agent": "Planner", "count": 1, "runs": 1, "rank": 3}]}
    fig = overview_charts.blamed(entry).to_dict()
    (bars,) = fig["data"]
    shown = list(bars["y"])  # the most blamed at the top: drawn in reverse
    assert list(bars["marker"]["color"]) == [agent_hex(a) for a in shown]
    widths = dict(zip(shown, bars["marker"]["line"]["width"]))
    assert widths == {"Planner": 0, "Tester": 3, "Coder": 3}
    assert [t.startswith("most blamed") for t in bars["text"]] == [False, True, True]
    assert tick_colours(fig["layout"]["yaxis"]) == {a: agent_hex(a) for a in shown}


def test_overview_flag_matrix_and_mast_heatmap_write_agents_in_their_colours():
    matrix = {"agents": ["Orchestrator", "Coder"], "cells": [
        {"src": "Orchestrator", "dst": "Coder", "reviewed": 2, "flag_rate": 0.5}]}
    fig = overview_charts.flag_matrix(matrix).to_dict()
    for axis in ("xaxis", "yaxis"):
        assert tick_colours(fig["layout"][axis]) == {a: agent_hex(a) for a in matrix["agents"]}
    mast = overview_charts.mast_by_agent({"agents": [{"agent": "Coder"}, {"agent": "Orchestrator"}], "cells": [
        {"agent": "Coder", "category": "spec", "tags": 2}, {"agent": "Orchestrator", "category": "spec", "tags": 1}]})
    assert tick_colours(mast.to_dict()["layout"]["yaxis"]) == {"Coder": agent_hex("Coder"),
                                                              "Orchestrator": agent_hex("Orchestrator")}
