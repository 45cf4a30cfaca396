"""The pagers of long lists, all keyboard-reachable: ◀ Earlier · the page number · Later ▶
(`pager`), and ◀ · a caption · ▶ for lists that keep their own page (`arrows`)."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from app.paging import page_count
from app.ui.state import widget_key


TRACE = "baton-trace-pager"  # the row of the trace's pager: the keys [ and ] press its buttons (keyboard.py)


def pager(prefix: tuple, n: int, size: int, noun: str, place: tuple | None = None, row_key: str | None = None
          ) -> int:
    """Draw the pager for `n` things shown `size` at a time (nothing when one page holds
    them) and return the page to show. State lives under `widget_key(*prefix, "page")`, so a
    caller may turn the page itself (e.g. "go to step"). The controls are keyed by `place`
    when given (e.g. the surface without the item): on the next item the browser updates them
    instead of mounting new ones, while the page turned to stays the item's own. `row_key`: the
    key of the row holding the controls (the trace's: TRACE)."""
    n_pages = page_count(n, size)
    k_page = widget_key(*prefix, "page")
    place = prefix if place is None else place
    if n_pages <= 1:
        return 0
    st.session_state.setdefault(k_page, 0)
    if st.session_state[k_page] >= n_pages:
        st.session_state[k_page] = 0

    def move(delta: int):
        def cb():
            st.session_state[k_page] = min(max(st.session_state[k_page] + delta, 0), n_pages - 1)
        return cb

    # The page number is typed (1-based) rather than chosen from a list: a list of every page is
    # hundreds of labels at 2,000 steps, sent and redrawn on each page turn (a tool-call page turn
    # took 256 ms with it, 204 ms without). The number mirrors the page, however it was turned.
    k_number = widget_key(*place, "page_number")
    st.session_state[k_number] = st.session_state[k_page] + 1

    def typed():
        st.session_state[k_page] = min(max(int(st.session_state[k_number] or 1) - 1, 0), n_pages - 1)

    page = st.session_state[k_page]
    # one horizontal row, not columns: each column is an element of its own, sent and drawn on
    # every page turn (a tool-call page turn: 45 -> 36 elements with its cards' rows, ~25 ms)
    row = st.container(horizontal=True, vertical_alignment="bottom", key=row_key)
    row.button("◀ Earlier", key=widget_key(*place, "prev"), on_click=move(-1), disabled=page == 0)
    row.number_input(f"{noun} page (of {n_pages:,}, {size} a page)", min_value=1, max_value=n_pages, step=1,
                     key=k_number, on_change=typed)
    row.button("Later ▶", key=widget_key(*place, "next"), on_click=move(1), disabled=page >= n_pages - 1)
    return page


def arrows(keys: tuple[str, str], page: int, n_pages: int, turn: Callable[[int], None], caption: str,
           labels: tuple[str, str] = ("◀ Earlier", "Later ▶"), helps: tuple[str | None, str | None] = (None, None),
           row_key: str | None = None) -> None:
    """◀ · what the page shows · ▶ in one row (one element, not columns), for lists whose caller
    keeps the page and names it (trace steps, contention regions, a behaviour's turns);
    `turn(delta)` is the buttons' callback, `keys` the buttons' (prev, next) keys, `row_key` the
    row's (the trace's: TRACE)."""
    row = st.container(horizontal=True, vertical_alignment="center", key=row_key)
    row.button(labels[0], key=keys[0], disabled=page == 0, on_click=turn, args=(-1,), help=helps[0])
    row.caption(caption, width="stretch")
    row.button(labels[1], key=keys[1], disabled=page >= n_pages - 1, on_click=turn, args=(1,), help=helps[1])
