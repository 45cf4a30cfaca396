"""Handoff review: a card per handoff with the two steps around it, flags and a quality rating."""
from __future__ import annotations

import streamlit as st

from ... import handoff, values
from ...config import Scheme
from ...trace import Item
from ...workspace import Workspace
from .. import shell, trace_view
from ..state import widget_key
from ..text import agent_badge, md

PAGE_SIZE = 10
NOT_RATED = 0  # the rating radio's "not rated" option (stored as None)


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    d = shell.derivation(item, scheme)
    cards = handoff.cards(d)
    flags = list(scheme["flags"])
    scale = int(scheme["quality_scale"])

    def key(*parts):
        return widget_key("handoff", scheme.name, item.id, *parts)

    def current() -> list[dict]:
        ann = shell.load(ws, item, scheme.name)
        return handoff.parse(ann.value if ann else None)

    def commit(value: list[dict]) -> None:
        shell.commit(ws, item, scheme, value)

    value = current()
    judged, flagged = handoff.counts(value, d.handoffs)
    if not cards:
        st.info("No handoffs in this trace: the same agent acts throughout (or there are no steps).")
    else:
        st.caption(f"{len(cards)} handoff{'s' if len(cards) != 1 else ''} · {judged} judged · {flagged} flagged. "
                   f"Flags are tick boxes; quality is 1 (poor) to {scale} (excellent), or not rated.")
    for e in handoff.stale_entries(value, d.handoffs):
        st.warning(f"A saved judgement of handoff {e['index']} ({md(e['from'])} → {md(e['to'])} at step "
                   f"{e['step']}) does not match this trace (the data changed). It is kept until you judge "
                   f"handoff {e['index']} here.")

    if cards:
        n_pages = handoff.page_count(len(cards), PAGE_SIZE)
        shown = cards
        if n_pages > 1:
            k_page = key("page")
            page = st.selectbox("Page of handoffs", list(range(n_pages)), key=k_page,
                                format_func=lambda p: "Handoffs {}–{} of {}".format(
                                    p * PAGE_SIZE, min(len(cards), (p + 1) * PAGE_SIZE) - 1, len(cards)))
            start, end = handoff.page_slice(len(cards), page, PAGE_SIZE)
            shown = cards[start:end]
        for card in shown:
            _card(card, value, flags, scale, key, current, commit, item)

    st.button("Reviewed, nothing to flag", key=key("clean"), disabled=bool(value),
              on_click=lambda: shell.save(ws, item, scheme.name, scheme.type, [], status=values.REVIEWED_CLEAN),
              help="Record that you looked at every handoff and found nothing to flag "
                   "(only possible while no handoff is judged)")


def _step_text(label: str, step) -> None:
    st.caption(label)
    text, cut = handoff.excerpt(step.text)
    st.text(text if text else "(no text)")
    if cut:
        with st.expander(f"Full text of step {step.index} ({len(step.text):,} characters)"):
            st.text(step.text)


def _card(card: handoff.Card, value, flags, scale, key, current, commit, item) -> None:
    h = card.handoff
    entry = handoff.entry_for(value, h) or {"flags": [], "quality": None}
    k_flags = {f: key(h.index, "flag", f) for f in flags}
    k_quality = key(h.index, "quality")
    for f in flags:  # the stored value is the truth; widgets follow it
        st.session_state[k_flags[f]] = f in entry["flags"]
    q = entry["quality"]
    st.session_state[k_quality] = q if isinstance(q, int) and 1 <= q <= scale else NOT_RATED

    def changed():
        ticked = [f for f in flags if st.session_state.get(k_flags[f])]
        rating = st.session_state.get(k_quality) or None
        commit(handoff.update(current(), h, ticked, rating, flags))

    with st.container(border=True):
        state = "not judged yet"
        if entry["flags"] or entry["quality"] is not None:
            state = ("flagged: " + ", ".join(md(f) for f in entry["flags"])) if entry["flags"] else "no flag"
            state += f" · quality {entry['quality']}/{scale}" if entry["quality"] is not None else " · not rated"
        st.markdown(f"**Handoff {h.index}** · {agent_badge(h.src)} → {agent_badge(h.dst)} · "
                    f"step {card.last_of_src.index} → step {card.first_of_dst.index} · _{state}_")
        left, right = st.columns(2)
        with left:
            _step_text(f"Last step of {md(h.src)} (step {card.last_of_src.index})", card.last_of_src)
        with right:
            _step_text(f"First step of {md(h.dst)} (step {card.first_of_dst.index})", card.first_of_dst)
        cols = st.columns(min(len(flags), 2) or 1)
        for i, f in enumerate(flags):
            cols[i % len(cols)].checkbox(md(f), key=k_flags[f], on_change=changed)
        extra = [f for f in entry["flags"] if f not in flags]
        if extra:
            st.caption("Also flagged (no longer in the config, kept): " + ", ".join(md(f) for f in extra))
        if q is not None and not (isinstance(q, int) and 1 <= q <= scale):
            st.caption(f"Saved quality {q} is outside 1–{scale}; it is replaced when you rate here.")
        st.radio(f"Quality of handoff {h.index}", [NOT_RATED] + list(range(1, scale + 1)), key=k_quality,
                 horizontal=True, on_change=changed,
                 format_func=lambda n: "not rated" if n == NOT_RATED else str(n))
        if st.button(f"Show step {card.first_of_dst.index} in the trace", key=key(h.index, "show")):
            trace_view.show_step_page(item.id, card.first_of_dst.index)
            st.rerun()  # the whole page: the trace view is outside this surface
