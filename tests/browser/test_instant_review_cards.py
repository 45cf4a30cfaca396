"""The instant cards of the review surfaces (handoff flags and quality, tool-call verdicts, a
step's correctness and failure modes) in
headless Chromium, on a Baton server: a click paints at once and lands in the store, a burst of
20 clicks in 2 s lands as its last state, a save into a folder that cannot be written says why
on the card and shows what is stored again, and hostile flags, verdicts, agent and tool names
stay text."""
from __future__ import annotations

import json
import re

import pytest

from app.store.storage import AnnotationStore
from tests.browser.conftest import Server
from tests.browser.test_instant_surfaces import (
    BAD, HOSTILE, card, click_paints_at_once, open_scheme, option, shown, unwritable, wait_saved)
from tests.conftest import write_project

pytestmark = pytest.mark.browser
ITEM = "trip-planner-001"  # the demo run whose first handoff is 0 and first call is 0


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    srv = Server(write_project(tmp_path_factory.mktemp("instant-review"))).start()
    yield srv
    srv.stop()


def value(srv, item: str, scheme: str):
    ann = AnnotationStore(srv.config.parent / "annotations").load(item, "alice", scheme)
    return None if ann is None else ann.value


def entry(srv, item: str, scheme: str, index: int) -> dict | None:
    return next((e for e in value(srv, item, scheme) or [] if e["index"] == index), None)


def test_handoff_flags_and_quality_paint_at_once_and_land(page, served):
    open_scheme(page, served, "handoffs", ITEM)
    flags, quality = card(page, "Flags of handoff 0"), card(page, "Quality of handoff 0")
    assert click_paints_at_once(flags, "garbling") == ["garbling"]
    wait_saved(page, flags)
    assert click_paints_at_once(quality, "4") == ["4"]
    wait_saved(page, quality)
    assert entry(served, ITEM, "handoffs", 0)["flags"] == ["garbling"]
    assert entry(served, ITEM, "handoffs", 0)["quality"] == 4
    page.get_by_text(re.compile(r"^Handoff 0: flagged: garbling · quality 4/5")).wait_for(timeout=30000)
    quality.focus()
    page.keyboard.press("4")  # the chosen rating again, by its key: cleared
    wait_saved(page, quality)
    assert shown(quality) == [] and entry(served, ITEM, "handoffs", 0)["quality"] is None


def test_tool_call_verdict_paints_at_once_and_lands(page, served):
    open_scheme(page, served, "tool_review", ITEM)
    verdict = card(page, "Verdict on call 0")
    assert click_paints_at_once(verdict, "wrong_args") == ["wrong_args"]
    wait_saved(page, verdict)
    assert entry(served, ITEM, "tool_review", 0)["verdict"] == "wrong_args"
    # the scheme's fragment reran with the click: the count at the top follows the card
    page.get_by_text(re.compile(r"^1 of \d+ calls judged \(1 wrong.args\)")).first.wait_for(timeout=30000)
    assert click_paints_at_once(verdict, "correct") == ["correct"]
    wait_saved(page, verdict)
    assert entry(served, ITEM, "tool_review", 0)["verdict"] == "correct"


def test_bursts_of_20_clicks_in_2_s_land_as_the_last_state(page, served):
    item = "code-team-002"
    open_scheme(page, served, "handoffs", item)
    flags = card(page, "Flags of handoff 0")
    names = ["info_loss", "dropped_constraint", "garbling", "goal_drift"]
    expected: set[str] = set()
    for k in range(20):
        name = names[(k * 3) % 4 if k % 5 else k % 4]
        option(flags, name).click()
        expected ^= {name}
        page.wait_for_timeout(100)
    want = [n for n in names if n in expected]
    assert shown(flags) == want
    wait_saved(page, flags)
    assert (entry(served, item, "handoffs", 0) or {"flags": []})["flags"] == want and shown(flags) == want

    open_scheme(page, served, "tool_review", item)
    verdict = card(page, "Verdict on call 0")
    picks = ["correct", "wrong_tool", "wrong_args", "wrong_order"]
    for k in range(20):
        option(verdict, picks[k % 4]).click()
        page.wait_for_timeout(100)
    wait_saved(page, verdict)
    assert entry(served, item, "tool_review", 0)["verdict"] == picks[19 % 4] and shown(verdict) == [picks[19 % 4]]


def test_a_failed_save_says_why_and_returns_to_what_is_stored(page, served):
    item = "research-003"
    open_scheme(page, served, "handoffs", item)
    flags = card(page, "Flags of handoff 0")
    option(flags, "info_loss").click()
    wait_saved(page, flags)
    open_scheme(page, served, "tool_review", item)
    verdict = card(page, "Verdict on call 0")
    option(verdict, "correct").click()
    wait_saved(page, verdict)
    with unwritable(served.config.parent / "annotations"):
        for scheme, title, pick, stored in (("handoffs", "Flags of handoff 0", "goal_drift", ["info_loss"]),
                                            ("handoffs", "Quality of handoff 0", "2", []),
                                            ("tool_review", "Verdict on call 0", "wrong_tool", ["correct"])):
            open_scheme(page, served, scheme, item)
            c = card(page, title)
            assert pick in click_paints_at_once(c, pick)
            status = c.locator(".bi-status")
            page.wait_for_function("(el) => el.dataset.state === 'failed'", arg=status.element_handle(), timeout=60000)
            words = status.text_content()
            assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
            assert shown(c) == stored
    assert entry(served, item, "handoffs", 0)["flags"] == ["info_loss"]
    assert entry(served, item, "handoffs", 0)["quality"] is None
    assert entry(served, item, "tool_review", 0)["verdict"] == "correct"


def test_hostile_flags_verdicts_agents_and_tools_stay_text(page, tmp_path):
    steps = []
    for i in range(4):
        step = {"agent": HOSTILE[i % 2], "content": f"step {i}"}
        step["tool_calls"] = [{"id": f"c{i}", "type": "function",
                               "function": {"name": HOSTILE[3], "arguments": json.dumps({"q": HOSTILE[0]})}}]
        steps.append(step)
    data = tmp_path / "runs.jsonl"
    data.write_text(json.dumps({"id": "evil", "text": "t", "steps": steps}) + "\n")
    schemes = [{"annotation_type": "handoff_review", "name": "handoffs", "flags": HOSTILE, "quality_scale": 3},
               {"annotation_type": "tool_call_review", "name": "tool_review", "verdict_options": HOSTILE}]
    srv = Server(write_project(tmp_path, schemes=schemes, data_files=[str(data)])).start()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        for scheme, title in (("handoffs", "Flags of handoff 0"), ("tool_review", "Verdict on call 0")):
            open_scheme(page, srv, scheme, "evil")
            page.wait_for_timeout(500)
            c = card(page, title)
            texts = c.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => b.firstChild.textContent)")
            assert texts == HOSTILE
            body = page.locator("body").inner_text()
            assert HOSTILE[0] in body and HOSTILE[3] in body  # agent and tool names, as text
            assert page.locator(BAD).count() == 0 and page.evaluate("() => window.__pwned") is None
            c.locator("button.bi-opt").first.click()  # saved by its value
            wait_saved(page, c)
            assert page.locator(BAD).count() == 0 and page.evaluate("() => window.__pwned") is None
        got = AnnotationStore(tmp_path / "annotations")
        assert got.load("evil", "alice", "handoffs").value[0]["flags"] == [HOSTILE[0]]
        assert got.load("evil", "alice", "tool_review").value[0]["verdict"] == HOSTILE[0]
        assert dialogs == []
    finally:
        srv.stop()


M32 = "3.2 No or incomplete verification"
CATEGORY3 = "Task Verification & Termination (step 0)"


def step_entry(srv, item: str, index: int) -> dict | None:
    return next((e for e in (value(srv, item, "mast_steps") or {}).get("steps", []) if e["step_index"] == index), None)


def test_step_review_correctness_and_modes_paint_at_once_and_land(page, served):
    open_scheme(page, served, "mast_steps", ITEM)
    corr = card(page, "Correctness of step 0")
    assert click_paints_at_once(corr, "incorrect") == ["incorrect"]
    wait_saved(page, corr)
    assert step_entry(served, ITEM, 0)["correctness"] == "incorrect"
    modes = card(page, CATEGORY3)  # drawn once the step is judged
    modes.wait_for(timeout=60000)
    assert click_paints_at_once(modes, M32) == ["12"]
    wait_saved(page, modes)
    assert step_entry(served, ITEM, 0)["errors"] == [{"type": "Task Verification & Termination", "subtype": M32}]
    page.get_by_text(re.compile(r"^Step 0: incorrect, 1 failure mode")).wait_for(timeout=30000)
    option(corr, "correct").click()  # correct again: no modes, and they cannot be picked
    wait_saved(page, corr)
    assert step_entry(served, ITEM, 0)["errors"] == []
    page.wait_for_function("(b) => b.disabled && b.getAttribute('aria-checked') === 'false'",
                           arg=option(card(page, CATEGORY3), M32).element_handle(), timeout=60000)


def test_step_review_bursts_land_as_the_last_state(page, served):
    item = "code-team-002"
    open_scheme(page, served, "mast_steps", item)
    corr = card(page, "Correctness of step 0")
    option(corr, "incorrect").click()
    wait_saved(page, corr)
    modes = card(page, CATEGORY3)
    modes.wait_for(timeout=60000)
    names = [b for b in modes.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => b.dataset.value)")]
    expected: set[str] = set()
    for k in range(20):
        v = names[(k * 2) % len(names) if k % 3 else k % len(names)]
        modes.locator(f"button.bi-opt[data-value='{v}']").click()
        expected ^= {v}
        page.wait_for_timeout(100)
    want = [v for v in names if v in expected]
    assert shown(modes) == want
    wait_saved(page, modes)
    assert shown(modes) == want
    got = step_entry(served, item, 0)["errors"]
    labels = modes.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => [b.dataset.value, b.firstChild.textContent])")
    assert [x["subtype"] for x in got] == [label for v, label in labels if v in expected]
    picks = ["correct", "incorrect", "partially_correct"]
    for k in range(20):
        option(corr, picks[k % 3]).click()
        page.wait_for_timeout(100)
    wait_saved(page, corr)
    assert step_entry(served, item, 0)["correctness"] == picks[19 % 3] and shown(corr) == [picks[19 % 3]]


def test_step_review_failed_save_says_why_and_returns_to_what_is_stored(page, served):
    item = "research-003"
    open_scheme(page, served, "mast_steps", item)
    corr = card(page, "Correctness of step 0")
    option(corr, "incorrect").click()
    wait_saved(page, corr)
    with unwritable(served.config.parent / "annotations"):
        open_scheme(page, served, "mast_steps", item)
        for title, pick, stored in (("Correctness of step 0", "partially_correct", ["incorrect"]),
                                    (CATEGORY3, M32, [])):
            c = card(page, title)
            assert click_paints_at_once(c, pick) != stored
            status = c.locator(".bi-status")
            page.wait_for_function("(el) => el.dataset.state === 'failed'", arg=status.element_handle(), timeout=60000)
            words = status.text_content()
            assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
            assert shown(c) == stored
    assert step_entry(served, item, 0) == {"step_index": 0, "agent": step_entry(served, item, 0)["agent"],
                                           "correctness": "incorrect", "errors": [], "severity": None,
                                           "rationale": ""}


def test_hostile_correctness_modes_and_agents_stay_text(page, tmp_path):
    data = tmp_path / "runs.jsonl"
    data.write_text(json.dumps({"id": "evil", "text": "t", "steps": [
        {"agent": HOSTILE[i % 2], "content": f"step {i} {HOSTILE[3]}"} for i in range(3)]}) + "\n")
    schemes = [{"annotation_type": "trajectory_eval", "name": "mast_steps", "correctness_options": ["fine", HOSTILE[0]],
                "error_types": [{"name": HOSTILE[3], "subtypes": HOSTILE}]}]
    srv = Server(write_project(tmp_path, schemes=schemes, data_files=[str(data)])).start()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        open_scheme(page, srv, "mast_steps", "evil")
        corr = card(page, "Correctness of step 0")
        corr.locator("button.bi-opt").nth(1).click()
        wait_saved(page, corr)
        modes = card(page, f"{HOSTILE[3]} (step 0)")
        modes.wait_for(timeout=60000)
        texts = modes.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => b.firstChild.textContent)")
        assert texts == HOSTILE
        assert HOSTILE[0] in page.locator("body").inner_text()  # the agent's name, as text
        modes.locator("button.bi-opt").first.click()
        wait_saved(page, modes)
        assert page.locator(BAD).count() == 0 and page.evaluate("() => window.__pwned") is None
        got = AnnotationStore(tmp_path / "annotations").load("evil", "alice", "mast_steps").value["steps"][0]
        assert got["correctness"] == HOSTILE[0] and got["errors"] == [{"type": HOSTILE[3], "subtype": HOSTILE[0]}]
        assert dialogs == []
    finally:
        srv.stop()
