"""Emergent behaviour: for each configured behaviour, the turns of the run that show it
(an instant card per page of turns; a from/to range to add or remove at once) and a note.

One behaviour is shown at a time (a choice above its turns). A page's turns are one instant card
(app/ui/instant_scheme.py): a click paints in the browser at once and is saved behind; the card
is drawn without a fragment of its own, so the click re-runs the scheme's fragment
(app/ui/page.scheme_block) and the overview at the top and the "Marked" line are read after the
save, from the stored value, and agree with the card. The card saves the page's turns only: the
behaviour's turns on other pages stay as stored. Keys 1–9 pick the card's turns when it has focus.

A behaviour's note is an instant text card (app/ui/instant_text.py): saved after a pause in
typing, on leaving the box and on Ctrl+Enter, the note only, on the turns on disk.

A click saves only what it changed from the value the turns were drawn from (`base`), on top of
what is on disk (app/types/merge.py): a second tab of the same annotator never unmarks what this
one marked. A note another tab wrote differently meanwhile is kept; the note's card says this
one was not saved, keeps its words in the box and shows the stored note under "What is stored".
"""
from __future__ import annotations

from datetime import datetime

import streamlit as st

from app.types import emergent_behavior as bh
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import saving, shell
from app.ui.instant_scheme import clean_card, scheme_card, scheme_text
from app.ui.pager import arrows
from app.ui.state import remembered, widget_key
from app.ui.text import md

PAGE_SIZE = 10  # turns a page (one card): a click re-runs the scheme's fragment, which redraws it


def _k(scheme: Scheme, item: Item, *parts) -> str:
    return widget_key("emergent_behavior", scheme.name, item.id, *parts)


def _rows(d) -> tuple[list, list[int]]:
    rows = bh.turns(d.steps)
    return rows, [t.index for t in rows]


def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    return _surface(ws, item, scheme)


def _surface(ws: Workspace, item: Item, scheme: Scheme) -> str:
    d = shell.derivation(item, scheme)
    behaviors: list[str] = list(scheme["behaviors"])
    rows, valid = shell.per_derivation(d, "emergent.turns", lambda: _rows(d))

    def load() -> dict:
        ann = shell.load(ws, item, scheme.name)
        return ann.value if ann and isinstance(ann.value, dict) else {}

    stored = load()

    def drawn() -> dict:  # what the turns and note were drawn from (a click's change from it is saved)
        return bh.build(bh.parse(stored), behaviors)

    def save(value: dict, behavior: str) -> bool:  # a change made in one behaviour's turns or note
        return shell.card_saved(ws, item, scheme, value, _k(scheme, item, behavior, "saved"), base=stored)

    entries = bh.parse(stored)
    # read after this run's saves (callbacks run first): it agrees with the turns below
    st.markdown("  \n".join(md(line) for line in bh.summary(stored, behaviors)))
    extra = [b for b in entries if b not in behaviors]
    if extra:
        st.caption("Also saved, for behaviours no longer in the config: "
                   + "; ".join(md(line) for line in bh.summary(stored, extra)))
    if not rows:
        st.info("This run has no steps to mark.")
    else:
        # one behaviour's turns at a time, chosen here: tabs would hold every behaviour's controls,
        # and a tick inside one tab re-drew all of them in the browser (~60 ms of each tick)
        k_shown = widget_key("emergent_behavior", scheme.name, "shown")  # kept from item to item
        keep = remembered(k_shown, lambda v: v if v in behaviors else None)  # and across pages
        if st.session_state.get(k_shown) not in behaviors:
            st.session_state[k_shown] = behaviors[0]
        b = st.radio("Behaviour", behaviors, key=k_shown, horizontal=True, format_func=md, on_change=keep,
                     help="The turns and note of this behaviour are shown below; the overview above counts all")
        _behavior(ws, item, scheme, b, behaviors, rows, valid, drawn, save)

    # (checked on the click: the behaviour re-runs alone)
    clean_card(ws, item, scheme, empty={},
               refuse=lambda stored: "turns or notes are marked: clear them first to record “nothing to flag”"
               if bh.parse(stored) else None,
               tip="Record that you looked for these behaviours and found none (only while nothing is marked)")
    return shell.CARDS


def _behavior(ws, item, scheme, b, behaviors, rows, valid, drawn, save) -> None:
    """One behaviour's turns and note (`drawn()`: the value they are drawn from)."""
    _marks(ws, item, scheme, b, behaviors, rows, valid, drawn, save)


def _marks(ws, item, scheme, b, behaviors, rows, valid, load, save) -> None:
    k_from, k_to = _k(scheme, item, b, "from"), _k(scheme, item, b, "to")

    def by_range(add: bool):
        picked = bh.turn_range(st.session_state.get(k_from, valid[0]), st.session_state.get(k_to, valid[0]), valid)
        before = load()
        value = (bh.add_turns if add else bh.remove_turns)(before, b, picked, behaviors)
        if value != bh.build(bh.parse(before), behaviors):
            save(value, b)

    # one horizontal row, one element, not columns (five): see app/ui/pager.py
    row = st.container(horizontal=True, vertical_alignment="bottom")
    in_run = lambda v: min(max(int(v), valid[0]), valid[-1])  # noqa: E731  (this run's steps)
    for label, key in (("From step", k_from), ("To step", k_to)):
        # the range stays while another behaviour is shown (and its inputs are not drawn)
        row.number_input(label, min_value=valid[0], max_value=valid[-1], step=1, key=key,
                         on_change=remembered(key, in_run))
    row.button("Add range", key=_k(scheme, item, b, "add"), on_click=by_range, args=(True,),
               help="Mark every step from 'From step' to 'To step'")
    row.button("Remove range", key=_k(scheme, item, b, "remove"), on_click=by_range, args=(False,),
               help="Unmark every step from 'From step' to 'To step'")

    page_key = _k(scheme, item, b, "page")
    n_pages = bh.page_count(len(rows), PAGE_SIZE)
    page = min(st.session_state.get(page_key, 0), n_pages - 1)
    if n_pages > 1:
        def turn(delta):
            st.session_state[page_key] = max(0, min(n_pages - 1, page + delta))

        shown = rows[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
        arrows((_k(scheme, item, b, "prev"), _k(scheme, item, b, "next")), page, n_pages, turn,
               f"Steps {shown[0].index}–{shown[-1].index} of {len(rows)} (page {page + 1}/{n_pages})")
    _turns(ws, item, scheme, b, behaviors, rows[page * PAGE_SIZE:(page + 1) * PAGE_SIZE], page, load)
    if scheme.get("allow_note", True):
        # the box shows the note on disk, also after another tab's save; text typed stays in it
        # when a save failed (to retry), the stored note under "What is stored". Keyed by place,
        # holding this behaviour: a late text is saved on the item and behaviour it was typed on
        scheme_text(ws, item, scheme, widget_key("emergent_behavior", scheme.name, "place", "note"),
                    title=f"Note on {b}", holds=b,
                    text_of=lambda v: bh.get(v, b)["note"],
                    build=lambda text, base: bh.set_note(base, b, text, behaviors),
                    placeholder="What did you see? (optional)", on_saved=_noted(item, scheme, b))


def _turns(ws, item, scheme, b, behaviors, shown, page: int, load) -> None:
    """What is marked, and the page's turns as one instant card."""
    marked = set(bh.parse(load()).get(b, bh.entry())["turns"])
    n = len(marked)
    st.caption((f"Marked: {n} turn{'s' if n != 1 else ''} ({bh.ranges_text(marked)})" if n
                else "No turns marked for this behaviour yet.") + md(shell.card_note(_k(scheme, item, b, "saved"))))
    on_page = {t.index for t in shown}

    def with_page(picked: list[str], base) -> dict:
        """The behaviour's turns: this page's as the card shows them, the other pages' as stored."""
        kept = set(bh.parse(base).get(b, bh.entry())["turns"]) - on_page
        return bh.set_turns(base, b, kept | {int(p) for p in picked}, behaviors)

    # keyed by its place: the next item, page or behaviour updates the same card (`holds` names
    # what it shows, so a late click is never saved onto another page's turns)
    scheme_card(ws, item, scheme, widget_key("emergent_behavior", scheme.name, "place", "turns"),
                title=f"Turns showing {b} (steps {shown[0].index}–{shown[-1].index})",
                options=[str(t.index) for t in shown], labels={str(t.index): t.label for t in shown},
                chosen=lambda v: [str(t) for t in bh.get(v, b)["turns"] if t in on_page],
                build=with_page, multi=True, holds=f"{b}\u241f{page}", on_saved=_noted(item, scheme, b),
                own_fragment=False)


def _noted(item, scheme, b):
    """After a save of the behaviour's turns or note: the "Marked" line says when this session saved."""
    def noted() -> None:
        other = saving.conflict(item, scheme.name)
        st.session_state[_k(scheme, item, b, "saved")] = \
            datetime.now().strftime("%H:%M:%S") + (f" · ⚠ {other}" if other else "")
    return noted
