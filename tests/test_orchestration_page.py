"""The demo's orchestration-pattern radio (pages/radio.py): a label and free text, both stored."""
from __future__ import annotations

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from app.ui.text import md
from tests.conftest import make_app, open_page, text_card, type_card

ITEM = "code-team-002"
LABELS = ["single_agent", "sequential_pipeline", "hierarchical_manager", "group_chat", "blackboard",
          "debate", "hub_and_spoke"]


def stored(tmp_path):
    return AnnotationStore(tmp_path / "annotations").load(ITEM, "alice", "orchestration")


def test_label_and_free_text_are_stored_together(demo_project):
    tmp = demo_project.parent
    k_choice = widget_key("radio", "orchestration")  # keyed by scheme, not item (see the test below)
    k_free = widget_key("radio-free", "orchestration")
    at = open_page(make_app(demo_project, item=ITEM), "radio")
    radio = at.radio(key=k_choice)
    # the options as shown: Markdown-escaped (config text is plain text, see app/ui/text.md)
    assert radio.options == [md(x) for x in LABELS]
    # pre-selected: the pattern suggested from the trace, not saved until confirmed (issue 29)
    assert radio.value == "hierarchical_manager" and stored(tmp) is None
    at.button(key=widget_key("radio-confirm", "orchestration")).click().run()
    assert stored(tmp).value == {"hierarchical_manager": "true"}
    type_card(at, k_free, "manager delegates, reviewer gates the merge")  # an instant text card
    assert not at.exception and text_card(at, k_free)["error"] is None
    assert stored(tmp).value == {"hierarchical_manager": "true",
                                 "free_response": "manager delegates, reviewer gates the merge"}
    assert stored(tmp).annotation_type == "radio"

    again = open_page(make_app(demo_project, item=ITEM), "radio")
    assert again.radio(key=k_choice).value == "hierarchical_manager"
    assert text_card(again, k_free)["stored"] == "manager delegates, reviewer gates the merge"
    again.radio(key=k_choice).set_value("hub_and_spoke").run()
    assert stored(tmp).value == {"hub_and_spoke": "true",
                                 "free_response": "manager delegates, reviewer gates the merge"}
    # the other radio of the page (outcome) is a separate row
    assert AnnotationStore(tmp / "annotations").load(ITEM, "alice", "outcome") is None


def test_the_same_controls_take_each_items_stored_answer(demo_project):
    """The controls are kept across items (keys name the scheme, not the item): moving to
    another item and back shows each item's own stored answer, never the previous item's."""
    from app.ui.state import widget_key as wk
    k_choice, k_free = wk("radio", "orchestration"), wk("radio-free", "orchestration")
    at = open_page(make_app(demo_project, item=ITEM), "radio")
    at.radio(key=k_choice).set_value("debate").run()
    type_card(at, k_free, "they argue")
    at.sidebar.button(key=wk("nav", "next")).click().run()
    # the next item's own suggestion pre-selected (issue 29), nothing of the previous item's
    assert at.radio(key=k_choice).value == "hierarchical_manager" and text_card(at, k_free)["stored"] == ""
    at.radio(key=k_choice).set_value("group_chat").run()
    at.sidebar.button(key=wk("nav", "prev")).click().run()
    assert at.radio(key=k_choice).value == "debate" and text_card(at, k_free)["stored"] == "they argue"
    at.sidebar.button(key=wk("nav", "next")).click().run()
    assert at.radio(key=k_choice).value == "group_chat"
    assert stored(demo_project.parent).value == {"debate": "true", "free_response": "they argue"}
