"""The instant text cards (app/ui/instant_text.py): which texts from the browser are saved, in which
order, on which object, what a failed save says; the text surface saving through AppTest; and a
scheme or item whose name holds "__" (Streamlit joins a component's id and events with it)."""
from __future__ import annotations

import errno

from app.store.storage import AnnotationStore
from app.ui.instant import NOT_SAVED, Ack
from app.ui.instant_text import apply_text, checked_text, handle, kept_words
from app.ui.state import element_key, widget_key
from tests.conftest import (click_card, components, instant_card, json_of, make_app, open_page, send_trigger,
                            text_card, type_card, write_project)


def test_checked_text_takes_a_string_only():
    assert checked_text({"value": "<img src=x onerror=alert(1)>"}) == "<img src=x onerror=alert(1)>"
    assert checked_text({"value": ""}) == ""
    assert checked_text({"value": ["a"]}) is None
    assert checked_text({"value": 3}) is None
    assert checked_text({"seq": 1}) is None
    assert checked_text(None) is None
    assert checked_text("text") is None


def test_a_burst_of_edits_lands_as_its_last_text_whatever_arrives_late():
    saved: list[str] = []
    ack = Ack()
    events = [{"mount": "m", "seq": k, "value": "word " * k, "holds": "item-1"} for k in range(1, 21)]
    # triggers overtaken by a rerun arrive late or twice: older ones never overwrite newer
    arrival = events[:5] + [events[2], events[9], events[7]] + events[10:] + [events[19], events[4]]
    for ev in arrival:
        ack = apply_text(ev, ack, saved.append, holds="item-1")
    assert saved[-1] == "word " * 20 and ack.seq == 20 and ack.value == ("word " * 20,)
    assert len(saved) == len(set(saved)) and saved == sorted(saved, key=len)
    # a refreshed page (a new mount) starts its own numbers
    ack = apply_text({"mount": "m2", "seq": 1, "value": "again", "holds": "item-1"}, ack, saved.append, "item-1")
    assert saved[-1] == "again" and ack.mount == "m2"


def test_a_late_text_for_the_previous_item_is_not_saved_on_the_next():
    saved: list[str] = []
    ack = apply_text({"mount": "m", "seq": 3, "value": "first item", "holds": "item-1"}, Ack(), saved.append,
                     holds="item-1")
    # the card's place holds item-2 now; item-1's late (or resent) text arrives
    late = {"mount": "m", "seq": 4, "value": "typed on item 1", "holds": "item-1"}
    assert apply_text(late, ack, saved.append, holds="item-2") is ack and saved == ["first item"]
    # item-2's own first text is saved, whatever the numbers item-1 reached
    got = apply_text({"mount": "m", "seq": 5, "value": "second item", "holds": "item-2"}, ack, saved.append,
                     holds="item-2")
    assert saved == ["first item", "second item"] and got.holds == "item-2"
    assert apply_text({"mount": "m", "seq": 1, "value": "x"}, got, saved.append, holds="item-2") is got


def test_a_late_text_is_saved_on_the_object_it_was_typed_on_if_the_place_held_it_lately():
    saved: dict[str, list[str]] = {"item-1": [], "item-2": []}
    saves = {h: saved[h].append for h in saved}  # the place held item-1, then item-2
    acks: dict[str, Ack] = {}
    handle({"mount": "m", "seq": 1, "value": "on item 2", "holds": "item-2"}, acks, saves)
    handle({"mount": "m", "seq": 4, "value": "late, typed on item 1", "holds": "item-1"}, acks, saves)
    handle({"mount": "m", "seq": 3, "value": "older, item 1", "holds": "item-1"}, acks, saves)  # overtaken
    assert saved == {"item-1": ["late, typed on item 1"], "item-2": ["on item 2"]}
    assert acks["item-1"].seq == 4 and acks["item-2"].seq == 1
    handle({"mount": "m", "seq": 9, "value": "x", "holds": "item-0"}, acks, saves)  # not held lately
    handle({"mount": "m", "seq": 9, "value": ["x"], "holds": "item-2"}, acks, saves)  # not a text
    handle(None, acks, saves)
    assert saved == {"item-1": ["late, typed on item 1"], "item-2": ["on item 2"]} and "item-0" not in acks


def test_a_failed_save_says_why_in_words_without_paths_and_that_the_text_is_kept():
    def save(text):
        raise PermissionError(errno.EACCES, "Permission denied", "/srv/secret/annotations/x.parquet")
    ack = apply_text({"mount": "m", "seq": 1, "value": "my words"}, Ack(), save)
    assert ack.seq == 1 and ack.error.startswith(NOT_SAVED) and "not writable" in ack.error
    assert "/srv" not in ack.error and ack.error.endswith(kept_words(True))
    one_line = apply_text({"mount": "m", "seq": 2, "value": "more"}, ack,
                          lambda t: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space")), multiline=False)
    assert "disk is full" in one_line.error and "press Enter" in one_line.error


def test_element_keys_never_hold_two_underscores_and_never_meet():
    keys = ["a__b", "a_-_-b", "a_b", "a-b", "__", "_-", "w:x\u241fy__z"]
    made = [element_key(k) for k in keys]
    assert not any("__" in m for m in made) and len(set(made)) == len(made)


def stored(project, item, scheme, who="alice"):
    ann = AnnotationStore(project.parent / "annotations").load(item, who, scheme)
    return None if ann is None else ann.value


def test_the_text_surface_saves_shows_and_follows_the_item(demo_project):
    item = "trip-planner-001"
    at = open_page(make_app(demo_project, item=item), "text")
    key = widget_key("text", "notes")
    card = text_card(at, key)
    assert card["stored"] == "" and card["multiline"] is True and card["error"] is None
    type_card(at, key, "the planner <b>forgot</b> the **budget**")
    assert stored(demo_project, item, "notes") == {"text_box": "the planner <b>forgot</b> the **budget**"}
    card = text_card(at, key)
    assert card["stored"] == "the planner <b>forgot</b> the **budget**"  # as typed: the page writes it as text
    assert card["saved_text"].startswith("Saved · ") and card["ack"]["seq"] == 1
    type_card(at, key, "a later edit")
    assert stored(demo_project, item, "notes") == {"text_box": "a later edit"}
    # a late trigger (an older number of the same mount) saves nothing and keeps the ack
    element = next(e for e in components(at, "baton_instant_text") if json_of(e)["card"] == key)
    send_trigger(at, element, "change", {"mount": "apptest", "seq": 1, "value": "stale", "holds": card["holds"]})
    assert stored(demo_project, item, "notes") == {"text_box": "a later edit"}
    assert text_card(at, key)["ack"]["seq"] == 2
    # the next item: the same card (keyed by the scheme) holds that item's text, nothing of this one
    at.sidebar.button(key=widget_key("nav", "next")).click().run()
    nxt = text_card(at, key)
    assert nxt["stored"] == "" and nxt["holds"] != card["holds"]
    # a text typed on the first item that arrives now is saved there, not on this item
    element = next(e for e in components(at, "baton_instant_text") if json_of(e)["card"] == key)
    send_trigger(at, element, "change", {"mount": "apptest", "seq": 3, "value": "late", "holds": card["holds"]})
    assert stored(demo_project, item, "notes") == {"text_box": "late"}
    second = nxt["holds"].split("\u241f")[0]
    assert stored(demo_project, second, "notes") is None and text_card(at, key)["stored"] == ""
    # a refresh shows what is stored
    again = open_page(make_app(demo_project, item=item), "text")
    assert text_card(again, key)["stored"] == "late"


def test_a_single_line_text_scheme_is_a_one_line_card(tmp_path):
    cfg = write_project(tmp_path, schemes=[{"annotation_type": "text", "name": "title", "multiline": False}])
    at = open_page(make_app(cfg, item="research-003"), "text")
    card = text_card(at, widget_key("text", "title"))
    assert card["multiline"] is False
    type_card(at, widget_key("text", "title"), "one line")
    assert stored(cfg, "research-003", "title") == {"text_box": "one line"}


def test_schemes_and_items_named_with_two_underscores(tmp_path):
    """Streamlit refuses "__" in a v2 component's key: names from the project reach those keys."""
    cfg = write_project(tmp_path, schemes=[
        {"annotation_type": "radio", "name": "out__come", "labels": ["ok", "bad"], "has_free_response": True},
        {"annotation_type": "text", "name": "my__notes"}])
    at = open_page(make_app(cfg, item="research-003"), "radio")
    click_card(at, "out__come", ["bad"])
    type_card(at, "radio-free", "why__not")
    assert stored(cfg, "research-003", "out__come") == {"bad": "true", "free_response": "why__not"}
    assert instant_card(at, "out__come")["stored"] == ["bad"]
    at = open_page(make_app(cfg, item="research-003"), "text")
    type_card(at, "my__notes", "a__b")
    assert stored(cfg, "research-003", "my__notes") == {"text_box": "a__b"}
