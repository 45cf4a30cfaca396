"""The agent interaction graph page in AppTest: controls, injected graph clicks, reopening."""
from __future__ import annotations

from app.types import agent_interaction_graph as graph
from app.ui import graph_view as view
from app.store.storage import STATUS_ANNOTATED, STATUS_REVIEWED_CLEAN
from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from tests.conftest import make_app, open_page

ITEM = "trip-planner-001"
PAGE = "agent_interaction_graph"


def _key(*parts):
    return widget_key("graph", "graph", ITEM, *parts)


def _stored(tmp_path, item=ITEM):
    return AnnotationStore(tmp_path / "annotations").load(item, "alice", "graph")


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


def test_controls_save_the_documented_value_and_reopen(demo_project, tmp_path):
    at = open_page(make_app(demo_project), PAGE)
    assert _summary(at) == ["**Critical path:** none marked", "**Flagged handoffs:** none flagged"]
    at.toggle(key=_key("node", "Critic")).set_value(True).run()
    at.toggle(key=_key("node", "Planner")).set_value(True).run()
    at.selectbox(key=_key("edge", "Planner->Critic")).set_value("problematic").run()
    at.selectbox(key=_key("edge", "Critic->Planner")).set_value("critical").run()
    expected = {"critical_nodes": ["Planner", "Critic"],
                "edges": {"Planner->Critic": "problematic", "Critic->Planner": "critical"}}
    ann = _stored(tmp_path)
    assert ann.value == expected and ann.status == STATUS_ANNOTATED
    assert _summary(at) == ["**Critical path:** Planner, Critic",
                            "**Flagged handoffs:** Planner → Critic: **⚠ problematic**; "
                            "Critic → Planner: **★ critical**"]
    assert any(c.value.startswith("Saved ") for c in at.caption)  # the graph's part says when it saved
    # the graph's part re-runs alone, so "nothing to flag" checks what is stored when clicked
    at.button(key=_key("clean")).click().run()
    assert _stored(tmp_path).value == expected and _stored(tmp_path).status == STATUS_ANNOTATED
    assert "Nothing changed" in [t.value for t in at.toast][-1]

    again = open_page(make_app(demo_project), PAGE)
    assert again.toggle(key=_key("node", "Critic")).value is True
    assert again.toggle(key=_key("node", "FoodAgent")).value is False
    assert again.selectbox(key=_key("edge", "Planner->Critic")).value == "problematic"
    assert again.selectbox(key=_key("edge", "Critic->Planner")).value == "critical"
    assert again.selectbox(key=_key("edge", "Planner->FlightAgent")).value == "normal"
    assert _summary(again) == _summary(at)

    # back to nothing marked: the row goes, "not annotated" again
    again.toggle(key=_key("node", "Critic")).set_value(False).run()
    again.toggle(key=_key("node", "Planner")).set_value(False).run()
    again.selectbox(key=_key("edge", "Planner->Critic")).set_value("normal").run()
    again.selectbox(key=_key("edge", "Critic->Planner")).set_value("normal").run()
    assert _stored(tmp_path) is None


def test_graph_clicks_toggle_nodes_and_cycle_edges(demo_project, tmp_path, monkeypatch):
    monkeypatch.setattr(view, "DOUBLE_CLICK", 0.0)  # each click a click of its own, however soon
    at = open_page(make_app(demo_project), PAGE)
    node = "n4"  # Critic, the fifth agent (the demo's graph scheme is annotation_schemes[2])
    _click(at, node)
    assert _stored(tmp_path).value == {"critical_nodes": ["Critic"], "edges": {}}
    assert at.toggle(key=_key("node", "Critic")).value is True
    at.run()  # the component keeps returning its last click: not applied twice
    assert _stored(tmp_path).value["critical_nodes"] == ["Critic"]
    _click(at, node)  # the same node again (drawn with a new id)
    assert _stored(tmp_path) is None
    assert at.toggle(key=_key("node", "Critic")).value is False

    handle = "e6"  # the seventh pair in first-occurrence order: Planner → Critic
    states = []
    for _ in range(3):
        _click(at, handle)
        ann = _stored(tmp_path)
        states.append(ann.value["edges"].get("Planner->Critic") if ann else "normal")
        assert at.selectbox(key=_key("edge", "Planner->Critic")).value == states[-1]
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
    at.button(key=_key("clean")).click().run()
    ann = _stored(tmp_path)
    assert ann.status == STATUS_REVIEWED_CLEAN and ann.value == graph.empty_value()
    again = open_page(make_app(demo_project), PAGE)
    assert any("Reviewed, nothing to flag" in c.value for c in again.caption)
    again.toggle(key=_key("node", "Critic")).set_value(True).run()
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
    labels = [t.label for t in at.main.toggle]
    assert all("\\*\\*bold\\*\\*" in lab or "b\\-\\>c" in lab for lab in labels)
    key = widget_key("graph", "graph", "r1", "edge", graph.edge_key("b->c", name))
    at.selectbox(key=key).set_value("critical").run()
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
