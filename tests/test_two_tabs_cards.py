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
from tests.conftest import as_read, click_card, components, make_app, open_page, text_card, type_card
from tests.summary_data import demo
from tests.test_agent_scorecard_page import TEAM, card, reach, score, scores
# the graph's instant cards, driven as the browser drives them
from tests.test_graph_page import critical, edge_card, edge_shown, set_critical, set_edge

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

def test_scorecard_two_tabs_keep_both_scores_and_the_later_is_told_of_a_clash(tmp_path):
    """The scorecard's instant cards (tests/test_agent_scorecard_page.py): a card's click sends
    every row's score, and only the cell it changed is applied on top of the disk."""
    cfg, _save = demo(tmp_path)
    a, b = tab(cfg, "agent_scorecard"), tab(cfg, "agent_scorecard")
    ok(score(a, "Planner", role_fidelity=4))
    ok(score(b, "Critic", coordination=2))  # B was drawn before A's save
    assert stored(cfg, "scorecard")["agents"] == {"Planner": {"role fidelity": 4}, "Critic": {"coordination": 2}}
    assert scores(b, "Planner") == {"role fidelity": 4}  # B now shows A's score
    assert TOLD not in texts(b)
    # one agent's card in both tabs, other cells: both kept (B's card still showed no Planner score)
    b_planner = card(b, "Planner")["card"]
    ok(score(a, "Planner", contribution=5))
    ok(click_card(b, b_planner, ["0:4", "2:1"]))  # B's card: role fidelity as drawn, coordination 1
    assert stored(cfg, "scorecard")["agents"]["Planner"] == {"role fidelity": 4, "contribution": 5, "coordination": 1}
    # the same cell, set differently: A first, then B (drawn before A's save)
    b_team = card(b, "Team scores")["card"]
    ok(score(a, "Team scores", TEAM, efficiency=3))
    ok(click_card(b, b_team, ["2:5"]))
    assert stored(cfg, "scorecard")["team"] == {"efficiency": 3}
    told = texts(b)
    assert f"team efficiency: {TOLD} 3 meanwhile" in told and "your 5 was not saved" in told
    assert TOLD in card(b, "Team scores")["saved_text"]  # the card says so too
    assert scores(b, "Team scores", TEAM) == {"efficiency": 3}  # and shows the current value
    # a milestone ticked in B keeps both tabs' scores
    ok(reach(b, "plan produced"))
    v = stored(cfg, "scorecard")
    assert v["team"] == {"efficiency": 3} and v["agents"]["Planner"]["role fidelity"] == 4
    assert v["milestones"]["plan produced"] is True
    # A (stale) takes its Planner scores back: only those go
    ok(score(a, "Planner", role_fidelity=None, contribution=None))
    v = stored(cfg, "scorecard")
    assert v["agents"] == {"Critic": {"coordination": 2}, "Planner": {"coordination": 1}}
    assert v["milestones"]["plan produced"] is True


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
    ok(set_critical(a, "Critic", True))
    ok(set_critical(b, "Planner", True))  # B was drawn before A's save
    assert set(stored(cfg, "graph")["critical_nodes"]) == {"Critic", "Planner"}
    assert "Critic" in critical(b)  # B shows A's agent
    # a click on the drawing of stale A (it never saw Planner marked): toggles Critic off, Planner stays
    graph_click(a, "n4")
    assert stored(cfg, "graph") == {"critical_nodes": ["Planner"], "edges": {}}
    # a handoff set in A, then otherwise in B (drawn before A's save): A's stays, B told and shown it
    ok(set_edge(a, "Planner", "Critic", "critical"))
    ok(set_edge(b, "Planner", "Critic", "problematic"))
    assert stored(cfg, "graph")["edges"] == {"Planner->Critic": "critical"}
    told = texts(b)
    assert f"edge Planner → Critic: {TOLD} 'critical' meanwhile" in told and "'problematic' was not saved" in told
    assert f"{TOLD} 'critical' meanwhile" in as_read(edge_card(b, "Planner", "Critic")["saved_text"])  # on its card
    assert edge_shown(b, "Planner", "Critic") == "critical"
    assert "Critic" not in critical(b)  # and A's click on the drawing too
    # the same clash through the drawing: B cycles the handoff (drawn critical) while A set it normal
    ok(set_edge(a, "Planner", "Critic", "normal"))
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
        given = rng.choice([None, 1, 2, 3, 4, 5])
        at = tabs[who]
        if scores(at, cellkey[0]).get(cellkey[1]) == given:
            continue
        ok(score(at, cellkey[0], **{cellkey[1].replace(" ", "_"): given}))
        if given is None:
            want.pop(cellkey, None)
        else:
            want[cellkey] = given
        v = stored(cfg, "scorecard") or {"agents": {}}
        on_disk = {(a, d): s for a, cells in v["agents"].items() for d, s in cells.items()}
        assert on_disk == want, click
        assert {k: scores(at, k[0]).get(k[1]) for k in want} == want, click
    boards = [tab(cfg, "agent_interaction_graph"), tab(cfg, "agent_interaction_graph")]
    marked: set[str] = set()
    for click in range(40):
        who = rng.randrange(2)
        agent = rng.choice(agents[who])
        at = boards[who]
        on = agent not in critical(at)
        ok(set_critical(at, agent, on))
        (marked.add if on else marked.discard)(agent)
        assert set((stored(cfg, "graph") or {"critical_nodes": []})["critical_nodes"]) == marked, click
