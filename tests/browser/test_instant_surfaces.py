"""The instant cards of real surfaces (app/ui/instant_scheme.py) in headless Chromium, on a Baton
server: a click paints at once and lands in the store, a burst of 20 clicks in 2 s lands as its
last state, a save into a folder that cannot be written says so in words on the card and shows
what is stored again, and hostile labels from the config stay text."""
from __future__ import annotations

import contextlib
import os
import re
import subprocess
from pathlib import Path

import pytest

from app.store.storage import AnnotationStore
from tests.browser.conftest import Server, wait_app
from tests.conftest import write_project

pytestmark = pytest.mark.browser

HOSTILE = ['<img src=x onerror="window.__pwned=1">', "</script><script>window.__pwned=2</script>",
           "**MDBOLD** [MDLINK](javascript:window.__pwned=3)", '<b id="inj">HTMLBOLD</b>']
BAD = "img[src='x'], #inj, a[href^='javascript'], [onerror], strong:text-is('MDBOLD'), b:text-is('HTMLBOLD')"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One Baton server on the demo project for the tests of this file (each uses its own item)."""
    srv = Server(write_project(tmp_path_factory.mktemp("instant"))).start()
    yield srv
    srv.stop()


def store(srv) -> AnnotationStore:
    return AnnotationStore(srv.config.parent / "annotations")


def value(srv, item: str, scheme: str):
    ann = store(srv).load(item, "alice", scheme)
    return None if ann is None else ann.value


def open_scheme(page, srv, scheme: str, item: str):
    page.goto(f"{srv.url}/{scheme}?annotator=alice&item={item}")
    wait_app(page, 120000)
    page.locator(".bi-card").first.wait_for(timeout=60000)


def card(page, title: str):
    """The instant card whose (hidden) title is `title`: its options' group is named so."""
    return page.locator(".bi-card").filter(has=page.locator(f".bi-opts[aria-label='{title}']"))


def option(c, text: str):
    return c.locator("button.bi-opt").filter(has_text=re.compile("^" + re.escape(text) + r"\d?$"))


def shown(c) -> list[str]:
    return c.evaluate("(el) => [...el.querySelectorAll('button.bi-opt[aria-checked=true]')].map(b => b.dataset.value)")


def wait_saved(page, c, timeout=60000):
    page.wait_for_function("(el) => el.dataset.state === 'saved' && el.textContent.startsWith('Saved')",
                           arg=c.locator(".bi-status").element_handle(), timeout=timeout)


def click_paints_at_once(c, text: str) -> list[str]:
    """Click, and read what the card shows in the same task as the click (before any reply can
    arrive): the options then checked."""
    got = option(c, text).evaluate("""(b) => { b.click(); const card = b.closest('.bi-card');
        return {shown: [...card.querySelectorAll('button.bi-opt[aria-checked=true]')].map(x => x.dataset.value),
                status: card.querySelector('.bi-status').textContent}; }""")
    assert got["status"] == "Saving…"
    return got["shown"]


def test_a_click_paints_at_once_and_lands_in_the_store(page, served):
    item = "trip-planner-001"
    open_scheme(page, served, "outcome", item)
    outcome = card(page, "outcome")
    assert click_paints_at_once(outcome, "partial") == ["partial"]
    wait_saved(page, outcome)
    assert value(served, item, "outcome") == {"partial": "true"}
    assert outcome.locator(".bi-status").text_content() == "Saved"
    # the click reran the scheme's fragment: its note under the card says when
    page.get_by_text(re.compile(r"Saved · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d|Saved · \d\d:\d\d:\d\d")).first.wait_for(
        timeout=30000)

    open_scheme(page, served, "confidence", item)
    likert = card(page, "confidence")
    likert.focus()
    page.keyboard.press("4")  # the card's own key: one pick (the page's key listener does not click again)
    assert shown(likert) == ["4"]
    wait_saved(page, likert)
    assert value(served, item, "confidence") == {"scale_4": "4"}

    open_scheme(page, served, "symptoms", item)
    multi = card(page, "symptoms")
    assert click_paints_at_once(multi, "loop") == ["loop"]
    multi.focus()
    page.keyboard.press("3")  # ignored_constraint
    assert shown(multi) == ["loop", "ignored_constraint"]
    wait_saved(page, multi)
    assert value(served, item, "symptoms") == {"loop": "true", "ignored_constraint": "true"}
    # a refresh shows what is stored
    open_scheme(page, served, "symptoms", item)
    assert shown(card(page, "symptoms")) == ["loop", "ignored_constraint"]


def test_a_burst_of_20_clicks_in_2_s_lands_as_the_last_state(page, served):
    item = "code-team-002"
    open_scheme(page, served, "symptoms", item)
    multi = card(page, "symptoms")
    names = ["loop", "hallucinated_tool_output", "ignored_constraint", "premature_stop"]
    expected: set[str] = set()
    for k in range(20):  # 20 clicks, 100 ms apart: faster than the saves
        name = names[(k * 3) % 4 if k % 5 else k % 4]
        option(multi, name).click()
        expected ^= {name}
        page.wait_for_timeout(100)
    want = [n for n in names if n in expected]
    assert shown(multi) == want
    wait_saved(page, multi)
    got = value(served, item, "symptoms")
    assert [n for n in names if (got or {}).get(n) == "true"] == want
    assert shown(multi) == want

    open_scheme(page, served, "outcome", item)  # a radio: the last pick wins
    outcome = card(page, "outcome")
    picks = ["success", "partial", "failure"]
    for k in range(20):
        option(outcome, picks[k % 3]).click()
        page.wait_for_timeout(100)
    last = picks[19 % 3]
    wait_saved(page, outcome)
    assert value(served, item, "outcome") == {last: "true"} and shown(outcome) == [last]


@contextlib.contextmanager
def unwritable(folder: Path):
    """The annotation folder cannot be written (the tests run as root: chmod would not stop it,
    the immutable attribute does), whatever happens in between."""
    if os.geteuid() != 0:  # (as another user, taking the write bit away is enough)
        modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")] if p.is_dir()}
        for p in modes:
            p.chmod(modes[p] & ~0o222)
        try:
            yield
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
        return
    made = subprocess.run(["chattr", "-R", "+i", str(folder)], capture_output=True, text=True)
    if made.returncode != 0:  # (a file system without the attribute, e.g. some container overlays)
        pytest.skip(f"cannot make {folder} unwritable as root here: chattr says {made.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-R", "-i", str(folder)], check=True)


def test_a_failed_save_says_why_and_returns_to_what_is_stored(page, served):
    item = "research-003"
    open_scheme(page, served, "outcome", item)
    outcome = card(page, "outcome")
    option(outcome, "success").click()
    wait_saved(page, outcome)
    open_scheme(page, served, "symptoms", item)
    multi = card(page, "symptoms")
    option(multi, "loop").click()
    wait_saved(page, multi)
    with unwritable(served.config.parent / "annotations"):
        for scheme, pick, stored in (("outcome", "failure", ["success"]), ("symptoms", "premature_stop", ["loop"])):
            open_scheme(page, served, scheme, item)
            c = card(page, scheme)
            assert pick in click_paints_at_once(c, pick)  # painted at once
            status = c.locator(".bi-status")
            page.wait_for_function("(el) => el.dataset.state === 'failed'", arg=status.element_handle(), timeout=60000)
            words = status.text_content()
            assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
            assert shown(c) == stored  # back to what is stored
    assert value(served, item, "outcome") == {"success": "true"}
    assert value(served, item, "symptoms") == {"loop": "true"}


def hostile_schemes() -> list[dict]:
    labels = [{"name": h, "tooltip": f"tip {h}"} for h in HOSTILE]
    return [{"annotation_type": "radio", "name": "verdict", "labels": labels},
            {"annotation_type": "likert", "name": "sure", "size": 4, "min_label": HOSTILE[0], "max_label": HOSTILE[3]},
            {"annotation_type": "multiselect", "name": "flags", "labels": labels}]


def test_hostile_labels_stay_text(page, tmp_path):
    srv = Server(write_project(tmp_path, schemes=hostile_schemes())).start()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        for scheme in ("verdict", "sure", "flags"):
            open_scheme(page, srv, scheme, "trip-planner-001")
            page.wait_for_timeout(500)
            c = page.locator(".bi-card").first
            texts = c.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => b.firstChild.textContent)")
            if scheme == "sure":
                assert texts == [f"1 {HOSTILE[0]}", "2", "3", f"4 {HOSTILE[3]}"]
            else:
                assert texts == HOSTILE
                tips = c.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => b.title)")
                assert tips == [f"tip {h}" for h in HOSTILE]
            assert page.locator(BAD).count() == 0
            assert page.evaluate("() => window.__pwned") is None
            c.locator("button.bi-opt").first.click()  # saved by its value, not its label
            wait_saved(page, c)
        got = AnnotationStore(tmp_path / "annotations")
        assert got.load("trip-planner-001", "alice", "verdict").value == {HOSTILE[0]: "true"}
        assert got.load("trip-planner-001", "alice", "flags").value == {HOSTILE[0]: "true"}
        assert got.load("trip-planner-001", "alice", "sure").value == {"scale_1": "1"}
        assert page.locator(BAD).count() == 0 and page.evaluate("() => window.__pwned") is None
        assert dialogs == []
    finally:
        srv.stop()
