"""The radio surface: one label, an instant card (app/ui/instant_scheme.py: the click paints in
the browser, the save goes behind, the card says "Saved" or why not; a click reruns the scheme's
fragment, so the note under it and a `show_if` answer follow), and Potato's free response box
(an instant text card: app/ui/surfaces/free_response.py). The orchestration question, whose
answer the trace's layout follows and which shows a suggested pattern until confirmed, keeps
Streamlit's radio (its answer redraws the whole page anyway); its free response is the same
text card, saved with the label on disk (never with an unconfirmed suggestion)."""
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

    def build(picked: list[str], base) -> dict:  # the label, on the free text on disk
        return radio_type.build(picked[0] if picked else None, radio_type.free_text(base))

    scheme_card(ws, item, scheme, widget_key("radio", scheme.name), title=scheme.name, options=names,
                chosen=lambda v: [c] if (c := radio_type.choice(v)) in names else [], build=build,
                multi=False, tips=tips(scheme), hide_title=True, note_below=True)
    free_text(ws, item, scheme, widget_key("radio-free", scheme.name), typed)


def typed(text: str, base) -> dict:
    """The free response, on the label on disk (`base`: never an unconfirmed suggestion, which
    only the orchestration question's radio shows)."""
    return radio_type.build(radio_type.choice(base), text)


def _suggesting_radio(ws: Workspace, item: Item, scheme: Scheme, names: list[str]) -> None:
    """The orchestration question: Streamlit's radio, showing the suggested pattern until answered."""
    ann = shell.load(ws, item, scheme.name)
    stored = ann.value if ann else {}
    tips = {lab["name"]: lab.get("tooltip") for lab in scheme["labels"]}
    k_choice = widget_key("radio", scheme.name)
    choice = radio_type.choice(stored)
    suggested = _suggested(ws, item, scheme, names)
    # the orchestration question shows the suggested pattern chosen until there is an answer;
    # it is saved only when confirmed (the button below) or when another label is chosen
    shown = choice if choice in names else (suggested.pattern if suggested else None)
    follow(widget_key("radio-holds", scheme.name), item.id, {k_choice: shown}, typed=())

    base = ann.value if ann else None  # (what the controls were drawn from: a save applies what changed since)

    def picked():  # a label chosen: saved as chosen (on the free text on disk)
        chosen = radio_type.build(st.session_state.get(k_choice), radio_type.free_text(base))
        shell.commit(ws, item, scheme, chosen, base=base)
        if suggested:  # the trace's layout follows the answer
            st.session_state[state.FULL_RERUN] = True

    captions = [md(tips[n]) if tips[n] else "" for n in names]
    if suggested and choice is None:
        captions[names.index(suggested.pattern)] = "suggested"
    st.radio(md(scheme.name), names, index=None, key=k_choice,
             on_change=picked, label_visibility="collapsed", format_func=md,
             captions=captions if any(captions) else None)
    if suggested:
        _suggestion_note(ws, item, scheme, suggested, choice)
    free_text(ws, item, scheme, widget_key("radio-free", scheme.name), typed)


def _suggested(ws: Workspace, item: Item, scheme: Scheme, names: list[str]):
    """The pattern suggested for the orchestration question (None for any other radio, or a
    suggestion that is not one of its labels)."""
    if scheme.name != ws.project.orchestration_scheme:
        return None
    found = layout_view.suggestion(item, shell.derivation(item, shell.trace_scheme(ws)))
    return found if found.pattern in names else None


def _suggestion_note(ws: Workspace, item: Item, scheme: Scheme, suggested, choice) -> None:
    if choice is not None:
        kept = "you kept it" if choice == suggested.pattern else f"you chose {md(choice)}"
        st.caption(f"Suggested from the trace: {md(suggested.reason)} ({kept})")
        return
    st.caption(f"Suggested from the trace: {md(suggested.reason)}. Not saved until you confirm it "
               "or choose another.")

    def confirm():  # (the free text on disk kept with it)
        now = shell.stored_value(ws, item, scheme.name)
        if shell.commit(ws, item, scheme, radio_type.build(suggested.pattern, radio_type.free_text(now))):
            st.session_state[state.FULL_RERUN] = True

    st.button(f"Confirm the suggestion: {md(suggested.pattern)}", key=widget_key("radio-confirm", scheme.name),
              on_click=confirm)
