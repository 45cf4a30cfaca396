"""app.scorecard: the agent_scorecard value, on literal data and on the demo traces."""
from __future__ import annotations

import json

from hypothesis import given, strategies as st

from app.types import agent_scorecard as sc
from app.traces.derive import derive
from tests.conftest import ROOT

MS = ["plan produced", "task delegated correctly", "result verified"]


def test_build_omits_unscored_and_lists_every_milestone():
    v = sc.build({"Planner": {"role fidelity": 4, "contribution": None}, "Critic": {"role fidelity": None}},
                 {"coordination": 3, "efficiency": None}, {"plan produced"}, MS, 5)
    assert v == {"agents": {"Planner": {"role fidelity": 4}}, "team": {"coordination": 3},
                 "milestones": {"plan produced": True, "task delegated correctly": False,
                                "result verified": False}}


def test_nothing_scored_nothing_reached_is_empty():
    assert sc.build({"A": {"d": None}}, {"t": None}, set(), MS, 5) == sc.empty()
    assert sc.is_empty(sc.empty())
    assert sc.is_empty({"agents": {}, "team": {}, "milestones": {"plan produced": False}})
    assert not sc.is_empty({"agents": {}, "team": {}, "milestones": {"plan produced": True}})
    assert not sc.is_empty({"agents": {"A": {"d": 1}}, "team": {}, "milestones": {}})


def test_scores_outside_the_scale_are_not_scores():
    assert [sc.valid_score(x, 5) for x in (0, 1, 5, 6, -1, True, None, "3", 2.0, 2.5, "x")] == \
        [None, 1, 5, None, None, None, None, 3, 2, None, None]


def test_set_and_unset_one_score_at_a_time():
    v = sc.with_agent_score(None, "Planner", "role fidelity", 4, MS, 5)
    v = sc.with_agent_score(v, "Critic", "coordination", 2, MS, 5)
    v = sc.with_team_score(v, "efficiency", 5, MS, 5)
    v = sc.with_milestone(v, "result verified", True, MS, 5)
    assert v == {"agents": {"Planner": {"role fidelity": 4}, "Critic": {"coordination": 2}},
                 "team": {"efficiency": 5},
                 "milestones": {"plan produced": False, "task delegated correctly": False, "result verified": True}}
    v = sc.with_agent_score(v, "Planner", "role fidelity", None, MS, 5)
    assert "Planner" not in v["agents"]
    v = sc.with_agent_score(v, "Critic", "coordination", None, MS, 5)
    v = sc.with_team_score(v, "efficiency", None, MS, 5)
    assert v["milestones"]["result verified"] is True and not sc.is_empty(v)
    assert sc.with_milestone(v, "result verified", False, MS, 5) == sc.empty()


def test_reached_milestone_dropped_from_config_is_kept():
    v = {"agents": {}, "team": {}, "milestones": {"old one": True, "plan produced": False}}
    assert sc.with_milestone(v, "plan produced", True, MS, 5)["milestones"] == {
        "plan produced": True, "task delegated correctly": False, "result verified": False, "old one": True}


def test_parse_is_robust_to_bad_values():
    assert sc.parse(None, 5) == sc.empty()
    assert sc.parse([1, 2], 5) == sc.empty()
    assert sc.parse({"agents": {"A": {"d": 9, "e": 2}, "B": "x"}, "team": [], "milestones": {"m": "true"}}, 5) == \
        {"agents": {"A": {"e": 2}}, "team": {}, "milestones": {"m": True}}


def test_rows_keep_agents_only_the_stored_value_knows():
    rows, extra = sc.rows(["A", "B"], {"agents": {"Gone": {"d": 3}, "A": {"d": 1}}}, 5)
    assert rows == ["A", "B", "Gone"] and extra == ["Gone"]


def test_summary_counts():
    v = {"agents": {"A": {"d1": 1, "d2": 2}}, "team": {"t": 3}, "milestones": {"m1": True, "m2": False}}
    assert sc.summary(v, 2, ["d1", "d2"], ["t", "u"], 5) == \
        "2 of 4 agent scores, 1 of 2 team scores, 1 of 2 milestones reached"


def test_rows_from_the_demo_traces_are_the_agents_that_took_part():
    items = [json.loads(line) for line in (ROOT / "data" / "demo_runs.jsonl").read_text().splitlines() if line.strip()]
    by_id = {it["id"]: it for it in items}
    d = derive(by_id["trip-planner-001"])
    assert sc.rows(d.agents, None, 5) == (["Planner", "FlightAgent", "HotelAgent", "FoodAgent", "Critic"], [])
    d = derive(by_id["research-003"])
    assert "(unknown)" in d.agents  # a step without agent is shown, as in the trace view
    v = None
    for i, a in enumerate(d.agents):
        v = sc.with_agent_score(v, a, "contribution", i % 5 + 1, MS, 5)
    assert list(v["agents"]) == d.agents


scores = st.one_of(st.none(), st.integers(1, 7))


@given(st.dictionaries(st.sampled_from(["A", "B", "C->D", "é"]),
                       st.dictionaries(st.sampled_from(["x", "y"]), scores), max_size=4),
       st.dictionaries(st.sampled_from(["t1", "t2"]), scores), st.sets(st.sampled_from(MS)))
def test_build_parse_round_trip(agents, team, reached):
    v = sc.build(agents, team, reached, MS, 7)
    assert sc.parse(json.loads(json.dumps(v)), 7) == v
    assert sc.is_empty(v) == (v == sc.empty())


def test_table_rows_are_the_parsed_scorecard_as_rows():
    # hand-edited: a bool, a digit string, a whole float, out of range, a non-dict agent, odd milestones
    value = {"agents": {"Planner": {"plan": 4, "tools": True, "speed": "3", "depth": 2.0, "x": 11},
                        "Coder": "not a dict", "Idle": {"plan": 0}},
             "team": {"goal": 5, "cost": None},
             "milestones": {"m1": True, "m2": "true", "m3": 1, "m4": False}}
    scores, miles = sc.table_rows(value, 5)
    assert scores == [("agent", "Planner", "plan", 4), ("agent", "Planner", "speed", 3),
                      ("agent", "Planner", "depth", 2), ("team", sc.TEAM, "goal", 5)]
    assert miles == [("m1", True), ("m2", True), ("m3", False), ("m4", False)]
    assert sc.parse(value, 5) == {"agents": {"Planner": {"plan": 4, "speed": 3, "depth": 2}},
                                         "team": {"goal": 5},
                                         "milestones": {"m1": True, "m2": True, "m3": False, "m4": False}}
    assert sc.table_rows("junk", 5) == ([], []) and sc.parse(None, 5) == sc.empty()
