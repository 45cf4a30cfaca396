"""Baton's entry point: `python -m app serve CONFIG` runs this with BATON_CONFIG set."""
import streamlit as st

from app.ui import nav, shell, state, summary_page

st.set_page_config(page_title="Baton", page_icon=":material/sprint:", layout="wide")
state.init()
ws = shell.workspace()
pages = [nav.home_page()] + (nav.annotation_pages(ws) + ([summary_page.page()] if shell.is_admin() else [])
                                 if shell.annotator() else [])
st.navigation(pages, expanded=True).run()  # each page draws the sidebar itself (see app.ui.page)
