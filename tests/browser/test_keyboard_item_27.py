"""Issue 27, point 13: one item of the demo annotated with the keyboard alone, every scheme of the
project on it, page after page by Alt+J, in headless Chromium; then the store holds each answer.

Keys only (app/ui/keyboard.py): j/k to a card, 1–9 to pick in it, s to make the current step card
of the trace the decisive step, t / Esc into and out of a text box, Alt+J to the next page, d to
finish. No click, no Tab.
"""
from __future__ import annotations

import time

import pytest

from app.store.storage import AnnotationStore
from tests.browser.conftest import wait_app

pytestmark = pytest.mark.browser
ITEM = "code-team-002"  # Manager, Coder, Tester; 7 steps; 5 handoffs; 3 tool calls; contention
T = 120000  # ms: generous, the machine may be busy
PAGES = ["outcome", "attribution", "graph", "handoffs", "scorecard", "contention", "emergent", "tool_review",
         "mast_steps", "traversal", "orchestration", "confidence", "symptoms", "notes"]


CONTROL = ('[data-testid="stMain"] [data-testid="stVerticalBlock"] :is(input[type=radio], input[type=checkbox], '
           '[role=radio], [role=checkbox], [data-testid^="stBaseButton-pills"], '
           '[data-testid^="stBaseButton-segmented_control"], textarea)')


def _ready(pg, page: str):
    """This scheme's page drawn, its keys listening, its box (a card for the keys) on it."""
    pg.wait_for_url(lambda u: f"/{page}?" in u, timeout=T)
    wait_app(pg, T)
    pg.wait_for_function("() => window.__batonKeys", timeout=T)
    pg.get_by_role("heading", name=page).first.wait_for(timeout=T)  # (the scheme's box, named by it)
    wait_app(pg, T)
    pg.locator(CONTROL).first.wait_for(timeout=T)  # its controls drawn (a card for the keys)
    pg.wait_for_timeout(500)


def _keys(pg, *keys: str):
    for k in keys:
        pg.keyboard.press(k)
        pg.wait_for_timeout(250)
    wait_app(pg, T)


def _stored(srv, scheme: str, check=lambda v: v is not None, timeout: float = 60.0):
    """The stored value of this scheme once `check` holds for it (it is saved at once, but the
    machine may be busy), else what is stored."""
    store = AnnotationStore(srv.config.parent / "annotations")
    deadline = time.time() + timeout
    while True:
        ann = store.load(ITEM, "alice", scheme)
        value = ann.value if ann else None
        if check(value) or time.time() > deadline:
            return value
        time.sleep(0.3)


def _to_card(pg, holding: str, most: int = 3) -> None:
    """j until the current card shows `holding`, as an annotator looks at the outlined card.
    An instant card mounts after the page's other controls: a j before it is drawn outlines
    another card, so its choices are waited for first."""
    pg.locator(".bi-card", has_text=holding).first.wait_for(timeout=T)
    current = pg.locator(".baton-kb-current", has_text=holding)
    for _ in range(most):
        _keys(pg, "j")
        try:
            current.first.wait_for(timeout=5000)
            return
        except Exception:  # (playwright's TimeoutError: not that card yet)
            continue
    current.first.wait_for(timeout=T)


def _page_state(pg) -> dict:
    """What a failed key check saw: the outlined card's text and each instant card's status."""
    return pg.evaluate("""() => ({
      current: Array.from(document.querySelectorAll('.baton-kb-current')).map(c => c.innerText.slice(0, 120)),
      cards: Array.from(document.querySelectorAll('.bi-card')).map(c => c.innerText.slice(0, 80)),
      focus: document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : null})""")


def _to_step(pg, step: int, most: int = 12) -> None:
    """From the trace's first step card (current), j until step `step` is the current card."""
    current = pg.locator(".baton-kb-current[data-step]")
    assert current.get_attribute("data-step") == "0"
    for _ in range(most):
        if current.get_attribute("data-step") == str(step):
            break
        _keys(pg, "j")
    assert current.get_attribute("data-step") == str(step)


def _next_page(pg, page: str):
    _keys(pg, "Alt+J")
    _ready(pg, page)


def test_one_whole_item_by_keyboard_alone(server, browser):
    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    pg = ctx.new_page()
    try:
        pg.goto(f"{server.url}/outcome?annotator=alice&item={ITEM}")
        _ready(pg, "outcome")
        _keys(pg, "j", "3")  # outcome: failure
        assert _stored(server, "outcome") == {"failure": "true"}

        _next_page(pg, "attribution")
        pg.locator("[data-step]").first.wait_for(timeout=T)  # (and the trace's steps)
        _to_card(pg, "Tester")  # the agents' card: Manager, Coder, Tester
        _keys(pg, "2")  # → Coder
        got = _stored(server, "attribution", lambda v: v and v.get("responsible_agent"))
        assert got and got["responsible_agent"] == "Coder", (got, _page_state(pg))
        _keys(pg, "j")  # past the box: the trace's first step (in whichever layout the trace is drawn)
        _to_step(pg, 4)  # "Waiting for the repository lock held by Tester."
        _keys(pg, "s")
        assert _stored(server, "attribution", lambda v: v and v.get("decisive_step") == 4)["decisive_step"] == 4
        pg.locator(".baton-steps .card.focus[data-step='4']").wait_for(timeout=T)  # marked in the trace
        _keys(pg, *["k"] * 14, "t")  # back to the box, into its reason
        pg.keyboard.type("waited on the lock")
        _keys(pg, "Escape")  # out of the box: saved
        assert _stored(server, "attribution", lambda v: v and v.get("reason")) == {
            "responsible_agent": "Coder", "decisive_step": 4, "reason": "waited on the lock"}

        _next_page(pg, "graph")
        _keys(pg, "j", "1")  # the first agent on the critical path
        assert _stored(server, "graph", lambda v: v and v.get("critical_nodes"))["critical_nodes"]

        _next_page(pg, "handoffs")
        _keys(pg, "j", "1")  # handoff 0: its first flag
        value = _stored(server, "handoffs", lambda v: bool(v))
        assert value and "info_loss" in str(value), value

        _next_page(pg, "scorecard")
        _keys(pg, "j", "4", "3", "5")  # the first agent's card: a key per dimension, row after row
        value = _stored(server, "scorecard", lambda v: v and len(next(iter(v.get("agents", {}).values()), {})) == 3)
        assert list(value["agents"].values()) == [{"role fidelity": 4, "contribution": 3, "coordination": 5}], value
        _keys(pg, "j", "2")  # the next agent's card: its first row
        value = _stored(server, "scorecard", lambda v: v and len(v.get("agents", {})) == 2)
        assert [s.get("role fidelity") for s in value["agents"].values()] == [4, 2], value

        _next_page(pg, "contention")
        _keys(pg, "j", "2")  # the first region's choices: unlabelled, deadlock, … → deadlock
        value = _stored(server, "contention", lambda v: bool(v))
        assert value and "deadlock" in str(value), value

        _next_page(pg, "emergent")
        _keys(pg, "j", "1", "6")  # the behaviours (1–4): echoing; then the turns (5 on): step 1
        value = _stored(server, "emergent", lambda v: bool(v))
        assert value and "echoing" in str(value), value

        _next_page(pg, "tool_review")
        _keys(pg, "j", "1")  # call 0: correct
        value = _stored(server, "tool_review", lambda v: bool(v))
        assert value[0]["verdict"] == "correct", value

        _next_page(pg, "mast_steps")
        _keys(pg, "j", "1")  # step 0: correct
        value = _stored(server, "mast_steps", lambda v: v and v.get("steps"))
        assert value["steps"][0]["step_index"] == 0 and value["steps"][0]["correctness"] == "correct", value

        _next_page(pg, "traversal")
        _keys(pg, "j", "2")  # the forward pass: step 0 is an error
        value = _stored(server, "traversal", lambda v: bool(v))
        assert value["forward"]["0"]["flag"] == "error", value

        _next_page(pg, "orchestration")
        _keys(pg, "j", "2")  # (3, hierarchical_manager, is the suggestion shown chosen: Alt+A would confirm it)
        assert _stored(server, "orchestration", lambda v: v and "sequential_pipeline" in v) == {
            "sequential_pipeline": "true"}

        _next_page(pg, "confidence")
        _keys(pg, "j", "4")
        assert _stored(server, "confidence") == {"scale_4": "4"}

        _next_page(pg, "symptoms")
        _keys(pg, "j", "1", "3")  # loop, ignored_constraint
        value = _stored(server, "symptoms", lambda v: v and len([k for k in v if k != "free_response"]) == 2)
        assert set(value) >= {"loop", "ignored_constraint"}, value

        _next_page(pg, "notes")
        _keys(pg, "j", "t")
        pg.keyboard.type("blocked on a lock")
        _keys(pg, "Escape")
        assert _stored(server, "notes", lambda v: bool(v)) == {"text_box": "blocked on a lock"}

        _keys(pg, "d")  # done with this item
        assert _stored(server, "_item", lambda v: bool(v)) == {"done": True}
    finally:
        ctx.close()
