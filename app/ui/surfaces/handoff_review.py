"""Handoff review: a card per handoff with the two steps around it, flags and a quality rating.

The flags and the rating are instant cards (app/ui/instant_scheme.py): a click paints in the
browser at once and is saved behind; the handoff's line below says what is stored."""
from __future__ import annotations

from datetime import datetime

import streamlit as st

from app.types import handoff_review as handoff
from app.traces import step_cards
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import shell, step_card_view, trace_view
from app.ui.instant_scheme import clean_card, scheme_card
from app.ui import state as state_keys
from app.ui.state import follow, widget_key
from app.ui.text import md

PAGE_SIZE = 5


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
        st.caption(f"{len(cards)} handoff{'s' if len(cards) != 1 else ''}. Flags toggle; quality is "
                   f"1 (poor) to {scale} (excellent): click the chosen rating again to clear it. "
                   "A click shows at once and is saved behind.")
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

    def judged(stored) -> str | None:  # (checked on the click: the cards re-run alone)
        n = handoff.counts(handoff.parse(stored), d.handoffs)[0]
        return f"{n} handoff{'s are' if n != 1 else ' is'} judged: clear them first to record “nothing to flag”" \
            if n else None

    clean_card(ws, item, scheme, empty=[], refuse=judged,
               tip="Record that you looked at every handoff and found nothing to flag (only while no handoff is judged)")
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
    drawn = _current(ws, item, scheme)  # (what the cards show)
    entry = handoff.entry_for(drawn, h) or {"flags": [], "quality": None}
    k_saved = _place(scheme, "slot", slot, "saved")
    # another handoff in this place now: no note about what was saved for the previous one
    follow(_place(scheme, "slot", slot, "holds"), (item.id, h.index), {}, forget=(k_saved,))
    q = entry["quality"]
    rated = lambda x: isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= scale  # noqa: E731

    def entry_of(value) -> dict:
        return handoff.entry_for(handoff.parse(value), h) or {"flags": [], "quality": None}

    def with_flags(picked: list[str], base) -> list[dict]:
        kept = entry_of(base)["quality"]  # (a quality outside the scale is kept until rated here)
        return handoff.update(handoff.parse(base), h, picked, kept if isinstance(kept, int) else None, flags)

    def with_quality(picked: list[str], base) -> list[dict]:
        ticked = [f for f in entry_of(base)["flags"] if f in flags]
        return handoff.update(handoff.parse(base), h, ticked, int(picked[0]) if picked else None, flags)

    def noted() -> None:  # the handoff's line below says when this session saved it
        st.session_state[k_saved] = datetime.now().strftime("%H:%M:%S")

    # a click reruns this fragment (the two cards and the line), not each card alone
    common = dict(holds=str(h.index), on_saved=noted, own_fragment=False)
    scheme_card(ws, item, scheme, _place(scheme, "slot", slot, "flags"), title=f"Flags of handoff {h.index}",
                options=flags, chosen=lambda v: entry_of(v)["flags"], build=with_flags, multi=True, **common)
    extra = [f for f in entry["flags"] if f not in flags]
    if extra:
        st.caption("Also flagged (no longer in the config, kept): " + ", ".join(md(f) for f in extra))
    if q is not None and not rated(q):
        st.caption(f"Saved quality {q} is outside 1–{scale}; it is replaced when you rate here.")
    scheme_card(ws, item, scheme, _place(scheme, "slot", slot, "quality"), title=f"Quality of handoff {h.index}",
                options=[str(n) for n in range(1, scale + 1)],
                chosen=lambda v: [str(x)] if rated(x := entry_of(v)["quality"]) else [],
                build=with_quality, multi=False, **common)
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
