"""Process reward: per_step, a reward for each step the scheme asks about (a page at a time);
first_error, the first incorrect step (every step before it correct, it and the rest not)."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import process_reward as prm, steps as stepmod
from app.ui import shell
from app.ui.pager import pager
from app.ui.state import widget_key
from app.ui.text import excerpt, md, visible

PAGE_SIZE = 10
NO_ERROR = -1  # the first_error choice "no incorrect step"


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    d = shell.derivation(item, scheme)
    asked = stepmod.asked(scheme, d)
    if not asked:
        st.info("This trace has no step this scheme asks about.")
        return
    stored = shell.stored_value(ws, item, scheme.name)
    given = {e["index"]: prm.reward_of(e) for e in prm.parse(stored)}
    label = {s.index: f"Step {s.index} · {visible(excerpt(s.agent, 30))}: "
                      f"{visible(excerpt(stepmod.text_of(s, scheme), 90))}" for s in asked}
    if scheme.get("mode", "first_error") == "first_error":
        _first_error(ws, item, scheme, [s.index for s in asked], stored, label)
    else:
        _per_step(ws, item, scheme, asked, given, label)
    _orphans(ws, item, scheme, stored, {s.index for s in asked})
    judged = sum(1 for s in asked if given.get(s.index) is not None)
    st.caption(f"{judged} of {len(asked)} steps given a reward")


def _first_error(ws, item, scheme, indexes: list[int], stored, label) -> None:
    key = widget_key("prm", scheme.name, item.id, "first")
    if key not in st.session_state:
        first = prm.first_error_of(stored)
        st.session_state[key] = None if stored is None else (NO_ERROR if first is None else first)

    def save():
        x = st.session_state.get(key)
        if x is None:
            shell.commit(ws, item, scheme, {}, empty=True)
        else:
            shell.commit(ws, item, scheme, prm.first_error(scheme, indexes, None if x == NO_ERROR else x))

    st.selectbox("First incorrect step", [NO_ERROR] + indexes, key=key, on_change=save,
                 placeholder="Choose the first step that goes wrong",
                 format_func=lambda i: "No incorrect step (every step correct)" if i == NO_ERROR else label[i])


def _per_step(ws, item, scheme, asked, given: dict, label) -> None:
    options = prm.rewards(scheme)
    keys = {s.index: widget_key("prm", scheme.name, item.id, s.index) for s in asked}

    def save():
        now = dict(given)
        now.update({i: st.session_state[k] for i, k in keys.items() if k in st.session_state})
        value = prm.build(scheme, now)
        shell.commit(ws, item, scheme, value, empty=not value["steps"])

    page = pager(("prm", scheme.name, item.id), len(asked), PAGE_SIZE, "Steps")
    for s in asked[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]:
        k = keys[s.index]
        if k not in st.session_state:
            st.session_state[k] = given.get(s.index)
        st.radio(md(label[s.index]), options,  # (a radio's label is Markdown: the step's text stays text)
                 key=k, on_change=save, horizontal=True, index=None,
                 format_func=lambda r: f"{prm.word(scheme, r)} ({r:+d})")


def _orphans(ws, item, scheme, stored, asked: set[int]) -> None:
    """Saved rewards of steps the scheme no longer asks about (the trace changed): listed, each
    with a button to discard it (never silently dropped, never shown on another step)."""
    lost = [e for e in prm.parse(stored) if e["index"] not in asked]
    if not lost:
        return
    st.warning(f"{len(lost)} saved reward(s) name steps this trace no longer has (or the scheme no longer asks about):")
    for e in lost:
        row = st.container(horizontal=True, vertical_alignment="center")
        row.text(f"step {e['index']}: reward {e.get('reward')}")

        def discard(i=e["index"]):
            kept = {x["index"]: prm.reward_of(x) for x in prm.parse(stored) if x["index"] != i}
            value = prm.build(scheme, kept)
            shell.commit(ws, item, scheme, value, empty=not value["steps"])

        row.button("Discard", key=widget_key("prm", scheme.name, item.id, "orphan", e["index"]), on_click=discard)
