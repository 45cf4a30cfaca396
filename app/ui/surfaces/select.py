"""Dropdown: one label of the scheme's list."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import radio
from app.ui import shell
from app.ui.state import widget_key
from app.ui.text import md


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    names = [lab["name"] for lab in scheme["labels"]]
    current = radio.choice(shell.stored_value(ws, item, scheme.name))
    key = widget_key("select", scheme.name, item.id)
    if key not in st.session_state:
        st.session_state[key] = current if current in names else None

    def save():
        shell.commit(ws, item, scheme, radio.build(st.session_state.get(key)))

    st.selectbox(md(scheme.name), names, key=key, on_change=save, format_func=md, label_visibility="collapsed",
                 placeholder="Choose one")
    if current is not None and current not in names:
        st.caption(f"Saved earlier: {md(current)} (no longer a label of the scheme)")
