"""What the surfaces of the Potato comparison and review types share: saving on change, and the
candidates an item holds (shown as plain text, never as HTML or Markdown)."""
from __future__ import annotations

import json
from typing import Any, Callable

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.ui import shell
from app.ui.text import md, visible


def saver(ws: Workspace, item: Item, scheme: Scheme, build: Callable[[], Any],
          empty: Callable[[Any], bool] | None = None) -> Callable[[], None]:
    """An on_change callback: build the value from the widgets and save it (an empty one removes the row)."""
    def cb():
        value = build()
        shell.commit(ws, item, scheme, value, empty=None if empty is None else empty(value))
    return cb


def show_candidate(title: str, candidate: Any) -> None:
    """One thing being compared or ranked, as text: a string as it is, anything else as JSON."""
    st.markdown(f"**{md(title)}**")
    if isinstance(candidate, str):
        st.text(visible(candidate))
    else:
        st.code(visible(json.dumps(candidate, indent=1, ensure_ascii=False, default=str)), language="json")
