"""Issue 27, points 10 and 11, in headless Chromium on the demo project (its runs and Who&When) and
on the TRAIL run: a `role: tool` step is marked as a tool result, its content as data; a failed
call's error is on its tool-call review card; Markdown code fences in trace text are code blocks,
and everything stays text (no element made from the trace); long steps are folded to a few lines
with the whole text one click away.

What the page should show is computed from the trace with the app's own functions
(app/traces/step_cards.py); the browser is asked what it drew.
"""
from __future__ import annotations

import json
import re

import pytest

from app.project.workspace import open_project
from app.traces import conversation, step_cards
from app.traces.derive import derive
from tests.browser.conftest import wait_app
from tests.browser.test_ux27 import TRAIL, srv  # noqa: F401 (srv: the module's server, demo + Who&When + TRAIL)

pytestmark = pytest.mark.browser
T = 120000  # ms: generous, the machine may be busy
WHOWHEN = "whowhen-algorithm-generated-1"  # a demo run with fenced code in what its agents said
LONG = "whowhen-hand-crafted-33"  # a demo run of long steps (up to 5,381 characters)
# elements that trace text would have made had it been rendered as Markdown or HTML
MARKUP = "a, img, script, iframe, code, strong, em, h1, h2, h3, h4, h5, h6, ul, ol, li, table"


@pytest.fixture(scope="module")
def derived(srv):
    """The derivation of each item of the server's project (what the pages draw from)."""
    ws = open_project(srv.config)
    return {it.id: derive(it.data) for it in ws.items}


def _step_list(pg, srv, item: str, steps: int):
    """The item's outcome page with its trace as the step list (its first page of ten steps)."""
    pg.goto(f"{srv.url}/outcome?annotator=alice&item={item}")
    wait_app(pg, T)
    layout = pg.get_by_role("radiogroup", name="Layout")
    layout.wait_for(timeout=T)
    layout.get_by_role("radio", name="Steps", exact=True).click()
    pg.wait_for_function(f"() => document.querySelectorAll('.baton-steps .card[data-step]').length === {min(steps, 10)}",
                         timeout=T)
    wait_app(pg, T)
    return pg.locator(".baton-steps .card[data-step]")


def _stays_text(scope):
    """No element made from the trace's text: each text and code block holds text only."""
    assert scope.locator(MARKUP).count() == 0
    assert scope.locator(":is(.text, pre, .note, summary)").evaluate_all(
        "es => es.every(e => e.children.length === 0)")


# --- 10. a tool result marked as one; a failed call's error on its review card -------------------------

def test_a_role_tool_step_is_marked_as_a_tool_result(srv, wide, derived):
    """The demo's trip-planner-001 step 3 is FlightAgent's search_flights result (`role: tool`).
    (The TRAIL run has no `role: tool` step: its tool responses are input messages, shown under
    their role, "tool-response", in the step's input.)"""
    d = derived["trip-planner-001"]
    assert step_cards.is_tool_result(d.steps[3])
    cards = _step_list(wide, srv, "trip-planner-001", len(d.steps))
    card = cards.nth(3)
    assert card.locator(":scope > .head").inner_text() == "Step 3 · tool result to FlightAgent"
    notes = card.locator(":scope > .note").all_inner_texts()
    assert notes[:2] == ["Tool result · for call call_2", "Content"]
    assert card.locator(":scope > .text").count() == 0  # not shown as the agent speaking
    shown = card.locator(":scope > pre").text_content()
    assert json.loads(shown) == json.loads(d.steps[3].text) and shown.count("\n") > 5  # data, pretty-printed
    # the other steps are the agents speaking
    assert cards.nth(2).locator(":scope > .head").inner_text() == "Step 2 · FlightAgent"
    _stays_text(card)


def test_a_failed_trail_calls_error_is_on_its_review_card(srv, wide, derived):
    d = derived[TRAIL]
    wide.goto(f"{srv.url}/tool_call_review?annotator=alice&item={TRAIL}")
    wait_app(wide, T)
    main = wide.locator('[data-testid="stMain"]')
    cards = main.locator(".baton-steps .card")
    cards.nth(2).wait_for(timeout=T)
    assert cards.count() == 3  # (a page of three cards: calls 0-2 of 4)
    for i in range(2):  # calls 0 and 1: inspect_file_as_text failed with FileConversionException
        card = cards.nth(i)
        assert card.locator(".head").inner_text().endswith("· tool inspect_file_as_text · failed")
        assert "Failed with an error" in card.locator(":scope > .note").all_inner_texts()
        first = card.locator(":scope > pre").nth(1).text_content()  # (after the arguments)
        assert first.startswith("FileConversionException: Could not convert")
        whole = card.locator(":scope > details", has_text="Whole error")
        assert not whole.evaluate("e => e.open")
        whole.locator(":scope > summary").click()  # one click: the whole error, the traceback too
        error = whole.locator("pre").text_content()
        assert error == step_cards.call_error(d, d.tool_calls[i])
        assert "FileNotFoundError" in error
        _stays_text(card)
    card = cards.nth(2)  # search_agent's final answer worked: no error on its card
    assert card.locator(".head").inner_text().endswith("· tool final_answer")
    assert "Failed with an error" not in card.locator(":scope > .note").all_inner_texts()


def test_a_demo_calls_card_shows_its_result(srv, wide):
    wide.goto(f"{srv.url}/tool_call_review?annotator=alice&item=trip-planner-001")
    wait_app(wide, T)
    card = wide.locator('[data-testid="stMain"] .baton-steps .card', has_text="tool search_flights")
    card.wait_for(timeout=T)
    assert "Result" in card.locator(":scope > .note").all_inner_texts()
    assert any("TP1331" in p for p in card.locator(":scope > pre").all_text_contents())


# --- 11. code fences as code blocks, as text; long steps folded -----------------------------------------

def _fenced(text: str) -> list[str]:
    """The code blocks of a text's fences (markdown_blocks)."""
    return [b["t"] for b in step_cards.markdown_blocks(text) if b["k"] == "code"]


@pytest.mark.parametrize("item", [WHOWHEN, TRAIL], ids=["demo", "trail"])
def test_code_fences_in_what_agents_said_are_code_blocks_and_stay_text(srv, wide, derived, item):
    d = derived[item]
    fenced = {s.index: _fenced(s.text) for s in d.steps[:10] if _fenced(s.text)}
    assert len(fenced) >= 2, fenced  # (the run has fences to show)
    cards = _step_list(wide, srv, item, len(d.steps))
    for step, codes in fenced.items():
        card = cards.nth(step)
        full = card.locator(":scope > details", has=wide.locator(":scope > summary", has_text="Full text"))
        full.locator(":scope > summary").click()  # (what the step said is long: folded)
        shown = full.locator(":scope > div > pre").all_text_contents()
        assert shown == codes, (step, shown)
        # the prose around them: text, with no fence left in it
        texts = full.locator(":scope > div > .text").all_text_contents()
        assert texts and not [t for t in texts if re.search(r"^\s*```", t, re.M)], texts
    _stays_text(wide.locator(".baton-steps"))


def test_the_trail_inputs_fenced_examples_are_code_blocks(srv, wide, derived):
    """TRAIL's system prompt: its examples in ```py fences closed by "```<end_code>" (smolagents)."""
    d = derived[TRAIL]
    system = conversation.messages_of(d.steps[2].raw)[0][1]
    codes = _fenced(system)
    assert len(codes) >= 12
    cards = _step_list(wide, srv, TRAIL, len(d.steps))
    fold = cards.nth(2).locator(":scope > details").first
    fold.locator(":scope > summary").click()
    shown = fold.locator(":scope > div > pre").all_text_contents()
    assert shown[:len(codes)] == codes
    assert 'final_answer("diminished")' in shown
    assert "<end_code>" in fold.locator(":scope > div > .text").all_text_contents()  # the marker kept, as text
    _stays_text(cards.nth(2))


def test_long_demo_steps_are_folded_with_the_whole_text_one_click_away(srv, wide, derived):
    d = derived[LONG]
    long_steps = [s for s in d.steps if len(s.text) > step_cards.OUTPUT_AT or s.text.count("\n") >= step_cards.OUTPUT_LINES]
    assert len(long_steps) >= 4
    cards = _step_list(wide, srv, LONG, len(d.steps))
    for s in long_steps:
        card = cards.nth(s.index)
        full = card.locator(":scope > details", has=wide.locator(":scope > summary", has_text="Full text"))
        assert full.locator(":scope > summary").inner_text() == f"Full text ({len(s.text):,} characters)"
        assert not full.evaluate("e => e.open")
        excerpt = card.locator(":scope > .text").first.text_content()
        assert excerpt.endswith("…") and len(excerpt) <= step_cards.OUTPUT_EXCERPT + 2
        height = card.bounding_box()["height"]
        assert height < 400, (s.index, height)  # a few lines, whatever the step's length
    s = max(long_steps, key=lambda x: len(x.text))  # the longest (5,381 characters): one click shows it all
    full = cards.nth(s.index).locator(":scope > details", has=wide.locator(":scope > summary", has_text="Full text"))
    full.locator(":scope > summary").click()
    shown = full.locator(":scope > div > :is(.text, pre)").all_text_contents()
    assert shown == [b["t"] for b in step_cards.markdown_blocks(s.text)]
    _stays_text(cards.nth(s.index))
