"""Baton's entry point: `python -m app serve CONFIG` runs this with BATON_CONFIG set."""
import streamlit as st

from app.ui import nav, shell, signin, state

# a local image: a `:material/...:` page icon makes the browser fetch it from a font server
# (offline: ERR_NAME_NOT_RESOLVED in the console); nothing is fetched from outside the machine
st.set_page_config(page_title="Baton", page_icon=str(shell.ROOT / "app" / "ui" / "static" / "baton.png"),
                   layout="wide")
state.init()
signin.gate()  # a damaged secrets file: every page stops here, saying what is wrong
ws = shell.workspace()
# Hidden: each page draws the sidebar itself, with links that carry the item and the sign-in in
# their URL (see app.ui.nav.page_links), so Back after a page switch goes to the page before.
page = st.navigation(nav.pages_of(ws) + nav.alias_pages(ws), position="hidden")
st.session_state[state.PAGE] = page.url_path  # which scheme an annotation page shows (app.ui.page)
page.run()
