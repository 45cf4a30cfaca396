"""Issue 30, point 4: a save applies what its click changed on top of what is on disk now.

Unit tests of app/types/merge.py with the demo's schemes: tab A saved, then a stale tab B (drawn
before A's save) clicks; B's save keeps A's change, and where both set one field differently the
disk's value stays and the conflict is reported."""
from __future__ import annotations

import pytest

from app.project.workspace import open_project
from app.types import merge as m
from app.types.registry import TYPES
from tests.conftest import write_project
from tests.test_validate import FITS


@pytest.fixture(scope="module")
def schemes(tmp_path_factory):
    ws = open_project(write_project(tmp_path_factory.mktemp("merge")))
    return {s.name: s for s in ws.project.schemes}


def merged(schemes, name, base, mine, theirs):
    s = schemes[name]
    return m.merge(TYPES[s.type], s, base, mine, theirs)


@pytest.mark.parametrize("name,value", [f for f in FITS if f[1] not in ({}, [])])
def test_fields_give_the_value_back(schemes, name, value):
    s = schemes[name]
    kind = TYPES[s.type]
    assert kind.join(kind.parts(value, s), s) == kind.join(kind.parts(
        kind.join(kind.parts(value, s), s), s), s)
    assert kind.parts(kind.join(kind.parts(value, s), s), s) == kind.parts(value, s)


def test_two_tabs_tick_two_labels_both_are_kept(schemes):
    base = {}
    a = {"loop": "true"}  # tab A ticked "loop" (on disk)
    b = {"premature_stop": "true"}  # stale tab B (drawn from nothing) ticks "premature_stop"
    value, conflicts = merged(schemes, "symptoms", base, b, a)
    assert value == {"loop": "true", "premature_stop": "true"} and not conflicts
    # B unticks its label again: A's stays
    value, _ = merged(schemes, "symptoms", b, {}, value)
    assert value == {"loop": "true"}


def test_a_reason_typed_in_a_stale_tab_keeps_the_agent_picked_in_the_other(schemes):
    empty = {"responsible_agent": None, "decisive_step": None, "reason": ""}
    a = {**empty, "responsible_agent": "Coder"}
    b = {**empty, "reason": "it skipped the tests"}
    value, conflicts = merged(schemes, "attribution", empty, b, a)
    assert value == {"responsible_agent": "Coder", "decisive_step": None, "reason": "it skipped the tests"}
    assert not conflicts


def test_the_same_field_set_differently_keeps_the_disk_and_says_so(schemes):
    empty = {"responsible_agent": None, "decisive_step": None, "reason": ""}
    a = {**empty, "responsible_agent": "Coder", "decisive_step": 4}
    b = {**empty, "responsible_agent": "Tester", "reason": "r"}
    value, conflicts = merged(schemes, "attribution", empty, b, a)
    assert value == {"responsible_agent": "Coder", "decisive_step": 4, "reason": "r"}
    assert [(c.field, c.mine, c.theirs) for c in conflicts] == [(("responsible agent",), "Tester", "Coder")]
    assert str(conflicts[0]).startswith("responsible agent: another tab or session set it to 'Coder' meanwhile")
    # the same choice in both tabs is no conflict
    assert merged(schemes, "outcome", {}, {"failure": "true"}, {"failure": "true"}) == ({"failure": "true"}, [])
    value, conflicts = merged(schemes, "outcome", {}, {"success": "true"}, {"failure": "true"})
    assert value == {"failure": "true"} and conflicts[0].field == ("choice",)


H0 = {"index": 0, "step": 1, "from": "Manager", "to": "Coder"}
H1 = {"index": 1, "step": 3, "from": "Coder", "to": "Tester"}


def test_handoffs_merge_per_handoff_and_per_flag(schemes):
    a = [{**H0, "flags": ["info_loss"], "quality": None}]
    b = [{**H0, "flags": ["garbling"], "quality": 4}, {**H1, "flags": [], "quality": 2}]
    value, conflicts = merged(schemes, "handoffs", [], b, a)
    assert value == [{**H0, "flags": ["info_loss", "garbling"], "quality": 4}, {**H1, "flags": [], "quality": 2}]
    assert not conflicts
    value, conflicts = merged(schemes, "handoffs", [], [{**H0, "flags": [], "quality": 2}],
                              [{**H0, "flags": [], "quality": 5}])
    assert value == [{**H0, "flags": [], "quality": 5}] and conflicts[0].field == ("handoff", 0, "quality")


def test_scores_steps_turns_calls_regions_and_edges_merge_per_field(schemes):
    v, c = merged(schemes, "scorecard", {}, {"agents": {"Coder": {"contribution": 3}}},
                  {"agents": {"Coder": {"coordination": 5}}, "milestones": {"plan produced": True}})
    assert v["agents"] == {"Coder": {"coordination": 5, "contribution": 3}} and v["milestones"]["plan produced"]
    v, c = merged(schemes, "emergent", {}, {"echoing": {"turns": [2], "note": ""}},
                  {"echoing": {"turns": [5], "note": "loud"}})
    assert v == {"echoing": {"turns": [2, 5], "note": "loud"}} and not c
    call = {"index": 0, "step": 1, "tool": "run_tests"}
    v, c = merged(schemes, "tool_review", [], [{**call, "verdict": None, "notes": "slow"}],
                  [{**call, "verdict": "correct", "notes": ""}])
    assert v == [{**call, "verdict": "correct", "notes": "slow"}] and not c
    step = {"step_index": 2, "agent": "Coder", "correctness": None, "errors": [], "severity": None, "rationale": ""}
    mode = {"type": "Specification & System Design", "subtype": "1.3 Step repetition"}
    v, c = merged(schemes, "mast_steps", {"steps": []}, {"steps": [{**step, "errors": [mode]}]},
                  {"steps": [{**step, "correctness": "incorrect"}]})
    assert v["steps"] == [{**step, "correctness": "incorrect", "errors": [mode]}] and not c
    v, c = merged(schemes, "contention", {}, {"contentions": {"1": "benign"}}, {"contentions": {"0": "deadlock"}})
    assert v == {"contentions": {"0": "deadlock", "1": "benign"}}
    v, c = merged(schemes, "graph", {}, {"critical_nodes": ["Coder"], "edges": {}},
                  {"critical_nodes": ["Tester"], "edges": {"Manager->Coder": "critical"}})
    assert set(v["critical_nodes"]) == {"Coder", "Tester"} and v["edges"] == {"Manager->Coder": "critical"}


def test_a_click_on_a_row_another_tab_cleared_applies_only_its_change(schemes):
    # tab B was drawn with "loop" ticked; tab A removed the whole row; B ticks "premature_stop"
    value, conflicts = merged(schemes, "symptoms", {"loop": "true"}, {"loop": "true", "premature_stop": "true"}, None)
    assert value == {"premature_stop": "true"} and not conflicts
