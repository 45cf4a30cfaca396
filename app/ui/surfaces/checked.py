"""Saving from the surfaces of the newer types: every value is checked by its type's
`validate` against the scheme and the trace before it is written; a refused value is not
saved, and the scheme's block says why on its next run (never silently dropped)."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types.registry import TYPES
from app.ui import shell
from app.ui.state import widget_key


def _key(item: Item, scheme: Scheme) -> str:
    return widget_key("checked", scheme.name, item.id, "refused")


def commit(ws: Workspace, item: Item, scheme: Scheme, value, empty: bool | None = None) -> bool:
    """Check, then save (or remove the row when emptied); False when refused or not saved."""
    kind = TYPES[scheme.type]
    derivation = shell.derivation(item, scheme) if kind.trace else None
    problems = [] if ((not value) if empty is None else empty) else kind.validate(value, scheme, derivation)
    if problems:
        st.session_state[_key(item, scheme)] = problems
        return False
    st.session_state.pop(_key(item, scheme), None)
    return shell.commit(ws, item, scheme, value, empty=empty)


def reviewed_clean(ws: Workspace, item: Item, scheme: Scheme, value) -> bool:
    st.session_state.pop(_key(item, scheme), None)
    return shell.reviewed_clean(ws, item, scheme, value)


def refused(item: Item, scheme: Scheme) -> None:
    """Why the last change was not saved (drawn as plain text), once."""
    problems = st.session_state.pop(_key(item, scheme), None)
    if problems:
        st.error("Not saved: " + "; ".join(problems)[:2000])
