"""The interaction graph in headless Chromium: node and edge clicks, and an injected agent name.

The graph is vis-network inside the component's iframe. Node positions on the canvas are read
from the network object itself (reached through React's fibre of the graph's container), so a
click lands on the node whatever the canvas size.
"""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from app.storage import AnnotationStore
from tests.browser.conftest import Server, wait_app
from tests.conftest import write_project

pytestmark = pytest.mark.browser

FRAME = 'iframe[title="streamlit_agraph.agraph"]'
INJECTED = '<img src=x onerror="document.title=\'pwned\'">'
# {node id: {x, y}} in canvas pixels, or null until the network is drawn
POSITIONS_JS = """(canvas) => {
  const host = canvas.closest('.vis-network').parentElement;
  const fibreKey = Object.keys(host).find(k => k.startsWith('__reactFiber') || k.startsWith('__reactInternalInstance'));
  let net = null;
  for (let f = host[fibreKey]; f && !net; f = f.return) {
    for (let h = f.memoizedState; h && typeof h === 'object' && 'memoizedState' in h; h = h.next) {
      if (h.memoizedState && typeof h.memoizedState.getPositions === 'function') { net = h.memoizedState; break; }
    }
  }
  if (!net) return null;
  const out = {};
  const pos = net.getPositions();
  for (const id in pos) out[id] = net.canvasToDOM(pos[id]);
  return out;
}"""


def _open(pg, url: str):
    pg.goto(url + "/agent_interaction_graph?annotator=alice")
    pg.wait_for_selector(FRAME, timeout=20000)
    wait_app(pg)


def _canvas(pg):
    return pg.frame_locator(FRAME).locator("canvas")


def node_position(pg, node_id: str, seconds: float = 15.0, pause_ms: int = 100) -> dict | None:
    """Where the drawn network has the node ({"x", "y"} on the canvas), once there is one graph
    on the page drawing it (while a handled click remounts the graph, the old and the new iframe
    coexist briefly); None if it is not drawn within `seconds`."""
    canvas = _canvas(pg)
    for _ in range(max(1, int(seconds * 1000 / pause_ms))):
        if pg.locator(FRAME).count() == 1:
            pos = canvas.evaluate(POSITIONS_JS)
            if pos and node_id in pos:
                return pos[node_id]
        pg.wait_for_timeout(pause_ms)
    return None


def _click(pg, node_id: str, double: bool = False):
    """Click a node where the drawn network has it (after a remount, on the new graph only)."""
    canvas = _canvas(pg)
    pos = node_position(pg, node_id)
    assert pos, f"node {node_id} not drawn"
    at = {"x": pos["x"], "y": pos["y"]}
    if double:
        canvas.dblclick(position=at)
    else:
        canvas.click(position=at)


def _summary(pg, label: str):
    """The summary line starting with the bold `label` (not the toggle labels)."""
    return pg.locator(f'[data-testid="stMarkdownContainer"] p:has(> strong:text-is("{label}"))')


def _stored(tmp_path, item="trip-planner-001"):
    ann = AnnotationStore(tmp_path / "annotations").load(item, "alice", "graph")
    return ann.value if ann else None


def test_node_clicked_twice_toggles_on_then_off(server, page, tmp_path):
    _open(page, server.url)
    crit = _summary(page, "Critical path:")
    expect(crit).to_have_text("Critical path: none marked")
    _click(page, "g2-n4")  # Critic
    expect(crit).to_have_text("Critical path: Critic", timeout=15000)
    assert _stored(tmp_path) == {"critical_nodes": ["Critic"], "edges": {}}
    expect(page.get_by_role("switch", name="Critical path: Critic")).to_be_checked()
    _click(page, "g2-n4")  # the same node again: a second click, not ignored
    expect(crit).to_have_text("Critical path: none marked", timeout=15000)
    assert _stored(tmp_path) is None
    expect(page.get_by_role("switch", name="Critical path: Critic")).not_to_be_checked()


def test_edge_clicked_through_its_three_states(server, page, tmp_path):
    _open(page, server.url)
    flagged = _summary(page, "Flagged handoffs:")
    expect(flagged).to_have_text("Flagged handoffs: none flagged")
    expected = [("Flagged handoffs: Planner → Critic: ★ critical", {"Planner->Critic": "critical"}),
                ("Flagged handoffs: Planner → Critic: ⚠ problematic", {"Planner->Critic": "problematic"}),
                ("Flagged handoffs: none flagged", None)]
    for text, edges in expected:
        _click(page, "g2-e6")  # the handle of Planner → Critic
        expect(flagged).to_have_text(text, timeout=15000)
        assert _stored(tmp_path) == (None if edges is None else {"critical_nodes": [], "edges": edges})


def test_injected_agent_name_stays_text(browser, tmp_path):
    data = tmp_path / "inject.jsonl"
    data.write_text(json.dumps({"id": "inject-1", "text": "injection", "steps": [
        {"agent": "Planner", "content": "hand over"},
        {"agent": INJECTED, "content": "hello"},
        {"agent": "Planner", "content": "done"}]}) + "\n")
    srv = Server(write_project(tmp_path, data_files=[str(data)])).start()
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        dialogs, popups = [], []
        pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        ctx.on("page", lambda p: popups.append(p.url))
        _open(pg, srv.url)
        title = pg.title()
        assert title != "pwned"
        # (the switch's accessible name is its Markdown source, escapes included: match the shown text)
        expect(pg.get_by_text(f"Critical path: {INJECTED}", exact=True)).to_be_visible()
        assert INJECTED in pg.inner_text("body")  # shown as text
        _click(pg, "g2-n1", double=True)  # a double-click on the injected agent's node
        expect(_summary(pg, "Critical path:")).to_have_text(f"Critical path: {INJECTED}", timeout=15000)
        pg.wait_for_timeout(500)
        assert _stored(tmp_path, "inject-1") == {"critical_nodes": [INJECTED], "edges": {}}
        assert len(ctx.pages) == 1 and not popups  # no stray tab from window.open
        assert pg.title() == title and not dialogs
        assert pg.locator('img[src="x"]').count() == 0
        frame = pg.frame_locator(FRAME)
        assert frame.locator('img[src="x"]').count() == 0
        assert frame.locator("body").evaluate("() => document.title") != "pwned"
    finally:
        ctx.close()
        srv.stop()
