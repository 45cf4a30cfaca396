"""The surface of Potato's turn-tagging schemes (consensus_tracking, context_attribution): a card
per turn of the conversation, paged, with its act and, for a linked act, the turn it refers to.
Each change saves at once; a saved tag whose turn is gone or is another agent's now is listed
with a button to discard it (never dropped silently)."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import turn_acts
from app.ui import shell
from app.ui.pager import pager
from app.ui.state import follow, widget_key
from app.ui.text import excerpt, md

PAGE_SIZE = 8
TEXT = 400  # characters of a turn's text on its card


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    d = shell.derivation(item, scheme)
    steps = d.steps
    stored = shell.stored_value(ws, item, scheme.name)
    tagged = {e["turn"]: e for e in turn_acts.entries(stored)}
    acts, links = turn_acts.acts(scheme), turn_acts.linked(scheme)
    if scheme.get("hint"):
        st.caption(md(scheme["hint"]))
    if not steps:
        st.info(f'This item has no turns under "{md(scheme.get("turns_key"))}".')
    stale = [e for t, e in tagged.items()
             if t >= len(steps) or e["agent_id"] not in (None, turn_acts.turn_agent(steps[t]))]
    prefix = ("turns", scheme.name, item.id)
    page = pager(prefix, len(steps), PAGE_SIZE, "Turns", place=("turns", scheme.name, "place"))
    options = {s.index: f"turn {s.index} · {excerpt(turn_acts.turn_agent(s), 30)}: {excerpt(s.text, 60)}" for s in steps}

    def save(value) -> None:
        shell.commit(ws, item, scheme, value)

    for slot, step in enumerate(steps[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]):
        e = tagged.get(step.index)
        k_act, k_ref = (widget_key("turns", scheme.name, "slot", slot, f) for f in ("act", "ref"))
        choices = acts + ([e["act"]] if e and e["act"] not in acts else [])
        follow(widget_key("turns", scheme.name, "slot", slot, "holds"), (item.id, step.index),
               {k_act: e["act"] if e else None, k_ref: e["ref"] if e and e["ref"] in options else None}, typed=())

        def changed(step=step, k_act=k_act, k_ref=k_ref):
            act = st.session_state.get(k_act)
            current = shell.stored_value(ws, item, scheme.name)
            if act is None:
                save(turn_acts.drop(current, step.index))
                return
            ref = st.session_state.get(k_ref) if act in links else None
            save(turn_acts.put(current, turn_acts.entry(step, act, ref)))

        with st.container(border=True):
            st.markdown(f"**Turn {step.index}** · {md(turn_acts.turn_agent(step))}")
            st.text(excerpt(step.text, TEXT))
            row = st.container(horizontal=True, vertical_alignment="bottom")
            row.selectbox(f"Act of turn {step.index}", [None] + choices, key=k_act, on_change=changed,
                          format_func=lambda a: "– no act" if a is None else md(a), width=260)
            if st.session_state.get(k_act) in links:
                row.selectbox(f"Turn {step.index} refers to", [None] + [i for i in options if i != step.index],
                              key=k_ref, on_change=changed, width=420,
                              format_func=lambda i: "– no turn chosen" if i is None else options[i])
    if stale:
        with st.expander(f"{len(stale)} saved tag(s) no longer match this conversation", expanded=True):
            for e in stale:
                c1, c2 = st.columns([4, 1], vertical_alignment="center")
                c1.text(f"turn {e['turn']} · {e['agent_id']}: {e['act']}" + (f" → turn {e['ref']}" if e["ref"] is not None else ""))
                c2.button("Discard", key=widget_key(*prefix, "stale", e["turn"]),
                          on_click=lambda t=e["turn"]: save(turn_acts.drop(shell.stored_value(ws, item, scheme.name), t)))
