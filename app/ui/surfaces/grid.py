"""What the rubric and multirate surfaces share: a row of points per criterion or option."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types.grid import Grid
from app.ui import shell
from app.ui.state import widget_key
from app.ui.text import md


def render_grid(ws: Workspace, item: Item, scheme: Scheme, grid: Grid, hints: dict[str, str]) -> None:
    stored = shell.stored_value(ws, item, scheme.name, {})
    names = grid.labels(scheme)
    points = list(range(1, len(names) + 1))
    keys = {r: widget_key(scheme.type, scheme.name, item.id, r) for r in grid.rows(scheme)}
    for r, k in keys.items():
        if k not in st.session_state:
            st.session_state[k] = grid.point(scheme, stored.get(r)) if isinstance(stored, dict) else None

    def save():
        value = grid.build(scheme, {r: st.session_state.get(k) for r, k in keys.items()})
        shell.commit(ws, item, scheme, value)

    for r, k in keys.items():
        st.radio(md(r), points, key=k, on_change=save, horizontal=True, index=None,
                 format_func=lambda p: md(f"{p} {names[p - 1]}" if names[p - 1] != str(p) else str(p)),
                 help=md(hints[r]) if hints.get(r) else None)
    rated = sum(1 for k in keys.values() if st.session_state.get(k) is not None)
    st.caption(f"{rated} of {len(keys)} rated")
