"""Issue 30, point 4 on the scorecard, emergent-behaviour, tool-contention and interaction-graph
surfaces, through the real app: two sessions (tabs) of one annotator, each drawn before the
other's save. A stale tab's click applies only what it changed, on top of what is on disk now;
where both set one field differently the disk's value stays, and the later tab is told in words
on the card and shown the current value."""
from __future__ import annotations

import json
import random

import pytest

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from tests.conftest import as_read, components, make_app, open_page, text_card, type_card
from tests.summary_data import demo

TRIP = "trip-planner-001"
TOLD = "another tab or session set it to"


def tab(cfg, page: str, item: str = TRIP):
    return open_page(make_app(cfg, annotator="alice", item=item), page)


def stored(cfg, scheme: str, item: str = TRIP):
    ann = AnnotationStore(cfg.parent / "annotations").load(item, "alice", scheme)
    return None if ann is None else ann.value


def texts(at) -> str:
    """Every line of text on the page (markdown, captions, warnings)."""
    return as_read(" ".join(e.value for kind in (at.markdown, at.caption, at.warning) for e in kind))


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


# --- agent scorecard ------------------------------------------------------------------------------

def cell(at, *parts):
    return at.button_group(key=widget_key("scorecard", "scorecard", TRIP, *parts))


def test_scorecard_two_tabs_keep_both_scores_and_the_later_is_told_of_a_clash(tmp_path):
    cfg, _save = demo(tmp_path)
    a, b = tab(cfg, "agent_scorecard"), tab(cfg, "agent_scorecard")
    ok(cell(a, "agent", "Planner", "role fidelity").set_value(4).run())
    ok(cell(b, "agent", "Critic", "coordination").set_value(2).run())  # B was drawn before A's save
    assert stored(cfg, "scorecard")["agents"] == {"Planner": {"role fidelity": 4}, "Critic": {"coordination": 2}}
    assert cell(b, "agent", "Planner", "role fidelity").value == 4  # B now shows A's score
    assert TOLD not in texts(b)
    # the same cell, set differently: A first, then B (drawn before A's save)
    ok(cell(a, "team", "efficiency").set_value(3).run())
    ok(cell(b, "team", "efficiency").set_value(5).run())
    assert stored(cfg, "scorecard")["team"] == {"efficiency": 3}
    told = texts(b)
    assert f"team efficiency: {TOLD} 3 meanwhile" in told and "your 5 was not saved" in told
    assert cell(b, "team", "efficiency").value == 3  # and shown the current value
    # a milestone ticked in B keeps both tabs' scores
    ok(b.checkbox(key=widget_key("scorecard", "scorecard", TRIP, "milestone", "plan produced")).check().run())
    v = stored(cfg, "scorecard")
    assert v["team"] == {"efficiency": 3} and v["agents"]["Planner"] == {"role fidelity": 4}
    assert v["milestones"]["plan produced"] is True
    # A (stale) takes its Planner score back: only that goes
    ok(cell(a, "agent", "Planner", "role fidelity").set_value(None).run())
    v = stored(cfg, "scorecard")
    assert v["agents"] == {"Critic": {"coordination": 2}} and v["milestones"]["plan produced"] is True


# --- emergent behaviour -----------------------------------------------------------------------------

def turn_box(at, behaviour: str, turn: int):
    """The turn on the page's instant card of turns (tests/test_emergent_behavior_page.py)."""
    from tests.test_emergent_behavior_page import box
    return box(at, behaviour, turn)


def note_card(at, behaviour: str) -> dict:
    """The behaviour's note: an instant text card (app/ui/instant_text.py), as the browser gets it."""
    from tests.test_emergent_behavior_page import note_key
    return text_card(at, note_key(at, behaviour))


def type_note(at, behaviour: str, text: str):
    from tests.test_emergent_behavior_page import note_key
    return ok(type_card(at, note_key(at, behaviour), text))


def test_emergent_two_tabs_keep_both_turns_and_the_later_is_told_of_a_clashing_note(tmp_path):
    cfg, _save = demo(tmp_path)
    a, b = tab(cfg, "emergent_behavior"), tab(cfg, "emergent_behavior")
    ok(turn_box(a, "echoing", 3).check().run())
    ok(turn_box(b, "echoing", 5).check().run())  # B was drawn before A's save
    assert stored(cfg, "emergent")["echoing"]["turns"] == [3, 5]
    assert turn_box(b, "echoing", 3).value  # B shows A's turn
    ok(turn_box(a, "echoing", 3).uncheck().run())  # A (stale: it never saw 5) unmarks its turn 3
    assert stored(cfg, "emergent")["echoing"]["turns"] == [5]
    assert turn_box(a, "echoing", 5).value and not turn_box(a, "echoing", 3).value
    # a note in A, then a different one in B (drawn before A's save): A's stays, B is told and shown
    # it (B's words stay in its box, the stored note under "What is stored")
    type_note(a, "echoing", "they repeat the plan")
    type_note(b, "echoing", "no, it is new each time")
    assert stored(cfg, "emergent")["echoing"] == {"turns": [5], "note": "they repeat the plan"}
    told = texts(b)
    assert f"{TOLD} 'they repeat the plan' meanwhile" in told and "no, it is new each time" in told
    card = note_card(b, "echoing")
    assert card["error"].startswith("Not saved: another tab or session saved other text here meanwhile")
    assert card["stored"] == "they repeat the plan"
    # B's next click applies: no word of a clash any more
    ok(turn_box(b, "echoing", 7).check().run())
    assert stored(cfg, "emergent")["echoing"] == {"turns": [5, 7], "note": "they repeat the plan"}
    assert TOLD not in texts(b)


# --- tool contention --------------------------------------------------------------------------------

CODE = "code-team-002"  # two contention regions, #0 and #1


def region_cards(at) -> list[dict]:
    (found,) = components(at, "baton_region_cards")
    return json.loads(found.proto.json)["cards"]


def label(at, region: int, name: str):
    from tests.test_tool_contention_page import label_click  # (the browser's label click)
    return label_click(at, region, name)


def test_contention_two_tabs_keep_both_labels_and_the_later_is_told_of_a_clash(tmp_path):
    cfg, _save = demo(tmp_path)
    a, b = tab(cfg, "tool_contention", CODE), tab(cfg, "tool_contention", CODE)
    label(a, 0, "deadlock")
    label(b, 1, "benign")  # B was drawn before A's save
    assert stored(cfg, "contention", CODE) == {"contentions": {"0": "deadlock", "1": "benign"}}
    assert [c["label"] for c in region_cards(b)] == ["deadlock", "benign"]  # B shows A's label
    # region 1 labelled again in A (stale: it shows it unlabelled) and differently: B's stays
    label(a, 1, "race_condition")
    assert stored(cfg, "contention", CODE) == {"contentions": {"0": "deadlock", "1": "benign"}}
    card = region_cards(a)[1]
    assert card["label"] == "benign"  # A is shown the current label
    assert f"{TOLD} 'benign' meanwhile" in card["status"] and "'race_condition' was not saved" in card["status"]
    # B unlabels region 0 (which it shows as A's): A's region-1 choice was never saved, nothing else changes
    label(b, 0, "unlabelled")
    assert stored(cfg, "contention", CODE) == {"contentions": {"1": "benign"}}
    assert TOLD not in region_cards(b)[0]["status"]


# --- agent interaction graph --------------------------------------------------------------------------

def gkey(*parts):
    return widget_key("graph", "graph", TRIP, *parts)


def graph_click(at, name: str):
    """A click on the node drawn as `name` (see tests/test_graph_page.py)."""
    at.session_state[gkey("canvas")] = f"g2-{at.session_state[gkey('clicks')]}-{name}"
    return ok(at.run())


def test_graph_two_tabs_keep_both_marks_and_the_later_is_told_of_a_clashing_handoff(tmp_path, monkeypatch):
    from app.ui import graph_view
    monkeypatch.setattr(graph_view, "DOUBLE_CLICK", 0.0)
    cfg, _save = demo(tmp_path)
    a, b = tab(cfg, "agent_interaction_graph"), tab(cfg, "agent_interaction_graph")
    ok(a.toggle(key=gkey("node", "Critic")).set_value(True).run())
    ok(b.toggle(key=gkey("node", "Planner")).set_value(True).run())  # B was drawn before A's save
    assert set(stored(cfg, "graph")["critical_nodes"]) == {"Critic", "Planner"}
    assert b.toggle(key=gkey("node", "Critic")).value is True  # B shows A's agent
    # a click on the drawing of stale A (it never saw Planner marked): toggles Critic off, Planner stays
    graph_click(a, "n4")
    assert stored(cfg, "graph") == {"critical_nodes": ["Planner"], "edges": {}}
    # a handoff set in A, then otherwise in B (drawn before A's save): A's stays, B told and shown it
    ok(a.selectbox(key=gkey("edge", "Planner->Critic")).set_value("critical").run())
    ok(b.selectbox(key=gkey("edge", "Planner->Critic")).set_value("problematic").run())
    assert stored(cfg, "graph")["edges"] == {"Planner->Critic": "critical"}
    told = texts(b)
    assert f"edge Planner → Critic: {TOLD} 'critical' meanwhile" in told and "'problematic' was not saved" in told
    assert b.selectbox(key=gkey("edge", "Planner->Critic")).value == "critical"
    assert b.toggle(key=gkey("node", "Critic")).value is False  # and A's click on the drawing too
    # the same clash through the drawing: B cycles the handoff (drawn critical) while A set it normal
    ok(a.selectbox(key=gkey("edge", "Planner->Critic")).set_value("normal").run())
    graph_click(b, "e6")  # Planner → Critic, drawn critical: B makes it problematic
    assert stored(cfg, "graph") == {"critical_nodes": ["Planner"], "edges": {}}
    assert f"{TOLD} nothing meanwhile" in texts(b)


@pytest.mark.long
def test_two_tabs_of_one_annotator_on_the_scorecard_and_the_graph_long(tmp_path):
    """Two tabs of one annotator, each click made in a tab drawn before the other's last save:
    120 scorecard clicks on the cells of each tab's own agents (no click conflicts) keep every
    score the last click gave it and both tabs show the disk after their own click; then 40
    toggles of critical agents the same way on the graph."""
    cfg, _save = demo(tmp_path)
    rng = random.Random(30)
    tabs = [tab(cfg, "agent_scorecard"), tab(cfg, "agent_scorecard")]
    agents = [["Planner", "HotelAgent", "Critic"], ["FlightAgent", "FoodAgent"]]
    dims = ["role fidelity", "contribution", "coordination"]
    want: dict[tuple, int] = {}
    for click in range(120):
        who = rng.randrange(2)
        cellkey = (rng.choice(agents[who]), rng.choice(dims))
        score = rng.choice([None, 1, 2, 3, 4, 5])
        at = tabs[who]
        widget = cell(at, "agent", *cellkey)
        if widget.value == score:
            continue
        ok(widget.set_value(score).run())
        if score is None:
            want.pop(cellkey, None)
        else:
            want[cellkey] = score
        v = stored(cfg, "scorecard") or {"agents": {}}
        on_disk = {(a, d): s for a, scores in v["agents"].items() for d, s in scores.items()}
        assert on_disk == want, click
        assert {k: cell(at, "agent", *k).value for k in want} == want, click
    boards = [tab(cfg, "agent_interaction_graph"), tab(cfg, "agent_interaction_graph")]
    marked: set[str] = set()
    for click in range(40):
        who = rng.randrange(2)
        agent = rng.choice(agents[who])
        at = boards[who]
        on = not at.toggle(key=gkey("node", agent)).value
        ok(at.toggle(key=gkey("node", agent)).set_value(on).run())
        (marked.add if on else marked.discard)(agent)
        assert set((stored(cfg, "graph") or {"critical_nodes": []})["critical_nodes"]) == marked, click
