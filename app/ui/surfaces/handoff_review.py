"""Handoff review: a card per handoff with the two steps around it, flags and a quality rating."""
from __future__ import annotations

import streamlit as st

from app.types import handoff_review as handoff
from app.store.storage import STATUS_REVIEWED_CLEAN
from app.traces import step_cards
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import shell, step_card_view, trace_view
from app.ui import state as state_keys
from app.ui.state import follow, widget_key
from app.ui.text import md

PAGE_SIZE = 5
NOT_RATED = 0  # the rating radio's "not rated" option (stored as None)


def _place(scheme: Scheme, *parts) -> str:
    """Controls keyed by their place on the page, not by item and handoff: on the next item (or
    page) the browser updates the same checkboxes and radios instead of mounting new ones
    (five cards' worth was ~700 DOM nodes made again on every "Done → next"). A card takes its
    handoff's stored judgement on every run, so a place never shows another handoff's."""
    return widget_key("handoff", scheme.name, "place", *parts)


def _current(ws: Workspace, item: Item, scheme: Scheme) -> list[dict]:
    ann = shell.load(ws, item, scheme.name)
    return handoff.parse(ann.value if ann else None)


def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    d = shell.derivation(item, scheme)
    cards = handoff.cards(d)
    scale = int(scheme["quality_scale"])
    value = _current(ws, item, scheme)
    if not cards:
        st.info("No handoffs in this trace: the same agent acts throughout (or there are no steps).")
    else:
        st.caption(f"{len(cards)} handoff{'s' if len(cards) != 1 else ''}. Flags are tick boxes; quality is "
                   f"1 (poor) to {scale} (excellent), or not rated. A click re-runs only its card.")
    for e in handoff.stale_entries(value, d.handoffs):
        st.warning(f"A saved judgement of handoff {e['index']} ({md(e['from'])} → {md(e['to'])} at step "
                   f"{e['step']}) does not match this trace (the data changed). It is kept until you judge "
                   f"handoff {e['index']} here.")

    if cards:
        n_pages = handoff.page_count(len(cards), PAGE_SIZE)
        shown = cards
        if n_pages > 1:
            k_page = _place(scheme, "page")
            follow(_place(scheme, "page-holds"), item.id, {k_page: 0})  # another item opens on its first page
            page = st.selectbox("Page of handoffs", list(range(n_pages)), key=k_page,
                                format_func=lambda p: "Handoffs {}–{} of {}".format(
                                    p * PAGE_SIZE, min(len(cards), (p + 1) * PAGE_SIZE) - 1, len(cards)))
            start, end = handoff.page_slice(len(cards), page, PAGE_SIZE)
            shown = cards[start:end]
        for slot, card in enumerate(shown):
            _card(ws, item, scheme, card, slot)

    def clean():
        judged = handoff.counts(_current(ws, item, scheme), d.handoffs)[0]
        if judged:  # the cards re-run alone, so this button cannot follow them: it checks here
            st.toast(f"{judged} handoff{'s are' if judged != 1 else ' is'} judged: clear them first "
                     "to record \"nothing to flag\". Nothing changed.")
            return
        shell.save(ws, item, scheme.name, scheme.type, [], status=STATUS_REVIEWED_CLEAN)

    st.button("Reviewed, nothing to flag", key=_place(scheme, "clean"), on_click=clean,
              help="Record that you looked at every handoff and found nothing to flag "
                   "(only while no handoff is judged)")
    return shell.CARDS


def _card(ws: Workspace, item: Item, scheme: Scheme, card: handoff.Card, slot: int) -> None:
    """One handoff's card, the `slot`-th of the page: what was handed over (one element, its
    place's: eight a card before, see step_card_view), then the controls and what is saved, a
    fragment of their own: a tick re-runs only those."""
    with st.container(border=True):
        step_card_view.draw([step_cards.handoff_card(card)], key=_place(scheme, "slot", slot, "card"), bare=True)
        _judgement(ws, item, scheme, card, slot)


@st.fragment
def _judgement(ws: Workspace, item: Item, scheme: Scheme, card: handoff.Card, slot: int) -> None:
    h = card.handoff
    flags = list(scheme["flags"])
    scale = int(scheme["quality_scale"])
    drawn = _current(ws, item, scheme)  # (what the controls show: a click's change from it is saved)
    entry = handoff.entry_for(drawn, h) or {"flags": [], "quality": None}
    k_flags = {f: _place(scheme, "slot", slot, "flag", f) for f in flags}
    k_quality = _place(scheme, "slot", slot, "quality")
    k_saved = _place(scheme, "slot", slot, "saved")
    # another handoff in this place now: no note about what was saved for the previous one
    follow(_place(scheme, "slot", slot, "holds"), (item.id, h.index), {}, forget=(k_saved,))
    for f in flags:  # the stored value is the truth; widgets follow it
        st.session_state[k_flags[f]] = f in entry["flags"]
    q = entry["quality"]
    st.session_state[k_quality] = q if isinstance(q, int) and 1 <= q <= scale else NOT_RATED

    def changed():
        ticked = [f for f in flags if st.session_state.get(k_flags[f])]
        rating = st.session_state.get(k_quality) or None
        shell.card_saved(ws, item, scheme, handoff.update(drawn, h, ticked, rating, flags), k_saved, base=drawn)

    boxes = st.container(horizontal=True)  # one wrapping row: one element, not a column each
    for f in flags:
        boxes.checkbox(md(f), key=k_flags[f], on_change=changed)
    extra = [f for f in entry["flags"] if f not in flags]
    if extra:
        st.caption("Also flagged (no longer in the config, kept): " + ", ".join(md(f) for f in extra))
    if q is not None and not (isinstance(q, int) and 1 <= q <= scale):
        st.caption(f"Saved quality {q} is outside 1–{scale}; it is replaced when you rate here.")
    st.radio(f"Quality of handoff {h.index}", [NOT_RATED] + list(range(1, scale + 1)), key=k_quality,
             horizontal=True, on_change=changed, format_func=lambda n: "not rated" if n == NOT_RATED else str(n))
    state = "not judged yet"
    if entry["flags"] or entry["quality"] is not None:
        state = ("flagged: " + ", ".join(md(f) for f in entry["flags"])) if entry["flags"] else "no flag"
        state += f" · quality {entry['quality']}/{scale}" if entry["quality"] is not None else " · not rated"
    st.markdown(f"Handoff {h.index}: _{state}_{shell.card_note(k_saved)}")
    if st.button(f"Show step {card.first_of_dst.index} in the trace", key=_place(scheme, "slot", slot, "show")):
        trace_view.show_step_page(item.id, card.first_of_dst.index,
                                  why=f"step {card.first_of_dst.index}: the first step after handoff {h.index}")
        st.session_state.pop(state_keys.FULL_RERUN, None)  # asked for: this reruns the whole page now
        st.rerun()  # the whole page: the trace view is outside this surface
    shell.rerun_if_asked()
