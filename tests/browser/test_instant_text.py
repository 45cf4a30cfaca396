"""The instant text cards (app/ui/instant_text.py) in headless Chromium, on a Baton server: typing
paints natively and is saved after a pause, a burst of edits lands as its last text, a failed
save keeps the typed words and says so (the stored text under "What is stored"), hostile text
and Markdown stay text, keys typed in the box never reach the page's shortcuts, and the next
item's box never receives the previous item's text."""
from __future__ import annotations

import re

import pytest

from app.store.storage import Annotation, AnnotationStore
from tests.browser.conftest import Server, wait_app
from tests.browser.test_instant_surfaces import BAD, unwritable
from tests.browser.test_instant_turns_regions import value, wait_value
from tests.conftest import write_project

pytestmark = pytest.mark.browser
T = 60000  # ms: generous, the machine may be busy
SAVED = re.compile(r"^Saved · \d\d:\d\d:\d\d")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    srv = Server(write_project(tmp_path_factory.mktemp("instant-text"))).start()
    yield srv
    srv.stop()


def open_notes(page, srv, item: str, scheme: str = "notes"):
    page.goto(f"{srv.url}/{scheme}?annotator=alice&item={item}")
    wait_app(page, 120000)
    page.locator(".bt-card .bt-box").first.wait_for(timeout=T)
    return page.locator(".bt-card").first


def status(card) -> tuple[str, str]:
    return card.evaluate("(c) => { const s = c.querySelector('.bt-status'); return [s.dataset.state, s.textContent]; }")


def wait_state(page, card, state: str, timeout=T):
    page.wait_for_function("([c, state]) => c.querySelector('.bt-status').dataset.state === state",
                           arg=[card.element_handle(), state], timeout=timeout)


def test_typing_paints_at_once_is_saved_after_a_pause_and_keys_stay_in_the_box(page, served):
    item = "trip-planner-001"
    card = open_notes(page, served, item)
    assert status(card) == ["empty", "Not annotated yet"]
    box = card.locator(".bt-box")
    box.focus()
    # j, k, digits, n, p, d and s are the page's keys (app/ui/keyboard.py): typed here they are text
    page.keyboard.type("jk 1 2 n p d s t")
    got = card.evaluate("(c) => [c.querySelector('.bt-box').value, c.querySelector('.bt-status').textContent]")
    assert got == ["jk 1 2 n p d s t", "Saving…"]  # painted by the browser, the save behind
    wait_state(page, card, "saved")
    assert SAVED.match(status(card)[1])
    assert value(served, item, "notes") == {"text_box": "jk 1 2 n p d s t"}
    assert f"item={item}" in page.url and page.locator(".baton-kb-current").count() == 0
    # Escape leaves the box: j moves between cards again
    page.keyboard.press("Escape")
    assert page.evaluate("() => document.activeElement.classList.contains('bt-box')") is False
    page.keyboard.press("j")
    page.locator(".baton-kb-current").first.wait_for(timeout=T)
    # a refresh shows what is stored
    card = open_notes(page, served, item)
    assert card.locator(".bt-box").input_value() == "jk 1 2 n p d s t" and SAVED.match(status(card)[1])


def test_a_burst_of_edits_lands_as_the_last_text(page, served):
    item = "code-team-002"
    card = open_notes(page, served, item)
    box = card.locator(".bt-box")
    texts = [f"edit {k}: " + "w" * k for k in range(20)]
    for k, text in enumerate(texts):  # 20 edits in 2 s, some sent at once (Ctrl+Enter), others not
        box.fill(text)
        if k % 3 == 0:
            box.press("Control+Enter")
        page.wait_for_timeout(100)
    wait_state(page, card, "saved")
    assert box.input_value() == texts[-1]
    assert wait_value(page, served, item, "notes", lambda v: v == {"text_box": texts[-1]}) == {"text_box": texts[-1]}
    page.wait_for_timeout(2000)  # nothing older lands afterwards (resends of an older text)
    assert value(served, item, "notes") == {"text_box": texts[-1]} and box.input_value() == texts[-1]


def test_a_failed_save_keeps_the_typed_words_and_says_so(page, served):
    item = "research-003"
    card = open_notes(page, served, item)
    box = card.locator(".bt-box")
    box.fill("what was stored first")
    box.press("Control+Enter")
    wait_state(page, card, "saved")
    with unwritable(served.config.parent / "annotations"):
        box.fill("my typed words <b>HTMLBOLD</b>")
        box.blur()  # leaving the box sends it
        wait_state(page, card, "failed")
        words = status(card)[1]
        assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
        assert "kept in the box" in words
        assert box.input_value() == "my typed words <b>HTMLBOLD</b>"  # never lose typed work
        fold = card.locator("details.bt-stored")
        assert fold.is_visible() and fold.locator("summary").text_content() == "What is stored"
        fold.locator("summary").click()
        assert fold.locator(".bt-stored-text").text_content() == "what was stored first"
        page.wait_for_timeout(1500)  # a rerun of the page does not take the words away
        assert box.input_value() == "my typed words <b>HTMLBOLD</b>" and status(card)[0] == "failed"
    assert value(served, item, "notes") == {"text_box": "what was stored first"}
    box.focus()
    box.press("Control+Enter")  # writable again: the same words, tried again
    wait_state(page, card, "saved")
    assert value(served, item, "notes") == {"text_box": "my typed words <b>HTMLBOLD</b>"}
    assert not card.locator("details.bt-stored").is_visible()
    assert page.locator(BAD).count() == 0


HOSTILE = ['<img src=x onerror="window.__pwned=1">', "</textarea><script>window.__pwned=2</script>",
           "**MDBOLD** [MDLINK](javascript:window.__pwned=3)", '<b id="inj">HTMLBOLD</b>']


def test_hostile_text_and_markdown_stay_text(page, tmp_path):
    cfg = write_project(tmp_path, schemes=[
        {"annotation_type": "text", "name": "notes"},
        {"annotation_type": "radio", "name": "verdict", "labels": ["ok", "bad"],
         "has_free_response": {"instruction": HOSTILE[0]}}])
    store = AnnotationStore(tmp_path / "annotations")
    from app.project.workspace import open_project
    ws = open_project(cfg)
    item = ws.by_id["trip-planner-001"]
    stored_text = "\n".join(HOSTILE)
    store.save(Annotation(item.id, "alice", "notes", "text", {"text_box": stored_text}, "annotated",
                          item.trace_hash, None, 1))
    srv = Server(cfg).start()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        card = open_notes(page, srv, item.id)
        assert card.locator(".bt-box").input_value() == stored_text  # as stored, into .value
        assert page.locator(BAD).count() == 0 and page.evaluate("() => window.__pwned") is None
        typed = HOSTILE[2] + " " + HOSTILE[0]
        card.locator(".bt-box").fill(typed)
        card.locator(".bt-box").press("Control+Enter")
        wait_state(page, card, "saved")
        assert value(srv, item.id, "notes") == {"text_box": typed}
        card = open_notes(page, srv, item.id)
        assert card.locator(".bt-box").input_value() == typed
        # the free response's title from the config is text too
        card = open_notes(page, srv, item.id, "verdict")
        assert card.locator(".bt-title").text_content() == HOSTILE[0]
        card.locator(".bt-box").fill(HOSTILE[3])
        card.locator(".bt-box").press("Enter")  # one line: Enter sends it
        wait_state(page, card, "saved")
        assert value(srv, item.id, "verdict") == {"free_response": HOSTILE[3]}
        assert page.locator(BAD).count() == 0 and page.evaluate("() => window.__pwned") is None
        assert dialogs == []
    finally:
        srv.stop()


def test_the_next_item_never_receives_the_previous_items_text(page, served):
    first, second = "whowhen-hand-crafted-33", None
    card = open_notes(page, served, first)
    box = card.locator(".bt-box")
    box.fill("typed on the first item")
    page.keyboard.press("Alt+N")  # the next item at once, within the pause: what was typed goes first
    page.wait_for_url(lambda u: f"item={first}" not in u, timeout=T)
    wait_app(page, T)
    second = re.search(r"item=([^&]+)", page.url).group(1)
    page.wait_for_function("(c) => c.querySelector('.bt-box').value === ''", arg=card.element_handle(), timeout=T)
    assert wait_value(page, served, first, "notes", lambda v: v is not None) == {"text_box": "typed on the first item"}
    page.wait_for_timeout(2000)  # resends, late triggers: none lands on the second item
    assert value(served, second, "notes") is None and box.input_value() == ""
    assert status(card) == ["empty", "Not annotated yet"]
    box.fill("typed on the second item")
    box.press("Control+Enter")
    wait_state(page, card, "saved")
    assert value(served, second, "notes") == {"text_box": "typed on the second item"}
    assert value(served, first, "notes") == {"text_box": "typed on the first item"}


def test_a_page_shortcut_pressed_while_typing_saves_first_then_goes(page, served):
    item = "whowhen-algorithm-generated-1"
    card = open_notes(page, served, item)
    card.locator(".bt-box").fill("typed, then Alt+K at once")
    page.keyboard.press("Alt+K")  # the previous surface (the symptoms): the text is saved, then it goes
    page.wait_for_url(lambda u: "/symptoms?" in u, timeout=T)
    assert wait_value(page, served, item, "notes", lambda v: v is not None) == {"text_box": "typed, then Alt+K at once"}
