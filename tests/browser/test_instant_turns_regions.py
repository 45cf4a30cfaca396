"""Issue 31 on two more surfaces, in headless Chromium on a Baton server: the emergent-behaviour
turns (one instant card per page of turns) and the tool-contention region labels (native radios
in app/ui/region_cards.py, sent behind and numbered). A click paints at once and lands in the
store, a burst of 20 clicks in 2 s lands as its last state, a save into a folder that cannot be
written says so in words and shows what is stored, and hostile trace text (turn labels, agent,
tool and resource names) and labels stay text."""
from __future__ import annotations

import json
import re

import pytest

from app.store.storage import AnnotationStore
from tests.browser.conftest import Server, wait_app
from tests.browser.test_instant_surfaces import BAD, HOSTILE, open_scheme, shown, unwritable, wait_saved
from tests.conftest import write_project

pytestmark = pytest.mark.browser
T = 60000  # ms: generous, the machine may be busy


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    srv = Server(write_project(tmp_path_factory.mktemp("instant-turns-regions"))).start()
    yield srv
    srv.stop()


def value(srv, item: str, scheme: str):
    ann = AnnotationStore(srv.config.parent / "annotations").load(item, "alice", scheme)
    return None if ann is None else ann.value


def wait_value(page, srv, item: str, scheme: str, check, timeout_ms: int = T):
    """The stored value once `check` holds for it (the save lands behind the click)."""
    for _ in range(timeout_ms // 200):
        got = value(srv, item, scheme)
        if check(got):
            return got
        page.wait_for_timeout(200)
    return value(srv, item, scheme)


# --- emergent behaviour: a page of turns, one card ---------------------------------------------------

def turns_card(page):
    return page.locator(".bi-card").filter(has=page.locator(".bi-opts[aria-label^='Turns showing']"))


def turn(c, step: int):
    return c.locator(f"button.bi-opt[data-value='{step}']")


def turns_of(srv, item: str, behaviour: str = "echoing") -> list[int]:
    return ((value(srv, item, "emergent") or {}).get(behaviour) or {}).get("turns", [])


def paints_at_once(button) -> dict:
    """Click, and read in the same task (before any reply can arrive) what the card shows."""
    return button.evaluate("""(b) => { b.click(); const card = b.closest('.bi-card');
        return {shown: [...card.querySelectorAll('button.bi-opt[aria-checked=true]')].map(x => x.dataset.value),
                status: card.querySelector('.bi-status').textContent}; }""")


def test_a_turn_click_paints_at_once_lands_and_the_overview_follows(page, served):
    item = "trip-planner-001"
    open_scheme(page, served, "emergent", item)
    c = turns_card(page)
    assert paints_at_once(turn(c, 3)) == {"shown": ["3"], "status": "Saving…"}
    wait_saved(page, c)
    assert turns_of(served, item) == [3]
    # the click reran the scheme's fragment: the overview and the "Marked" line agree with the store
    page.get_by_text(re.compile(r"^Marked: 1 turn \(3\)")).wait_for(timeout=T)
    page.get_by_text(re.compile(r"^echoing: 1 turn \(3\)")).wait_for(timeout=T)
    c.focus()
    page.keyboard.press("5")  # the card's own key: step 4, once (the page's listener does not click again)
    assert shown(c) == ["3", "4"]
    wait_saved(page, c)
    assert turns_of(served, item) == [3, 4]
    page.get_by_text(re.compile(r"^Marked: 2 turns \(3–4\)")).wait_for(timeout=T)
    # a turn on the second page: the first page's turns stay as stored
    page.get_by_role("button", name="Later ▶").last.click()  # (the trace view has its own, first)
    page.locator(".bi-card button.bi-opt[data-value='12']").wait_for(timeout=T)
    turn(turns_card(page), 12).click()
    wait_saved(page, turns_card(page))
    assert turns_of(served, item) == [3, 4, 12]
    page.get_by_text(re.compile(r"^Marked: 3 turns \(3–4, 12\)")).wait_for(timeout=T)
    open_scheme(page, served, "emergent", item)  # a refresh shows what is stored
    assert shown(turns_card(page)) == ["3", "4"]


def test_a_burst_of_20_turn_clicks_in_2_s_lands_as_the_last_state(page, served):
    item = "code-team-002"
    open_scheme(page, served, "emergent", item)
    c = turns_card(page)
    steps = [0, 1, 2, 3]
    expected: set[str] = set()
    for k in range(20):  # 20 clicks, 100 ms apart: faster than the saves
        step = steps[(k * 3) % 4 if k % 5 else k % 4]
        turn(c, step).click()
        expected ^= {str(step)}
        page.wait_for_timeout(100)
    want = [str(s) for s in steps if str(s) in expected]
    assert shown(c) == want
    wait_saved(page, c)
    assert [str(t) for t in turns_of(served, item)] == want and shown(c) == want


def test_a_failed_turn_save_says_why_and_shows_what_is_stored(page, served):
    item = "research-003"
    open_scheme(page, served, "emergent", item)
    turn(turns_card(page), 1).click()
    wait_saved(page, turns_card(page))
    with unwritable(served.config.parent / "annotations"):
        open_scheme(page, served, "emergent", item)
        c = turns_card(page)
        assert paints_at_once(turn(c, 2))["shown"] == ["1", "2"]
        status = c.locator(".bi-status")
        page.wait_for_function("(el) => el.dataset.state === 'failed'", arg=status.element_handle(), timeout=T)
        words = status.text_content()
        assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
        assert shown(c) == ["1"]
    assert turns_of(served, item) == [1]


# --- tool contention: the region cards' labels ---------------------------------------------------------

def open_regions(page, srv, item: str):
    page.goto(f"{srv.url}/contention?annotator=alice&item={item}")
    wait_app(page, 120000)
    page.locator(".baton-regions section.card").first.wait_for(timeout=T)


def region(page, index: int):
    return page.locator(f".baton-regions section[aria-label='Region #{index}']")


def checked(sec) -> str | None:
    return sec.evaluate("(s) => { const i = s.querySelector('input[type=radio]:checked'); return i && i.value; }")


def region_saved(page, sec, timeout=T):
    page.wait_for_function("(s) => s.querySelector('.state').dataset.state === 'saved'"
                           " && s.querySelector('.state').textContent.startsWith('Saved')",
                           arg=sec.element_handle(), timeout=timeout)


def label_paints_at_once(sec, label: str) -> dict:
    return sec.locator(f"input[type=radio][value={json.dumps(label)}]").evaluate("""(i) => { i.click();
        const s = i.closest('section');
        return {checked: s.querySelector('input[type=radio]:checked').value,
                status: s.querySelector('.state').textContent}; }""")


def labels_of(srv, item: str) -> dict:
    return (value(srv, item, "contention") or {}).get("contentions", {})


def test_a_label_click_paints_at_once_and_lands(page, served):
    item = "code-team-002"
    open_regions(page, served, item)
    sec = region(page, 1)
    assert label_paints_at_once(sec, "deadlock") == {"checked": "deadlock", "status": "Saving…"}
    region_saved(page, sec)
    assert labels_of(served, item) == {"1": "deadlock"}
    assert re.match(r"^Saved · \d\d:\d\d:\d\d$", sec.locator(".state").text_content())
    page.get_by_text(re.compile(r"1 labelled")).first.wait_for(timeout=T)  # the list's line follows
    # "Select" paints the selected card at once too
    got = region(page, 0).get_by_role("button", name="Select", exact=True).evaluate(
        "(b) => { b.click(); return b.closest('section').classList.contains('selected'); }")
    assert got is True
    page.get_by_text(re.compile(r"Selected: region #0\b")).first.wait_for(timeout=T)
    open_regions(page, served, item)  # a refresh shows what is stored
    assert checked(region(page, 1)) == "deadlock" and checked(region(page, 0)) == "unlabelled"


def test_a_burst_of_20_label_clicks_in_2_s_lands_as_the_last_state(page, served):
    item = "code-team-002"  # regions #0 and #1, both clicked: the last click of each is what is stored
    open_regions(page, served, item)
    regions = page.locator(".baton-regions section.card").evaluate_all(
        "(ss) => ss.map(s => s.getAttribute('aria-label').replace('Region #', ''))")
    picks = ["deadlock", "circular_wait", "race_condition", "benign", "unlabelled"]
    last: dict[str, str] = {}
    for k in range(20):
        r = regions[k % len(regions)]
        label = picks[(k * 3 + k // len(regions)) % len(picks)]
        region(page, int(r)).locator(f"input[type=radio][value='{label}']").click()
        last[r] = label
        page.wait_for_timeout(100)
    assert {r: checked(region(page, int(r))) for r in last} == last
    for r in last:
        region_saved(page, region(page, int(r)))
    want = {r: v for r, v in last.items() if v != "unlabelled"}
    assert wait_value(page, served, item, "contention", lambda v: (v or {}).get("contentions", {}) == want) \
        == ({"contentions": want} if want else None)
    assert {r: checked(region(page, int(r))) for r in last} == last


def test_a_failed_label_save_says_why_and_shows_what_is_stored(page, served):
    item = "trip-planner-001"
    open_regions(page, served, item)
    region(page, 0).locator("input[type=radio][value='benign']").click()
    region_saved(page, region(page, 0))
    with unwritable(served.config.parent / "annotations"):
        open_regions(page, served, item)
        sec = region(page, 0)
        assert label_paints_at_once(sec, "deadlock")["checked"] == "deadlock"
        page.wait_for_function("(s) => s.querySelector('.state').dataset.state === 'failed'",
                               arg=sec.element_handle(), timeout=T)
        words = sec.locator(".state").text_content()
        assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
        assert checked(sec) == "benign"  # the radio is back at what is stored
    assert labels_of(served, item) == {"0": "benign"}


# --- hostile text -------------------------------------------------------------------------------------

def test_hostile_turns_tools_and_labels_stay_text(page, tmp_path):
    run = {"id": "evil", "text": "t",
           "steps": [{"agent": HOSTILE[i % 2], "content": HOSTILE[(i + 2) % 4]} for i in range(4)],
           "calls": [{"agent": HOSTILE[0], "tool": HOSTILE[2], "resource": HOSTILE[3], "start": 0, "end": 5},
                     {"agent": HOSTILE[1], "tool": HOSTILE[1], "resource": HOSTILE[3], "start": 1, "end": 4}]}
    data = tmp_path / "evil.jsonl"
    data.write_text(json.dumps(run) + "\n")
    schemes = [{"annotation_type": "emergent_behavior", "name": "emergent", "behaviors": ["loop"]},
               {"annotation_type": "tool_contention", "name": "contention", "contention_labels": HOSTILE}]
    srv = Server(write_project(tmp_path, schemes=schemes, data_files=[str(data)])).start()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    clean = "() => window.__pwned === undefined"
    try:
        open_scheme(page, srv, "emergent", "evil")
        c = turns_card(page)
        texts = c.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => b.firstChild.textContent)")
        assert len(texts) == 4 and texts[0].startswith(f"Step 0 · {HOSTILE[0]} · ")
        assert HOSTILE[2][:20] in texts[0]
        assert page.locator(BAD).count() == 0 and page.evaluate(clean)
        turn(c, 0).click()
        wait_saved(page, c)
        assert page.locator(BAD).count() == 0 and page.evaluate(clean)

        open_regions(page, srv, "evil")
        sec = page.locator(".baton-regions section.card").first
        body = sec.inner_text()
        assert HOSTILE[3] in body  # the resource, as text
        names = sec.locator("label").evaluate_all("(ls) => ls.map(l => l.textContent)")
        assert names == ["unlabelled", *HOSTILE]
        sec.locator("input[type=radio]").nth(1).click()  # saved by its value
        region_saved(page, sec)
        assert page.locator(BAD).count() == 0 and page.evaluate(clean)
        got = AnnotationStore(tmp_path / "annotations")
        assert got.load("evil", "alice", "emergent").value == {"loop": {"turns": [0], "note": ""}}
        assert list(got.load("evil", "alice", "contention").value["contentions"].values()) == [HOSTILE[0]]
        assert dialogs == []
    finally:
        srv.stop()
