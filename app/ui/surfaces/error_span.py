"""Error spans (MQM): the span editor with an error type (and subtype) and a severity per
span, and the quality score the errors leave."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import error_span as error_type
from app.types.trajectory_eval import modes
from app.ui import shell
from app.ui.instant_scheme import clean_card
from app.ui.surfaces.span import editor
from app.ui.text import md


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    stored = shell.stored_value(ws, item, scheme.name, {})
    current = error_type.errors(stored)
    kinds = modes(scheme["error_types"])
    severities = [s["name"] for s in scheme.get("severities") or error_type.DEFAULT_SEVERITIES]

    def fields(k):
        st.selectbox("Error type", list(range(len(kinds))), key=k("mode"), format_func=lambda j: md(kinds[j].label))
        st.selectbox("Severity", severities, key=k("severity"), format_func=md)

        def read():
            j, sev = st.session_state.get(k("mode")), st.session_state.get(k("severity"))
            if j is None or sev is None:
                return None
            return {"type": kinds[j].type, "subtype": kinds[j].subtype, "severity": sev}
        return read

    def save(found: list[dict]) -> bool:
        return shell.commit(ws, item, scheme, error_type.build(found, scheme), empty=not found)

    if scheme.get("show_score", True):
        st.markdown(f"**Score: {error_type.build(current, scheme)['score']} / {scheme.get('max_score', 100)}**")
    editor(ws, item, scheme, current, fields, save,
           lambda e: " › ".join(x for x in (e.get("type"), e.get("subtype"), e.get("severity")) if x))
    clean_card(ws, item, scheme, empty=error_type.build([], scheme), label="Reviewed, no error",
               tip="Record that you read the steps and found no error (removes the error spans)")
