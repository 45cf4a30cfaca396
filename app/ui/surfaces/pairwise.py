"""Pairwise comparison: the item's two candidates side by side, then A, B (or a tie), or a
slider from "A is much better" to "B is much better". Saved at once."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import pairwise as pairwise_type
from app.ui import shell
from app.ui.state import follow, widget_key
from app.ui.surfaces.shared import saver, show_candidate
from app.ui.text import md


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    stored = shell.stored_value(ws, item, scheme.name) or {}
    names = dict(zip(pairwise_type.SIDES, scheme.get("labels") or pairwise_type.SIDES))
    shown = pairwise_type.candidates(item.data, scheme)
    if shown:
        for col, side, candidate in zip(st.columns(2), pairwise_type.SIDES, shown):
            with col, st.container(border=True):
                show_candidate(f"{side}: {names[side]}" if scheme.get("show_labels", True) else side, candidate)
    else:
        where = f'"{scheme["items_key"]}"' if scheme.get("items_key") else "items_key"
        st.info(f"This item holds nothing to compare: no list of two under {md(where)}, no left and right fields.")
    if scheme.get("mode") == "scale":
        _scale(ws, item, scheme, stored)
    else:
        _binary(ws, item, scheme, stored, names)


def _binary(ws: Workspace, item: Item, scheme: Scheme, stored: dict, names: dict) -> None:
    key = widget_key("pairwise", scheme.name)
    options = pairwise_type.SIDES + ([pairwise_type.TIE] if scheme.get("allow_tie") else [])
    current = stored.get("selection")
    follow(widget_key("pairwise-holds", scheme.name), item.id, {key: current if current in options else None},
           typed=())
    label = {**names, pairwise_type.TIE: scheme.get("tie_label") or "No preference"}
    st.radio("Which is better?", options, index=None, key=key, horizontal=True,
             format_func=lambda o: md(f"{o}: {label[o]}" if o != pairwise_type.TIE else label[o]),
             on_change=saver(ws, item, scheme, lambda: pairwise_type.build(st.session_state.get(key))))


def _scale(ws: Workspace, item: Item, scheme: Scheme, stored: dict) -> None:
    sc = pairwise_type.scale_of(scheme)
    key = widget_key("pairwise-scale", scheme.name)
    current = pairwise_type.number(stored.get("scale_value"))
    follow(widget_key("pairwise-scale-holds", scheme.name), item.id,
           {key: current if current is not None else float(sc["default"])}, typed=())
    ends = sc.get("labels") or {}
    st.caption(md(f"{sc['min']:g}: {ends.get('min', 'A is much better')} · 0: {ends.get('center', 'equal')} · "
                  f"{sc['max']:g}: {ends.get('max', 'B is much better')}"))
    save = saver(ws, item, scheme, lambda: pairwise_type.build(scale_value=st.session_state.get(key)))
    st.slider("Preference (negative: A better, positive: B better)", float(sc["min"]), float(sc["max"]),
              step=float(sc["step"]), key=key, on_change=save)
    if current is None:  # (the slider's starting point is no answer: it is saved once moved, or here)
        st.caption("Not answered yet: the value shown is the scale's starting point.")
        st.button("Record this value", key=widget_key("pairwise-scale-record", scheme.name), on_click=save)
