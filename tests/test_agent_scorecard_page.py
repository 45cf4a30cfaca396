"""agent_scorecard page (AppTest): scores through the controls, the Parquet row, reopening."""
from __future__ import annotations

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from app.store.storage import STATUS_REVIEWED_CLEAN as REVIEWED_CLEAN
from app.ui.text import md
from tests.conftest import make_app, open_page

ITEM = "trip-planner-001"
MS = ["plan produced", "task delegated correctly", "result verified"]


def key(*parts):
    return widget_key("scorecard", "scorecard", ITEM, *parts)


def stored(tmp_path):
    return AnnotationStore(tmp_path / "annotations").load(ITEM, "alice", "scorecard")


def test_rows_are_the_agents_that_took_part(demo_project):
    at = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    for agent in ["Planner", "FlightAgent", "HotelAgent", "FoodAgent", "Critic"]:
        for dim in ["role fidelity", "contribution", "coordination"]:
            box = at.button_group(key=key("agent", agent, dim))  # one click per cell (issue 27)
            assert box.value is None and box.options == ["1", "2", "3", "4", "5"]
    assert stored(demo_project.parent) is None


def test_score_save_reopen_unscore(demo_project):
    tmp = demo_project.parent
    at = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    at.button_group(key=key("agent", "Planner", "role fidelity")).set_value(4).run()
    at.button_group(key=key("agent", "Critic", "coordination")).set_value(2).run()
    at.button_group(key=key("team", "efficiency")).set_value(5).run()
    at.checkbox(key=key("milestone", "plan produced")).check().run()
    assert not at.exception
    ann = stored(tmp)
    assert ann.status == "annotated"
    assert ann.value == {"agents": {"Planner": {"role fidelity": 4}, "Critic": {"coordination": 2}},
                         "team": {"efficiency": 5},
                         "milestones": {"plan produced": True, "task delegated correctly": False,
                                        "result verified": False}}
    assert any(c.value.startswith("Milestones: 1 of 3 reached · saved ") for c in at.caption)
    assert any(c.value.startswith("Team scores · saved ") for c in at.caption)
    assert any("Planner" in m.value and "· saved " in m.value for m in at.markdown)

    again = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    assert again.button_group(key=key("agent", "Planner", "role fidelity")).value == 4
    assert again.button_group(key=key("agent", "Critic", "coordination")).value == 2
    assert again.button_group(key=key("agent", "Critic", "role fidelity")).value is None
    assert again.button_group(key=key("team", "efficiency")).value == 5
    assert again.checkbox(key=key("milestone", "plan produced")).value is True
    assert again.checkbox(key=key("milestone", "result verified")).value is False

    # "not scored" again removes the entry; nothing left removes the row
    again.button_group(key=key("agent", "Planner", "role fidelity")).set_value(None).run()
    assert stored(tmp).value["agents"] == {"Critic": {"coordination": 2}}
    again.button_group(key=key("agent", "Critic", "coordination")).set_value(None).run()
    again.button_group(key=key("team", "efficiency")).set_value(None).run()
    assert stored(tmp).value == {"agents": {}, "team": {},
                                 "milestones": {"plan produced": True, "task delegated correctly": False,
                                                "result verified": False}}
    again.checkbox(key=key("milestone", "plan produced")).uncheck().run()
    assert stored(tmp) is None
    assert any(c.value.startswith("Milestones: 0 of 3 reached · saved ") for c in again.caption)


def test_reviewed_clean_is_not_the_same_as_not_annotated(demo_project):
    tmp = demo_project.parent
    at = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    at.button_group(key=key("agent", "Planner", "contribution")).set_value(3).run()
    at.button(key=key("clean")).click().run()
    assert not at.exception
    ann = stored(tmp)
    assert ann.status == REVIEWED_CLEAN and ann.value == {"agents": {}, "team": {}, "milestones": {}}
    assert at.button_group(key=key("agent", "Planner", "contribution")).value is None
    assert any("Reviewed, nothing to flag" in c.value for c in at.caption)
    again = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    assert any("Reviewed, nothing to flag" in c.value for c in again.caption)
    assert again.button_group(key=key("agent", "Planner", "contribution")).value is None


def test_injected_agent_name_is_escaped(tmp_path):
    import json
    from tests.conftest import write_project
    data = tmp_path / "runs.jsonl"
    evil = "<img src=x onerror=alert(1)>*bold*"
    data.write_text(json.dumps({"id": "x1", "text": "t", "steps": [{"agent": evil, "content": "hi"},
                                                                 {"agent": "B", "content": "ok"}]}) + "\n")
    cfg = write_project(tmp_path, data_files=[str(data)])
    at = open_page(make_app(cfg, item="x1"), "agent_scorecard")
    box = at.button_group(key=widget_key("scorecard", "scorecard", "x1", "agent", evil, "contribution"))
    assert box.label == md(f"contribution of {evil}")
    assert not any("<img" in m.value.replace("\\<img", "") for m in at.markdown)
    box.set_value(2).run()
    assert AnnotationStore(tmp_path / "annotations").load("x1", "alice", "scorecard").value["agents"] == \
        {evil: {"contribution": 2}}


def test_the_count_follows_every_click(demo_project):
    """Issue 27: the count at the top is worked out after the save, from the stored value, so it
    agrees with the cells after every click (it said "0 of 15" once all were filled)."""
    at = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    agents = ["Planner", "FlightAgent", "HotelAgent", "FoodAgent", "Critic"]
    dims = ["role fidelity", "contribution", "coordination"]
    n = 0
    for agent in agents:
        for dim in dims:
            at.button_group(key=key("agent", agent, dim)).set_value(3).run()
            n += 1
            assert any(f"{n} of 15 agent scores" in c.value for c in at.caption), [c.value for c in at.caption]
    assert len(stored(demo_project.parent).value["agents"]) == 5
    at.button_group(key=key("agent", "Critic", "coordination")).set_value(None).run()
    assert any("14 of 15 agent scores" in c.value for c in at.caption)
