"""The radio surface: one label, an instant card (app/ui/instant_scheme.py: the click paints in
the browser, the save goes behind, the card says "Saved" or why not; a click reruns the scheme's
fragment, so the note under it and a `show_if` answer follow). The orchestration question,
whose answer the trace's layout follows and which shows a suggested pattern until confirmed,
keeps Streamlit's radio (its answer redraws the whole page anyway)."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import radio as radio_type
from app.ui import layout_view, shell, state
from app.ui.instant_scheme import scheme_card
from app.ui.state import follow, widget_key
from app.ui.surfaces.free_response import free_text, tips
from app.ui.text import md


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    names = [lab["name"] for lab in scheme["labels"]]
    if scheme.name == ws.project.orchestration_scheme:
        return _suggesting_radio(ws, item, scheme, names)
    ann = shell.load(ws, item, scheme.name)
    k_free = widget_key("radio-free", scheme.name)
    follow(widget_key("radio-holds", scheme.name), item.id,
           {k_free: radio_type.free_text(ann.value if ann else {})}, typed=(k_free,))

    def build(picked: list[str], base) -> dict:
        return radio_type.build(picked[0] if picked else None, st.session_state.get(k_free, ""))

    scheme_card(ws, item, scheme, widget_key("radio", scheme.name), title=scheme.name, options=names,
                chosen=lambda v: [c] if (c := radio_type.choice(v)) in names else [], build=build,
                multi=False, tips=tips(scheme), hide_title=True, note_below=True)

    def typed():  # the free response: saved with the label on disk
        now = shell.load(ws, item, scheme.name)
        label = radio_type.choice(now.value) if now else None
        base = now.value if now else None
        shell.commit(ws, item, scheme, radio_type.build(label, st.session_state.get(k_free, "")), base=base)

    free_text(scheme, k_free, typed)


def _suggesting_radio(ws: Workspace, item: Item, scheme: Scheme, names: list[str]) -> None:
    """The orchestration question: Streamlit's radio, showing the suggested pattern until answered."""
    ann = shell.load(ws, item, scheme.name)
    stored = ann.value if ann else {}
    tips = {lab["name"]: lab.get("tooltip") for lab in scheme["labels"]}
    k_choice, k_free = widget_key("radio", scheme.name), widget_key("radio-free", scheme.name)
    choice = radio_type.choice(stored)
    suggested = _suggested(ws, item, scheme, names)
    # the orchestration question shows the suggested pattern chosen until there is an answer;
    # it is saved only when confirmed (the button below) or when another label is chosen
    shown = choice if choice in names else (suggested.pattern if suggested else None)
    follow(widget_key("radio-holds", scheme.name), item.id,
           {k_choice: shown, k_free: radio_type.free_text(stored)}, typed=(k_free,))

    base = ann.value if ann else None  # (what the controls were drawn from: a save applies what changed since)

    def picked():  # a label chosen: saved as chosen
        chosen = radio_type.build(st.session_state.get(k_choice), st.session_state.get(k_free, ""))
        shell.commit(ws, item, scheme, chosen, base=base)
        if suggested:  # the trace's layout follows the answer
            st.session_state[state.FULL_RERUN] = True

    def typed():  # the free response: saved with the chosen label, never with an unconfirmed suggestion
        label = st.session_state.get(k_choice)
        if suggested:  # what is on disk: the control may show the suggestion, not yet an answer
            now = shell.load(ws, item, scheme.name)
            label = radio_type.choice(now.value) if now else None
        shell.commit(ws, item, scheme, radio_type.build(label, st.session_state.get(k_free, "")), base=base)

    captions = [md(tips[n]) if tips[n] else "" for n in names]
    if suggested and choice is None:
        captions[names.index(suggested.pattern)] = "suggested"
    st.radio(md(scheme.name), names, index=None, key=k_choice,
             on_change=picked, label_visibility="collapsed", format_func=md,
             captions=captions if any(captions) else None)
    if suggested:
        _suggestion_note(ws, item, scheme, suggested, choice, k_free)
    free_text(scheme, k_free, typed)


def _suggested(ws: Workspace, item: Item, scheme: Scheme, names: list[str]):
    """The pattern suggested for the orchestration question (None for any other radio, or a
    suggestion that is not one of its labels)."""
    if scheme.name != ws.project.orchestration_scheme:
        return None
    found = layout_view.suggestion(item, shell.derivation(item, shell.trace_scheme(ws)))
    return found if found.pattern in names else None


def _suggestion_note(ws: Workspace, item: Item, scheme: Scheme, suggested, choice, k_free: str) -> None:
    if choice is not None:
        kept = "you kept it" if choice == suggested.pattern else f"you chose {md(choice)}"
        st.caption(f"Suggested from the trace: {md(suggested.reason)} ({kept})")
        return
    st.caption(f"Suggested from the trace: {md(suggested.reason)}. Not saved until you confirm it "
               "or choose another.")

    def confirm():
        if shell.commit(ws, item, scheme, radio_type.build(suggested.pattern, st.session_state.get(k_free, ""))):
            st.session_state[state.FULL_RERUN] = True

    st.button(f"Confirm the suggestion: {md(suggested.pattern)}", key=widget_key("radio-confirm", scheme.name),
              on_click=confirm)
