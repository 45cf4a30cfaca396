"""A scheme's choice as an instant card (app/ui/instant.py), saved through app/ui/saving.py.

The card paints a click in the browser; its save builds the scheme's value from the card's
choice and commits it like any surface (`saving.commit`: the type's `validate`, then the
click's change applied on top of what is on disk, for a second tab). The `base` of that merge
is what this session last knew the disk to hold for the card's object: what the card was drawn
from, then what each save left. A burst of clicks is therefore applied one change after the
other, never a later click's change onto a base older than an earlier click's save.

A refusal or a failed write comes back to the card as words (instant.NotSaved).
"""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.store.storage import STATUS_REVIEWED_CLEAN
from app.traces.trace import Item
from app.ui import saving, state
from app.ui.instant import NotSaved, Row, instant_choice

Chosen = Callable[[Any], list[str]]  # the card's options chosen in a stored scheme value (or None)
Build = Callable[[list[str], Any], Any]  # the scheme value made of `base` with the card's choice


def _base_key(key: str) -> str:
    return f"instant_base::{key}"


def _stored(ws: Workspace, item: Item, scheme: Scheme) -> Any:
    ann = saving.load(ws, item, scheme.name)
    return ann.value if ann is not None else None


def saved_words(item: Item, scheme: Scheme, ws: Workspace) -> str | None:
    """"Saved · HH:MM:SS" for what is on disk (the time of this session's last save, else the
    row's), and what another tab kept."""
    ann = saving.load(ws, item, scheme.name)
    shown = st.session_state.get(state.SAVED, {}).get((item.id, scheme.name))
    if ann is None:
        return f"Saved · {shown}" if shown else None
    when = shown if shown and not shown.startswith("cleared") else \
        ann.updated_at.astimezone().strftime("%H:%M:%S") if ann.updated_at else ""
    other = saving.conflict(item, scheme.name)
    clean = " · reviewed, nothing to flag" if ann.status == STATUS_REVIEWED_CLEAN else ""
    return f"Saved · {when}{clean}" + (f" · ⚠ {other}" if other else "")


def scheme_card(ws: Workspace, item: Item, scheme: Scheme, key: str, *, title: str, options: list[str],
                chosen: Chosen, build: Build, multi: bool, holds: str = "",
                labels: dict[str, str] | None = None, tips: dict[str, str] | None = None,
                hide_title: bool = False, whole_page: bool = False,
                on_saved: Callable[[], None] | None = None, own_fragment: bool = True,
                disabled: bool = False, note_below: bool = False,
                colours: dict[str, str] | None = None, rows: list[Row] | None = None) -> None:
    """One instant card for a part of `scheme`'s value on `item` (see the module docstring).
    `whole_page`: something outside the card shows the answer (a `show_if`), so a save asks for
    a rerun of the whole page; `on_saved()` runs after each save that succeeded. `note_below`: the
    scheme's saved note under the card says when it saved (app/ui/saving.saved_note), so a click
    reruns the fragment holding both and the card says only "Saved". `rows`: radio rows of the
    card (instant.Row), one pick in each."""
    owner = f"{item.id}\u241f{holds}"
    base_key = _base_key(key)

    def load() -> list[str]:
        value = _stored(ws, item, scheme)
        st.session_state[base_key] = (owner, value)  # what the card is drawn from
        return chosen(value)

    def save(picked: list[str]) -> None:
        known = st.session_state.get(base_key)
        base = known[1] if known and known[0] == owner else _stored(ws, item, scheme)
        before = saving.load(ws, item, scheme.name)
        if not saving.commit(ws, item, scheme, build(picked, base), base=base):
            raise NotSaved(saving.failure(item, scheme.name) or "you are signed out")
        st.session_state[base_key] = (owner, _stored(ws, item, scheme))  # what this save left
        if on_saved is not None:
            on_saved()
        if whole_page or (before is not None and before.status == STATUS_REVIEWED_CLEAN):
            st.session_state[state.FULL_RERUN] = True  # the scheme's note or another scheme shows it

    instant_choice(key, title=title, options=options, load=load, save=save, multi=multi, labels=labels,
                   holds=owner, tips=tips, hide_title=hide_title,
                   saved_text=None if note_below else (lambda: saved_words(item, scheme, ws)),
                   after=saving.rerun_if_asked, own_fragment=own_fragment and not note_below, disabled=disabled,
                   colours=colours, rows=rows)
