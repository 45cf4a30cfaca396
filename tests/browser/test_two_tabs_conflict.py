"""Issue 30, point 4, in headless Chromium: two tabs (pages) of one annotator in one browser, on
the emergent-behaviour surface. A stale tab's tick does not wipe the other's (both turns kept on
disk, the later tab shows both); a note set differently in both: the first stays, and the later
tab is told in words and shown it."""
from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from app.store.storage import AnnotationStore
from tests.browser.conftest import wait_app

pytestmark = pytest.mark.browser
ITEM = "code-team-002"
T = 60000  # ms: generous, the machine may be busy


def stored(server) -> dict:
    ann = AnnotationStore(server.config.parent / "annotations").load(ITEM, "alice", "emergent")
    return ann.value if ann else {}


def wait_for(check, timeout: float = 30.0):
    end = time.time() + timeout
    while time.time() < end:
        if check():
            return True
        time.sleep(0.1)
    return check()


def turn(pg, step: int):
    """The step's option on the page's instant card of turns."""
    return pg.locator(".bi-card button.bi-opt").filter(has_text=re.compile(rf"^Step {step} · ")).first


def tick(pg, step: int) -> None:
    turn(pg, step).click()


def note(pg, text: str) -> None:
    box = pg.get_by_label("Note on echoing")
    box.fill(text)
    box.press("Control+Enter")  # (a text area sends its text on Ctrl+Enter or when it loses focus)


def test_a_stale_tab_keeps_the_others_work_and_is_told_of_a_clash(server, browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    a, b = ctx.new_page(), ctx.new_page()
    url = f"{server.url}/emergent_behavior?annotator=alice&item={ITEM}"
    for pg in (a, b):  # both drawn before either saves
        pg.goto(url)
        wait_app(pg)
        expect(pg.get_by_text("No turns marked for this behaviour yet.")).to_be_visible(timeout=T)

    tick(a, 3)
    expect(a.get_by_text(re.compile(r"^Marked: 1 turn \(3\)"))).to_be_visible(timeout=T)
    tick(b, 5)  # B still shows no turn marked
    expect(b.get_by_text(re.compile(r"^Marked: 2 turns \(3, 5\)"))).to_be_visible(timeout=T)
    assert stored(server)["echoing"]["turns"] == [3, 5]  # A's tick kept
    expect(turn(b, 3)).to_have_attribute("aria-checked", "true", timeout=T)  # and B shows it

    note(a, "they repeat the plan")
    assert wait_for(lambda: stored(server)["echoing"]["note"] == "they repeat the plan")
    note(b, "no, it is new each time")  # B was drawn before A's note was saved
    # B's card says its note was not saved and why, keeps B's words in the box and shows the disk's
    # note under "What is stored" (app/ui/instant_text.py)
    card = b.locator(".bt-card").filter(has=b.get_by_label("Note on echoing"))
    told = card.locator(".bt-status[data-state=failed]")
    expect(told).to_have_text(re.compile("^Not saved: another tab or session saved other text here meanwhile"),
                              timeout=T)
    expect(b.get_by_label("Note on echoing")).to_have_value("no, it is new each time")  # typed words kept
    expect(card.locator("details.bt-stored .bt-stored-text")).to_have_text("they repeat the plan")  # the disk
    assert stored(server)["echoing"] == {"turns": [3, 5], "note": "they repeat the plan"}
    ctx.close()
