"""Traversal review in a real browser, by keyboard only: one full forward pass (Alt+E flags,
Alt+S moves on) with no later step anywhere in the DOM, then the backward pass (Alt+1, Alt+2)."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from app.store.storage import AnnotationStore
from tests.browser.conftest import wait_app
from tests.conftest import ROOT

pytestmark = pytest.mark.browser
ITEM = "whowhen-algorithm-generated-45"  # five steps


def _later_texts(i: int, steps: list[dict], task: str) -> list[str]:
    """Lines of the steps after step i that no earlier step (nor the task) also says."""
    past = task + "\n".join(s["content"] for s in steps[:i + 1])
    out = []
    for s in steps[i + 1:]:
        out += [line.strip() for line in s["content"].splitlines() if len(line.strip()) > 12 and line.strip() not in past]
    return out


def _shown_once(page, text: str) -> None:
    """`text` on the page, once: while a rerun replaces an element, the old and the new copy are
    both in the DOM for a moment (a strict locator would fail on that instead of waiting)."""
    expect(page.get_by_text(text)).to_have_count(1, timeout=30000)
    expect(page.get_by_text(text)).to_be_visible(timeout=30000)


def test_forward_then_backward_by_keyboard(page, server):
    data = json.loads((ROOT / "data" / "whowhen" / "algorithm-generated-45.json").read_text())
    from app.project.workspace import open_project
    it = open_project(server.config).by_id[ITEM]
    steps = it.data["steps"]
    page.goto(f"{server.url}/traversal_review?annotator=alice&item={ITEM}")
    wait_app(page)
    store = AnnotationStore(server.config.parent / "annotations")
    assert data  # (the run the item is read from)
    for i in range(len(steps)):
        _shown_once(page, f"Forward pass: step {i + 1} of {len(steps)}")
        wait_app(page)  # (a key pressed while the script still runs may go unheard under load)
        html = page.content()  # the whole DOM, hidden parts included
        assert f"Step {i} · " in page.inner_text("body")
        for line in _later_texts(i, steps, it.text):
            assert line not in html, (i, line)
        if i in (1, 3):
            page.keyboard.press("Alt+E")
            expect(page.get_by_role("radio", name="⚠ an error")).to_be_checked(timeout=30000)
            wait_app(page)
        page.keyboard.press("Alt+S")
    _shown_once(page, "Backward pass: flagged step 1 of 2, from the last")
    # the whole trace is beside now: the last step's text is on the page
    expect(page.get_by_text("TERMINATE").first).to_be_attached(timeout=30000)
    wait_app(page)
    page.keyboard.press("Alt+2")  # step 3: a consequence of step 1 (the nearest earlier flag)
    _shown_once(page, "Backward pass: flagged step 2 of 2, from the last")
    wait_app(page)
    page.keyboard.press("Alt+1")  # step 1: the root cause
    _shown_once(page, "Backward pass complete")
    value = store.load(ITEM, "alice", "traversal").value
    assert sorted(map(int, value["forward"])) == [0, 1, 2, 3, 4]
    assert value["backward"] == {"1": {"verdict": "root_cause", "caused_by": None},
                                 "3": {"verdict": "consequence", "caused_by": 1}}
    assert value["root_causes"] == [1]
