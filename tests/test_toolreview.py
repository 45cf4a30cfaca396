"""app.toolreview: the tool_call_review value, on literal data and real traces."""
from __future__ import annotations

import json

from app.types import tool_call_review as tr
from app.traces.derive import derive
from app.traces.toolcall import ToolCall
from tests.conftest import ROOT

CALLS = [ToolCall(0, 1, "Planner", "delegate", {"to": "X"}),
         ToolCall(1, 2, "FlightAgent", "search_flights", {"to": "LIS"}, "c2", "[1, 2]"),
         ToolCall(2, 4, "FlightAgent", "book_flight", {"flight": "FR7102"})]


def demo_items():
    return {it["id"]: it for it in map(json.loads, (ROOT / "data" / "demo_runs.jsonl").read_text().splitlines())}


def test_entry_and_put_keep_touched_calls_sorted():
    v = tr.put(None, tr.entry(CALLS[2], "wrong_args", ""))
    v = tr.put(v, tr.entry(CALLS[0], None, "odd delegation"))
    assert v == [{"index": 0, "step": 1, "tool": "delegate", "verdict": None, "notes": "odd delegation"},
                 {"index": 2, "step": 4, "tool": "book_flight", "verdict": "wrong_args", "notes": ""}]
    v = tr.put(v, tr.entry(CALLS[2], "correct", "fine"))
    assert v[1] == {"index": 2, "step": 4, "tool": "book_flight", "verdict": "correct", "notes": "fine"}
    # untouched again (no verdict, blank notes): gone
    v = tr.put(v, tr.entry(CALLS[0], None, "   "))
    assert [e["index"] for e in v] == [2]
    assert tr.drop(v, 2) == []


def test_parse_cleans_and_dedups():
    raw = [{"index": 3, "step": 1, "tool": "t", "verdict": "", "notes": None}, "junk",
           {"index": True}, {"index": 1, "step": "x", "tool": 5, "verdict": "ok", "notes": "n"},
           {"index": 3, "step": 1, "tool": "t", "verdict": "correct", "notes": ""}]
    assert tr.parse(raw) == [{"index": 1, "step": None, "tool": "5", "verdict": "ok", "notes": "n"},
                             {"index": 3, "step": 1, "tool": "t", "verdict": "correct", "notes": ""}]
    assert tr.parse(None) == [] and tr.parse({"a": 1}) == []


def test_reconcile_never_moves_a_label_to_another_call():
    stored = [{"index": 1, "step": 2, "tool": "search_flights", "verdict": "correct", "notes": ""},
              {"index": 2, "step": 3, "tool": "book_flight", "verdict": "wrong_args", "notes": ""},
              {"index": 9, "step": 9, "tool": "gone", "verdict": "correct", "notes": ""}]
    matched, orphans = tr.reconcile(stored, CALLS)
    assert list(matched) == [1]
    assert [o["index"] for o in orphans] == [2, 9]


def test_pretty_prints_arguments_and_results():
    assert tr.pretty({"a": [1, "é"]}) == ('{\n  "a": [\n    1,\n    "é"\n  ]\n}', "json")
    assert tr.pretty('{"to": "LIS"}') == ('{\n  "to": "LIS"\n}', "json")
    assert tr.pretty("{not json") == ("{not json", None)
    assert tr.pretty("'SF weather'") == ("'SF weather'", None)
    assert tr.pretty(None) == ("", None)
    assert tr.pretty(3) == ("3", "json")


def test_summary():
    v = [{"index": 0, "step": 1, "tool": "a", "verdict": "correct", "notes": ""},
         {"index": 1, "step": 1, "tool": "a", "verdict": "odd", "notes": ""},
         {"index": 2, "step": 1, "tool": "a", "verdict": None, "notes": "x"}]
    assert tr.summary(v, 5, ["correct", "wrong_tool"]) == "2 of 5 calls judged (1 correct, 1 odd)"
    assert tr.summary(None, 5, ["correct"]) == "0 of 5 calls judged"


def test_every_call_shape_of_the_demo_runs_gets_a_card_value():
    items = demo_items()
    d = derive(items["trip-planner-001"])
    # OpenAI (delegate, search_flights with a role=tool result, book_flight), Potato {name, args},
    # Anthropic tool_use with its tool_result
    assert [(c.index, c.step, c.tool) for c in d.tool_calls] == [
        (0, 1, "delegate"), (1, 2, "search_flights"), (2, 4, "book_flight"), (3, 6, "search_hotels"),
        (4, 9, "search_restaurants")]
    assert tr.pretty(d.tool_calls[1].result)[1] == "json"  # the tool message held JSON
    assert d.tool_calls[4].result.startswith("Taberna X")
    v = None
    for c in reversed(d.tool_calls):
        v = tr.put(v, tr.entry(c, "correct", ""))
    assert [e["index"] for e in v] == [0, 1, 2, 3, 4]
    assert tr.reconcile(v, d.tool_calls) == ({e["index"]: e for e in v}, [])
    for c in derive(items["research-003"]).tool_calls + derive(items["code-team-002"]).tool_calls:
        text, _ = tr.pretty(c.arguments)
        assert isinstance(text, str)


def test_action_and_step_tool_shapes():
    d = derive({"steps": [{"agent": "A", "action": "search_web('SF weather')"},
                          {"agent": "B", "tool": "calc", "args": {"x": 1}, "result": 2}]})
    assert [(c.tool, c.arguments, c.result) for c in d.tool_calls] == [
        ("search_web", "'SF weather'", None), ("calc", {"x": 1}, 2)]
    assert tr.put(None, tr.entry(d.tool_calls[1], "correct", "")) == [
        {"index": 1, "step": 1, "tool": "calc", "verdict": "correct", "notes": ""}]
