"""Failure attribution: responsible agent, decisive step, reason — chosen among what happened.

By keyboard alone (app/ui/keyboard.py): the agents are an instant radio card, each with its
colour's dot (app/ui/instant_scheme.py: painted at once, saved behind; j/k to this box, then
1–9), the decisive step is the trace's current step card (j/k past this box to the step, then
s), the reason is t, type, Esc. The step goes through on_change and commit; the agent's card
saves the agent alone, on top of the disk, and always shows the stored one; the reason is an
instant text card (app/ui/instant_text.py: saved after a pause in typing, on leaving the box, on
Ctrl+Enter), which saves the reason alone, on the agent and step on disk."""
from __future__ import annotations

import streamlit as st

from app.types import failure_attribution as failure_attribution_type
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.traces.palette import agent_hex
from app.ui import keyboard, shell, suggestion_view, trace_view
from app.ui.instant_scheme import clean_card, scheme_card, scheme_text
from app.ui.state import follow, widget_key
from app.ui.text import excerpt, md, visible


NO_FAILURE = "No failure to attribute"


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    d = shell.derivation(item, scheme)
    agents = list(scheme.get("agents") or d.agents)
    ann = shell.load(ws, item, scheme.name)
    stored = ann.value if ann else {}
    if stored.get("responsible_agent") and stored["responsible_agent"] not in agents:
        agents.append(stored["responsible_agent"])  # keep a saved choice visible even if data changed
    k_agent, k_step = (widget_key("fa", scheme.name, item.id, f) for f in ("agent", "step"))
    # (keyed by place: the next item's reason is the same card, and a late text goes to its own item)
    k_reason = widget_key("fa", scheme.name, "place", "reason")
    k_key_step = widget_key("fa", scheme.name, "place", "key-step")  # (keyed by place: one per page)
    steps = [s.index for s in d.steps]
    agent_of = {s.index: s.agent for s in d.steps}
    # made once per derivation (5,000 options on every rerun), hidden characters in names shown
    label_of = shell.per_derivation(d, "fa.step_labels", lambda: dict(zip(steps, map(visible, d.step_labels))))

    def build():  # (the reason as stored: its own card saves it)
        return failure_attribution_type.build(st.session_state.get(k_agent), st.session_state.get(k_step),
                                              stored.get("reason", "") or "")

    def on_change():
        value = build()  # (what changed from `stored`, the value the controls show, applied on the disk)
        if not shell.commit(ws, item, scheme, value, base=ann.value if ann else None):
            for k in (k_agent, k_step):  # not saved: the choices show what is on disk
                st.session_state.pop(k, None)
            return
        step = shell.stored_value(ws, item, scheme.name, {}).get("decisive_step")
        # shown in the trace when the step changed (`stored`: the value before this change)
        if step is not None and step != stored.get("decisive_step"):
            trace_view.show_step_page(item.id, step, why=f"step {step}: the decisive step you chose")

    cur_agent = stored.get("responsible_agent")
    cur_step = stored.get("decisive_step")
    # the controls show what is stored (after another tab's save too)
    follow(widget_key("fa", scheme.name, item.id, "holds"), item.id,
           {k_agent: cur_agent if cur_agent in agents else None, k_step: cur_step if cur_step in steps else None},
           typed=())
    hint = suggestion_view.decisive(item, d)
    offered = suggestion_view.slot()  # (on the page either way: the cards below keep their places)
    if hint is not None and cur_step != hint.step:
        def accept():  # the suggested step and its agent, the reason kept
            st.session_state[k_agent], st.session_state[k_step] = hint.agent, hint.step
            on_change()

        with offered:
            suggestion_view.offer(f"decisive step: step {hint.step} ({hint.agent})", hint.reason,
                                  widget_key("fa", scheme.name, item.id, "accept"), accept)
    # an instant radio card, one click or one number key each (a dropdown needed Tab and Enter); a
    # click on the chosen one takes it back. It shows what is stored (after an accepted suggestion
    # too); its click changes only the agent, on top of the disk, and reruns this scheme's fragment
    # (the note below and the scheme's saved line follow it)
    scheme_card(ws, item, scheme, widget_key("fa", scheme.name, "place", "agent"), title="Responsible agent",
                options=agents, multi=False, note_below=True, colours={a: agent_hex(a) for a in agents},
                chosen=lambda v: [a] if isinstance(v, dict) and (a := v.get("responsible_agent")) in agents else [],
                build=lambda picked, base: {**failure_attribution_type.build(None, None, ""),
                                            **(base if isinstance(base, dict) else {}),
                                            "responsible_agent": picked[0] if picked else None})
    st.selectbox("Decisive step", steps, index=None,
                 key=k_step, on_change=on_change, placeholder="Choose the step where it went wrong",
                 format_func=label_of.__getitem__,
                 help="Or by keys: j/k past this box to the step's card in the trace, then s")

    def key_step():  # the key s on a step card of the trace: as if chosen above
        step = keyboard.picked(k_key_step, item.id)
        if step in agent_of:
            st.session_state[k_step] = step
            on_change()

    keyboard.step_target(k_key_step, item.id, key_step)
    chosen_step = st.session_state.get(k_step)
    chosen_agent = st.session_state.get(k_agent)
    if chosen_step is not None and chosen_agent and agent_of.get(chosen_step) != chosen_agent:
        st.caption(f"Note: step {chosen_step} was taken by {md(excerpt(agent_of.get(chosen_step), 40))}, "
                   "not by the agent chosen above.")

    def with_reason(text: str, base) -> dict:  # the reason, on the agent and step on disk
        return {**failure_attribution_type.build(None, None), **(base if isinstance(base, dict) else {}),
                "reason": text}

    scheme_text(ws, item, scheme, k_reason, title="Reason", text_of=_reason, build=with_reason,
                placeholder="Why did this agent, at this step, cause the failure?")

    # (an instant card: painted on the click, saved behind; the agent and step then show nothing)
    clean_card(ws, item, scheme, label=NO_FAILURE,
               empty=failure_attribution_type.build(None, None, ""), forget=("fa", scheme.name, item.id),
               tip="Record that you reviewed this run and found nothing to attribute (a click again takes it back)")


def _reason(value) -> str:
    return str(value.get("reason") or "") if isinstance(value, dict) else ""
