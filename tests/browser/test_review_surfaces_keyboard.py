"""Scorecard and step review in a real browser, with the keyboard only: the fragment saves,
the page's "Saved" line follows, marking a step correct empties its modes."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.store.storage import AnnotationStore
from tests.browser.conftest import wait_app

pytestmark = pytest.mark.browser
ITEM = "trip-planner-001"


def _open(page, server, surface):
    page.goto(f"{server.url}/{surface}?annotator=alice&item={ITEM}")
    wait_app(page)


def _store(server):
    return AnnotationStore(server.config.parent / "annotations")


def test_scorecard_by_keyboard(page, server):
    _open(page, server, "agent_scorecard")
    # an instant card per agent, a radio row per dimension (issues 27, 31): Tab to a score, Space picks it
    box = page.get_by_role("radiogroup", name="role fidelity of Planner").get_by_role("radio", name="4", exact=True)
    box.wait_for(timeout=20000)
    box.focus()
    page.keyboard.press("Space")
    planner = page.locator(".bi-card").filter(has=page.locator(".bi-opts[aria-label='Planner']"))
    expect(planner.locator(".bi-status")).to_have_text(re.compile(r"^Saved · "), timeout=20000)  # the card says it saved
    page.get_by_role("group", name="Milestones reached").get_by_role("checkbox", name="plan produced").focus()
    page.keyboard.press("Space")
    page.get_by_text(re.compile(r"^Milestones: 1 of 3 reached")).wait_for(timeout=20000)
    assert _store(server).load(ITEM, "alice", "scorecard").value == {
        "agents": {"Planner": {"role fidelity": 4}}, "team": {},
        "milestones": {"plan produced": True, "task delegated correctly": False, "result verified": False}}


def test_step_review_by_keyboard(page, server):
    _open(page, server, "trajectory_eval")
    radios = page.get_by_role("radiogroup", name="Correctness of step 4")
    radios.wait_for(timeout=20000)
    radios.get_by_role("radio", name="incorrect").focus()
    page.keyboard.press("Space")
    line = page.get_by_text(re.compile(r"^Step 4: "))  # the card's own line says what it saved
    expect(line).to_contain_text("incorrect", timeout=10000)
    expect(line).to_contain_text("saved", timeout=10000)
    # the modes are instant cards by category (issue 27, 31): Tab to one, Space toggles it
    page.locator(".bi-card").filter(has_text="(step 4)").locator(
        "button", has_text="3.2 No or incomplete verification").focus()
    page.keyboard.press("Space")
    expect(line).to_contain_text("1 failure mode", timeout=10000)
    value = _store(server).load(ITEM, "alice", "mast_steps").value
    assert value["steps"][0]["errors"] == [{"type": "Task Verification & Termination",
                                            "subtype": "3.2 No or incomplete verification"}]
    # correct again, by keyboard: the modes go from the stored value and the widget
    radios.get_by_role("radio", name="correct", exact=True).focus()
    page.keyboard.press("Space")
    expect(line).not_to_contain_text("failure mode", timeout=10000)
    assert _store(server).load(ITEM, "alice", "mast_steps").value["steps"][0]["errors"] == []
    pill = page.locator(".bi-card").filter(has_text="(step 4)").locator(
        "button", has_text="3.2 No or incomplete verification")
    expect(pill).to_be_disabled(timeout=10000)
    expect(pill).to_have_attribute("aria-checked", "false")
