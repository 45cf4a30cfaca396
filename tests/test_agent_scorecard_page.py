"""agent_scorecard page (AppTest): scores through the instant cards (an agent's card, a radio row
per dimension; the team's; the milestones'), the Parquet row, reopening."""
from __future__ import annotations

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from app.store.storage import STATUS_REVIEWED_CLEAN as REVIEWED_CLEAN
from tests.conftest import click_clean, click_card, instant_cards, make_app, open_page

ITEM = "trip-planner-001"
MS = ["plan produced", "task delegated correctly", "result verified"]
AGENTS = ["Planner", "FlightAgent", "HotelAgent", "FoodAgent", "Critic"]
DIMS = ["role fidelity", "contribution", "coordination"]
TEAM = ["coordination", "communication", "efficiency"]


def key(*parts):
    return widget_key("scorecard", "scorecard", ITEM, *parts)


def card(at, title: str) -> dict:
    """The instant card titled `title` (an agent, "Team scores", "Milestones reached")."""
    found = [c for c in instant_cards(at).values() if c["title"] == title]
    assert len(found) == 1, (title, [c["title"] for c in instant_cards(at).values()])
    return found[0]


def scores(at, title: str, dims=DIMS) -> dict:
    """What a card of scores shows: {dimension: score}."""
    return {dims[int(o.split(":")[0])]: int(o.split(":")[1]) for o in card(at, title)["stored"]}


def score(at, title: str, dims=DIMS, **picks):
    """A click that leaves the card showing its scores with `picks` (dimension with _ for a space:
    score, None takes it back)."""
    shown = scores(at, title, dims)
    for d, n in picks.items():
        shown[d.replace("_", " ")] = n
    return click_card(at, card(at, title)["card"], [f"{dims.index(d)}:{n}" for d, n in shown.items() if n is not None])


def reach(at, *names):
    return click_card(at, card(at, "Milestones reached")["card"], list(names))


def stored(tmp_path):
    return AnnotationStore(tmp_path / "annotations").load(ITEM, "alice", "scorecard")


def test_rows_are_the_agents_that_took_part(demo_project):
    at = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    for agent in AGENTS:
        c = card(at, agent)  # a card per agent, a radio row per dimension: one click per cell (issue 27)
        assert c["stored"] == [] and not c["multi"] and c["hide_title"]
        assert [r["name"] for r in c["rows"]] == DIMS
        assert [r["label"] for r in c["rows"]] == [f"{d} of {agent}" for d in DIMS]
        assert all([o["label"] for o in c["options"] if o["value"] in r["options"]] == ["1", "2", "3", "4", "5"]
                   for r in c["rows"])
    assert [r["name"] for r in card(at, "Team scores")["rows"]] == TEAM
    assert [o["value"] for o in card(at, "Milestones reached")["options"]] == MS
    assert stored(demo_project.parent) is None


def test_score_save_reopen_unscore(demo_project):
    tmp = demo_project.parent
    at = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    score(at, "Planner", role_fidelity=4)
    score(at, "Critic", coordination=2)
    score(at, "Team scores", TEAM, efficiency=5)
    reach(at, "plan produced")
    assert not at.exception
    ann = stored(tmp)
    assert ann.status == "annotated"
    assert ann.value == {"agents": {"Planner": {"role fidelity": 4}, "Critic": {"coordination": 2}},
                         "team": {"efficiency": 5},
                         "milestones": {"plan produced": True, "task delegated correctly": False,
                                        "result verified": False}}
    assert any(c.value == "Milestones: 1 of 3 reached" for c in at.caption)
    for title in ("Planner", "Team scores", "Milestones reached"):  # each card says it saved
        assert card(at, title)["saved_text"].startswith("Saved · ")
        assert card(at, title)["ack"]["seq"] >= 1 and card(at, title)["error"] is None

    again = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    assert scores(again, "Planner") == {"role fidelity": 4}
    assert scores(again, "Critic") == {"coordination": 2}
    assert scores(again, "Team scores", TEAM) == {"efficiency": 5}
    assert card(again, "Milestones reached")["stored"] == ["plan produced"]

    # "not scored" again removes the entry; nothing left removes the row
    score(again, "Planner", role_fidelity=None)
    assert stored(tmp).value["agents"] == {"Critic": {"coordination": 2}}
    score(again, "Critic", coordination=None)
    score(again, "Team scores", TEAM, efficiency=None)
    assert stored(tmp).value == {"agents": {}, "team": {},
                                 "milestones": {"plan produced": True, "task delegated correctly": False,
                                                "result verified": False}}
    reach(again)
    assert stored(tmp) is None
    assert any(c.value == "Milestones: 0 of 3 reached" for c in again.caption)


def test_one_click_sets_and_takes_back_one_cell_of_several(demo_project):
    """A card's click sends every row's score; only the cell it changed moves."""
    at = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    score(at, "HotelAgent", role_fidelity=2, contribution=5, coordination=1)
    assert stored(demo_project.parent).value["agents"] == {"HotelAgent": {"role fidelity": 2, "contribution": 5,
                                                                          "coordination": 1}}
    score(at, "HotelAgent", contribution=3)
    score(at, "HotelAgent", coordination=None)
    assert stored(demo_project.parent).value["agents"] == {"HotelAgent": {"role fidelity": 2, "contribution": 3}}
    assert scores(at, "HotelAgent") == {"role fidelity": 2, "contribution": 3}
    # two scores in one row: not a click the card could send, nothing saved
    c = card(at, "HotelAgent")
    click_card(at, c["card"], ["0:2", "0:3"])
    assert stored(demo_project.parent).value["agents"] == {"HotelAgent": {"role fidelity": 2, "contribution": 3}}


def test_reviewed_clean_is_not_the_same_as_not_annotated(demo_project):
    tmp = demo_project.parent
    at = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    score(at, "Planner", contribution=3)
    click_clean(at)
    assert not at.exception
    ann = stored(tmp)
    assert ann.status == REVIEWED_CLEAN and ann.value == {"agents": {}, "team": {}, "milestones": {}}
    assert card(at, "Planner")["stored"] == []
    assert any("Reviewed, nothing to flag" in c.value for c in at.caption)
    again = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    assert any("Reviewed, nothing to flag" in c.value for c in again.caption)
    assert card(again, "Planner")["stored"] == []


def test_injected_agent_name_is_escaped(tmp_path):
    import json
    from tests.conftest import write_project
    data = tmp_path / "runs.jsonl"
    evil = "<img src=x onerror=alert(1)>*bold*"
    data.write_text(json.dumps({"id": "x1", "text": "t", "steps": [{"agent": evil, "content": "hi"},
                                                                 {"agent": "B", "content": "ok"}]}) + "\n")
    cfg = write_project(tmp_path, data_files=[str(data)])
    at = open_page(make_app(cfg, item="x1"), "agent_scorecard")
    c = card(at, evil)  # the card's title and rows reach the page as text (JSON, textContent)
    assert [r["label"] for r in c["rows"]] == [f"{d} of {evil}" for d in DIMS]
    assert not any("<img" in m.value.replace("\\<img", "") for m in at.markdown)
    click_card(at, c["card"], ["1:2"])
    assert AnnotationStore(tmp_path / "annotations").load("x1", "alice", "scorecard").value["agents"] == \
        {evil: {"contribution": 2}}


def test_the_count_follows_every_click(demo_project):
    """Issue 27: the count at the top is worked out after the save, from the stored value, so it
    agrees with the cards after every click (it said "0 of 15" once all were filled)."""
    at = open_page(make_app(demo_project, item=ITEM), "agent_scorecard")
    n = 0
    for agent in AGENTS:
        for dim in DIMS:
            score(at, agent, **{dim.replace(" ", "_"): 3})
            n += 1
            assert any(f"{n} of 15 agent scores" in c.value for c in at.caption), [c.value for c in at.caption]
    assert len(stored(demo_project.parent).value["agents"]) == 5
    score(at, "Critic", coordination=None)
    assert any("14 of 15 agent scores" in c.value for c in at.caption)
    score(at, "Team scores", TEAM, communication=4)
    assert any("1 of 3 team scores" in c.value for c in at.caption)
