"""A scheme's choice as an instant card (app/ui/instant.py), or its text as an instant text card
(app/ui/instant_text.py), saved through app/ui/saving.py.

The card paints a click (or typing) in the browser; its save builds the scheme's value from the
card's choice (or text) and commits it like any surface (`saving.commit`: the type's `validate`,
then the click's change applied on top of what is on disk, for a second tab). The `base` of that merge
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
from app.ui.instant_text import instant_text

CLEAN = "Reviewed, nothing to flag"

Chosen = Callable[[Any], list[str]]  # the card's options chosen in a stored scheme value (or None)
Build = Callable[[list[str], Any], Any]  # the scheme value made of `base` with the card's choice
TextOf = Callable[[Any], str]  # the card's text in a stored scheme value (or None)
BuildText = Callable[[str, Any], Any]  # the scheme value made of `base` with the card's text


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


class _Bound:
    """A card's way to the store for a part of `scheme`'s value on `item`: `load()` reads the
    stored value and remembers it as the base of the next save; `commit(part)` builds the value
    from the base with the card's part and saves it (see the module docstring), or raises
    NotSaved saying why."""

    def __init__(self, ws: Workspace, item: Item, scheme: Scheme, key: str, owner: str,
                 build: Callable[[Any, Any], Any], whole_page: bool, on_saved: Callable[[], None] | None):
        self.ws, self.item, self.scheme, self.owner = ws, item, scheme, owner
        self.base_key, self.build, self.whole_page, self.on_saved = _base_key(key), build, whole_page, on_saved

    def load(self) -> Any:
        value = _stored(self.ws, self.item, self.scheme)
        st.session_state[self.base_key] = (self.owner, value)  # what the card is drawn from
        return value

    def commit(self, part: Any) -> None:
        ws, item, scheme = self.ws, self.item, self.scheme
        known = st.session_state.get(self.base_key)
        base = known[1] if known and known[0] == self.owner else _stored(ws, item, scheme)
        before = saving.load(ws, item, scheme.name)
        if not saving.commit(ws, item, scheme, self.build(part, base), base=base):
            raise NotSaved(saving.failure(item, scheme.name) or "you are signed out")
        st.session_state[self.base_key] = (self.owner, _stored(ws, item, scheme))  # what this save left
        if self.on_saved is not None:
            self.on_saved()
        if self.whole_page or (before is not None and before.status == STATUS_REVIEWED_CLEAN):
            st.session_state[state.FULL_RERUN] = True  # the scheme's note or another scheme shows it


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
    bound = _Bound(ws, item, scheme, key, owner, build, whole_page, on_saved)
    instant_choice(key, title=title, options=options, load=lambda: chosen(bound.load()), save=bound.commit,
                   multi=multi, labels=labels, holds=owner, tips=tips, hide_title=hide_title,
                   saved_text=None if note_below else (lambda: saved_words(item, scheme, ws)),
                   after=saving.rerun_if_asked, own_fragment=own_fragment and not note_below, disabled=disabled,
                   colours=colours, rows=rows)


Refuse = Callable[[Any], str | None]  # why "nothing to flag" cannot be recorded on a stored value (None: it can)


def clean_card(ws: Workspace, item: Item, scheme: Scheme, *, empty: Any, label: str = CLEAN,
               refuse: Refuse | None = None, forget: tuple = (), tip: str = "") -> None:
    """The scheme's "reviewed, nothing to flag" as an instant card of one option: the click
    paints it at once and records the status behind (the type's `empty` value, status
    `reviewed_clean`); a click on it again takes it back (the row removed). `refuse(stored)` says
    why it cannot be recorded now (something is marked), and the card says so in words and
    shows what is stored; `forget` is the key prefix of widgets to show the cleared state. Drawn
    in the scheme's fragment (app/ui/page.scheme_block): a click reruns the scheme, so its cards
    and its note follow the new status."""
    def is_clean() -> bool:
        ann = saving.load(ws, item, scheme.name)
        return ann is not None and ann.status == STATUS_REVIEWED_CLEAN

    def save(picked: list[str]) -> None:
        if picked:
            ann = saving.load(ws, item, scheme.name)
            why = refuse(ann.value if ann is not None else None) if refuse is not None else None
            if why:
                raise NotSaved(why)
            if not saving.reviewed_clean(ws, item, scheme, empty, forget=forget):
                raise NotSaved(saving.failure(item, scheme.name) or "you are signed out")
        elif is_clean() and not saving.clear(ws, item, scheme.name):  # (only the status it showed)
            raise NotSaved(saving.failure(item, scheme.name) or "you are signed out")

    # keyed by its place (one per scheme on a page): the next item updates the same card
    key = state.widget_key("nothing-to-flag", scheme.name, "clean")
    owner = f"{item.id}\u241f{CLEAN}"
    # (no fragment of its own: a click reruns the scheme's, whose cards and note then follow it)
    instant_choice(key, title=label, options=[label], load=lambda: [label] if is_clean() else [], save=save,
                   multi=True, holds=owner, tips={label: tip} if tip else None, hide_title=True,
                   own_fragment=False, empty_text="")


OTHER_TEXT = "another tab or session saved other text here meanwhile, which is kept (see “What is stored”)"


def scheme_text(ws: Workspace, item: Item, scheme: Scheme, key: str, *, title: str, text_of: TextOf,
                build: BuildText, multiline: bool = True, holds: str = "", placeholder: str = "",
                hide_title: bool = False, whole_page: bool = False,
                on_saved: Callable[[], None] | None = None, own_fragment: bool = True) -> None:
    """One instant text card (app/ui/instant_text.py) for a text part of `scheme`'s value on
    `item`: `text_of(value)` is the text in a stored value, `build(text, base)` the value made of
    `base` with that text. A text another tab saved meanwhile is kept on disk (the merge keeps
    the disk's side of a field both changed): the card then says it did not save this one."""
    owner = f"{item.id}\u241f{holds}"
    bound = _Bound(ws, item, scheme, key, owner, build, whole_page, on_saved)

    def save(text: str) -> None:
        bound.commit(text)
        now = text_of(_stored(ws, item, scheme))
        if now != text and (now.strip() or text.strip()):
            raise NotSaved(OTHER_TEXT)

    instant_text(key, title=title, load=lambda: text_of(bound.load()), save=save, multiline=multiline,
                 holds=owner, placeholder=placeholder, hide_title=hide_title,
                 saved_text=lambda: saved_words(item, scheme, ws), after=saving.rerun_if_asked,
                 own_fragment=own_fragment)
