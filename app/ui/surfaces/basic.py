"""Potato's plain schemes: radio, likert, multiselect, text. Each change saves at once."""
from __future__ import annotations

import streamlit as st

from app.types import likert as likert_type, multiselect as multiselect_type, radio as radio_type, text as text_type
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import shell
from app.ui.state import follow, widget_key
from app.ui.text import md


def _saver(ws: Workspace, item: Item, scheme: Scheme, build, base):
    """An on_change callback: build the value from the widgets and apply what changed from
    `base` (the stored value they were drawn from) on top of the disk; an emptied one is cleared."""
    def cb():
        shell.commit(ws, item, scheme, build(), base=base)
    return cb


# Widget keys name the scheme, not the item: on "Done → next" the browser updates the same
# controls; state.follow gives them the new item's stored value (and, after a failed save, what
# is on disk again, typed text kept). Labels, options and tooltips come from the project: md()
# keeps them plain text (widget labels, radio options and help render Markdown).

def _free_text(scheme, build_key, cb) -> None:
    fr = scheme.get("has_free_response")
    if fr:
        label = fr.get("instruction", "Other (free text)") if isinstance(fr, dict) else "Other (free text)"
        st.text_input(md(label), key=build_key, on_change=cb)


def radio(ws: Workspace, item: Item, scheme: Scheme) -> None:
    ann = shell.load(ws, item, scheme.name)
    stored = ann.value if ann else {}
    names = [lab["name"] for lab in scheme["labels"]]
    tips = {lab["name"]: lab.get("tooltip") for lab in scheme["labels"]}
    k_choice, k_free = widget_key("radio", scheme.name), widget_key("radio-free", scheme.name)
    choice = radio_type.choice(stored)
    follow(widget_key("radio-holds", scheme.name), item.id,
           {k_choice: choice if choice in names else None, k_free: radio_type.free_text(stored)}, typed=(k_free,))

    def build():
        return radio_type.build(st.session_state.get(k_choice), st.session_state.get(k_free, ""))

    cb = _saver(ws, item, scheme, build, ann.value if ann else None)
    st.radio(md(scheme.name), names, index=None, key=k_choice,
             on_change=cb, label_visibility="collapsed", format_func=md,
             captions=[md(tips[n]) for n in names] if any(tips.values()) else None)
    _free_text(scheme, k_free, cb)


def multiselect(ws: Workspace, item: Item, scheme: Scheme) -> None:
    ann = shell.load(ws, item, scheme.name)
    stored = ann.value if ann else {}
    names = [lab["name"] for lab in scheme["labels"]]
    chosen = set(multiselect_type.choices(stored))
    keys = {n: widget_key("multi", scheme.name, n) for n in names}
    k_free = widget_key("multi-free", scheme.name)
    follow(widget_key("multi-holds", scheme.name), item.id,
           {**{keys[n]: n in chosen for n in names}, k_free: radio_type.free_text(stored)}, typed=(k_free,))

    def build():
        return multiselect_type.build([n for n in names if st.session_state.get(keys[n])],
                                  st.session_state.get(k_free, ""))

    cb = _saver(ws, item, scheme, build, ann.value if ann else None)
    for lab in scheme["labels"]:
        st.checkbox(md(lab["name"]), key=keys[lab["name"]], on_change=cb,
                    help=md(lab["tooltip"]) if lab.get("tooltip") else None)
    _free_text(scheme, k_free, cb)


def likert(ws: Workspace, item: Item, scheme: Scheme) -> None:
    ann = shell.load(ws, item, scheme.name)
    n = scheme["size"]
    points = list(range(1, n + 1))
    labels = {i: "" for i in points}
    if scheme.get("labels") and len(scheme["labels"]) == n:
        labels = {i: scheme["labels"][i - 1]["name"] for i in points}
    else:
        labels[1], labels[n] = scheme.get("min_label") or "", scheme.get("max_label") or ""
    key = widget_key("likert", scheme.name)
    current = likert_type.choice(ann.value) if ann else None
    follow(widget_key("likert-holds", scheme.name), item.id, {key: current if current in points else None},
           typed=())

    def build():
        return likert_type.build(st.session_state.get(key))

    st.radio(md(scheme.name), points, index=None, key=key,
             horizontal=True, on_change=_saver(ws, item, scheme, build, ann.value if ann else None),
             label_visibility="collapsed",
             format_func=lambda i: md(f"{i} {labels[i]}".strip()))


def text(ws: Workspace, item: Item, scheme: Scheme) -> None:
    ann = shell.load(ws, item, scheme.name)
    key = widget_key("text", scheme.name)
    follow(widget_key("text-holds", scheme.name), item.id, {key: text_type.text_of(ann.value if ann else None)},
           typed=(key,))

    def build():
        return text_type.build(st.session_state.get(key, ""))

    widget = st.text_area if scheme.get("multiline", True) else st.text_input
    widget(md(scheme.name), key=key,
           on_change=_saver(ws, item, scheme, build, ann.value if ann else None), label_visibility="collapsed")
