"""The interaction graph in headless Chromium: node and edge clicks, and an injected agent name.

The graph is vis-network inside the component's iframe. Node positions on the canvas are read
from the network object itself (reached through React's fibre of the graph's container), so a
click lands on the node whatever the canvas size.
"""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from app.store.storage import AnnotationStore
from tests.browser.conftest import Server, wait_app
from tests.conftest import write_project

pytestmark = pytest.mark.browser

FRAME = 'iframe[title="streamlit_agraph.agraph"]'
INJECTED = '<img src=x onerror="document.title=\'pwned\'">'
# the vis-network object of the graph drawn on `canvas`, as `net` (null until there is one)
FIND_NETWORK = """
  const host = canvas.closest('.vis-network').parentElement;
  const fibreKey = Object.keys(host).find(k => k.startsWith('__reactFiber') || k.startsWith('__reactInternalInstance'));
  let net = null;
  for (let f = host[fibreKey]; f && !net; f = f.return) {
    for (let h = f.memoizedState; h && typeof h === 'object' && 'memoizedState' in h; h = h.next) {
      if (h.memoizedState && typeof h.memoizedState.getPositions === 'function') { net = h.memoizedState; break; }
    }
  }"""
# {node id: {x, y}} in canvas pixels, or null until the network is drawn
POSITIONS_JS = """(canvas) => {""" + FIND_NETWORK + """
  if (!net) return null;
  const out = {};
  const pos = net.getPositions();
  for (const id in pos) out[id] = net.canvasToDOM(pos[id]);
  return out;
}"""
# how many edges the drawn network holds
EDGES_JS = """(canvas) => {""" + FIND_NETWORK + """
  return net ? net.body.data.edges.length : null;
}"""


def _open(pg, url: str):
    pg.goto(url + "/agent_interaction_graph?annotator=alice")
    pg.wait_for_selector(FRAME, timeout=20000)
    wait_app(pg)


def _canvas(pg):
    return pg.frame_locator(FRAME).locator("canvas")


def node_position(pg, name: str, clicks: int | None = None, seconds: float = 15.0,
                  pause_ms: int = 100) -> dict | None:
    """Where the drawn network has the node drawn as `name` ("n4", "e6": its id without the
    prefix, which holds the number of clicks handled: `clicks`, if given), as {"x", "y"} on
    the canvas, once the page has one graph and it draws that node; None if not within `seconds`."""
    canvas = _canvas(pg)
    pattern = re.compile(rf"^g\d+-{clicks if clicks is not None else '[0-9]+'}-{re.escape(name)}$")
    for _ in range(max(1, int(seconds * 1000 / pause_ms))):
        if pg.locator(FRAME).count() == 1:
            pos = canvas.evaluate(POSITIONS_JS) or {}
            found = [p for node_id, p in pos.items() if pattern.match(node_id)]
            if len(found) == 1:
                return found[0]
        pg.wait_for_timeout(pause_ms)
    return None


def node_ids(pg) -> list[str]:
    """The ids of the nodes the drawn network holds."""
    return sorted((_canvas(pg).evaluate(POSITIONS_JS) or {}).keys())


def edge_count(pg) -> int:
    """How many edges the drawn network holds (two segments per handoff pair)."""
    return _canvas(pg).evaluate(EDGES_JS)


def _click(pg, name: str, clicks: int = 0, double: bool = False):
    """Click the node drawn as `name` where the drawn network has it, once the drawing is the one
    that follows `clicks` handled clicks."""
    canvas = _canvas(pg)
    pos = node_position(pg, name, clicks)
    assert pos, f"node {name} not drawn"
    at = {"x": pos["x"], "y": pos["y"]}
    if double:
        canvas.dblclick(position=at)
    else:
        canvas.click(position=at)


def _summary(pg, label: str):
    """The summary line starting with the bold `label`."""
    return pg.locator(f'[data-testid="stMarkdownContainer"] p:has(> strong:text-is("{label}"))')


def _critical_option(pg, agent: str):
    """The agent's option on the critical path's instant card."""
    return pg.locator(".bi-card:has(.bi-opts[aria-label='Critical path (agents)']) button.bi-opt").filter(
        has_text=re.compile("^" + re.escape(agent) + r"\d?$"))


def _stored(tmp_path, item="trip-planner-001"):
    ann = AnnotationStore(tmp_path / "annotations").load(item, "alice", "graph")
    return ann.value if ann else None


def test_node_clicked_twice_toggles_on_then_off(server, page, tmp_path):
    _open(page, server.url)
    crit = _summary(page, "Critical path:")
    expect(crit).to_have_text("Critical path: none marked")
    frame = page.locator(FRAME).element_handle()
    edges = edge_count(page)
    _click(page, "n4")  # Critic
    expect(crit).to_have_text("Critical path: Critic", timeout=15000)
    assert _stored(tmp_path) == {"critical_nodes": ["Critic"], "edges": {}}
    expect(_critical_option(page, "Critic")).to_have_attribute("aria-checked", "true")  # its card too
    page.wait_for_timeout(1000)  # (sooner, it could be the second half of a double-click)
    _click(page, "n4", clicks=1)  # the same node again: a second click, not ignored
    expect(crit).to_have_text("Critical path: none marked", timeout=15000)
    assert _stored(tmp_path) is None
    expect(_critical_option(page, "Critic")).to_have_attribute("aria-checked", "false")
    # updated in place: the same iframe, its nodes renamed, no edge drawn twice
    assert node_position(page, "n4", clicks=2) is not None
    assert frame.evaluate("e => e.isConnected") and page.locator(FRAME).count() == 1
    assert edge_count(page) == edges and not any(i.startswith("g2-0-") for i in node_ids(page))


def test_edge_clicked_through_its_three_states(server, page, tmp_path):
    _open(page, server.url)
    flagged = _summary(page, "Flagged handoffs:")
    expect(flagged).to_have_text("Flagged handoffs: none flagged")
    expected = [("Flagged handoffs: Planner → Critic: ★ critical", {"Planner->Critic": "critical"}),
                ("Flagged handoffs: Planner → Critic: ⚠ problematic", {"Planner->Critic": "problematic"}),
                ("Flagged handoffs: none flagged", None)]
    n_edges = edge_count(page)
    for clicks, (text, edges) in enumerate(expected):
        page.wait_for_timeout(1000)  # one click each (not a double-click)
        _click(page, "e6", clicks)  # the handle of Planner → Critic
        expect(flagged).to_have_text(text, timeout=15000)
        assert _stored(tmp_path) == (None if edges is None else {"critical_nodes": [], "edges": edges})
    assert node_position(page, "e6", clicks=3) is not None
    assert edge_count(page) == n_edges  # each state's segments replaced, not drawn over the old ones


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
        # on the critical path's card as text (written with textContent)
        expect(_critical_option(pg, INJECTED)).to_have_count(1)
        assert _critical_option(pg, INJECTED).evaluate("b => b.firstChild.textContent") == INJECTED
        assert INJECTED in pg.inner_text("body")  # shown as text
        _click(pg, "n1", double=True)  # a double-click on the injected agent's node
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
