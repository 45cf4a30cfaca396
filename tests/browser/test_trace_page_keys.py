"""The keys [ and ] turn the trace's pages (app/ui/keyboard.py, app/ui/pager.py), in headless
Chromium on a Baton server: ] the next page, [ the previous one, nothing past either end, and
typed in a text box they are text."""
from __future__ import annotations

import json
import re

import pytest

from tests.browser.conftest import Server, wait_app
from tests.conftest import write_project

pytestmark = pytest.mark.browser
ITEM = "long-run"  # 60 steps: 6 pages of the trace's steps, 3 of its board
T = 60000  # ms: generous, the machine may be busy
PAGE = re.compile(r"Steps (\d+)–(\d+) of (\d+) \(page (\d+)/(\d+)\)")


def shown_page(pg) -> tuple[int, int]:
    """(page, pages) the trace's pager says it shows."""
    found = PAGE.search(pg.locator(".st-key-baton-trace-pager").inner_text())
    return int(found.group(4)), int(found.group(5))


def key(pg, k: str, page: int):
    pg.keyboard.press(k)
    pg.wait_for_function("(p) => { const r = document.querySelector('.st-key-baton-trace-pager');"
                         " return r && r.innerText.includes(`(page ${p}/`); }", arg=page, timeout=T)
    wait_app(pg, T)


@pytest.fixture
def server(tmp_path):
    steps = [{"agent": ("planner", "worker")[i % 2], "content": f"step text {i}"} for i in range(60)]
    data = tmp_path / "run.jsonl"
    data.write_text(json.dumps({"id": ITEM, "text": "a long run", "steps": steps}) + "\n")
    srv = Server(write_project(tmp_path, data_files=[str(data)],
                              schemes=[{"annotation_type": "text", "name": "notes"}])).start()
    yield srv
    srv.stop()


def test_brackets_turn_the_trace_pages(server, page):
    pg = page
    pg.goto(f"{server.url}/notes?annotator=alice&item={ITEM}")
    wait_app(pg, 120000)
    pg.wait_for_function("() => window.__batonKeys", timeout=T)
    pg.locator(".st-key-baton-trace-pager").wait_for(timeout=T)
    assert shown_page(pg)[0] == 1
    pages = shown_page(pg)[1]
    assert pages >= 2
    first = pg.locator(".baton-steps .card[data-step]").first.get_attribute("data-step")
    pg.locator('[data-testid="stMain"] h1').first.click()  # the page has the keys, no control
    key(pg, "]", 2)
    assert shown_page(pg) == (2, pages)
    pg.wait_for_function("(s) => document.querySelector('.baton-steps .card[data-step]').dataset.step !== s",
                         arg=first, timeout=T)
    key(pg, "[", 1)
    key(pg, "[", 1)  # nothing before the first page
    assert shown_page(pg) == (1, pages)
    for p in range(2, pages + 1):
        key(pg, "]", p)
    key(pg, "]", pages)  # nothing after the last
    assert shown_page(pg) == (pages, pages)
    # typed in a text box, they are text: the trace stays on its page
    box = pg.locator(".bt-card .bt-box").first
    box.click()
    pg.keyboard.type("[x] ]")
    pg.wait_for_timeout(800)
    assert box.input_value() == "[x] ]" and shown_page(pg) == (pages, pages)
    pg.keyboard.press("Escape")  # out of the box: the keys turn the pages again
    key(pg, "[", pages - 1)
    assert shown_page(pg) == (pages - 1, pages)


def test_brackets_turn_the_pages_of_a_layout(server, page):
    pg = page
    pg.goto(f"{server.url}/notes?annotator=alice&item={ITEM}")
    wait_app(pg, 120000)
    pg.wait_for_function("() => window.__batonKeys", timeout=T)
    pg.locator('[data-testid="stMain"] button').filter(has_text=re.compile("^Board$")).click()  # the layout's own pager (app/ui/pager.pager)
    wait_app(pg, T)
    number = pg.locator(".st-key-baton-trace-pager input")
    number.wait_for(timeout=T)
    assert number.input_value() == "1"
    pg.locator('[data-testid="stMain"] h1').first.click()
    for k, want in (("]", "2"), ("]", "3"), ("]", "3"), ("[", "2")):
        pg.keyboard.press(k)
        pg.wait_for_function("(w) => document.querySelector('.st-key-baton-trace-pager input').value === w",
                             arg=want, timeout=T)
        wait_app(pg, T)
