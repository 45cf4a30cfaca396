"""The agent interaction graph page in AppTest: its instant cards, injected graph clicks, reopening."""
from __future__ import annotations

import json

from app.traces.palette import agent_hex
from app.types import agent_interaction_graph as graph
from app.ui import graph_view as view
from app.store.storage import STATUS_ANNOTATED, STATUS_REVIEWED_CLEAN
from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from tests.conftest import clean_card, click_clean, click_card, instant_card, instant_cards, make_app, open_page

ITEM = "trip-planner-001"
PAGE = "agent_interaction_graph"


def _key(*parts):
    return widget_key("graph", "graph", ITEM, *parts)


def _stored(tmp_path, item=ITEM):
    return AnnotationStore(tmp_path / "annotations").load(item, "alice", "graph")


SEP = "\u241f"
CRITICAL = widget_key("graph", "graph", "place", "critical")  # the card of the critical path's agents


def critical_card(at) -> dict:
    """The instant card of the agents on the critical path, as the browser gets it."""
    return instant_card(at, CRITICAL)


def critical(at) -> list[str]:
    """The agents the critical path's card shows chosen."""
    return critical_card(at)["stored"]


def set_critical(at, agent: str, on: bool):
    """A click on `agent` on the critical path's card (the browser sends the card's whole choice)."""
    card = critical_card(at)
    chosen = [v for v in card["stored"] if v != agent] + ([agent] if on else [])
    return click_card(at, CRITICAL, [o["value"] for o in card["options"] if o["value"] in chosen])


def edge_card(at, src: str, dst: str) -> dict:
    """The instant card of the handoff pair src → dst."""
    (card,) = [c for c in instant_cards(at).values() if c["holds"].endswith(SEP + graph.edge_key(src, dst))]
    return card


def edge_shown(at, src: str, dst: str) -> str | None:
    """The state the pair's card shows chosen (None: nothing stored yet, no state chosen)."""
    stored = edge_card(at, src, dst)["stored"]
    return stored[0] if stored else None


def set_edge(at, src: str, dst: str, state: str):
    """A click on `state` on the pair's card."""
    return click_card(at, edge_card(at, src, dst)["card"], [state])


def _summary(at) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith(("**Critical path:**", "**Flagged handoffs:**"))]


def _click(at, name: str):
    """What a click in the graph does: the component returns the id of the node drawn as `name`
    ("n4", "e6"), whose prefix holds the scheme and the number of clicks handled so far."""
    (el,) = at.get("component_instance")
    assert el.proto.component_name.endswith("agraph")
    at.session_state[_key("canvas")] = f"g2-{at.session_state[_key('clicks')]}-{name}"
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_cards_save_the_documented_value_and_reopen(demo_project, tmp_path):
    at = open_page(make_app(demo_project), PAGE)
    assert _summary(at) == ["**Critical path:** none marked", "**Flagged handoffs:** none flagged"]
    assert critical_card(at)["options"][0] == {"value": "Planner", "label": "Planner",
                                               "tip": "6 steps in this trace", "colour": agent_hex("Planner")}
    set_critical(at, "Critic", True)
    set_critical(at, "Planner", True)
    set_edge(at, "Planner", "Critic", "problematic")
    set_edge(at, "Critic", "Planner", "critical")
    expected = {"critical_nodes": ["Planner", "Critic"],
                "edges": {"Planner->Critic": "problematic", "Critic->Planner": "critical"}}
    ann = _stored(tmp_path)
    assert ann.value == expected and ann.status == STATUS_ANNOTATED
    # the drawing and the summary follow the cards' saves (the scheme's fragment reruns)
    assert _summary(at) == ["**Critical path:** Planner, Critic",
                            "**Flagged handoffs:** Planner → Critic: **⚠ problematic**; "
                            "Critic → Planner: **★ critical**"]
    drawn = _drawn(at)
    assert drawn["g2-0-n4"]["shape"] == "star" and drawn["g2-0-n2"]["shape"] == "dot"  # Critic, not HotelAgent
    assert drawn["g2-0-e6"]["label"].endswith("⚠")  # Planner → Critic's count box
    assert edge_card(at, "Planner", "Critic")["saved_text"].startswith("Saved · ")  # the card says when it saved
    # "nothing to flag" checks what is stored when clicked
    click_clean(at)
    assert _stored(tmp_path).value == expected and _stored(tmp_path).status == STATUS_ANNOTATED
    assert "agents or handoffs are marked" in clean_card(at)["error"] and clean_card(at)["stored"] == []

    again = open_page(make_app(demo_project), PAGE)
    assert critical(again) == ["Planner", "Critic"]
    assert edge_shown(again, "Planner", "Critic") == "problematic"
    assert edge_shown(again, "Critic", "Planner") == "critical"
    assert edge_shown(again, "Planner", "FlightAgent") == "normal"  # (a row is stored: the others are normal)
    assert _summary(again) == _summary(at)

    # back to nothing marked: the row goes, "not annotated" again
    set_critical(again, "Critic", False)
    set_critical(again, "Planner", False)
    set_edge(again, "Planner", "Critic", "normal")
    set_edge(again, "Critic", "Planner", "normal")
    assert _stored(tmp_path) is None
    assert critical(again) == [] and edge_shown(again, "Planner", "Critic") is None


def _drawn(at) -> dict:
    """The nodes the graph component is given, by id."""
    (el,) = at.get("component_instance")
    return {n["id"]: n for n in json.loads(json.loads(el.proto.json_args)["data"])["nodes"]}


def test_graph_clicks_toggle_nodes_and_cycle_edges(demo_project, tmp_path, monkeypatch):
    monkeypatch.setattr(view, "DOUBLE_CLICK", 0.0)  # each click a click of its own, however soon
    at = open_page(make_app(demo_project), PAGE)
    node = "n4"  # Critic, the fifth agent (the demo's graph scheme is annotation_schemes[2])
    _click(at, node)
    assert _stored(tmp_path).value == {"critical_nodes": ["Critic"], "edges": {}}
    assert critical(at) == ["Critic"]  # the card follows the drawing
    at.run()  # the component keeps returning its last click: not applied twice
    assert _stored(tmp_path).value["critical_nodes"] == ["Critic"]
    _click(at, node)  # the same node again (drawn with a new id)
    assert _stored(tmp_path) is None
    assert critical(at) == []

    handle = "e6"  # the seventh pair in first-occurrence order: Planner → Critic
    states = []
    for _ in range(3):
        _click(at, handle)
        ann = _stored(tmp_path)
        states.append(ann.value["edges"].get("Planner->Critic") if ann else "normal")
        assert edge_shown(at, "Planner", "Critic") == (states[-1] if ann else None)
    assert states == ["critical", "problematic", "normal"]
    _click(at, "pad0")  # the invisible padding: nothing happens
    assert _stored(tmp_path) is None


def test_a_double_click_on_an_agent_toggles_it_once(demo_project, tmp_path):
    at = open_page(make_app(demo_project), PAGE)
    _click(at, "n4")
    _click(at, "n4")  # at once: vis-network's report of the second half of a double-click
    assert _stored(tmp_path).value == {"critical_nodes": ["Critic"], "edges": {}}
    assert at.session_state[_key("clicks")] == 2  # its ids renamed all the same: the next click counts


def test_reviewed_clean_is_not_the_same_as_not_annotated(demo_project, tmp_path):
    at = open_page(make_app(demo_project), PAGE)
    assert _stored(tmp_path) is None
    click_clean(at)
    ann = _stored(tmp_path)
    assert ann.status == STATUS_REVIEWED_CLEAN and ann.value == graph.empty_value()
    again = open_page(make_app(demo_project), PAGE)
    assert any("Reviewed, nothing to flag" in c.value for c in again.caption)
    assert edge_shown(again, "Planner", "Critic") == "normal" and critical(again) == []
    set_critical(again, "Critic", True)
    ann = _stored(tmp_path)
    assert ann.status == STATUS_ANNOTATED and ann.value["critical_nodes"] == ["Critic"]


def test_agent_names_are_escaped_in_labels(tmp_path):
    import json

    from tests.conftest import write_project
    name = "**bold** [link](http://x) <b>"
    data = tmp_path / "runs.jsonl"
    data.write_text(json.dumps({"id": "r1", "text": "t", "steps": [
        {"agent": name, "content": "a"}, {"agent": "b->c", "content": "b"}, {"agent": name, "content": "c"}]}) + "\n")
    cfg = write_project(tmp_path, data_files=[str(data)])
    at = open_page(make_app(cfg), PAGE)
    # the cards write names with textContent: as they are, not escaped for Markdown
    assert [o["label"] for o in critical_card(at)["options"]] == [name, "b->c"]
    assert [c["title"] for c in instant_cards(at).values() if c["card"] not in (CRITICAL, clean_card(at)["card"])] == [
        f"{name} → b->c (1 handoff)", f"b->c → {name} (1 handoff)"]
    set_edge(at, "b->c", name, "critical")
    assert "b\\-\\>c → \\*\\*bold\\*\\*" in _summary(at)[1]  # the summary is Markdown: escaped
    ann = AnnotationStore(tmp_path / "annotations").load("r1", "alice", "graph")
    assert ann.value == {"critical_nodes": [], "edges": {"b-\\>c->**bold** [link](http://x) <b\\>": "critical"}}
    assert graph.parse_edge_key(next(iter(ann.value["edges"]))) == ("b->c", name)


def test_what_reaches_the_component_carries_no_title_and_no_name_outside_labels(tmp_path):
    import json

    from tests.conftest import write_project
    inj = '<img src=x onerror="alert(1)">'
    data = tmp_path / "runs.jsonl"
    data.write_text(json.dumps({"id": "r1", "text": "t", "steps": [
        {"agent": "A", "content": "a"}, {"agent": inj, "content": "b"}, {"agent": "A", "content": "c"}]}) + "\n")
    at = open_page(make_app(write_project(tmp_path, data_files=[str(data)])), PAGE)
    (el,) = at.get("component_instance")
    args = json.loads(el.proto.json_args)
    drawn = json.loads(args["data"])
    for node in drawn["nodes"]:
        assert "title" not in node and node["id"].startswith("g2-")
        assert inj not in json.dumps({k: v for k, v in node.items() if k != "label"})
    assert any(node["label"].startswith(inj[:20]) for node in drawn["nodes"])  # on the canvas, as text
    assert all("width" in e and "value" not in e for e in drawn["edges"])
    assert inj not in args["config"]


def _places(at, name: str | None = "baton_instant_choice") -> dict[str, tuple]:
    """Each instant card's (or, with no `name`, each component's) place in the page's element
    tree (its path of indices), by its key."""
    out = {}

    def walk(node, path):
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for i, child in children.items():
                walk(child, path + (i,))
        elif getattr(node, "type", None) == "bidi_component" and name in (None, node.proto.component_name):
            out[node.proto.id] = path
    walk(at._tree, ())
    return out


def test_the_cards_keep_their_places_when_the_suggestion_goes(tmp_path):
    """A card moved in the page is mounted anew in the browser, and a click on it in that moment
    was lost (seen under load): the suggested critical path, met by the annotator's own marks,
    leaves the page without moving the cards below it."""
    from tests.browser.test_ux27 import TRAIL
    from tests.conftest import ROOT, write_project
    from tests.summary_data import Saver
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")])
    at = open_page(make_app(cfg, item=TRAIL), "agent_interaction_graph")
    suggested = [i.value for i in at.info if "Suggested critical path" in i.value]
    assert suggested, [i.value for i in at.info]
    before = _places(at)
    assert len(before) >= 2  # the agents' card and a handoff pair's
    Saver(cfg)(TRAIL, "alice", "graph", {"critical_nodes": ["manager"], "edges": {}})  # (the suggested path)
    at.run()
    assert not [i.value for i in at.info if "Suggested critical path" in i.value]  # (met: gone)
    assert _places(at) == before


def test_the_attribution_cards_keep_their_places_when_the_suggestion_goes(tmp_path):
    """The same on failure attribution: the suggested decisive step, chosen, leaves the page
    without moving the agents' card and the reason's box below it."""
    import re

    from tests.browser.test_ux27 import TRAIL
    from tests.conftest import ROOT, write_project
    from tests.summary_data import Saver
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")])
    save = Saver(cfg)
    save(TRAIL, "alice", "outcome", {"failure": "true"})
    at = open_page(make_app(cfg, item=TRAIL), "failure_attribution")
    offer = [i.value for i in at.info if "Suggested decisive step" in i.value]
    assert offer, [i.value for i in at.info]
    step, agent = re.search(r"step (\d+) \\\((.+?)\\\)", offer[0]).groups()  # (as md() escapes it)
    before = _places(at, None)
    assert len(before) >= 3  # (the keys, the agents' card, the reason's box)
    save(TRAIL, "alice", "attribution", {"responsible_agent": agent.replace("\\", ""), "decisive_step": int(step),
                                         "reason": ""})
    at.run()
    assert not [i.value for i in at.info if "Suggested decisive step" in i.value]  # (met: gone)
    assert _places(at, None) == before
