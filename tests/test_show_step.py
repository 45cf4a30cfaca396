"""A step a control refers to is brought into view and marked in the trace (issue 27 point 3):
"Show step N in the trace" and the decisive step of failure attribution hand the trace's cards
a focus (the step, how many times asked, why in words); the browser marks that card and scrolls
it into view (tests/browser/test_ux27.py). Trace text in the "why" stays text."""
from __future__ import annotations

import json

from app.store.storage import AnnotationStore
from tests.conftest import click_card, components, make_app, open_page, type_card, write_project
from app.ui.state import widget_key


def focus(at) -> dict | None:
    """The focus handed to the trace's cards (app/ui/step_card_view.draw), or None."""
    for e in components(at, "baton_step_cards"):
        data = json.loads(e.proto.json)
        if "focus" in data and any("step" in c for c in data["cards"]):
            return data["focus"]
    return None


def test_show_step_turns_marks_and_asks_to_scroll(tmp_path):
    steps = [{"agent": "A" if i < 45 else "B", "content": f"s{i}"} for i in range(50)]
    data = tmp_path / "run.jsonl"
    data.write_text(json.dumps({"id": "r", "text": "t", "steps": steps}) + "\n")
    at = open_page(make_app(write_project(tmp_path, data_files=[str(data)]), item="r"), "handoff_review")
    assert focus(at) is None
    show = widget_key("handoff", "handoffs", "place", "slot", 0, "show")
    at.button(key=show).click().run()
    f = focus(at)
    assert f["step"] == 45 and f["asked"] == 1 and "handoff 0" in f["why"]
    at.button(key=show).click().run()  # asked again: scrolled into view again (a new request)
    assert focus(at)["asked"] == 2


def test_the_decisive_step_is_marked_in_the_trace(demo_project):
    item = "whowhen-hand-crafted-33"
    at = open_page(make_app(demo_project, item=item), "radio")
    click_card(at, "outcome", ["failure"])
    at = open_page(make_app(demo_project, item=item), "failure_attribution")
    step = next(s for s in at.selectbox if s.label == "Decisive step")
    step.set_value(8).run()
    f = focus(at)
    assert f["step"] == 8 and "decisive step" in f["why"]
    type_card(at, "Reason", "Clicked the wrong link")  # the step did not change: no new scroll
    assert focus(at)["asked"] == f["asked"]
    assert AnnotationStore(demo_project.parent / "annotations").load(item, "alice", "attribution").value[
        "decisive_step"] == 8
