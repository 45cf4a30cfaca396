"""The multiselect surface: the labels as one instant card of toggles (see app/ui/surfaces/radio.py),
and Potato's free response box."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import multiselect as multiselect_type, radio as radio_type
from app.ui import shell
from app.ui.instant_scheme import scheme_card
from app.ui.state import follow, widget_key
from app.ui.surfaces.free_response import free_text, tips


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    ann = shell.load(ws, item, scheme.name)
    names = [lab["name"] for lab in scheme["labels"]]
    k_free = widget_key("multi-free", scheme.name)
    follow(widget_key("multi-holds", scheme.name), item.id,
           {k_free: radio_type.free_text(ann.value if ann else {})}, typed=(k_free,))

    def build(picked: list[str], base) -> dict:
        return multiselect_type.build(picked, st.session_state.get(k_free, ""))

    scheme_card(ws, item, scheme, widget_key("multi", scheme.name), title=scheme.name, options=names,
                chosen=lambda v: multiselect_type.choices(v if isinstance(v, dict) else None), build=build,
                multi=True, tips=tips(scheme), hide_title=True, note_below=True)

    def typed():  # the free response: saved with the labels on disk
        now = shell.load(ws, item, scheme.name)
        base = now.value if now else None
        labels = multiselect_type.choices(base if isinstance(base, dict) else None)
        shell.commit(ws, item, scheme, multiselect_type.build(labels, st.session_state.get(k_free, "")), base=base)

    free_text(scheme, k_free, typed)
