"""Failure attribution by keys (app/ui/keyboard.py), in AppTest: the key `s` on a step card hands
its step to the surface's step target, saved through the same on_change and commit as a choice in
the dropdown; a pick for another item or a step the run does not have is not saved."""
from app.store.storage import AnnotationStore
from tests.conftest import agent_card, click_card, components, make_app, open_page, send_trigger

ITEM = "whowhen-hand-crafted-33"  # 9 steps: 0-8


def _stored(project):
    ann = AnnotationStore(project.parent / "annotations").load(ITEM, "alice", "attribution")
    return ann.value if ann else None


def _attribution_page(project):
    at = open_page(make_app(project, item=ITEM), "radio")
    click_card(at, "outcome", ["failure"])  # (the outcome is an instant card)
    return open_page(make_app(project, item=ITEM), "failure_attribution")


def test_the_key_s_saves_the_current_step_card_as_the_decisive_step(demo_project):
    at = _attribution_page(demo_project)
    agents = agent_card(at)  # an instant radio card: one key each
    assert [o["value"] for o in agents["options"]] == ["human", "Orchestrator", "WebSurfer"]
    click_card(at, agents["card"], ["Orchestrator"])
    picked = {"responsible_agent": "Orchestrator", "decisive_step": None, "reason": ""}
    assert _stored(demo_project) == picked
    (target,) = components(at, "baton_step_target")
    send_trigger(at, target, "step", {"item": "another-item", "step": 3})  # a late key: not this item
    assert _stored(demo_project) == picked
    (target,) = components(at, "baton_step_target")
    send_trigger(at, target, "step", {"item": ITEM, "step": 99})  # no such step: nothing saved
    assert _stored(demo_project) == picked
    (target,) = components(at, "baton_step_target")
    send_trigger(at, target, "step", {"item": ITEM, "step": 7})
    assert _stored(demo_project) == {"responsible_agent": "Orchestrator", "decisive_step": 7, "reason": ""}
    assert next(s for s in at.selectbox if s.label == "Decisive step").value == 7  # the dropdown shows it
    assert agent_card(at)["stored"] == ["Orchestrator"]  # and the card the stored agent
    click_card(at, agents["card"], [])  # the chosen agent clicked again: taken back, the step kept
    assert _stored(demo_project) == {"responsible_agent": None, "decisive_step": 7, "reason": ""}
