"""Trajectory correction: choose a step, read each editable field's original text, write the
corrected text (and a reason); the final answer has its own editor when the scheme asks.
A correction equal to the original is no edit (it is dropped)."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import steps as stepmod, trajectory_edit as edit_type
from app.ui import shell
from app.ui.instant_scheme import clean_card
from app.ui.state import widget_key
from app.ui.text import excerpt, md, visible

TEXT_SHOWN = 4000


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    d = shell.derivation(item, scheme)
    asked = stepmod.asked(scheme, d)
    stored = shell.stored_value(ws, item, scheme.name, {"edits": []})
    edits = {(e["step_index"], e["field"]): e for e in edit_type.parse(stored)}
    k = lambda *name: widget_key("tedit", scheme.name, item.id, *name)  # noqa: E731

    def commit(value) -> None:
        shell.commit(ws, item, scheme, value, empty=not value["edits"] and edit_type.FINAL not in value)

    if asked:
        by_index = {s.index: s for s in asked}
        edited = {i for i, _ in edits}
        st.selectbox("Step", list(by_index), key=k("step"),
                     format_func=lambda i: f"{'✎ ' if i in edited else ''}Step {i} · "
                                           f"{visible(excerpt(by_index[i].agent, 30))}: "
                                           f"{visible(excerpt(by_index[i].text, 60))}")
        step = by_index[st.session_state[k("step")]]
        for field in edit_type.fields(scheme):
            original = edit_type.original(step, field, scheme)
            e = edits.get((step.index, field))
            st.markdown(f"**{md(field)}**, original:")
            st.code(original[:TEXT_SHOWN] + ("\n…" if len(original) > TEXT_SHOWN else ""), language=None,
                    wrap_lines=True)
            kc, kr = k(step.index, field, "corrected"), k(step.index, field, "reason")
            st.session_state.setdefault(kc, e["corrected"] if e else original)
            st.session_state.setdefault(kr, e["reason"] if e else "")

            def save(field=field, original=original, kc=kc, kr=kr):
                commit(edit_type.put(stored, {"step_index": step.index, "field": field, "original": original,
                                              "corrected": st.session_state[kc], "reason": st.session_state[kr]}))

            def reset(original=original, kc=kc, kr=kr, save=save):
                st.session_state[kc], st.session_state[kr] = original, ""
                save()

            st.text_area(f"Corrected {field} of step {step.index}", key=kc, on_change=save)
            row = st.container(horizontal=True, vertical_alignment="bottom")
            row.text_input("Reason for the edit" + (" (required)" if scheme.get("require_reason_on_edit") else ""),
                           key=kr, on_change=save)
            row.button("Reset to the original", key=k(step.index, field, "reset"), on_click=reset, disabled=e is None)
            if e:
                st.caption(f"Edited: {edit_type.changed(e['original'], e['corrected'])} characters changed")
    else:
        st.info("This trace has no step this scheme asks about.")
    if scheme.get("edit_final_answer"):
        original = edit_type.final_original(item.data, scheme)
        final = stored.get(edit_type.FINAL) or {}
        st.markdown("**Final answer**, original:")
        st.code(original or "(none)", language=None, wrap_lines=True)
        kf = k("final")
        st.session_state.setdefault(kf, final.get("corrected", original))

        def save_final():
            commit(edit_type.build(edit_type.parse(stored), {"original": original, "corrected": st.session_state[kf]}))

        st.text_area("Corrected final answer", key=kf, on_change=save_final)
    asked_steps = {s.index for s in asked}
    lost = [e for e in edits.values() if e["step_index"] not in asked_steps]
    if lost:  # (the trace changed: listed with a discard button, never shown on another step)
        st.warning(f"{len(lost)} saved edit(s) name steps this trace no longer has:")
        for e in lost:
            row = st.container(horizontal=True, vertical_alignment="center")
            row.text(f"step {e['step_index']} {e['field']}: {excerpt(e['corrected'], 80)}")
            row.button("Discard", key=k("orphan", e["step_index"], e["field"]),
                       on_click=lambda e=e: commit(edit_type.build(
                           [x for x in edit_type.parse(stored)
                            if (x["step_index"], x["field"]) != (e["step_index"], e["field"])],
                           stored.get(edit_type.FINAL))))
    st.caption(f"{len(edits)} field(s) edited" + (" · final answer edited" if stored.get(edit_type.FINAL) else ""))
    clean_card(ws, item, scheme, empty={"edits": []},
               label="Reviewed, nothing to correct",
               tip="Record that you read the trace and found nothing to correct (removes the edits)")
