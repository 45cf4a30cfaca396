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
from app.ui.surfaces.shared import show_candidate
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
    elif scheme.get("mode") == pairwise_type.MULTI:
        _dimensions(ws, item, scheme, stored, names)
    else:
        _binary(ws, item, scheme, stored, names)
    if scheme.get("justification"):
        _justification(ws, item, scheme, stored)


def _with(ws: Workspace, item: Item, scheme: Scheme, **parts) -> dict:
    """The stored value with some keys set (None: removed), the justification kept."""
    now = dict(shell.stored_value(ws, item, scheme.name) or {})
    for k, x in parts.items():
        if x is None:
            now.pop(k, None)
        else:
            now[k] = x
    return now


def _dimensions(ws: Workspace, item: Item, scheme: Scheme, stored: dict, names: dict) -> None:
    for d in pairwise_type.dimensions_of(scheme):
        key = widget_key("pairwise-dim", scheme.name, d["name"])
        options = pairwise_type.SIDES + ([pairwise_type.TIE] if d["allow_tie"] else [])
        current = stored.get(d["name"])
        follow(widget_key("pairwise-dim-holds", scheme.name, d["name"]), item.id,
               {key: current if current in options else None}, typed=())
        label = {**names, pairwise_type.TIE: d["tie_label"]}
        st.radio(md(d["name"]), options, index=None, key=key, horizontal=True, help=md(d["description"]) or None,
                 format_func=lambda o, label=label: md(f"{o}: {label[o]}" if o != pairwise_type.TIE else label[o]),
                 on_change=lambda d=d, key=key: shell.commit(
                     ws, item, scheme, _with(ws, item, scheme, **{d["name"]: st.session_state.get(key)})))


def _justification(ws: Workspace, item: Item, scheme: Scheme, stored: dict) -> None:
    wanted = scheme["justification"]
    given = pairwise_type.justification(stored.get("justification")) or ([], "")
    k_reasons, k_why = (widget_key("pairwise-why", scheme.name, f) for f in ("reasons", "rationale"))
    follow(widget_key("pairwise-why-holds", scheme.name), item.id,
           {k_reasons: [r for r in given[0] if r in wanted["reason_categories"]], k_why: given[1]}, typed=(k_why,))

    def changed():
        text = pairwise_type.justify(st.session_state.get(k_reasons) or [], st.session_state.get(k_why, ""))
        shell.commit(ws, item, scheme, _with(ws, item, scheme, justification=text))

    if wanted["reason_categories"]:
        st.multiselect("Reasons", wanted["reason_categories"], key=k_reasons, on_change=changed, format_func=md)
    st.text_area("Rationale", key=k_why, on_change=changed, placeholder=wanted["rationale_placeholder"] or None)
    n = len((st.session_state.get(k_why) or "").strip())
    if wanted["min_rationale_chars"] and n < wanted["min_rationale_chars"]:
        st.caption(f"{n} of at least {wanted['min_rationale_chars']} characters")


def _binary(ws: Workspace, item: Item, scheme: Scheme, stored: dict, names: dict) -> None:
    key = widget_key("pairwise", scheme.name)
    options = pairwise_type.SIDES + ([pairwise_type.TIE] if scheme.get("allow_tie") else [])
    current = stored.get("selection")
    follow(widget_key("pairwise-holds", scheme.name), item.id, {key: current if current in options else None},
           typed=())
    label = {**names, pairwise_type.TIE: scheme.get("tie_label") or "No preference"}
    st.radio("Which is better?", options, index=None, key=key, horizontal=True,
             format_func=lambda o: md(f"{o}: {label[o]}" if o != pairwise_type.TIE else label[o]),
             on_change=lambda: shell.commit(ws, item, scheme, _with(
                 ws, item, scheme, selection=st.session_state.get(key))))


def _scale(ws: Workspace, item: Item, scheme: Scheme, stored: dict) -> None:
    sc = pairwise_type.scale_of(scheme)
    key = widget_key("pairwise-scale", scheme.name)
    current = pairwise_type.number(stored.get("scale_value"))
    follow(widget_key("pairwise-scale-holds", scheme.name), item.id,
           {key: current if current is not None else float(sc["default"])}, typed=())
    ends = sc.get("labels") or {}
    st.caption(md(f"{sc['min']:g}: {ends.get('min', 'A is much better')} · 0: {ends.get('center', 'equal')} · "
                  f"{sc['max']:g}: {ends.get('max', 'B is much better')}"))
    def save():
        x = st.session_state.get(key)
        shell.commit(ws, item, scheme, _with(ws, item, scheme, **pairwise_type.build(scale_value=x) if x is not None else {}))

    st.slider("Preference (negative: A better, positive: B better)", float(sc["min"]), float(sc["max"]),
              step=float(sc["step"]), key=key, on_change=save)
    if current is None:  # (the slider's starting point is no answer: it is saved once moved, or here)
        st.caption("Not answered yet: the value shown is the scale's starting point.")
        st.button("Record this value", key=widget_key("pairwise-scale-record", scheme.name), on_click=save)
