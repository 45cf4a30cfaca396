"""AppTest tests of the app shell and the core pages: sign in, pick an item, annotate,
value on disk, a new session (a refresh) shows it again."""
import re

import pandas as pd

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from tests.conftest import (clean_card, click_clean, agent_card, click_card, instant_card, make_app, open_page, step_cards, text_card,
                            type_card, write_project)


def stored(project, item, scheme, who="alice"):
    return AnnotationStore(project.parent / "annotations").load(item, who, scheme)


def test_sign_in_form_then_progress(demo_project):
    at = make_app(demo_project, annotator=None)
    at.run()
    assert not at.exception
    at.text_input[0].input("  Ada   Lovelace ")
    at.button[0].click().run()
    assert at.query_params["annotator"] == ["Ada Lovelace"] or at.query_params["annotator"] == "Ada Lovelace"
    assert any("0 of 7 items done" in p.text for p in at.get("progress"))


def test_pages_need_an_annotator(demo_project):
    at = make_app(demo_project, annotator=None)
    at.run()
    # only the home page is offered before sign-in
    assert "Sign in" in at.button[0].label or at.text_input


def test_failure_attribution_saved_and_restored(demo_project):
    item = "whowhen-hand-crafted-33"
    at = open_page(make_app(demo_project, item=item), "failure_attribution")
    assert "Asked only when" in at.info[0].value  # outcome not answered yet
    at = open_page(make_app(demo_project, item=item), "radio")
    click_card(at, "outcome", ["failure"])
    assert stored(demo_project, item, "outcome").value == {"failure": "true"}

    at = open_page(make_app(demo_project, item=item), "failure_attribution")
    # the agents an instant radio card (issues 27, 31: one click or one key), the step a dropdown
    agent, step = agent_card(at), at.selectbox(key=[s.key for s in at.selectbox if s.label == "Decisive step"][0])
    assert agent["title"] == "Responsible agent" and not agent["multi"]
    assert [o["value"] for o in agent["options"]] == ["human", "Orchestrator", "WebSurfer"]
    assert all(re.fullmatch(r"#[0-9a-f]{6}", o["colour"]) for o in agent["options"])  # each agent's colour
    click_card(at, agent["card"], ["WebSurfer"])
    at.selectbox(key=step.key).set_value(8).run()
    type_card(at, "Reason", "Clicked the wrong link")
    assert text_card(at, "Reason")["error"] is None
    ann = stored(demo_project, item, "attribution")
    assert ann.value == {"responsible_agent": "WebSurfer", "decisive_step": 8, "reason": "Clicked the wrong link"}
    assert ann.status == "annotated" and ann.trace_hash and ann.updated_at is not None

    # a new session (a browser refresh) shows exactly what was saved
    at2 = open_page(make_app(demo_project, item=item), "failure_attribution")
    assert agent_card(at2)["stored"] == ["WebSurfer"]
    assert next(s for s in at2.selectbox if s.label == "Decisive step").value == 8
    assert text_card(at2, "Reason")["stored"] == "Clicked the wrong link"
    assert any("Saved" in c.value for c in at2.caption)


def test_no_failure_is_not_the_same_as_not_annotated(demo_project):
    item = "code-team-002"
    at = open_page(make_app(demo_project, item=item), "radio")
    click_card(at, "outcome", ["partial"])
    at = open_page(make_app(demo_project, item=item), "failure_attribution")
    assert stored(demo_project, item, "attribution") is None
    click_clean(at)
    ann = stored(demo_project, item, "attribution")
    assert ann.status == "reviewed_clean"
    assert ann.value == {"responsible_agent": None, "decisive_step": None, "reason": ""}
    assert any("Reviewed, nothing to flag" in c.value for c in at.caption)


def test_no_failure_card_follows_the_store_both_ways(demo_project):
    """An instant card (issue 31): recording it clears the agent shown, an agent chosen after it
    unticks it, and a click on it again takes it back (nothing stored)."""
    item = "code-team-002"
    at = open_page(make_app(demo_project, item=item), "radio")
    click_card(at, "outcome", ["failure"])
    at = open_page(make_app(demo_project, item=item), "failure_attribution")
    assert clean_card(at)["title"] == "No failure to attribute" and clean_card(at)["stored"] == []
    click_card(at, agent_card(at)["card"], ["Coder"])
    click_clean(at)  # removes what was given
    assert stored(demo_project, item, "attribution").status == "reviewed_clean"
    assert agent_card(at)["stored"] == [] and clean_card(at)["stored"] == ["No failure to attribute"]
    click_card(at, agent_card(at)["card"], ["Manager"])  # a judgement after it: no longer "no failure"
    ann = stored(demo_project, item, "attribution")
    assert ann.status == "annotated" and ann.value["responsible_agent"] == "Manager"
    assert clean_card(at)["stored"] == []
    click_clean(at)
    click_clean(at, on=False)  # taken back: not annotated
    assert stored(demo_project, item, "attribution") is None
    assert clean_card(at)["stored"] == [] and clean_card(at)["error"] is None


def test_radio_likert_multiselect_text(demo_project):
    item = "trip-planner-001"
    at = open_page(make_app(demo_project, item=item), "likert")
    click_card(at, "confidence", ["4"])
    assert stored(demo_project, item, "confidence").value == {"scale_4": "4"}
    at = open_page(make_app(demo_project, item=item), "multiselect")
    click_card(at, "symptoms", ["loop"])
    click_card(at, "symptoms", ["loop", "ignored_constraint"])
    type_card(at, "multi-free", "budget fixation")
    assert stored(demo_project, item, "symptoms").value == {"loop": "true", "ignored_constraint": "true",
                                                             "free_response": "budget fixation"}
    click_card(at, "symptoms", ["ignored_constraint"])
    assert stored(demo_project, item, "symptoms").value == {"ignored_constraint": "true",
                                                             "free_response": "budget fixation"}
    at = open_page(make_app(demo_project, item=item), "text")
    type_card(at, "notes", "Critic was ignored.")
    assert stored(demo_project, item, "notes").value == {"text_box": "Critic was ignored."}
    assert text_card(at, "notes")["saved_text"].startswith("Saved · ")
    type_card(at, "notes", "")
    assert stored(demo_project, item, "notes") is None  # emptied: no label left behind
    # reopen: every control shows what is stored
    at = open_page(make_app(demo_project, item=item), "likert")
    assert instant_card(at, "confidence")["stored"] == ["4"]
    at = open_page(make_app(demo_project, item=item), "multiselect")
    assert instant_card(at, "symptoms")["stored"] == ["ignored_constraint"]
    assert text_card(at, "multi-free")["stored"] == "budget fixation"


def _picker(at) -> str:
    """The label of the sidebar's item picker (a popover holding the item list)."""
    return next(b.proto.popover.label for b in at.sidebar.children.values()
                if type(b).__name__ == "Block" and b.proto.WhichOneof("type") == "popover")


def test_item_navigation_and_done(demo_project):
    at = open_page(make_app(demo_project), "radio")
    first = at.query_params["item"]
    assert _picker(at).startswith("• Item 1 of 7: ")
    at.sidebar.button(key=widget_key("nav", "next")).click().run()
    assert at.query_params["item"] != first
    second = at.query_params["item"]
    assert _picker(at).startswith("• Item 2 of 7: ")
    at.button(key=[b.key for b in at.button if "Done with this item" in b.label][0]).click().run()
    df = pd.read_parquet(demo_project.parent / "annotations")
    assert (df["scheme"] == "_item").sum() == 1
    assert any("1 / 7 done" in p.text for p in at.sidebar.get("progress"))
    assert _picker(at).startswith("• Item 3 of 7: ")
    # the list inside the picker: marks the done item, and picking one opens it
    picker = at.selectbox(key=widget_key("nav", "item"))
    assert picker.format_func(second).startswith("✓ ")
    picker.set_value(second).run()
    assert at.query_params["item"] == second and _picker(at).startswith("✓ Item 2 of 7: ")


def test_parquet_store_one_row_per_key(demo_project):
    item = "research-003"
    at = open_page(make_app(demo_project, item=item), "radio")
    click_card(at, "outcome", ["success"])
    click_card(at, "outcome", ["failure"])
    df = pd.read_parquet(demo_project.parent / "annotations")
    assert len(df) == 1
    row = df.iloc[0]
    assert (row["item_id"], row["annotator"], row["scheme"], row["annotation_type"]) == \
        (item, "alice", "outcome", "radio")
    assert row["value"] == '{"failure": "true"}' and row["status"] == "annotated"
    assert {"trace_hash", "updated_at", "seconds_spent"} <= set(df.columns)


def test_unknown_agent_warning_and_markdown_in_names_shown_as_text(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "x", "text": "t", "steps": [{"agent": "**bold** [link](http://e.x)", "content": "# H"},'
                    ' {"content": "no agent"}]}\n')
    cfg = write_project(tmp_path, data_files=[str(data)],
                        schemes=[{"annotation_type": "failure_attribution", "name": "a"}])
    at = open_page(make_app(cfg), "failure_attribution")
    assert any("1 step(s) name no agent" in w.value for w in at.warning)
    # the trace's cards carry the name and text as they are; the browser puts them in as text
    # (textContent), never as Markdown or HTML (tests/browser/test_injection.py checks it in the browser)
    card = step_cards(at)[0]
    assert card["title"][1]["agent"] == "**bold** [link](http://e.x)" and card["blocks"] == [{"k": "text", "t": "# H"}]


def test_broken_project_shows_problems_not_a_traceback(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("annotation_task_name: x\ndata_files: [nope.jsonl]\nannotation_schemes: [{annotation_type: radio}]\n")
    at = make_app(cfg)
    at.run()
    assert not at.exception
    assert "could not be loaded" in at.error[0].value
    assert any("data file not found" in t.value for t in at.text)


def test_next_surface_and_shortcuts_listed(demo_project):
    at = open_page(make_app(demo_project), "radio")
    nxt = at.sidebar.button(key=widget_key("nav", "surface-next"))
    assert nxt.proto.shortcut  # reachable from the keyboard
    nxt.click().run()
    assert not at.exception
    assert at.title[0].value == "Who failed, and where"  # the next scheme in the project's order (its page)
    assert any("Alt+N" in m.value for m in at.sidebar.markdown)
