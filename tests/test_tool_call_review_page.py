"""tool_call_review page (AppTest): verdicts and notes through the controls, the Parquet row,
reopening, paging, labels that no longer match the trace."""
from __future__ import annotations

import json

from app.store.storage import Annotation, AnnotationStore
from app.ui.state import widget_key
from app.store.storage import STATUS_REVIEWED_CLEAN as REVIEWED_CLEAN
from app.ui.surfaces.tool_call_review import PAGE_SIZE
from app.traces.step_cards import plain
from tests.conftest import click_clean, call_cards, card_codes, click_card, instant_card, make_app, open_page, write_project

ITEM = "trip-planner-001"


def key(*parts, item=ITEM):
    return widget_key("toolreview", "tool_review", item, *parts)


def place(*parts):
    """The surface's own controls (pager, "nothing to flag") are keyed by place, not by item."""
    return widget_key("toolreview", "tool_review", "place", *parts)


def card(call, field):
    """A call card's control: keyed by its place on the page, not by item and call."""
    return widget_key("toolreview", "tool_review", "slot", call % PAGE_SIZE, field)


def verdict(at, call):
    """The verdict call `call`'s card shows (an instant card: what is stored), or None."""
    shown = instant_card(at, card(call, "verdict"))["stored"]
    return shown[0] if shown else None


def judge(at, call, value):
    """A click on a verdict of call `call`'s card (None: the chosen one again, taken back)."""
    return click_card(at, card(call, "verdict"), [value] if value else [])


def stored(tmp_path, item=ITEM):
    return AnnotationStore(tmp_path / "annotations").load(item, "alice", "tool_review")


def test_cards_show_every_call_with_pretty_arguments_and_results(demo_project):
    at = open_page(make_app(demo_project, item=ITEM), "tool_call_review")
    codes, headers = [], []
    for first in range(0, 5, PAGE_SIZE):  # every page of the item's five calls
        if first:
            at.button(key=place("next")).click().run()
        for i in range(first, min(first + PAGE_SIZE, 5)):
            assert verdict(at, i) is None
            assert [o["label"] for o in instant_card(at, card(i, "verdict"))["options"]] == [
                "correct", "wrong_tool", "wrong_args", "wrong_order"]
        codes += [x for c in call_cards(at) for x in card_codes(c)]
        headers += [plain(c)[0] for c in call_cards(at)]
    assert [h.split(" · ")[0] for h in headers] == [f"Call {i}" for i in range(5)]
    # OpenAI arguments (a JSON string) pretty-printed
    assert '{\n  "to": "LIS",\n  "passengers": 2,\n  "earliest": "09:00"\n}' in codes
    # Potato {name, args} and Anthropic tool_use input
    assert any('"max_price": 450' in c for c in codes) and any('"diet": "any"' in c for c in codes)
    # results: the role=tool message (JSON) and the Anthropic tool_result
    assert any('"flight": "TP1331"' in c for c in codes)
    assert any(c.startswith("Taberna X") for c in codes)
    assert headers[1].startswith("Call 1 · step 2 · ") and "FlightAgent" in headers[1]
    assert headers[1].endswith(" · tool search_flights")


def test_verdict_notes_save_reopen_and_unset(demo_project):
    tmp = demo_project.parent
    at = open_page(make_app(demo_project, item=ITEM), "tool_call_review")
    judge(at, 2, "wrong_args")
    at.text_input(key=card(0, "notes")).input("delegation looks fine").run()
    judge(at, 0, "correct")
    assert not at.exception
    ann = stored(tmp)
    assert ann.status == "annotated"
    assert ann.value == [
        {"index": 0, "step": 1, "tool": "delegate", "verdict": "correct", "notes": "delegation looks fine"},
        {"index": 2, "step": 4, "tool": "book_flight", "verdict": "wrong_args", "notes": ""}]

    again = open_page(make_app(demo_project, item=ITEM), "tool_call_review")
    assert verdict(again, 0) == "correct"
    assert again.text_input(key=card(0, "notes")).value == "delegation looks fine"
    assert verdict(again, 2) == "wrong_args"
    assert verdict(again, 1) is None
    assert any("2 of 5 calls judged" in c.value for c in again.caption)

    judge(again, 2, None)
    assert [e["index"] for e in stored(tmp).value] == [0]
    judge(again, 0, None)
    assert stored(tmp).value == [{"index": 0, "step": 1, "tool": "delegate", "verdict": None,
                                  "notes": "delegation looks fine"}]
    again.text_input(key=card(0, "notes")).input("").run()
    assert stored(tmp) is None


def test_reviewed_clean(demo_project):
    tmp = demo_project.parent
    at = open_page(make_app(demo_project, item=ITEM), "tool_call_review")
    judge(at, 1, "wrong_tool")
    click_clean(at)
    ann = stored(tmp)
    assert ann.status == REVIEWED_CLEAN and ann.value == []
    assert verdict(at, 1) is None
    again = open_page(make_app(demo_project, item=ITEM), "tool_call_review")
    assert any("Reviewed, nothing to flag" in c.value for c in again.caption)


def many_calls(tmp_path, n: int):
    """A project whose item "many" has n steps, one tool call each."""
    data = tmp_path / "runs.jsonl"
    steps = [{"agent": f"A{i % 3}", "content": f"s{i}", "tool_calls": [{"name": f"tool{i}", "args": {"i": i}}]}
             for i in range(n)]
    data.write_text(json.dumps({"id": "many", "text": "t", "steps": steps}) + "\n")
    return write_project(tmp_path, data_files=[str(data)])


def test_paged_calls_and_orphan_labels(tmp_path):
    cfg = many_calls(tmp_path, 25)
    db = AnnotationStore(tmp_path / "annotations")
    db.save(Annotation("many", "alice", "tool_review", "tool_call_review",
                       [{"index": 3, "step": 3, "tool": "other", "verdict": "correct", "notes": ""}]))
    at = open_page(make_app(cfg, item="many"), "tool_call_review")
    assert len(call_cards(at)) == PAGE_SIZE
    # the stale label is listed apart, not shown on call 3 (on its page)
    assert any("call 3 · step 3 · other: correct" in t.value for t in at.text)
    at.number_input(key=place("page_number")).set_value(3 // PAGE_SIZE + 1).run()
    assert instant_card(at, card(3, "verdict"))["title"] == "Verdict on call 3"
    assert verdict(at, 3) is None
    at.number_input(key=place("page_number")).set_value(1).run()
    page = 21 // PAGE_SIZE  # the page holding call 21
    for _ in range(page):
        at.button(key=place("next")).click().run()
    assert [c["call"] for c in call_cards(at)] == list(range(page * PAGE_SIZE, min(25, (page + 1) * PAGE_SIZE)))
    judge(at, 21, "wrong_order")
    assert any(c.value.startswith("Call 21: verdict wrong\\_order · saved") for c in at.caption)
    assert stored(tmp_path, "many").value == [
        {"index": 3, "step": 3, "tool": "other", "verdict": "correct", "notes": ""},
        {"index": 21, "step": 21, "tool": "tool21", "verdict": "wrong_order", "notes": ""}]
    at.button(key=key("orphan", 3, item="many")).click().run()
    assert stored(tmp_path, "many").value == [
        {"index": 21, "step": 21, "tool": "tool21", "verdict": "wrong_order", "notes": ""}]
    at.number_input(key=place("page_number")).set_value(3 // PAGE_SIZE + 1).run()  # call 3's page
    assert instant_card(at, card(3, "verdict"))["title"] == "Verdict on call 3"
    assert verdict(at, 3) is None


def test_item_without_tool_calls(demo_project):
    at = open_page(make_app(demo_project, item="whowhen-hand-crafted-5"), "tool_call_review")
    assert any("No tool calls" in i.value for i in at.info)


def test_a_cards_place_takes_the_verdict_of_the_call_it_now_holds(tmp_path):
    cfg = many_calls(tmp_path, 12)
    at = open_page(make_app(cfg, item="many"), "tool_call_review")
    judge(at, 1, "wrong_tool")
    at.text_input(key=card(1, "notes")).input("should search").run()
    assert any(c.value.startswith("Call 1: verdict wrong\\_tool") for c in at.caption)
    at.button(key=place("next")).click().run()  # the same place now holds call 1 + PAGE_SIZE
    now = 1 + PAGE_SIZE
    assert instant_card(at, card(1, "verdict"))["title"] == f"Verdict on call {now}"
    assert verdict(at, 1) is None and at.text_input(key=card(1, "notes")).value == ""
    assert not any(c.value.startswith(f"Call {now}:") for c in at.caption)  # nothing saved for it
    at.button(key=place("prev")).click().run()
    assert verdict(at, 1) == "wrong_tool"
    assert at.text_input(key=card(1, "notes")).value == "should search"
