"""The demo's orchestration-pattern radio (pages/radio.py): a label and free text, both stored."""
from __future__ import annotations

from app.storage import AnnotationStore
from app.ui.state import widget_key
from tests.conftest import make_app, open_page

ITEM = "code-team-002"
LABELS = ["single_agent", "sequential_pipeline", "hierarchical_manager", "group_chat", "blackboard",
          "debate", "hub_and_spoke"]


def stored(tmp_path):
    return AnnotationStore(tmp_path / "annotations").load(ITEM, "alice", "orchestration")


def test_label_and_free_text_are_stored_together(demo_project):
    tmp = demo_project.parent
    k_choice = widget_key("radio", "orchestration", ITEM)
    k_free = widget_key("radio-free", "orchestration", ITEM)
    at = open_page(make_app(demo_project, item=ITEM), "radio")
    radio = at.radio(key=k_choice)
    assert radio.options == LABELS and radio.value is None
    radio.set_value("hierarchical_manager").run()
    assert stored(tmp).value == {"hierarchical_manager": "true"}
    at.text_input(key=k_free).input("manager delegates, reviewer gates the merge").run()
    assert not at.exception
    assert stored(tmp).value == {"hierarchical_manager": "true",
                                 "free_response": "manager delegates, reviewer gates the merge"}
    assert stored(tmp).annotation_type == "radio"

    again = open_page(make_app(demo_project, item=ITEM), "radio")
    assert again.radio(key=k_choice).value == "hierarchical_manager"
    assert again.text_input(key=k_free).value == "manager delegates, reviewer gates the merge"
    again.radio(key=k_choice).set_value("hub_and_spoke").run()
    assert stored(tmp).value == {"hub_and_spoke": "true",
                                 "free_response": "manager delegates, reviewer gates the merge"}
    # the other radio of the page (outcome) is a separate row
    assert AnnotationStore(tmp / "annotations").load(ITEM, "alice", "outcome") is None
