"""The text surface: a text box saved when it loses focus (or on Enter, for one line).

Its widget key names the scheme, not the item: on "Done → next" the browser updates the same
box; state.follow gives it the new item's stored text (and, after a failed save, what is on disk
again, the typed text kept)."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import text as text_type
from app.ui import shell
from app.ui.state import follow, widget_key
from app.ui.text import md


def _saver(ws: Workspace, item: Item, scheme: Scheme, build, base):
    """An on_change callback: build the value from the widgets and apply what changed from
    `base` (the stored value they were drawn from) on top of the disk; an emptied one is cleared."""
    def cb():
        shell.commit(ws, item, scheme, build(), base=base)
    return cb


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    ann = shell.load(ws, item, scheme.name)
    key = widget_key("text", scheme.name)
    follow(widget_key("text-holds", scheme.name), item.id, {key: text_type.text_of(ann.value if ann else None)},
           typed=(key,))

    def build():
        return text_type.build(st.session_state.get(key, ""))

    widget = st.text_area if scheme.get("multiline", True) else st.text_input
    widget(md(scheme.name), key=key,
           on_change=_saver(ws, item, scheme, build, ann.value if ann else None), label_visibility="collapsed")
