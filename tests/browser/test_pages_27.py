"""Issue 27 in a real browser, on the demo and on a TRAIL run: nothing fetched from outside the
machine; the Items table opens the clicked item; a page per scheme, named by the scheme."""
from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.browser.conftest import Server, wait_app
from tests.conftest import ROOT, write_project

pytestmark = pytest.mark.browser
TRAIL = "512475a321c616e45337da3575f6a185"
LOCAL = {"127.0.0.1", "localhost", "::1", "[::1]"}


@pytest.fixture
def trail_server(tmp_path):
    """The demo project with its TRAIL run."""
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "demo_runs.jsonl"), str(ROOT / "data" / "whowhen"),
                                              str(ROOT / "data" / "trail")])
    srv = Server(cfg).start()
    yield srv
    srv.stop()


def test_nothing_is_fetched_from_outside_the_machine(trail_server, page):
    requests, console = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console.append(m.text))
    page.on("requestfailed", lambda r: console.append(f"failed: {r.url} {r.failure}"))
    base = trail_server.url
    for path in ["/", f"/outcome?annotator=alice&item={TRAIL}", f"/tool_review?annotator=alice&item={TRAIL}",
                 f"/contention?annotator=alice&item={TRAIL}", "/summary?annotator=alice"]:
        page.goto(base + path)
        wait_app(page, 120000)
        page.wait_for_timeout(1500)
    outside = [u for u in requests if urlparse(u).scheme not in ("data", "blob", "about")
               and urlparse(u).hostname not in LOCAL]
    assert requests and not outside, outside
    assert not [m for m in console if "ERR_NAME_NOT_RESOLVED" in m or "fonts.g" in m], console
    # the page icon is the local image
    icon = page.evaluate("() => document.querySelector('link[rel~=icon]')?.href || ''")
    assert urlparse(icon).hostname in LOCAL or icon.startswith("data:"), icon


def test_a_click_on_a_row_of_the_items_table_opens_that_item(trail_server, page):
    page.goto(trail_server.url + "/?annotator=alice")
    wait_app(page, 120000)
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.wait_for(timeout=30000)
    box = grid.bounding_box()
    # rows in natural order: ..., hand-crafted-5 before hand-crafted-33, the TRAIL run (its hex id) first
    text = page.evaluate("""() => Array.from(document.querySelectorAll('[data-testid="stDataFrame"] table tr'))
                                  .map(r => r.innerText).join('\\n')""")
    if "hand-crafted" in text:
        assert text.index("hand-crafted-5") < text.index("hand-crafted-33")
    # the third data row (a 35 px header, 35 px rows): click its row-selection cell at the left edge
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 35 * 2 + 17)
    page.wait_for_url(lambda u: "item=" in u and "/outcome" in u, timeout=30000)
    wait_app(page, 120000)
    body = page.inner_text("body")
    assert "Outcome" in body
    assert "item=" in page.url


def test_each_scheme_has_its_own_page_named_by_it(trail_server, page):
    page.goto(f"{trail_server.url}/outcome?annotator=alice&item={TRAIL}")
    wait_app(page, 120000)
    page.get_by_role("link", name="Orchestration pattern").wait_for(timeout=30000)
    links = page.locator('[data-testid="stSidebar"] a[href]').all_inner_texts()
    names = [t.strip() for t in links]
    assert names[:4] == ["Items", "Outcome", "Who failed, and where", "Critical path and handoffs"]
    assert "Orchestration pattern" in names and "Single choice" not in names and "Likert" not in names
    page.get_by_role("link", name="Orchestration pattern").click()
    page.wait_for_url(lambda u: "/orchestration" in u, timeout=30000)
    wait_app(page, 120000)
    assert page.get_by_role("heading", name="Orchestration pattern").count() >= 1
    assert "Did the team accomplish the task?" not in page.inner_text('[data-testid="stMain"]')
