"""Number: one number typed in, within the scheme's bounds."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import numeric
from app.ui import shell
from app.ui.state import widget_key
from app.ui.text import md


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    lo, hi = numeric.bounds(scheme, None, None)
    stored = numeric.value_of(shell.stored_value(ws, item, scheme.name))
    key = widget_key("number", scheme.name, item.id)
    if key not in st.session_state:
        st.session_state[key] = stored

    def save():
        x = st.session_state.get(key)
        shell.commit(ws, item, scheme, numeric.build(scheme, x), empty=x is None)

    step = scheme.get("step")
    st.number_input(md(scheme.name), min_value=lo, max_value=hi, step=step if step else None, value=None,
                    key=key, on_change=save, label_visibility="collapsed", placeholder="Type a number")
