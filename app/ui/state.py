"""Every session-state key the app uses, with its default. Pages never spell key strings."""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st

ANNOTATOR = "baton.annotator"
TICKET = "baton.ticket"  # the session ticket currently in the URL (tokens configured)
ITEM = "baton.item"
ITEM_OPENED = "baton.item_opened"  # (item id, monotonic time of the last activity on it)
SAVED = "baton.saved"  # {(item, scheme): "HH:MM:SS"} last save shown to the annotator
SHOW_TRACE = "baton.show_trace"  # the trace column beside the surfaces (a sidebar toggle)
STEP_PAGE = "baton.step_page"  # {item id: page of the trace view}
LAYOUT = "baton.layout"  # {item id: (pattern, the layout the annotator switched to)} (app/ui/layout_view.py)
LAYOUT_SHOWN = "baton.layout_shown"  # {item id: the layout it was last drawn in}
FOCUS_STEP = "baton.focus_step"  # {item id: [step, times asked]}: the step a control showed in the trace
FULL_RERUN = "baton.full_rerun"  # set by a callback in a fragment that changed something outside it
NOT_SAVED = "baton.not_saved"  # {(item, scheme): why its last save failed, in words}
CONFLICT = "baton.conflict"  # {(item, scheme): the fields another tab set differently, kept, in words}
REVERT = "baton.revert"  # how many saves failed: controls that follow stored values go back to them
ITEMS_OPENED = "baton.items_opened"  # how many items the Items table opened (its key changes each time)
PAGE = "baton.page"  # the url path of the page this run shows (a scheme's page names its scheme)
SESSION_ENDED = "baton.session_ended"  # why this session was signed out (shown on the sign-in page)

DEFAULTS = {
    ANNOTATOR: None,
    TICKET: None,
    ITEM: None,
    ITEM_OPENED: None,
    SAVED: {},
    STEP_PAGE: {},
    LAYOUT: {},
    LAYOUT_SHOWN: {},
    FOCUS_STEP: {},
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


def follow(holds: str, owner, values: dict, forget: tuple = (), typed: tuple | None = None) -> None:
    """Widgets keyed by their place, not by the item (so that the browser updates them on the
    next item instead of mounting new ones), take `values` (what is stored for `owner`, e.g. the
    item) whenever the owner changes, and the `forget` keys (e.g. a card's "saved" note about the
    previous owner) are dropped; otherwise they keep their state, and a missing one is set.

    `typed` is given when `values` are what is on disk: after a failed save (REVERT) they are set
    again, once per failure, except the `typed` text boxes, which keep what was typed to retry;
    and when the disk changed since they were set (another tab's save), they take it (a text box
    only while it holds what was set, not text typed since), so that the controls show what a
    click's change is applied to (app/ui/saving.py: `base`)."""
    if st.session_state.get(holds) != owner:
        for k in forget:
            st.session_state.pop(k, None)
        for k, v in values.items():
            st.session_state[k] = v
        st.session_state[holds] = owner
    else:
        reverting = typed is not None and _revert_due(holds)
        last = st.session_state.get(holds + "\u241fset", {}) if typed is not None else {}
        for k, v in values.items():
            moved = k in last and last[k] != v and (k not in typed or st.session_state.get(k) == last[k])
            if k not in st.session_state or (reverting and k not in typed) or moved:
                st.session_state[k] = v
    if typed is not None:
        st.session_state[holds + "\u241freverted"] = st.session_state.get(REVERT, 0)
        st.session_state[holds + "\u241fset"] = dict(values)


def _revert_due(holds: str) -> bool:
    """Whether a save failed since these controls last followed what is on disk."""
    return st.session_state.get(REVERT, 0) > st.session_state.get(holds + "\u241freverted", 0)


def remembered(key: str, fits: Callable[[Any], Any]) -> Callable[[], None]:
    """A widget's value that outlives the runs it is not drawn in (Streamlit forgets an undrawn
    widget's state): call before drawing it, pass the result as its on_change. A missing value,
    or one `fits` refuses (None), is given back from the last one the annotator chose, as `fits`
    makes it fit now (None: left to the widget's default)."""
    kept = key + "\u241fkept"
    if key not in st.session_state or fits(st.session_state[key]) is None:
        if kept in st.session_state:
            value = fits(st.session_state[kept])
            if value is not None:
                st.session_state[key] = value
    return lambda: st.session_state.__setitem__(kept, st.session_state[key])


def element_key(key: str) -> str:
    """The key a v2 component is drawn with in the place `key`. Streamlit refuses one holding
    "__" (it joins a component's id and its events' names with it), and a place's key holds
    scheme names and item ids from the project: each "_" is written "_-", so no two underscores
    follow each other and two places never share a key."""
    return key.replace("_", "_-")


def trigger(key: str, name: str):
    """The value of the trigger `name` a v2 component in `key` fired for this run (its state is
    a dict of them), or None."""
    value = st.session_state.get(element_key(key))
    return value.get(name) if isinstance(value, dict) else None
