"""Tool-call review: a card per tool call with its arguments and result, a verdict and notes.

Cards are paged. A verdict is one click on an instant card (app/ui/instant_scheme.py: it shows
in the browser at once and is saved behind, no dropdown: a dropdown opened right after another
card saved needed a second click, issue 27); clicking the chosen verdict again takes it back. A
change re-runs the scheme's fragment (app/ui/page.scheme_block), so the count at the top is read
after the save and agrees with the cards. Each change saves at once (value format
in app/types/tool_call_review.py).
"""
from __future__ import annotations

from datetime import datetime

import streamlit as st

from app.traces import step_cards
from app.types import tool_call_review as toolreview
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import shell, step_card_view
from app.ui.instant_scheme import clean_card, scheme_card
from app.ui.pager import pager
from app.ui.state import follow, widget_key
from app.ui.text import md

# calls per page: about a screenful of cards (arguments and result shown); a page turn draws
# this many cards: three took 1.9-2.3x a trivial Streamlit round trip, five 2.5-3.3x
PAGE_SIZE = 3


def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    return _review(ws, item, scheme)


def _review(ws: Workspace, item: Item, scheme: Scheme) -> str:
    d = shell.derivation(item, scheme)
    prefix = ("toolreview", scheme.name, item.id)
    ann = shell.load(ws, item, scheme.name)
    stored = ann.value if ann else None
    _matched, orphans = toolreview.reconcile(stored, d.tool_calls)
    calls = d.tool_calls

    def discard(index: int):
        return lambda: shell.commit(ws, item, scheme, toolreview.drop(shell.stored_value(ws, item, scheme.name), index))

    # read after this run's saves (callbacks run first): it agrees with the cards
    st.caption(md(toolreview.summary(stored, len(calls), scheme["verdict_options"])) + ".")
    if not calls:
        st.info("No tool calls were found in this trace.")
    else:
        page = pager(prefix, len(calls), PAGE_SIZE, "Calls", place=_place(scheme))
        for slot, call in enumerate(calls[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]):
            with st.container(border=True):
                # the call itself is one element (header, arguments, result; long ones folded), its
                # place's: a page turn hands it new data (five elements a card before: 2.1x a trivial
                # round trip for a page turn at 2,000 calls)
                step_card_view.draw([step_cards.call_card(call, step_cards.call_error(d, call))], key=widget_key(*_slots(scheme), slot, "call"),
                                    bare=True)
                _verdict(ws, item, scheme, call, slot)

    if orphans:
        with st.expander(f":material/warning: {len(orphans)} saved label(s) no longer match a call of this "
                         "trace (the data changed)", expanded=True):
            for o in orphans:
                c1, c2 = st.columns([4, 1], vertical_alignment="center")
                c1.text(f"call {o['index']} · step {o['step']} · {o['tool']}: "
                        f"{o['verdict'] or 'no verdict'} · {o['notes']}")
                c2.button("Discard", key=widget_key(*prefix, "orphan", o["index"]), on_click=discard(o["index"]))

    clean_card(ws, item, scheme, empty=[], forget=_slots(scheme),
               tip="Record that you checked every call and found nothing wrong (removes any verdicts given here)")
    return shell.CARDS


def _place(scheme: Scheme) -> tuple:
    """The key prefix of the surface's own controls (pager, "nothing to flag"): by their place,
    not by item, so the next item updates them rather than mounting new ones."""
    return ("toolreview", scheme.name, "place")


def _slots(scheme: Scheme) -> tuple:
    """The cards' controls are keyed by their place on the page, not by item and call: a page
    turn or the next item updates the same controls instead of mounting new ones."""
    return ("toolreview", scheme.name, "slot")


def _verdict(ws: Workspace, item: Item, scheme: Scheme, call, slot: int) -> None:
    """A call's verdict and notes (the `slot`-th card of the page)."""
    verdicts: list[str] = scheme["verdict_options"]
    drawn = shell.stored_value(ws, item, scheme.name)  # (what the controls show: a click's change from it is saved)
    e = toolreview.reconcile(drawn, [call])[0].get(call.index)
    k_verdict, k_notes, k_saved, k_holds = (widget_key(*_slots(scheme), slot, f)
                                            for f in ("verdict", "notes", "saved", "holds"))
    follow(k_holds, (item.id, call.index), {k_notes: e["notes"] if e else ""}, forget=(k_saved,), typed=(k_notes,))

    def entry_of(value) -> dict | None:
        return toolreview.reconcile(value, [call])[0].get(call.index)

    def with_verdict(picked: list[str], base) -> list[dict]:
        return toolreview.put(base, toolreview.entry(call, picked[0] if picked else None,
                                                     st.session_state.get(k_notes, "")))

    def noted() -> None:  # the call's line below says when this session saved it
        st.session_state[k_saved] = datetime.now().strftime("%H:%M:%S")

    # a click reruns the scheme's fragment: the count at the top follows it
    scheme_card(ws, item, scheme, k_verdict, title=f"Verdict on call {call.index}", options=list(verdicts),
                chosen=lambda v: [x] if (x := (entry_of(v) or {}).get("verdict")) in verdicts else [],
                build=with_verdict, multi=False, holds=str(call.index), on_saved=noted, own_fragment=False)

    def typed():  # the notes: saved with the verdict on disk
        now = shell.stored_value(ws, item, scheme.name)
        verdict = (entry_of(now) or {}).get("verdict")
        entry = toolreview.entry(call, verdict, st.session_state.get(k_notes, ""))
        shell.card_saved(ws, item, scheme, toolreview.put(drawn, entry), k_saved, base=drawn)

    st.text_input(md(f"Notes on call {call.index}"), key=k_notes, on_change=typed,
                  placeholder="What is wrong with it, or why it is right")
    if e and e["verdict"] and e["verdict"] not in verdicts:
        st.caption(f"Saved verdict “{md(e['verdict'])}” is not among this scheme's verdicts.")
    if k_saved in st.session_state:
        said = f"verdict {md(e['verdict'])}" if e and e["verdict"] else "no verdict"
        st.caption(f"Call {call.index}: {said}{' · notes' if e and e['notes'] else ''}{shell.card_note(k_saved)}")
