"""The trace's layouts in a real browser (issue 29): the suggestion lays the run out as a tree,
the Layout control switches to lanes, board and back to steps (by mouse and by keyboard), the
orchestration answer re-lays it out, and hostile trace text is drawn as text."""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from app.store.storage import AnnotationStore
from tests.browser.conftest import Server, wait_app
from tests.conftest import write_project

pytestmark = pytest.mark.browser
ITEM = "trip-planner-001"


def layout(page):
    return page.locator(".baton-layout")


def button(page, name: str):
    """A button of the Layout control (a segmented control: a radio group of buttons)."""
    return page.get_by_role("radiogroup", name="Layout").get_by_role("radio", name=name, exact=True)


def test_switching_layout_in_the_browser(page, server):
    page.goto(f"{server.url}/radio?annotator=alice&item={ITEM}")
    wait_app(page)
    drawn = layout(page)
    # suggested hub_and_spoke: a tree, Planner at its root, its four spokes nested under it
    expect(drawn).to_have_attribute("data-kind", "tree", timeout=30000)
    expect(drawn.locator(":scope > details > summary").first).to_contain_text("Planner")
    assert drawn.locator(":scope > details > div > details").count() == 4
    expect(page.get_by_text("Suggested: Planner hands to 4 workers", exact=False)).to_be_visible()
    # collapsible in the browser, without a rerun
    root = drawn.locator(":scope > details").first
    root.locator(":scope > summary").click()
    assert root.evaluate("d => d.open") is False
    button(page, "Lanes").click()
    expect(drawn).to_have_attribute("data-kind", "lanes", timeout=20000)
    heads = drawn.locator(".lane-head")
    expect(heads).to_have_count(5)
    expect(heads.first).to_have_text("Planner (6 steps)")
    expect(drawn.locator(".hand").first).to_have_text("Planner ──▶ FlightAgent")
    # by keyboard: the Board button, focused, pressed with Space
    button(page, "Board").focus()
    page.keyboard.press("Space")
    expect(drawn).to_have_attribute("data-kind", "board", timeout=20000)
    expect(drawn).to_contain_text("Who spoke how often:")
    expect(drawn.locator(".msg")).to_have_count(14 + 3)  # 14 messages, 3 shared resources
    button(page, "Steps").click()
    expect(drawn).to_have_count(0, timeout=20000)
    expect(page.locator(".baton-steps .card").first).to_contain_text("Step 0")
    # the annotator confirms the suggestion: saved; the pattern is the same, so their switch stays
    store = AnnotationStore(server.config.parent / "annotations")
    assert store.load(ITEM, "alice", "orchestration") is None
    page.get_by_role("button", name=re.compile("^Confirm the suggestion")).click()
    page.get_by_text(re.compile("you kept it")).wait_for(timeout=20000)
    assert store.load(ITEM, "alice", "orchestration").value == {"hub_and_spoke": "true"}
    expect(page.locator(".baton-steps .card").first).to_contain_text("Step 0")
    # another answer, by keyboard: the run is laid out for it (a group chat: the board)
    page.get_by_role("radio", name="group_chat").focus()
    page.keyboard.press("Space")
    expect(layout(page)).to_have_attribute("data-kind", "board", timeout=20000)
    assert store.load(ITEM, "alice", "orchestration").value == {"group_chat": "true"}


def test_hostile_trace_text_in_the_layouts_is_text(tmp_path, browser):
    evil = '<img src=x onerror="window.__pwned=1">'
    steps = [{"agent": [evil, "B"][i % 2], "content": f"{evil} **bold** {i}", "reply_to": i - 1 if i else None}
             for i in range(6)]
    data = tmp_path / "runs.jsonl"
    data.write_text(json.dumps({"id": "evil", "text": "t", "steps": steps,
                                "blackboard": [{"agent": evil, "content": evil, "read_by": [evil]}]}) + "\n")
    server = Server(write_project(tmp_path, data_files=[str(data)])).start()
    try:
        ctx = browser.new_context()
        pg = ctx.new_page()
        pg.goto(f"{server.url}/radio?annotator=alice&item=evil")
        wait_app(pg)
        drawn = layout(pg)
        expect(drawn).to_have_attribute("data-kind", "board", timeout=30000)  # suggested: blackboard
        for name in ("Board", "Lanes", "Tree"):
            button(pg, name).click()
            expect(drawn).to_have_attribute("data-kind", name.lower(), timeout=20000)
            expect(drawn).to_contain_text(evil)
            assert drawn.locator("img, strong").count() == 0
            assert pg.evaluate("() => window.__pwned") is None
        ctx.close()
    finally:
        server.stop()
