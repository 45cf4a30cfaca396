"""Triage: keep, discard or unsure, one click, saved at once."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import triage as triage_type
from app.ui import shell
from app.ui.state import follow, widget_key
from app.ui.surfaces.shared import saver
from app.ui.text import md


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    stored = shell.stored_value(ws, item, scheme.name)
    key = widget_key("triage", scheme.name)
    current = triage_type.decision(stored)
    follow(widget_key("triage-holds", scheme.name), item.id,
           {key: current if current in triage_type.DECISIONS else None}, typed=())
    shown = triage_type.names(scheme)
    st.radio(md(scheme.name), triage_type.DECISIONS, index=None, key=key, horizontal=True,
             label_visibility="collapsed", format_func=lambda d: md(shown[d]),
             on_change=saver(ws, item, scheme, lambda: triage_type.build(st.session_state.get(key))))
