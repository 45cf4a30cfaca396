"""Every session-state key the app uses, with its default. Pages never spell key strings."""
from __future__ import annotations

import streamlit as st

ANNOTATOR = "baton.annotator"
TICKET = "baton.ticket"  # the session ticket currently in the URL (tokens configured)
ITEM = "baton.item"
ITEM_OPENED = "baton.item_opened"  # (item id, monotonic time of the last activity on it)
SAVED = "baton.saved"  # {(item, scheme): "HH:MM:SS"} last save shown to the annotator
SHOW_TRACE = "baton.show_trace"  # the trace column beside the surfaces (a sidebar toggle)
STEP_PAGE = "baton.step_page"  # {item id: page of the trace view}
FULL_RERUN = "baton.full_rerun"  # set by a callback in a fragment that changed something outside it

DEFAULTS = {
    ANNOTATOR: None,
    TICKET: None,
    ITEM: None,
    ITEM_OPENED: None,
    SAVED: {},
    STEP_PAGE: {},
}


_READY = "baton.state_ready"  # set once the defaults are in: init() runs many times a rerun


def init() -> None:
    if _READY in st.session_state:
        return
    for key, default in DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = default.copy() if isinstance(default, dict) else default
    st.session_state[_READY] = True


def widget_key(*parts) -> str:
    """A widget key unique per surface, scheme, item and field, so items never share state."""
    return "w:" + "\u241f".join(str(p) for p in parts)


def follow(holds: str, owner, values: dict, forget: tuple = ()) -> None:
    """Widgets keyed by their place, not by the item (so that the browser updates them on the
    next item instead of mounting new ones), take `values` (what is stored for `owner`, e.g. the
    item) whenever the owner changes, and the `forget` keys (e.g. a card's "saved" note about the
    previous owner) are dropped; otherwise they keep their state, and a missing one is set."""
    if st.session_state.get(holds) != owner:
        for k in forget:
            st.session_state.pop(k, None)
        for k, v in values.items():
            st.session_state[k] = v
        st.session_state[holds] = owner
    else:
        for k, v in values.items():
            if k not in st.session_state:
                st.session_state[k] = v
