"""The interaction graph's instant cards in headless Chromium (issue 31): the critical path's card
and a handoff pair's card paint a click at once and land "Saved"; the graph is drawn again from
what is stored; a burst of 20 clicks lands as its last state; a failed save says why in words and
everything returns to what is stored; the card's number keys pick; a click on the canvas and the
cards agree; hostile agent names stay text."""
from __future__ import annotations

import json
import re
import time

import pytest

from app.store.storage import AnnotationStore
from tests.browser.conftest import Server, wait_app
from tests.browser.test_graph import FIND_NETWORK, FRAME, INJECTED, _click
from tests.browser.test_instant_surfaces import click_paints_at_once, option, shown, unwritable, wait_saved
from tests.conftest import write_project

pytestmark = pytest.mark.browser

CRITICAL = "Critical path (agents)"
# the nodes the drawn network holds: {id: {label, shape}}, or null until there is one
NODES_JS = """(canvas) => {""" + FIND_NETWORK + """
  if (!net) return null;
  const out = {};
  for (const n of net.body.data.nodes.get()) out[n.id] = {label: n.label, shape: n.shape};
  return out;
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One Baton server on the demo project for the tests of this file (each uses its own item)."""
    srv = Server(write_project(tmp_path_factory.mktemp("graph-cards"))).start()
    yield srv
    srv.stop()


def stored(srv, item: str):
    ann = AnnotationStore(srv.config.parent / "annotations").load(item, "alice", "graph")
    return None if ann is None else ann.value


def open_graph(page, srv, item: str):
    page.goto(f"{srv.url}/graph?annotator=alice&item={item}")
    wait_app(page, 120000)
    page.locator(".bi-card").first.wait_for(timeout=60000)
    page.wait_for_selector(FRAME, timeout=60000)


def card(page, title: str):
    """The instant card whose title starts with `title` (a handoff's ends with its count)."""
    return page.locator(".bi-card").filter(has=page.locator(f".bi-opts[aria-label^={json.dumps(title, ensure_ascii=False)}]"))


def drawn_node(page, name: str, seconds: float = 30) -> dict:
    """The drawn node whose id ends with `name` ("n4": Critic, "e6": Planner → Critic's box)."""
    canvas = page.frame_locator(FRAME).locator("canvas")
    for _ in range(int(seconds * 10)):
        found = [n for i, n in (canvas.evaluate(NODES_JS) or {}).items() if i.endswith("-" + name)]
        if found:
            return found[0]
        page.wait_for_timeout(100)
    raise AssertionError(f"node {name} not drawn")


def wait_drawn(page, name: str, test, what: str, seconds: float = 30) -> None:
    """Until the drawn node `name` passes `test` (the graph redrawn from the store)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if test(drawn_node(page, name)):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"the graph did not draw {name} {what}: {drawn_node(page, name)}")


def until(page, test, what: str, seconds: float = 30) -> None:
    deadline = time.time() + seconds
    while not test():
        assert time.time() < deadline, f"not within {seconds} s: {what}"
        page.wait_for_timeout(100)


def star(node: dict) -> bool:
    return node["shape"] == "star" and "★ critical path" in node["label"]


def test_a_card_click_paints_at_once_lands_and_the_graph_follows(page, served):
    item = "trip-planner-001"
    open_graph(page, served, item)
    crit = card(page, CRITICAL)
    assert not star(drawn_node(page, "n4"))
    assert click_paints_at_once(crit, "Critic") == ["Critic"]
    wait_saved(page, crit)
    assert stored(served, item) == {"critical_nodes": ["Critic"], "edges": {}}
    wait_drawn(page, "n4", star, "as critical")  # Critic: a star now
    page.get_by_text("Critical path: Critic", exact=True).wait_for(timeout=30000)  # and the summary says so

    pair = card(page, "Planner → Critic (")
    assert click_paints_at_once(pair, "★ critical") == ["critical"]
    wait_saved(page, pair)
    assert stored(served, item) == {"critical_nodes": ["Critic"], "edges": {"Planner->Critic": "critical"}}
    wait_drawn(page, "e6", lambda n: n["label"].endswith("★"), "as a critical handoff")
    # the card's number keys: 3 is the third state
    pair.focus()
    page.keyboard.press("3")
    assert shown(pair) == ["problematic"]
    wait_saved(page, pair)
    assert stored(served, item)["edges"] == {"Planner->Critic": "problematic"}
    wait_drawn(page, "e6", lambda n: n["label"].endswith("⚠"), "as a problematic handoff")
    crit.focus()
    page.keyboard.press("1")  # the first agent: Planner
    assert shown(crit) == ["Planner", "Critic"]
    wait_saved(page, crit)
    assert stored(served, item)["critical_nodes"] == ["Planner", "Critic"]
    wait_drawn(page, "n0", star, "as critical")

    # a click on the drawing agrees with the cards: Critic off, on the card too
    page.wait_for_timeout(1000)  # (a click of its own, not the second half of a double-click)
    _click(page, "n4")
    until(page, lambda: shown(crit) == ["Planner"], "the card shows the drawing's click")
    assert stored(served, item) == {"critical_nodes": ["Planner"], "edges": {"Planner->Critic": "problematic"}}
    assert shown(crit) == ["Planner"] and shown(pair) == ["problematic"]
    wait_drawn(page, "n4", lambda n: not star(n), "as not critical")
    # a refresh shows what is stored
    open_graph(page, served, item)
    assert shown(card(page, CRITICAL)) == ["Planner"] and shown(card(page, "Planner → Critic (")) == ["problematic"]


def test_a_burst_of_20_clicks_in_2_s_lands_as_the_last_state(page, served):
    item = "code-team-002"
    open_graph(page, served, item)
    crit = card(page, CRITICAL)
    agents = ["Manager", "Coder", "Tester", "Reviewer"]
    expected: set[str] = set()
    for k in range(20):  # 20 clicks, 100 ms apart: faster than the saves
        name = agents[(k * 3) % 4 if k % 5 else k % 4]
        option(crit, name).click()
        expected ^= {name}
        page.wait_for_timeout(100)
    want = [a for a in agents if a in expected]
    assert shown(crit) == want
    wait_saved(page, crit)
    assert stored(served, item)["critical_nodes"] == want and shown(crit) == want
    for i, a in enumerate(agents):
        wait_drawn(page, f"n{i}", star if a in expected else (lambda n: not star(n)), f"{a} as the burst left it")

    pair = card(page, "Manager → Coder (")  # a radio: the last pick wins
    picks = ["★ critical", "⚠ problematic", "normal"]
    for k in range(20):
        option(pair, picks[k % 3]).click()
        page.wait_for_timeout(100)
    wait_saved(page, pair)
    assert stored(served, item)["edges"] == {"Manager->Coder": "problematic"}  # (picks[19 % 3])
    assert shown(pair) == ["problematic"]
    wait_drawn(page, "e0", lambda n: n["label"].endswith("⚠"), "as the burst left it")


def test_a_failed_save_says_why_and_returns_to_what_is_stored(page, served):
    item = "research-003"
    open_graph(page, served, item)
    crit = card(page, CRITICAL)
    option(crit, "Orchestrator").click()
    wait_saved(page, crit)
    wait_drawn(page, "n0", star, "as critical")
    with unwritable(served.config.parent / "annotations"):
        open_graph(page, served, item)
        for title, pick, back in ((CRITICAL, "Searcher", ["Orchestrator"]), ("Orchestrator → Searcher (", "★ critical",
                                                                          ["normal"])):
            c = card(page, title)
            assert click_paints_at_once(c, pick)  # painted at once
            status = c.locator(".bi-status")
            page.wait_for_function("(el) => el.dataset.state === 'failed'", arg=status.element_handle(), timeout=60000)
            words = status.text_content()
            assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
            assert shown(c) == back  # back to what is stored
        # and the graph draws what is stored
        assert not star(drawn_node(page, "n1")) and not drawn_node(page, "e0")["label"].endswith("★")
    assert stored(served, item) == {"critical_nodes": ["Orchestrator"], "edges": {}}


def test_hostile_agent_names_stay_text(browser, tmp_path):
    hostile = "<img src=x onerror=alert(1)>"
    data = tmp_path / "inject.jsonl"
    data.write_text(json.dumps({"id": "inject-1", "text": "injection", "steps": [
        {"agent": "Planner", "content": "hand over"}, {"agent": hostile, "content": "hello"},
        {"agent": INJECTED, "content": "and on"}, {"agent": "Planner", "content": "done"}]}) + "\n")
    srv = Server(write_project(tmp_path, data_files=[str(data)])).start()
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        pg = ctx.new_page()
        dialogs: list[str] = []
        pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        open_graph(pg, srv, "inject-1")
        crit = card(pg, CRITICAL)
        labels = crit.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => b.firstChild.textContent)")
        assert labels == ["Planner", hostile, INJECTED]
        titles = pg.locator(".bi-opts").evaluate_all("(gs) => gs.map(g => g.getAttribute('aria-label'))")
        assert f"Planner → {hostile} (1 handoff)" in titles and f"{hostile} → {INJECTED} (1 handoff)" in titles
        option(crit, hostile).click()  # saved by its value, the name itself
        wait_saved(pg, crit)
        pair = card(pg, f"{hostile} → ")
        option(pair, "⚠ problematic").click()
        wait_saved(pg, pair)
        ann = AnnotationStore(tmp_path / "annotations").load("inject-1", "alice", "graph")
        assert ann.value["critical_nodes"] == [hostile]
        assert list(ann.value["edges"].values()) == ["problematic"]
        wait_drawn(pg, "n1", star, "as critical")
        pg.wait_for_timeout(500)
        assert pg.locator('img[src="x"]').count() == 0 and pg.frame_locator(FRAME).locator('img[src="x"]').count() == 0
        assert pg.title() != "pwned" and not dialogs
        # the card's colour dot is the agent's colour, a CSS value only
        colour = option(crit, hostile).evaluate("(b) => b.style.getPropertyValue('--bi-colour')")
        assert re.fullmatch(r"#[0-9a-f]{6}", colour)
    finally:
        ctx.close()
        srv.stop()
