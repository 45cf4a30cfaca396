"""The instant card's yardstick (app/ui/instant.py): the same choice card built from Streamlit's
own checkbox / radio in an `st.fragment`, measured against it by benchmarks/clicks.py
(benchmarks/pages/instant_demo.py). The widget paints its own tick, the save runs in its
on_change callback and the fragment reruns to say what is stored."""
from __future__ import annotations

import streamlit as st

from app.ui.instant import NOTHING, SAVED, Load, Save, failed_words
from app.ui.text import md, visible


def fragment_choice(key: str, *, title: str, options: list[str], load: Load, save: Save,
                    multi: bool = True, labels: dict[str, str] | None = None) -> None:
    """The same card from Streamlit's own widgets in a fragment: the widget paints its tick, the
    save runs in on_change, the fragment reruns to say what is stored."""
    err_key = f"fragment_err::{key}"

    def widget_key(option: str) -> str:
        return f"{key}::{option}" if multi else key

    def on_change() -> None:
        if multi:
            value = [o for o in options if st.session_state.get(widget_key(o))]
        else:
            picked = st.session_state.get(key)
            value = [picked] if picked in options else []
        try:
            save(value)
            st.session_state.pop(err_key, None)
        except OSError as error:
            st.session_state[err_key] = failed_words(error)
        # the widgets show what is stored after a failure: follow the store on the next run
        st.session_state[f"{key}::follow"] = True

    @st.fragment
    def card() -> None:
        stored = load()
        if st.session_state.pop(f"{key}::follow", False) or f"{key}::seen" not in st.session_state:
            st.session_state[f"{key}::seen"] = True
            if multi:
                for o in options:
                    st.session_state[widget_key(o)] = o in stored
            else:
                st.session_state[key] = stored[0] if stored else None
        with st.container(border=True, key=f"fcard-{key}"):  # the class st-key-fcard-… finds the card
            st.text(visible(title))
            if multi:
                cols = st.columns(len(options))
                for col, o in zip(cols, options):
                    col.checkbox(md((labels or {}).get(o, o)), key=widget_key(o), on_change=on_change)
            else:
                st.radio(title, options, key=key, on_change=on_change, horizontal=True,
                         format_func=lambda o: md((labels or {}).get(o, o)), label_visibility="collapsed")
            error = st.session_state.get(err_key)
            st.text(error if error else (SAVED if stored else NOTHING))

    card()
