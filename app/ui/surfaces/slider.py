"""Slider: one number on the scheme's range; nothing is stored until it is moved."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import numeric, slider as slider_type
from app.ui import shell
from app.ui.state import widget_key
from app.ui.text import md


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    lo, hi = numeric.bounds(scheme, slider_type.LOW, slider_type.HIGH)
    stored = numeric.value_of(shell.stored_value(ws, item, scheme.name))
    key = widget_key("slider", scheme.name, item.id)
    step = float(scheme.get("step") or 1)
    if key not in st.session_state:
        st.session_state[key] = float(stored if stored is not None else slider_type.start(scheme))

    def save():
        shell.commit(ws, item, scheme, numeric.build(scheme, st.session_state[key]))

    def clear():
        shell.commit(ws, item, scheme, {}, empty=True)
        st.session_state.pop(key, None)

    ends = " · ".join(x for x in (scheme.get("min_label"), scheme.get("max_label")) if x)
    st.slider(md(scheme.name), min_value=float(lo), max_value=float(hi), step=step, key=key, on_change=save,
              label_visibility="collapsed", help=md(ends) if ends else None)
    st.caption(f"Saved: {numeric.shown(stored)}" if stored is not None else
               "Not set yet: move the slider to record a value (the start position is not saved).")
    if stored is not None:
        st.button("Clear", key=widget_key("slider", scheme.name, item.id, "clear"), on_click=clear)
