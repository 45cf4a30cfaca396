"""One pager for long lists: ◀ Earlier · a page picker · Later ▶, all keyboard-reachable."""
from __future__ import annotations

import streamlit as st

from ..paging import page_count
from .state import widget_key


def pager(prefix: tuple, n: int, size: int, noun: str) -> int:
    """Draw the pager for `n` things shown `size` at a time (nothing when one page holds
    them) and return the page to show. State lives under `widget_key(*prefix, "page")`, so a
    caller may turn the page itself (e.g. "go to step")."""
    n_pages = page_count(n, size)
    k_page = widget_key(*prefix, "page")
    if n_pages <= 1:
        return 0
    st.session_state.setdefault(k_page, 0)
    if st.session_state[k_page] >= n_pages:
        st.session_state[k_page] = 0

    def move(delta: int):
        def cb():
            st.session_state[k_page] = min(max(st.session_state[k_page] + delta, 0), n_pages - 1)
        return cb

    c1, c2, c3 = st.columns([2, 3, 2], vertical_alignment="bottom")
    c1.button("◀ Earlier", key=widget_key(*prefix, "prev"), on_click=move(-1),
              disabled=st.session_state[k_page] == 0, width="stretch")
    c2.selectbox(f"{noun} page", list(range(n_pages)), key=k_page,
                 format_func=lambda p: f"{noun} {p * size}–{min(n, (p + 1) * size) - 1} "
                 f"of {n} (page {p + 1}/{n_pages})")
    c3.button("Later ▶", key=widget_key(*prefix, "next"), on_click=move(1),
              disabled=st.session_state[k_page] >= n_pages - 1, width="stretch")
    return st.session_state[k_page]
