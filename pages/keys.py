"""Keyboard shortcuts: every key of the annotation pages, the README's table (app/ui/nav.KEYS_HELP)."""
import streamlit as st

from app.ui import nav, shell

ws = shell.workspace()
shell.require_annotator()
nav.sidebar(ws, None)
st.title("Keyboard shortcuts")
st.markdown("An item can be annotated with the keyboard alone: move to a card with j / k (it is outlined), "
            "pick with the number keys (each pick is saved at once), go on with Alt+J, finish with d.")
st.markdown(nav.KEYS_HELP)
