"""Issue 27, point 13, on the TRAIL run (data/trail: manager and search_agent, 10 steps, 2
handoffs, 4 tool calls, no contention): each scheme page in turn by Alt+J, its cards by j/k, its
choices by number keys, the decisive step by s, a text by t / Esc, the previous and next item by
p / n, done by d; then the store holds each answer. And the sidebar's keys' help lists the keys
of the README's table (tests/test_keys_help.py compares the two texts).

The demo's item is driven the same way in test_keyboard_item_27.py; this module reuses its
helpers and the combined demo + Who&When + TRAIL project of test_ux27.py.
"""
from __future__ import annotations

import pytest

from tests.browser.conftest import wait_app
from tests.browser.test_keyboard_item_27 import T, _keys, _next_page, _ready, _to_card, _to_step
from tests.browser.test_ux27 import TRAIL, _stored, _wait_for, srv  # noqa: F401 (srv: the module's server)
from tests.test_keys_help import readme_keys

pytestmark = pytest.mark.browser


def _saved(server, scheme: str, check=lambda v: v is not None):
    """The TRAIL run's stored value of this scheme once `check` holds for it (else what is stored)."""
    _wait_for(lambda: check(_stored(server, TRAIL, scheme)), timeout=60)
    return _stored(server, TRAIL, scheme)


def test_the_sidebars_keys_help_lists_the_readmes_keys(srv, wide):
    wide.goto(f"{srv.url}/outcome?annotator=alice&item={TRAIL}")
    wait_app(wide, T)
    box = wide.locator('[data-testid="stSidebar"] [data-testid="stExpander"]', has_text="Keyboard shortcuts")
    box.locator("summary").click()
    rows = box.locator("table tbody tr")
    rows.first.wait_for(timeout=T)
    shown = rows.evaluate_all("rs => rs.map(r => Array.from(r.cells).map(c => c.innerText.trim()))")
    assert [tuple(r) for r in shown] == readme_keys()


def test_the_trail_run_annotated_by_keyboard_alone(srv, wide):
    pg = wide
    pg.goto(f"{srv.url}/outcome?annotator=alice&item={TRAIL}")
    _ready(pg, "outcome")
    _keys(pg, "j", "3")  # outcome: failure
    assert _saved(srv, "outcome") == {"failure": "true"}

    _next_page(pg, "attribution")  # (asked now: the outcome is a failure)
    pg.locator("[data-step]").first.wait_for(timeout=T)
    _to_card(pg, "search_agent")  # the agents' card: manager, search_agent
    _keys(pg, "2")  # → search_agent
    assert _saved(srv, "attribution", lambda v: v and v.get("responsible_agent"))["responsible_agent"] == "search_agent"
    _keys(pg, "j")  # past the box: the trace's first step (the run opens in its tree)
    _to_step(pg, 6)  # search_agent's failed inspect_file_as_text
    _keys(pg, "s")
    assert _saved(srv, "attribution", lambda v: v and v.get("decisive_step") == 6)["decisive_step"] == 6

    _next_page(pg, "graph")
    _keys(pg, "j", "1")  # the first agent on the critical path
    assert _saved(srv, "graph", lambda v: v and v.get("critical_nodes"))["critical_nodes"]

    _next_page(pg, "handoffs")
    _keys(pg, "j", "1")  # handoff 0 (manager → search_agent): its first flag
    value = _saved(srv, "handoffs", bool)
    assert value and "info_loss" in str(value), value

    _next_page(pg, "scorecard")
    _keys(pg, "j", "4", "3", "5")  # manager's card: a key per dimension, row after row
    value = _saved(srv, "scorecard", lambda v: v and len(v.get("agents", {}).get("manager", {})) == 3)
    assert value["agents"]["manager"] == {"role fidelity": 4, "contribution": 3, "coordination": 5}, value
    _keys(pg, "j", "2")  # search_agent's card: its first row
    value = _saved(srv, "scorecard", lambda v: v and "search_agent" in v.get("agents", {}))
    assert value["agents"]["search_agent"] == {"role fidelity": 2}, value

    _next_page(pg, "contention")  # (no contention on this run: nothing to pick, on to the next page)
    _next_page(pg, "emergent")
    _keys(pg, "j", "1", "6")  # the behaviours (1–4): echoing; then the turns (5 on): step 1
    value = _saved(srv, "emergent", bool)
    assert value and "echoing" in str(value), value

    _next_page(pg, "tool_review")
    _keys(pg, "j", "j", "3")  # call 1 (the second failed inspect_file_as_text): wrong_args
    value = _saved(srv, "tool_review", bool)
    assert [(c["index"], c["verdict"]) for c in value] == [(1, "wrong_args")], value

    _next_page(pg, "mast_steps")
    _keys(pg, "j", "2")  # step 0: its second correctness
    value = _saved(srv, "mast_steps", lambda v: v and v.get("steps"))
    assert value["steps"][0]["step_index"] == 0 and value["steps"][0]["correctness"] != "correct", value

    _next_page(pg, "traversal")
    _keys(pg, "j", "2")  # the forward pass: step 0 is an error
    assert _saved(srv, "traversal", bool)["forward"]["0"]["flag"] == "error"

    _next_page(pg, "orchestration")
    _keys(pg, "j", "2")
    assert _saved(srv, "orchestration", lambda v: v and "sequential_pipeline" in v) == {"sequential_pipeline": "true"}

    _next_page(pg, "confidence")
    _keys(pg, "j", "5")
    assert _saved(srv, "confidence") == {"scale_5": "5"}

    _next_page(pg, "symptoms")
    _keys(pg, "j", "2")
    value = _saved(srv, "symptoms", lambda v: v and len([k for k in v if k != "free_response"]) == 1)
    assert len([k for k in value if k != "free_response"]) == 1, value

    _next_page(pg, "notes")
    _keys(pg, "j", "t")
    pg.keyboard.type("the audio file was never read")
    _keys(pg, "Escape")
    assert _saved(srv, "notes", bool) == {"text_box": "the audio file was never read"}

    # the previous item by p, and back by n (the next item): the TRAIL run is the project's last
    _keys(pg, "p")
    pg.wait_for_url(lambda u: f"item={TRAIL}" not in u, timeout=T)
    _ready(pg, "notes")
    _keys(pg, "n")
    pg.wait_for_url(lambda u: f"item={TRAIL}" in u, timeout=T)
    _ready(pg, "notes")
    _keys(pg, "d")  # done with this item
    assert _saved(srv, "_item", bool) == {"done": True}
