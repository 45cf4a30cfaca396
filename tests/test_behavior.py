"""Tests for app.behavior: turns offered, value builders, ranges."""
import json

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from app.types import emergent_behavior as bh
from app.traces.derive import derive
from app.traces.readers import whowhen
from app.traces.trace import Step
from tests.conftest import ROOT, shared_files

ORDER = ["echoing", "role_swap", "sycophantic_agreement"]


def test_turns_cover_every_step_with_index_agent_excerpt():
    steps = [Step(0, "0", "Planner", "Plan:\n  book  flights", {}), Step(1, "1", "(unknown)", "", {}),
             Step(2, "2", "Critic", "x" * 200, {})]
    turns = bh.turns(steps)
    assert [(t.index, t.agent) for t in turns] == [(0, "Planner"), (1, "(unknown)"), (2, "Critic")]
    assert turns[0].excerpt == "Plan: book flights"
    assert turns[0].label == "Step 0 · Planner · Plan: book flights"
    assert turns[1].label == "Step 1 · (unknown) · (no text)"
    assert len(turns[2].excerpt) == bh.EXCERPT and turns[2].excerpt.endswith("…")


def test_step_labels_of_a_derivation_are_one_line_each_made_once():
    # the step picker's options (failure attribution): by position, one line, cut, "(no text)"
    d = derive({"steps": [{"agent": "Planner", "content": "Plan:\n  book  flights"}, {"agent": "Critic", "content": ""},
                          {"agent": "Critic", "content": "x" * 200}]})
    labels = d.step_labels
    assert labels[:2] == ("Step 0 · Planner · Plan: book flights", "Step 1 · Critic · (no text)")
    assert labels[2].startswith("Step 2 · Critic · x") and labels[2].endswith("…") and "\n" not in labels[2]
    assert d.step_labels is labels  # kept with the derivation, not made again on each rerun


def test_demo_trace_turns_match_the_trace_view():
    data = json.loads((ROOT / "data" / "demo_runs.jsonl").read_text().splitlines()[2])  # research-003
    d = derive(data)
    turns = bh.turns(d.steps)
    assert [t.index for t in turns] == list(range(len(data["steps"])))
    assert turns[3].agent == "(unknown)"  # a step without an agent is still a turn, same number


def test_set_turn_and_build():
    v = bh.set_turn({}, "role_swap", 5, True, ORDER)
    assert v == {"role_swap": {"turns": [5], "note": ""}}
    v = bh.set_turn(v, "echoing", 3, True, ORDER)
    v = bh.set_turn(v, "echoing", 1, True, ORDER)
    v = bh.set_turn(v, "echoing", 3, True, ORDER)  # twice: still once
    assert v == {"echoing": {"turns": [1, 3], "note": ""}, "role_swap": {"turns": [5], "note": ""}}
    assert list(v) == ["echoing", "role_swap"]  # config order
    v = bh.set_turn(v, "role_swap", 5, False, ORDER)
    assert v == {"echoing": {"turns": [1, 3], "note": ""}}  # no turns, no note: left out


def test_notes():
    v = bh.set_note({}, "echoing", "Critic repeats the plan", ORDER)
    assert v == {"echoing": {"turns": [], "note": "Critic repeats the plan"}}
    v = bh.set_turn(v, "echoing", 4, True, ORDER)
    assert v == {"echoing": {"turns": [4], "note": "Critic repeats the plan"}}
    v = bh.set_note(v, "echoing", "   ", ORDER)
    assert v == {"echoing": {"turns": [4], "note": ""}}
    assert bh.set_note({}, "echoing", " \n ", ORDER) == {}


def test_ranges():
    valid = list(range(10))
    assert bh.turn_range(7, 3, valid) == [3, 4, 5, 6, 7]
    assert bh.turn_range(8, 20, valid) == [8, 9]
    v = bh.add_turns({}, "echoing", bh.turn_range(2, 5, valid), ORDER)
    v = bh.add_turns(v, "echoing", [9], ORDER)
    assert v["echoing"]["turns"] == [2, 3, 4, 5, 9]
    assert bh.ranges_text(v["echoing"]["turns"]) == "2–5, 9"
    v = bh.remove_turns(v, "echoing", bh.turn_range(3, 4, valid), ORDER)
    assert v["echoing"]["turns"] == [2, 5, 9]
    assert bh.remove_turns(v, "echoing", valid, ORDER) == {}
    assert bh.ranges_text([]) == ""


def test_parse_is_tolerant_and_keeps_unknown_behaviours():
    raw = {"echoing": {"turns": [3, "1", 3, 2.0, True, "x", 2.5], "note": None},
           "gone_behaviour": {"turns": [1], "note": "kept"},
           "bare": [4, 2], "junk": 5}
    assert bh.parse(raw) == {"echoing": {"turns": [1, 2, 3], "note": ""},
                             "gone_behaviour": {"turns": [1], "note": "kept"},
                             "bare": {"turns": [2, 4], "note": ""}}
    assert bh.parse(None) == {} and bh.parse([1]) == {}
    v = bh.set_turn(raw, "echoing", 7, True, ORDER)
    assert v["gone_behaviour"] == {"turns": [1], "note": "kept"}  # never lost by an edit elsewhere
    assert list(v)[:1] == ["echoing"]


def test_summary():
    v = {"echoing": {"turns": [1, 2, 3], "note": "n"}, "role_swap": {"turns": [5], "note": ""}}
    assert bh.summary(v, ORDER) == ["echoing: 3 turns (1–3) · note", "role_swap: 1 turn (5)",
                                    "sycophantic_agreement: no turns"]


@given(hs.dictionaries(hs.sampled_from(ORDER + ["other"]),
                       hs.tuples(hs.lists(hs.integers(0, 300)), hs.text(max_size=20))))
def test_build_parse_round_trip(raw):
    v = bh.build({b: {"turns": t, "note": n} for b, (t, n) in raw.items()}, ORDER)
    assert json.loads(json.dumps(v)) == v
    assert bh.build(bh.parse(v), ORDER) == v
    for b, e in v.items():
        assert e["turns"] == sorted(set(e["turns"]))
        assert e["turns"] or e["note"].strip()


WHOWHEN = shared_files("whowhen", "*/*.json", stand_in=ROOT / "data" / "whowhen")


@pytest.mark.parametrize("path", WHOWHEN[:4], ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_real_whowhen_runs(path):
    item = whowhen.to_item(json.loads(path.read_text()), str(path), "id", "text", file=path)
    d = derive(item.data)
    turns = bh.turns(d.steps)
    assert len(turns) == len(json.loads(path.read_text())["history"])
    assert all("\n" not in t.label and len(t.excerpt) <= bh.EXCERPT for t in turns)
    last = turns[-1].index
    v = bh.add_turns({}, "echoing", bh.turn_range(0, last, [t.index for t in turns]), ORDER)
    assert v["echoing"]["turns"] == list(range(last + 1))
