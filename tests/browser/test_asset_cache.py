"""The graph component's 1.26 MB script is kept by the browser between navigations (issue 27.4:
"the canvas shows within 1 s"): the second visit to a graph page takes it from the browser's
cache instead of the server (app/ui/asset_cache.py). Times are printed, not asserted."""
from __future__ import annotations

import time

import pytest

from tests.browser.conftest import wait_app
from tests.browser.test_graph import FRAME
from tests.browser.test_ux27 import INK_JS

pytestmark = pytest.mark.browser
T = 60000  # ms: generous, the machine may be busy
BUNDLE = "/component/streamlit_agraph.agraph/static/js/2."  # the vis-network bundle (hashed name)


def _inked(pg, timeout: float = 30.0) -> bool:
    canvas = pg.frame_locator(FRAME).locator("canvas")
    end = time.time() + timeout
    while time.time() < end:
        try:
            if canvas.evaluate(INK_JS, timeout=2000) > 50:
                return True
        except Exception:  # the iframe not there yet, or replaced while read
            pass
        time.sleep(0.02)
    return False


def test_the_graph_script_comes_from_the_browser_cache_on_the_next_visit(server, page):
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    fetched: dict[str, dict] = {}  # request id -> what the browser said of it
    cdp.on("Network.responseReceived", lambda ev: fetched.setdefault(ev["requestId"], {}).update(
        url=ev["response"]["url"], cache_control=ev["response"]["headers"].get("cache-control", ""),
        disk=ev["response"].get("fromDiskCache", False)) if BUNDLE in ev["response"]["url"] else None)
    cdp.on("Network.requestServedFromCache", lambda ev: fetched.setdefault(ev["requestId"], {}).update(memory=True))
    page.goto(f"{server.url}/handoff_review?annotator=alice&item=code-team-002")
    wait_app(page)
    visits = []
    for visit in range(2):
        fetched.clear()
        t0 = time.time()
        page.get_by_role("link", name="Critical path and handoffs").first.click()
        page.get_by_text("Critical path:").first.wait_for(timeout=T)
        text = time.time() - t0
        page.wait_for_selector(FRAME, timeout=T)
        assert _inked(page)
        visits.append((text, time.time() - t0, [dict(v) for v in fetched.values() if v.get("url")]))
        wait_app(page)
        page.get_by_role("link", name="Handoff quality").first.click()
        wait_app(page)
    for n, (text, ink, got) in enumerate(visits, 1):
        print(f"visit {n}: page text after {text:.2f} s, canvas drawn after {ink:.2f} s; script: {got}")
    first, second = visits[0][2], visits[1][2]
    assert first and all("immutable" in g["cache_control"] and "max-age=31536000" in g["cache_control"] for g in first)
    # the second visit asks no server for it: from the memory or the disk cache
    assert second and all(g.get("memory") or g.get("disk") for g in second), second
