"""Emergent behaviour: for each configured behaviour, the turns of the run that show it
(a checkbox per turn, paged; a from/to range to add or remove at once) and a note.

One behaviour is shown at a time (a choice above its turns). A tick re-runs the scheme's fragment
(app/ui/page.scheme_block), so the overview at the top is read after the save, from the stored
value, and agrees with the turns below it.

A click saves only what it changed from the value the turns were drawn from (`base`), on top of
what is on disk (app/types/merge.py): a second tab of the same annotator never unmarks what this
one marked. A note another tab wrote differently meanwhile is kept; the behaviour's line says so
and the box shows that note (the words of the one not saved are in the message).
"""
from __future__ import annotations

import streamlit as st

from app.types import emergent_behavior as bh
from app.store.storage import STATUS_REVIEWED_CLEAN
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import saving, shell
from app.ui.pager import arrows
from app.ui.state import follow, remembered, widget_key
from app.ui.text import md

PAGE_SIZE = 10  # turn boxes a page: a tick re-runs the scheme's fragment, which redraws these


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
        _behavior(item, scheme, b, behaviors, rows, valid, drawn, save)

    def clean():
        if bh.parse(load()):  # the behaviour re-runs alone, so this button cannot follow it: it checks here
            st.toast("Turns or notes are marked: clear them first to record \"nothing to flag\". Nothing changed.")
            return
        shell.save(ws, item, scheme.name, scheme.type, {}, status=STATUS_REVIEWED_CLEAN)

    st.button(":material/task_alt: Reviewed, nothing to flag", key=_k(scheme, item, "clean"), on_click=clean,
              help="Record that you looked for these behaviours and found none (only while nothing is marked)")
    return shell.CARDS


def _behavior(item, scheme, b, behaviors, rows, valid, drawn, save) -> None:
    """One behaviour's turns and note (`drawn()`: the value they are drawn from)."""
    _marks(item, scheme, b, behaviors, rows, valid, bh.parse(drawn()).get(b, bh.entry()), drawn, save)


def _box(scheme, item, b, t: int) -> str:
    return _k(scheme, item, b, "turn", t)


def _marks(item, scheme, b, behaviors, rows, valid, e, load, save) -> None:
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
    _turns(item, scheme, b, behaviors, rows[page * PAGE_SIZE:(page + 1) * PAGE_SIZE], load, save)
    if scheme.get("allow_note", True):
        k_note = _k(scheme, item, b, "note")
        # the box shows the note on disk, also after another tab's save; text typed stays in it
        # when a save failed (to retry)
        follow(_k(scheme, item, b, "note-holds"), item.id, {k_note: e["note"]}, typed=(k_note,))

        def on_note():
            before = load()
            value = bh.set_note(before, b, st.session_state.get(k_note, ""), behaviors)
            if value != bh.build(bh.parse(before), behaviors) and save(value, b) \
                    and saving.conflict(item, scheme.name):
                st.session_state.pop(k_note, None)  # not saved: the box shows the note kept on disk

        st.text_area(f"Note on {md(b)}", key=k_note, on_change=on_note,
                     placeholder="What did you see? (optional)")


def _turns(item, scheme, b, behaviors, shown, load, save) -> None:
    """What is marked and the page's turn boxes."""
    marked = set(bh.parse(load()).get(b, bh.entry())["turns"])
    n = len(marked)
    st.caption((f"Marked: {n} turn{'s' if n != 1 else ''} ({bh.ranges_text(marked)})" if n
                else "No turns marked for this behaviour yet.") + md(shell.card_note(_k(scheme, item, b, "saved"))))

    def toggle(t):
        save(bh.set_turn(load(), b, t, bool(st.session_state.get(_box(scheme, item, b, t))), behaviors), b)

    for t in shown:
        box = _box(scheme, item, b, t.index)
        st.session_state[box] = t.index in marked  # the disk is the truth (saved, failed or another tab's)
        st.checkbox(md(t.label), key=box, on_change=toggle, args=(t.index,))
