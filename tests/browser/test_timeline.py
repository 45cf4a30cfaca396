"""In headless Chromium: click a bar of the contention timeline, see its region selected in the
list, label it through its control, and find the label in the Parquet store."""
import re
import time

import pytest

from app.store.storage import AnnotationStore
from tests.browser.conftest import wait_app

pytestmark = pytest.mark.browser
ITEM = "code-team-002"
# ".baton-timeline:not([aria-hidden])": the chart on screen (the next item's may be drawn unseen
# beside it, with aria-hidden: app/ui/timeline_chart.py)


def stored(server, scheme="contention"):
    return AnnotationStore(server.config.parent / "annotations").load(ITEM, "alice", scheme)


def wait_for(check, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    return check()


def click_centre(pg, locator):
    box = locator.bounding_box()
    assert box, "element not laid out"
    pg.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_click_bar_selects_region_then_label_it(server, page):
    pg = page
    pg.goto(f"{server.url}/tool_contention?annotator=alice&item={ITEM}")
    wait_app(pg)
    pg.locator(".baton-timeline:not([aria-hidden]) .barlayer .point").first.wait_for()
    bars = pg.locator(".baton-timeline:not([aria-hidden]) .barlayer .point")
    assert bars.count() == 6  # one bar per call, in call order
    assert pg.get_by_text("Selected ·").count() == 0

    pg.evaluate("() => { window.__firstBar = document.querySelector('.baton-timeline:not([aria-hidden]) .barlayer .point'); }")
    # call 2: Tester's edit_file on repo_lock, 55-400 s, inside region #1
    click_centre(pg, bars.nth(2))
    # the selection and how it was made, in one line (issue 27: the message once)
    pg.get_by_text("Selected: region #1 (call 2 clicked on the chart)").wait_for(timeout=10000)
    wait_app(pg)
    selected = pg.locator(".baton-regions section", has_text="Selected ·")
    assert selected.count() == 1 and "Region #1" in selected.inner_text()
    # named under the chart, which was not drawn again (the same SVG nodes, nothing dimmed)
    pg.get_by_text("Selected: region #1").wait_for(timeout=10000)
    assert pg.evaluate("() => window.__firstBar === document.querySelector('.baton-timeline:not([aria-hidden]) .barlayer .point')")
    opacities = pg.locator(".baton-timeline:not([aria-hidden]) .barlayer .point path").evaluate_all(
        "ps => ps.map(p => getComputedStyle(p).opacity)")
    assert set(opacities) == {"1"}, opacities

    # "Select" in the list: only the list re-runs; the chart keeps its drawing
    pg.get_by_role("button", name="Select", exact=True).first.click()
    pg.get_by_text("Selected: region #0 (chosen in the list)").wait_for(timeout=10000)
    wait_app(pg)
    assert pg.evaluate("() => window.__firstBar === document.querySelector('.baton-timeline:not([aria-hidden]) .barlayer .point')")

    # a region marker selects its region
    marker0 = pg.locator(".baton-timeline:not([aria-hidden]) .scatterlayer .point").nth(0)
    pg.locator(".baton-timeline:not([aria-hidden])").scroll_into_view_if_needed()  # "Select" scrolled the list into view
    click_centre(pg, marker0)
    pg.get_by_text("Selected: region #0 (its ◆ marker clicked)").wait_for(timeout=10000)
    wait_app(pg)
    assert "Region #0" in pg.locator(".baton-regions section", has_text="Selected ·").inner_text()

    # back to the bar, then label region #1 with its radio row (keyboard-operable: arrow keys)
    bars = pg.locator(".baton-timeline:not([aria-hidden]) .barlayer .point")
    click_centre(pg, bars.nth(2))
    pg.get_by_text("Selected: region #1 (call 2 clicked on the chart)").wait_for(timeout=10000)
    wait_app(pg)
    group = pg.get_by_role("radiogroup", name="Label for region #1")
    group.scroll_into_view_if_needed()
    group.get_by_text("deadlock", exact=True).click()
    wait_app(pg)
    # the list re-ran alone: the region's status line says it is saved
    pg.locator(".baton-regions section[aria-label='Region #1'] .state[data-state=saved]",
               has_text=re.compile(r"^Saved · \d")).first.wait_for(timeout=10000)

    ann = wait_for(lambda: stored(server))
    assert ann is not None and ann.value == {"contentions": {"1": "deadlock"}}
    assert ann.status == "annotated"

    # a refresh shows it again
    pg.reload()
    wait_app(pg)
    group = pg.get_by_role("radiogroup", name="Label for region #1")
    group.wait_for()
    assert group.get_by_role("radio", name="deadlock").is_checked()
    assert pg.get_by_role("radiogroup", name="Label for region #0").get_by_role("radio", name="unlabelled").is_checked()

    # the time window's slider opens from the button that names the window
    pg.get_by_role("button", name=re.compile(r"^Time window: 0–420 s of 420")).click()
    pg.get_by_role("slider").first.wait_for(timeout=10000)
    assert pg.get_by_role("slider").count() == 2  # its two thumbs


def test_next_items_chart_is_drawn_ahead_and_shown_on_done(server, page):
    """The page hands the next item's opening chart to the browser, which draws it unseen once the
    page is quiet; "Done → next" shows that drawing as it is, and it answers clicks."""
    pg = page
    pg.goto(f"{server.url}/tool_contention?annotator=alice&item={ITEM}")
    wait_app(pg)
    ahead = pg.locator(".baton-timeline[aria-hidden] .barlayer .point")
    ahead.first.wait_for(state="attached", timeout=15000)
    assert ahead.count() == 3  # research-003's three calls
    hidden = pg.locator(".baton-timeline[aria-hidden]")
    assert hidden.evaluate("d => d.inert && getComputedStyle(d).visibility") == "hidden"
    assert pg.locator(".baton-timeline:not([aria-hidden]) .barlayer .point").count() == 6  # on screen: this item's
    pg.evaluate("() => { window.__ahead = document.querySelector('.baton-timeline[aria-hidden]');"
                " window.__bar = window.__ahead.querySelector('.barlayer .point'); }")
    pg.get_by_role("button", name=re.compile("Done with this item")).click()
    pg.wait_for_function("() => document.body.textContent.includes('research-003')", timeout=15000)
    wait_app(pg)
    assert pg.evaluate("""() => {
        const shown = document.querySelector('.baton-timeline:not([aria-hidden])');
        return shown === window.__ahead && shown.querySelector('.barlayer .point') === window.__bar; }""")
    assert pg.locator(".baton-timeline:not([aria-hidden]) .barlayer .point").count() == 3
    bar = pg.locator(".baton-timeline:not([aria-hidden]) .barlayer .point").nth(0)
    bar.scroll_into_view_if_needed()  # "Done → next" left the page scrolled down
    click_centre(pg, bar)  # on screen, over the previous item's chart, now hidden
    pg.get_by_text("Call 0 is in no contention region.").wait_for(timeout=10000)


def test_html_in_trace_names_is_text_in_the_chart(tmp_path, browser):
    import json

    from tests.browser.conftest import Server
    from tests.conftest import write_project

    evil = '<img src=x onerror="window.__pwned=1">'
    run = {"id": "evil", "text": "t", "steps": [{"agent": evil, "content": "hi"}],
           "calls": [{"agent": evil, "tool": "<b>t</b>", "resource": "db", "start": 0, "end": 5},
                     {"agent": "B", "tool": "<a href='javascript:window.__pwned=2'>x</a>", "resource": "db",
                      "start": 1, "end": 4}]}
    data = tmp_path / "evil.jsonl"
    data.write_text(json.dumps(run) + "\n")
    srv = Server(write_project(tmp_path, data_files=[str(data)])).start()
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        pg.goto(f"{srv.url}/tool_contention?annotator=alice&item=evil")
        wait_app(pg)
        pg.locator(".baton-timeline:not([aria-hidden]) .barlayer .point").first.wait_for()
        ticks = pg.locator(".baton-timeline:not([aria-hidden]) .ytick text").all_text_contents()
        assert any(t.startswith("<img src=x onerror=") for t in ticks), ticks
        bars = pg.locator(".baton-timeline:not([aria-hidden]) .barlayer .point")
        for i in range(bars.count()):  # hover labels render too
            box = bars.nth(i).bounding_box()
            pg.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            pg.wait_for_timeout(200)
        click_centre(pg, bars.nth(1))
        wait_app(pg)
        assert pg.evaluate("() => window.__pwned") is None
        assert pg.locator(".baton-timeline:not([aria-hidden]) img").count() == 0
        assert pg.locator(".baton-timeline:not([aria-hidden]) a").count() == 0
    finally:
        ctx.close()
        srv.stop()


def test_region_labels_by_keyboard_keep_the_focus(server, page):
    """Arrow keys in a region's radio group save each choice; the cards are drawn again with
    what was saved, and the focus stays on the group, so the next arrow key goes on."""
    pg = page
    pg.goto(f"{server.url}/tool_contention?annotator=alice&item={ITEM}")
    wait_app(pg)
    group = pg.get_by_role("radiogroup", name="Label for region #1")
    group.get_by_role("radio", name="unlabelled").focus()
    pg.keyboard.press("ArrowRight")
    assert wait_for(lambda: (a := stored(server)) and a.value == {"contentions": {"1": "deadlock"}})
    pg.locator(".baton-regions section[aria-label='Region #1'] .state[data-state=saved]").wait_for(timeout=10000)
    assert pg.evaluate("() => document.activeElement.value") == "deadlock"
    pg.keyboard.press("ArrowRight")
    assert wait_for(lambda: (a := stored(server)) and a.value == {"contentions": {"1": "circular_wait"}})
    pg.wait_for_function("() => document.querySelector(\"section[aria-label='Region #1'] .state\").dataset.state"
                         " === 'saved'", timeout=10000)
    assert pg.evaluate("() => document.activeElement.value") == "circular_wait"
    assert group.get_by_role("radio", name="circular_wait").is_checked()
