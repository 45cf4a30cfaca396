"""Text spans: choose a step, type (or paste) the characters to highlight as they appear in
its text, give the label, add. Each span is listed (as plain text) with a button to remove it.

A browser selection cannot reach Python through Streamlit's widgets, so a span is named by its
text and, when that text occurs several times in the step, by which occurrence; the offsets
are then found in the step's text and stored with it. error_span's surface uses this editor
with its own fields (type, subtype, severity).
"""
from __future__ import annotations

from typing import Callable

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import span as span_type, spans, steps as stepmod
from app.ui import shell
from app.ui.instant_scheme import clean_card
from app.ui.state import widget_key
from app.ui.text import excerpt, md, visible

TEXT_SHOWN = 4000  # characters of the chosen step shown above the editor


def editor(ws: Workspace, item: Item, scheme: Scheme, current: list[dict],
           fields: Callable[[Callable], Callable[[], dict | None]], save: Callable[[list[dict]], bool],
           describe: Callable[[dict], str]) -> None:
    """The span editor: `fields(k)` draws the type's own controls (keys from `k(name)`) and gives
    what reads their values when the span is added (None: not all given); `save(spans)` stores
    the new list."""
    d = shell.derivation(item, scheme)
    asked = stepmod.asked(scheme, d)
    k = lambda name: widget_key(scheme.type, scheme.name, item.id, name)  # noqa: E731
    if not asked:
        st.info("This trace has no step this scheme asks about.")
        return
    by_index = {s.index: s for s in asked}
    st.selectbox("Step", list(by_index), key=k("step"),
                 format_func=lambda i: f"Step {i} · {visible(excerpt(by_index[i].agent, 30))}: "
                                       f"{visible(excerpt(stepmod.text_of(by_index[i], scheme), 60))}")
    step = by_index[st.session_state[k("step")]]
    text = stepmod.text_of(step, scheme)
    st.code(text[:TEXT_SHOWN] + ("\n…" if len(text) > TEXT_SHOWN else ""), language=None, wrap_lines=True)
    st.text_input("Text to highlight (as it appears in the step)", key=k("needle"))
    st.number_input("Which occurrence", min_value=1, step=1, value=1, key=k("occurrence"),
                    help="When the text appears several times in the step: 1 is the first")
    read = fields(k)

    def add():
        extra = read()  # (the controls' values now: the callback runs before the next drawing)
        needle = st.session_state.get(k("needle")) or ""
        at = spans.find(text, needle, int(st.session_state.get(k("occurrence")) or 1)) if needle else None
        if at is None or extra is None:
            st.session_state[k("why")] = ("Type the text to highlight, exactly as the step has it"
                                          if at is None else "Choose every field of the span first")
            return
        new = {"step": step.index, "start": at, "end": at + len(needle), "text": needle, **extra}
        if save(spans.add(current, new)):
            st.session_state[k("needle")] = ""

    st.button("Add span", key=k("add"), on_click=add, type="primary")
    why = st.session_state.pop(k("why"), None)
    if why:
        st.warning(why)
    st.markdown(f"**{len(current)} span(s)**")
    for n, e in enumerate(current):
        row = st.container(horizontal=True, vertical_alignment="center")
        row.text(f"step {e['step']} [{e['start']}:{e['end']}] {describe(e)}: {excerpt(e['text'], 80)}")
        row.button("Remove", key=k(f"remove-{n}"), on_click=lambda n=n: save(spans.remove(current, n)))


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    current = span_type.parse(shell.stored_value(ws, item, scheme.name, []))
    names = span_type.names(scheme)

    def fields(k):
        st.selectbox("Label", names, key=k("label"), format_func=md)
        return lambda: {"label": st.session_state[k("label")]} if st.session_state.get(k("label")) else None

    def save(found: list[dict]) -> bool:
        return shell.commit(ws, item, scheme, found, empty=not found)

    editor(ws, item, scheme, current, fields, save, lambda e: str(e.get("label")))
    clean_card(ws, item, scheme, empty=[],
               label="Reviewed, nothing to highlight",
               tip="Record that you read the steps and found nothing to highlight (removes the spans)")
