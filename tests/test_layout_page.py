"""The trace laid out by its orchestration pattern, on the annotation pages (issue 29): the layout
follows the suggestion, then the annotator's answer; the Layout control switches at any time;
long layouts are paged; trace text reaches the browser as data for textContent."""
from __future__ import annotations

import json

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from tests.conftest import components, make_app, open_page, step_cards, write_project

K_LAYOUT = widget_key("trace", "place", "layout")
K_CHOICE = widget_key("radio", "orchestration")
TRAIL = "512475a321c616e45337da3575f6a185"


def drawing(at) -> dict | None:
    found = components(at, "baton_layout")
    return json.loads(found[0].proto.json) if found else None


def test_the_layout_follows_the_suggestion_then_the_answer(demo_project):
    at = open_page(make_app(demo_project, item="trip-planner-001"), "radio")
    # suggested hub_and_spoke: drawn as a tree (Planner with its four spokes)
    assert at.segmented_control(key=K_LAYOUT).value == "tree"
    tree = drawing(at)
    assert tree["kind"] == "tree" and tree["rows"][0]["name"] == "Planner" and tree["rows"][0]["d"] == 0
    assert [r["name"] for r in tree["rows"] if r["kind"] == "agent"] == [
        "Planner", "FlightAgent", "HotelAgent", "FoodAgent", "Critic"]
    assert not step_cards(at)
    assert any("Suggested: Planner hands to 4 workers" in c.value for c in at.caption)
    # the radio pre-selects the suggestion, marked, and nothing is saved
    assert at.radio(key=K_CHOICE).value == "hub_and_spoke"
    assert AnnotationStore(demo_project.parent / "annotations").load("trip-planner-001", "alice", "orchestration") is None
    # the annotator answers group_chat: the layout follows (a board)
    at.radio(key=K_CHOICE).set_value("group_chat").run()
    assert not at.exception
    assert at.segmented_control(key=K_LAYOUT).value == "board"
    board = drawing(at)
    assert board["kind"] == "board" and board["spoke"][0] == {"name": "Planner", "color": board["spoke"][0]["color"], "n": 6}
    assert [m["step"] for m in board["messages"]] == list(range(14))
    assert any("Your answer: group" in c.value for c in at.caption)


def test_the_control_switches_layout_at_any_time(demo_project):
    at = open_page(make_app(demo_project, item="code-team-002"), "radio")
    assert at.segmented_control(key=K_LAYOUT).value == "tree"  # hierarchical_manager, suggested
    at.segmented_control(key=K_LAYOUT).set_value("lanes").run()
    lanes = drawing(at)
    assert lanes["kind"] == "lanes" and [a["name"] for a in lanes["agents"]] == ["Manager", "Coder", "Tester", "Reviewer"]
    assert [(r["step"], r["lane"], r["from"]) for r in lanes["rows"][:3]] == [(0, 0, None), (1, 1, 0), (2, 1, None)]
    at.segmented_control(key=K_LAYOUT).set_value("steps").run()
    assert drawing(at) is None and len(step_cards(at)) == 10
    at.segmented_control(key=K_LAYOUT).set_value("board").run()
    assert drawing(at)["kind"] == "board"
    # the switch is remembered for this item; another item follows its own pattern
    from app.ui.state import widget_key as wk
    at.sidebar.button(key=wk("nav", "next")).click().run()
    assert at.segmented_control(key=K_LAYOUT).value == "tree"  # research-003: hierarchical_manager
    at.sidebar.button(key=wk("nav", "prev")).click().run()
    assert at.segmented_control(key=K_LAYOUT).value == "board"


def test_the_lens_links_the_schemes_to_look_at_first(tmp_path):
    path = write_project(tmp_path, orchestration_lens={"hub_and_spoke": ["contention", "graph"]})
    at = open_page(make_app(path, item="trip-planner-001"), "radio")
    links = [(p.proto.label, p.proto.page) for p in at.get("page_link")]
    # before the menu's links: the lens's, to the pages holding those schemes, in the lens's order
    assert links[:2] == [("contention", "tool_contention"), ("graph", "agent_interaction_graph")]
    assert any("Look first at (hub" in c.value for c in at.caption)


def test_the_span_tree_on_trail(tmp_path):
    from tests.conftest import ROOT
    path = write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")])
    at = open_page(make_app(path, item=TRAIL), "failure_attribution")
    assert at.segmented_control(key=K_LAYOUT).value == "tree"
    tree = drawing(at)
    kinds = [r["kind"] for r in tree["rows"]]
    assert kinds.count("AGENT") == 2 and "LLM" in kinds and "TOOL" in kinds
    nested = [r for r in tree["rows"] if r["label"] == "ToolCallingAgent.run"][0]
    assert nested["name"] == "search_agent" and nested["kind"] == "AGENT" and nested["d"] > 2
    llm = [r for r in tree["rows"] if r["kind"] == "LLM"]
    assert all(r["dur"] for r in llm) and any(r["conv"] for r in llm)


def test_long_runs_are_paged_and_trace_text_is_data(tmp_path):
    steps = [{"agent": ["Lead", "Dev", "QA"][i % 3], "content": f"<img src=x onerror=alert({i})> **bold** {i}"}
             for i in range(2000)]
    data = tmp_path / "long.jsonl"
    data.write_text(json.dumps({"id": "long", "text": "t", "steps": steps}) + "\n")
    path = write_project(tmp_path, data_files=[str(data)])
    at = open_page(make_app(path, item="long"), "radio")
    at.segmented_control(key=K_LAYOUT).set_value("lanes").run()
    lanes = drawing(at)
    assert len(lanes["rows"]) == 25 and lanes["rows"][0]["text"].startswith("<img src=x")  # as text, for textContent
    at.button(key=widget_key("layout", "lanes", "next")).click().run()
    assert drawing(at)["rows"][0]["step"] == 25
    at.segmented_control(key=K_LAYOUT).set_value("board").run()
    assert len(drawing(at)["messages"]) == 25
    at.segmented_control(key=K_LAYOUT).set_value("tree").run()
    assert len(drawing(at)["rows"]) == 40


def test_a_project_without_the_orchestration_question_keeps_the_step_list(tmp_path):
    path = write_project(tmp_path, schemes=[{"annotation_type": "failure_attribution", "name": "a"}])
    at = open_page(make_app(path, item="trip-planner-001"), "failure_attribution")
    assert at.segmented_control(key=K_LAYOUT).value == "steps" and drawing(at) is None and step_cards(at)
    assert any("Pattern suggested by the trace: Planner hands to 4 workers" in c.value for c in at.caption)
    at.segmented_control(key=K_LAYOUT).set_value("tree").run()
    assert drawing(at)["kind"] == "tree"


def test_a_surface_showing_a_step_lays_the_trace_out_as_steps(demo_project):
    """The handoff review's "show step" turns the trace view to that step's card."""
    at = open_page(make_app(demo_project, item="trip-planner-001"), "handoff_review")
    assert at.segmented_control(key=K_LAYOUT).value == "tree"
    show = next(b for b in at.button if b.label.startswith("Show"))
    show.click().run()
    assert at.segmented_control(key=K_LAYOUT).value == "steps" and drawing(at) is None and step_cards(at)
