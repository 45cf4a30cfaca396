"""The failure attribution's agents and the agent scorecard's cells as instant cards (issue 31;
issue 27 items 4 and 7), in headless Chromium on a Baton server: a click paints at once and
lands in the store ("Saved"), a burst of 20 clicks in 2 s lands as its last state, a save into a
folder that cannot be written says why in words and shows what is stored, number keys pick (in
the scorecard, one key per cell, row after row), each agent carries its colour's dot, the ✓ of a
chosen option is not part of its accessible name, and hostile agent names stay text."""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from app.project.workspace import open_project
from app.store.storage import Annotation, AnnotationStore
from app.traces.palette import agent_hex
from tests.browser.conftest import Server, wait_app
from tests.browser.test_instant_surfaces import card, click_paints_at_once, open_scheme, option, shown, unwritable, \
    wait_saved
from tests.conftest import write_project

pytestmark = pytest.mark.browser
TRIP = ["Planner", "FlightAgent", "HotelAgent", "FoodAgent", "Critic"]  # trip-planner-001's agents
ITEMS = ["trip-planner-001", "code-team-002", "research-003"]
HOSTILE = ["<img src=x onerror=alert(1)>", '<img src=x onerror="window.__pwned=1">',
           "**MDBOLD** [MDLINK](javascript:window.__pwned=2)", '<b id="inj">HTMLBOLD</b>']
BAD = "img[src='x'], #inj, a[href^='javascript'], [onerror], strong:text-is('MDBOLD'), b:text-is('HTMLBOLD')"


def failed_runs(cfg, items) -> None:
    """Each item's outcome stored as a failure (the attribution is asked only then)."""
    ws = open_project(cfg)
    store = AnnotationStore(ws.project.output_dir)
    for item in items:
        store.save(Annotation(item, "alice", "outcome", "radio", {"failure": "true"}, "annotated",
                              ws.by_id[item].trace_hash, None, 3))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    cfg = write_project(tmp_path_factory.mktemp("instant-attr"))
    failed_runs(cfg, ITEMS)
    srv = Server(cfg).start()
    yield srv
    srv.stop()


def value(srv, item: str, scheme: str):
    ann = AnnotationStore(srv.config.parent / "annotations").load(item, "alice", scheme)
    return None if ann is None else ann.value


def agents_card(page):
    return card(page, "Responsible agent")


def score_card(page, agent: str):
    """An agent's card of scores: its options' group is named by the agent."""
    return card(page, agent)


def cell(c, dim: str, score: int):
    """The button of `score` in the row of `dim` (its radio group is named "dim of agent")."""
    return c.locator(f".bi-row[aria-label^='{dim} of ']").locator("button.bi-opt").nth(score - 1)


def scores(c) -> dict[str, int]:
    """What a card of scores shows: {row's name: score}."""
    return c.evaluate("""(el) => Object.fromEntries([...el.querySelectorAll('.bi-row')].flatMap((r) => {
        const b = r.querySelector('button.bi-opt[aria-checked=true]');
        return b ? [[r.querySelector('.bi-row-name').textContent, Number(b.textContent)]] : []; }))""")


def paints_at_once(button) -> dict:
    """Click, and read the card in the same task as the click (before any reply can arrive)."""
    got = button.evaluate("""(b) => { b.click(); const card = b.closest('.bi-card');
        return {shown: [...card.querySelectorAll('button.bi-opt[aria-checked=true]')].map(x => x.dataset.value),
                status: card.querySelector('.bi-status').textContent}; }""")
    assert got["status"] == "Saving…"
    return got


def test_an_agent_click_paints_at_once_lands_and_keeps_its_colour(page, served):
    item = "trip-planner-001"
    open_scheme(page, served, "attribution", item)
    agents = agents_card(page)
    assert click_paints_at_once(agents, "HotelAgent") == ["HotelAgent"]
    wait_saved(page, agents)
    assert agents.locator(".bi-status").text_content() == "Saved"
    assert value(served, item, "attribution")["responsible_agent"] == "HotelAgent"
    # the scheme's note under the card says when; the chosen radio is named by the agent alone (no ✓)
    page.get_by_text(re.compile(r"Saved · \d")).first.wait_for(timeout=30000)
    chosen = page.get_by_role("radiogroup", name="Responsible agent").get_by_role("radio", name="HotelAgent", exact=True)
    expect(chosen).to_have_attribute("aria-checked", "true")
    # each agent's colour dot, the colour it has in the trace and the summary
    for agent in TRIP:
        dot = option(agents, agent).evaluate("(b) => getComputedStyle(b, '::after').backgroundColor")
        r, g, b = (int(agent_hex(agent)[i:i + 2], 16) for i in (1, 3, 5))
        assert dot == f"rgb({r}, {g}, {b})", (agent, dot)
    # a number key on the card: the first agent; the chosen one clicked again takes it back
    agents.focus()
    page.keyboard.press("1")
    assert shown(agents) == ["Planner"]
    wait_saved(page, agents)
    assert value(served, item, "attribution")["responsible_agent"] == "Planner"
    option(agents, "Planner").click()
    assert shown(agents) == []
    wait_saved(page, agents)  # (the store holds no agent: the row is gone)
    assert (value(served, item, "attribution") or {}).get("responsible_agent") is None


def test_the_card_shows_the_stored_agent_after_the_step_is_chosen(page, served):
    item = "code-team-002"
    open_scheme(page, served, "attribution", item)
    agents = agents_card(page)
    option(agents, "Coder").click()
    wait_saved(page, agents)
    box = page.get_by_role("combobox", name=re.compile("Decisive step"))
    box.click()
    page.get_by_role("option").nth(4).click()  # step 4, through the dropdown (the fragment reruns)
    wait_app(page)
    for _ in range(100):
        if (value(served, item, "attribution") or {}).get("decisive_step") == 4:
            break
        page.wait_for_timeout(200)
    assert value(served, item, "attribution") == {"responsible_agent": "Coder", "decisive_step": 4, "reason": ""}
    assert shown(agents) == ["Coder"]  # the card still shows the stored agent


def test_a_score_click_paints_at_once_and_the_count_follows(page, served):
    item = "trip-planner-001"
    open_scheme(page, served, "scorecard", item)
    planner = score_card(page, "Planner")
    got = paints_at_once(cell(planner, "role fidelity", 4))
    assert got["shown"] == ["0:4"]
    wait_saved(page, planner)
    assert value(served, item, "scorecard")["agents"] == {"Planner": {"role fidelity": 4}}
    page.get_by_text(re.compile(r"1 of 15 agent scores")).first.wait_for(timeout=30000)  # the count follows
    # another row of the same card: both kept; the row's radios named by their dimension and agent
    paints_at_once(cell(planner, "coordination", 2))
    wait_saved(page, planner)
    assert value(served, item, "scorecard")["agents"] == {"Planner": {"role fidelity": 4, "coordination": 2}}
    page.get_by_text(re.compile(r"2 of 15 agent scores")).first.wait_for(timeout=30000)
    row = page.get_by_role("radiogroup", name="role fidelity of Planner")
    expect(row.get_by_role("radio", name="4", exact=True)).to_have_attribute("aria-checked", "true")  # (no ✓)
    # the chosen score clicked again takes it back
    cell(planner, "role fidelity", 4).click()
    wait_saved(page, planner)
    assert value(served, item, "scorecard")["agents"] == {"Planner": {"coordination": 2}}
    page.get_by_text(re.compile(r"1 of 15 agent scores")).first.wait_for(timeout=30000)
    # the team's card and the milestones' card
    team = card(page, "Team scores")
    paints_at_once(cell(team, "efficiency", 5))
    wait_saved(page, team)
    miles = card(page, "Milestones reached")
    assert click_paints_at_once(miles, "plan produced") == ["plan produced"]
    wait_saved(page, miles)
    v = value(served, item, "scorecard")
    assert v["team"] == {"efficiency": 5} and v["milestones"]["plan produced"] is True
    page.get_by_text(re.compile(r"^Milestones: 1 of 3 reached")).first.wait_for(timeout=30000)
    # a refresh shows what is stored
    open_scheme(page, served, "scorecard", item)
    assert scores(score_card(page, "Planner")) == {"coordination": 2}


def test_number_keys_score_row_after_row_and_j_moves_between_cards(page, served):
    item = "research-003"
    open_scheme(page, served, "scorecard", item)
    page.wait_for_function("() => window.__batonKeys", timeout=60000)
    first = page.locator(".bi-card").first
    agent = first.locator(".bi-opts").get_attribute("aria-label")
    for key in ("j", "4", "3", "5"):  # the first card; one key per cell, the rows in turn
        page.keyboard.press(key)
    assert scores(first) == {"role fidelity": 4, "contribution": 3, "coordination": 5}
    wait_saved(page, first)
    assert value(served, item, "scorecard")["agents"][agent] == {"role fidelity": 4, "contribution": 3,
                                                                 "coordination": 5}
    page.get_by_text(re.compile(r"3 of \d+ agent scores")).first.wait_for(timeout=30000)
    for key in ("j", "2", "ArrowUp", "1"):  # the next card: its first row, then ↑ back to it
        page.keyboard.press(key)
    second = page.locator(".bi-card").nth(1)
    assert scores(second) == {"role fidelity": 1}
    assert scores(first) == {"role fidelity": 4, "contribution": 3, "coordination": 5}  # left alone
    # on the card itself (focused by Tab or a click): ↓ moves the row, the number picks in it
    cell(second, "role fidelity", 1).focus()
    for key in ("ArrowDown", "ArrowDown", "2"):
        page.keyboard.press(key)
    assert scores(second) == {"role fidelity": 1, "coordination": 2}
    wait_saved(page, second)
    other = second.locator(".bi-opts").get_attribute("aria-label")
    assert value(served, item, "scorecard")["agents"][other] == {"role fidelity": 1, "coordination": 2}


def test_bursts_of_20_clicks_in_2_s_land_as_the_last_state(page, served):
    item = "code-team-002"
    open_scheme(page, served, "scorecard", item)
    c = page.locator(".bi-card").first
    agent = c.locator(".bi-opts").get_attribute("aria-label")
    dims = ["role fidelity", "contribution", "coordination"]
    want: dict[str, int] = {}
    for k in range(20):  # 20 clicks, 100 ms apart, over the card's cells: faster than the saves
        dim, n = dims[k % 3], (k * 7) % 5 + 1
        cell(c, dim, n).click()
        if want.get(dim) == n:
            want.pop(dim)
        else:
            want[dim] = n
        page.wait_for_timeout(100)
    assert scores(c) == want
    wait_saved(page, c)
    assert value(served, item, "scorecard")["agents"].get(agent, {}) == want and scores(c) == want

    open_scheme(page, served, "attribution", "research-003")  # a radio: the last pick wins
    agents = agents_card(page)
    names = agents.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => b.dataset.value)")
    for k in range(20):
        agents.locator(f"button.bi-opt[data-value='{names[k % len(names)]}']").click()
        page.wait_for_timeout(100)
    last = names[19 % len(names)]
    wait_saved(page, agents)
    assert value(served, "research-003", "attribution")["responsible_agent"] == last and shown(agents) == [last]


def test_a_failed_save_says_why_and_returns_to_what_is_stored(page, tmp_path):
    cfg = write_project(tmp_path)
    failed_runs(cfg, ["trip-planner-001"])
    srv = Server(cfg).start()
    item = "trip-planner-001"
    try:
        open_scheme(page, srv, "attribution", item)
        option(agents_card(page), "Critic").click()
        wait_saved(page, agents_card(page))
        open_scheme(page, srv, "scorecard", item)
        cell(score_card(page, "Critic"), "contribution", 3).click()
        wait_saved(page, score_card(page, "Critic"))
        with unwritable(srv.config.parent / "annotations"):
            open_scheme(page, srv, "attribution", item)
            agents = agents_card(page)
            assert click_paints_at_once(agents, "Planner") == ["Planner"]  # painted at once
            status = agents.locator(".bi-status")
            page.wait_for_function("(el) => el.dataset.state === 'failed'", arg=status.element_handle(), timeout=60000)
            words = status.text_content()
            assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
            assert shown(agents) == ["Critic"]  # back to what is stored

            open_scheme(page, srv, "scorecard", item)
            critic = score_card(page, "Critic")
            assert paints_at_once(cell(critic, "contribution", 5))["shown"] == ["1:5"]
            status = critic.locator(".bi-status")
            page.wait_for_function("(el) => el.dataset.state === 'failed'", arg=status.element_handle(), timeout=60000)
            words = status.text_content()
            assert words.startswith("Not saved: ") and "not writable" in words and "/" not in words
            assert scores(critic) == {"contribution": 3}
            page.get_by_text(re.compile(r"1 of 15 agent scores")).first.wait_for(timeout=30000)  # the stored count
        assert value(srv, item, "attribution")["responsible_agent"] == "Critic"
        assert value(srv, item, "scorecard")["agents"] == {"Critic": {"contribution": 3}}
    finally:
        srv.stop()


def test_hostile_agent_names_stay_text(page, tmp_path):
    data = tmp_path / "runs.jsonl"
    steps = [{"agent": HOSTILE[i % len(HOSTILE)], "content": f"step {i}"} for i in range(8)]
    data.write_text(json.dumps({"id": "x1", "text": "t", "steps": steps}) + "\n")
    cfg = write_project(tmp_path, data_files=[str(data)])
    failed_runs(cfg, ["x1"])
    srv = Server(cfg).start()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        open_scheme(page, srv, "attribution", "x1")
        agents = agents_card(page)
        texts = agents.locator("button.bi-opt").evaluate_all("(bs) => bs.map(b => b.firstChild.textContent)")
        assert texts == HOSTILE
        assert page.locator(BAD).count() == 0 and page.evaluate("() => window.__pwned") is None
        agents.locator("button.bi-opt").first.click()  # saved by its value: the name as it is
        wait_saved(page, agents)
        assert value(srv, "x1", "attribution")["responsible_agent"] == HOSTILE[0]

        open_scheme(page, srv, "scorecard", "x1")
        for name in HOSTILE:  # the card named by the agent, its rows "dimension of agent", as text
            c = page.locator(".bi-card").filter(has=page.locator(".bi-opts[aria-label]")).nth(HOSTILE.index(name))
            assert c.locator(".bi-opts").get_attribute("aria-label") == name
            assert c.locator(".bi-row").first.get_attribute("aria-label") == f"role fidelity of {name}"
        c = page.locator(".bi-card").first
        c.locator(".bi-row").nth(1).locator("button.bi-opt").nth(1).click()
        wait_saved(page, c)
        assert value(srv, "x1", "scorecard")["agents"] == {HOSTILE[0]: {"contribution": 2}}
        assert page.locator(BAD).count() == 0 and page.evaluate("() => window.__pwned") is None
        assert dialogs == []
    finally:
        srv.stop()
