""""Reviewed, nothing to flag" (and the attribution's "No failure to attribute") as instant cards
(app/ui/instant_scheme.clean_card) in headless Chromium, on a Baton server: the click paints at
once and lands in the store as the status `reviewed_clean`, a second click takes it back, a
burst of 20 clicks in 2 s lands as its last state, a click while something is marked is refused
in words, and a save into a folder that cannot be written says so in words and shows what is
stored again. The card's texts are Baton's own; what it says comes in by `textContent`."""
from __future__ import annotations

import pytest

from app.store.storage import AnnotationStore
from tests.browser.test_instant_surfaces import (BAD, card, click_paints_at_once, open_scheme, option, shown,
                                                 unwritable, wait_saved)
from tests.browser.test_instant_surfaces import served  # noqa: F401 (the module's server: a fixture)

pytestmark = pytest.mark.browser

CLEAN, NO_FAILURE = "Reviewed, nothing to flag", "No failure to attribute"


def stored(srv, item: str, scheme: str):
    return AnnotationStore(srv.config.parent / "annotations").load(item, "alice", scheme)


def failed_run(page, srv, item: str) -> None:
    """The outcome answered "failure": the attribution is asked only then (its show_if)."""
    open_scheme(page, srv, "outcome", item)
    outcome = card(page, "outcome")
    option(outcome, "failure").click()
    wait_saved(page, outcome)


def wait_status(page, c, state: str, timeout=60000) -> str:
    status = c.locator(".bi-status")
    page.wait_for_function("([el, s]) => el.dataset.state === s", arg=[status.element_handle(), state],
                           timeout=timeout)
    return status.text_content()


@pytest.mark.parametrize("scheme, label", [("attribution", NO_FAILURE), ("tool_review", CLEAN),
                                           ("mast_steps", CLEAN), ("scorecard", CLEAN)])
def test_a_click_paints_at_once_lands_and_a_second_takes_it_back(page, served, scheme, label):
    item = "trip-planner-001"
    if scheme == "attribution":
        failed_run(page, served, item)
    open_scheme(page, served, scheme, item)
    clean = card(page, label)
    assert click_paints_at_once(clean, label) == [label]
    wait_saved(page, clean)
    ann = stored(served, item, scheme)
    assert ann is not None and ann.status == "reviewed_clean"
    # the whole page follows: the scheme's note says so
    page.get_by_text("Reviewed, nothing to flag", exact=False).last.wait_for(timeout=30000)
    clean = card(page, label)
    assert shown(clean) == [label]
    option(clean, label).click()  # taken back: not annotated again
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('.bi-opts')].some(g => g.getAttribute('aria-label') === t"
        " && !g.querySelector('button[aria-checked=true]'))", arg=label, timeout=60000)
    page.wait_for_timeout(500)
    assert stored(served, item, scheme) is None
    assert page.locator(BAD).count() == 0


def test_a_burst_of_20_clicks_in_2_s_lands_as_the_last_state(page, served):
    item = "code-team-002"
    failed_run(page, served, item)
    open_scheme(page, served, "attribution", item)
    clean = card(page, NO_FAILURE)
    for k in range(19):  # 19 clicks, 100 ms apart (faster than the saves): the last one records it
        option(clean, NO_FAILURE).click()
        page.wait_for_timeout(100)
    assert shown(clean) == [NO_FAILURE]
    wait_saved(page, clean)
    assert stored(served, item, "attribution").status == "reviewed_clean"
    clean = card(page, NO_FAILURE)
    option(clean, NO_FAILURE).click()  # the 20th: taken back
    page.wait_for_timeout(100)
    assert shown(clean) == []
    wait_saved(page, clean)
    assert stored(served, item, "attribution") is None


def test_refused_while_something_is_marked_says_why(page, served):
    item = "research-003"
    open_scheme(page, served, "handoffs", item)
    flags = page.locator(".bi-card").filter(has=page.locator("button.bi-opt", has_text="info_loss")).first
    option(flags, "info_loss").click()
    wait_saved(page, flags)
    before = stored(served, item, "handoffs")
    assert before.status == "annotated"
    clean = card(page, CLEAN)
    assert click_paints_at_once(clean, CLEAN) == [CLEAN]  # painted, then refused on the server
    words = wait_status(page, card(page, CLEAN), "failed")
    assert words.startswith("Not saved: 1 handoff is judged: clear them first")
    assert shown(card(page, CLEAN)) == []  # back to what is stored
    assert stored(served, item, "handoffs").value == before.value


def test_a_failed_save_says_why_and_returns_to_what_is_stored(page, served):
    item = "code-team-002"
    open_scheme(page, served, "tool_review", item)
    with unwritable(served.config.parent / "annotations"):
        open_scheme(page, served, "tool_review", item)
        clean = card(page, CLEAN)
        assert click_paints_at_once(clean, CLEAN) == [CLEAN]
        words = wait_status(page, clean, "failed")
        assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
        assert shown(clean) == []
    assert stored(served, item, "tool_review") is None
