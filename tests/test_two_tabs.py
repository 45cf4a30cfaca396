"""Issue 30, point 4 (and the UI side of point 3), through the real app: two sessions (tabs) of
one annotator, each drawn before the other's save.

A stale tab's click applies only what it changed, on top of what is on disk now: tab A ticks
one label, tab B another, both are kept; B typing a reason keeps the agent A picked; where both
set one field differently the disk's value stays and B is told and shown it. A stored value
that does not fit its scheme never shows "Saved" beside controls that show nothing chosen."""
from __future__ import annotations

import random

import pytest

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from tests.conftest import agent_card, as_read, click_card, instant_card, make_app, open_page, text_card, type_card
from tests.summary_data import CODE, attribution, demo


def tab(cfg, page: str):
    return open_page(make_app(cfg, annotator="alice", item=CODE), page)


def stored(cfg, scheme: str):
    ann = AnnotationStore(cfg.parent / "annotations").load(CODE, "alice", scheme)
    return None if ann is None else ann.value


def shown(at, card: str) -> list[str]:
    """What an instant card shows: what is stored (as of the tab's last run)."""
    return instant_card(at, card)["stored"]


def toggle(at, card: str, label: str, on: bool = True):
    """A click on a label of an instant card, made on what the tab shows."""
    now = [x for x in shown(at, card) if x != label]
    return click_card(at, card, now + [label] if on else now)


def test_two_tabs_tick_two_labels_and_both_are_kept(tmp_path):
    cfg, _save = demo(tmp_path)
    a, b = tab(cfg, "multiselect"), tab(cfg, "multiselect")
    toggle(a, "symptoms", "loop")
    toggle(b, "symptoms", "premature_stop")  # B was drawn before A's save
    assert not a.exception and not b.exception
    assert stored(cfg, "symptoms") == {"loop": "true", "premature_stop": "true"}
    # B now shows both; A shows both once it reruns (another click, a refresh)
    assert "loop" in shown(b, "symptoms")
    a.run()
    assert shown(a, "symptoms") == shown(b, "symptoms")
    # B unticks its own label: A's stays
    toggle(b, "symptoms", "premature_stop", on=False)
    assert stored(cfg, "symptoms") == {"loop": "true"}


def pick_agent(at, agent: str):
    """A click on the responsible agent's instant card (issues 27, 31: one click or key each)."""
    return click_card(at, agent_card(at)["card"], [agent])


def agent_shown(at) -> str | None:
    return next(iter(agent_card(at)["stored"]), None)


def step_box(at):
    return next(s for s in at.selectbox if s.label == "Decisive step")


def test_a_reason_typed_in_a_stale_tab_keeps_the_agent_picked_in_the_other(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "outcome", {"failure": "true"})
    a, b = tab(cfg, "failure_attribution"), tab(cfg, "failure_attribution")
    pick_agent(a, "Coder")
    type_card(b, "Reason", "it never ran the tests")
    assert not a.exception and not b.exception and text_card(b, "Reason")["error"] is None
    assert stored(cfg, "attribution") == attribution("Coder", None, "it never ran the tests")
    assert agent_shown(b) == "Coder"  # B is shown the agent A picked
    assert not b.warning


def test_the_same_field_set_differently_keeps_the_disk_and_the_later_tab_is_told(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "outcome", {"failure": "true"})
    a, b = tab(cfg, "failure_attribution"), tab(cfg, "failure_attribution")
    pick_agent(a, "Tester")
    pick_agent(b, "Manager")  # B was drawn before A's save
    assert stored(cfg, "attribution")["responsible_agent"] == "Tester"
    told = as_read(" ".join(w.value for w in b.warning))
    assert "another tab or session set it to 'Tester' meanwhile" in told and "'Manager' was not saved" in told
    assert agent_shown(b) == "Tester"  # and shown the current value
    step_box(b).set_value(4).run()  # B's next click is no conflict: it applies
    assert stored(cfg, "attribution") == attribution("Tester", 4, "")
    assert not any("another tab" in w.value for w in b.warning)


def test_a_stored_label_not_in_the_scheme_never_shows_saved(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "outcome", {"maybe": "true"})  # a hand-edited store
    at = tab(cfg, "radio")
    assert shown(at, "outcome") == []
    captions = " ".join(c.value for c in at.caption)
    assert "Saved" not in captions
    warned = as_read(" ".join(w.value for w in at.warning))
    assert "does not fit" in warned and "\"maybe\" is not one of success, partial, failure" in warned
    click_card(at, "outcome", ["failure"])  # choosing again replaces it
    assert stored(cfg, "outcome") == {"failure": "true"}
    assert "Saved" in " ".join(c.value for c in at.caption)


@pytest.mark.long
def test_two_tabs_of_one_annotator_long(tmp_path):
    """Two tabs of one annotator, each click made in a tab drawn before the other's last save,
    400 clicks: every label keeps the state its last click gave it (the tabs tick disjoint labels,
    so no click conflicts), both tabs show the disk after their own click; then the handoff cards
    of two tabs merge the same way (each raises flags on one handoff: all kept)."""
    cfg, _save = demo(tmp_path)
    rng = random.Random(30)
    tabs = [tab(cfg, "multiselect"), tab(cfg, "multiselect")]
    labels = [o["value"] for o in instant_card(tabs[0], "symptoms")["options"]]
    mine = [labels[0::2], labels[1::2]]  # tab 0 ticks the even labels, tab 1 the odd ones
    want: dict[str, bool] = {}
    for click in range(400):
        who = rng.randrange(2)
        label = rng.choice(mine[who])
        on = not want.get(label, False) if rng.random() < 0.8 else want.get(label, False)
        at = tabs[who]
        toggle(at, "symptoms", label, on)
        assert not at.exception, [e.value for e in at.exception]
        want[label] = on
        on_disk = {k for k, x in (stored(cfg, "symptoms") or {}).items() if x == "true"}
        assert on_disk == {k for k, x in want.items() if x}, (click, label, on)
        assert set(shown(at, "symptoms")) == on_disk, click
    flags = ["info_loss", "dropped_constraint", "garbling", "goal_drift"]
    cards = [tab(cfg, "handoff_review"), tab(cfg, "handoff_review")]
    for k, flag in enumerate(flags):
        at = cards[k % 2]
        card = widget_key("handoff", "handoffs", "place", "slot", 0, "flags")
        toggle(at, card, flag)  # each tab ticks one flag more on handoff 0
        assert not at.exception, [e.value for e in at.exception]
    entry = next(e for e in stored(cfg, "handoffs") if e["index"] == 0)
    assert entry["flags"] == flags


def _saving_script():
    """A page that saves a value no control offers (a label the scheme does not have; a
    decisive step past the run's end) through the app's own save path."""
    import streamlit as st

    from app.ui import saving, shell
    ws = shell.workspace()
    item = ws.by_id["code-team-002"]
    which = st.radio("value", ["label", "step", "fine"])
    scheme = ws.project.scheme("attribution" if which == "step" else "outcome")
    value = {"label": {"maybe": "true"}, "fine": {"failure": "true"},
             "step": {"responsible_agent": "Coder", "decisive_step": 9999, "reason": ""}}[which]
    if st.button("save"):
        st.session_state["saved"] = saving.commit(ws, item, scheme, value, base=None)
    saving.not_saved_note(item, scheme.name)


def test_the_save_path_refuses_a_value_that_does_not_fit_with_the_reason(tmp_path):
    from streamlit.testing.v1 import AppTest
    cfg, _save = demo(tmp_path)
    make_app(cfg)  # (sets the project for the app)
    at = AppTest.from_function(_saving_script, default_timeout=60)
    at.query_params["annotator"] = "alice"
    at.run()
    at.button[0].click().run()
    assert not at.exception and at.session_state["saved"] is False
    warned = as_read(" ".join(w.value for w in at.warning))
    assert "not saved: the value does not fit" in warned and '"maybe" is not one of success' in warned
    at.radio[0].set_value("step").run()
    at.button[0].click().run()
    assert at.session_state["saved"] is False
    assert "decisive step: 9999 is not a step of this run" in as_read(" ".join(w.value for w in at.warning))
    assert stored(cfg, "outcome") is None and stored(cfg, "attribution") is None
    at.radio[0].set_value("fine").run()
    at.button[0].click().run()
    assert at.session_state["saved"] is True and stored(cfg, "outcome") == {"failure": "true"}
    assert not at.warning
