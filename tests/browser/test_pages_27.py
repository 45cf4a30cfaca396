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


def _menu(page) -> list[str]:
    """The sidebar's menu: the path and query of each page it links to."""
    page.locator('[data-testid="stSidebar"] a[href]').first.wait_for(timeout=30000)
    return page.locator('[data-testid="stSidebar"] a[href]').evaluate_all("as => as.map(a => a.getAttribute('href'))")


def test_nothing_is_fetched_from_outside_the_machine(trail_server, page):
    """Every page of the menu (the graph's component iframe, each scheme's page, the summary) on
    a demo run and on the TRAIL run: every request goes to this machine."""
    requests, console = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console.append(m.text))
    page.on("requestfailed", lambda r: console.append(f"failed: {r.url} {r.failure}"))
    base = trail_server.url
    walked = []
    for item in ["trip-planner-001", TRAIL]:
        page.goto(f"{base}/outcome?annotator=alice&item={item}")
        wait_app(page, 120000)
        menu = _menu(page)
        assert len(menu) == 17, menu  # Items, the fourteen schemes, the summary, the keys
        for href in menu:
            page.goto(f"{base}/{href}")
            wait_app(page, 120000)
            if href.startswith("graph?"):  # the graph's component: its own page in an iframe
                page.frame_locator('iframe[title="streamlit_agraph.agraph"]').locator("canvas").wait_for(timeout=60000)
            try:
                page.wait_for_load_state("networkidle", timeout=5000)
            except Exception:  # (Playwright's TimeoutError: a page that keeps fetching is still checked below)
                pass
            assert page.locator('[data-testid="stException"]').count() == 0, href
            walked.append(href.split("?")[0])
    assert {"graph", "contention", "summary", "tool_review", "traversal"} <= set(walked)
    assert any("streamlit_agraph" in u for u in requests)  # (the iframe's own files were asked for, locally)
    outside = [u for u in requests if urlparse(u).scheme not in ("data", "blob", "about")
               and urlparse(u).hostname not in LOCAL]
    assert requests and not outside, outside
    assert not [m for m in console if "ERR_NAME_NOT_RESOLVED" in m or "fonts.g" in m], console
    # the page icon is the local image
    icon = page.evaluate("() => document.querySelector('link[rel~=icon]')?.href || ''")
    assert urlparse(icon).hostname in LOCAL or icon.startswith("data:"), icon


ROW_JS = """() => Array.from(document.querySelectorAll('[data-testid="stDataFrame"] [role=row]')).slice(1)
                  .map(r => Array.from(r.querySelectorAll('[role=gridcell]')).map(c => c.innerText))"""


def test_a_click_on_a_row_of_the_items_table_opens_that_item(trail_server, page):
    page.goto(trail_server.url + "/?annotator=alice")
    wait_app(page, 120000)
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.wait_for(timeout=30000)
    page.wait_for_function(ROW_JS.replace("() =>", "() => (") + ").length === 8", timeout=30000)
    rows = page.evaluate(ROW_JS)  # the grid's cells as its accessibility rows give them: #, item, ...
    ids = [r[1] for r in rows]
    # ids in natural order (as text, hand-crafted-33 came before hand-crafted-5), the TRAIL run's hex id first
    assert ids == [TRAIL, "code-team-002", "research-003", "trip-planner-001", "whowhen-algorithm-generated-1",
                   "whowhen-algorithm-generated-45", "whowhen-hand-crafted-5", "whowhen-hand-crafted-33"], ids
    assert [r[0] for r in rows] == [str(i) for i in range(1, 9)]
    # a click on the row of hand-crafted-33 (a 35 px header, 35 px rows): its row-selection cell at the left edge
    row = ids.index("whowhen-hand-crafted-33")
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 35 * row + 17)
    page.wait_for_url(lambda u: "/outcome" in u and "item=whowhen-hand-crafted-33" in u, timeout=30000)
    wait_app(page, 120000)
    assert page.get_by_role("heading", name="Outcome").count() >= 1
    picker = page.locator('[data-testid="stSidebar"] [data-testid="stPopover"] button').first
    assert "of 8: whowhen-hand-crafted-33" in picker.inner_text(), picker.inner_text()
    assert page.get_by_text("Item whowhen-hand-crafted-33").count() >= 1  # the trace's head names it


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
