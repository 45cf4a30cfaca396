"""Sign in, see this annotator's progress, open an item."""
import streamlit as st

from app.ui import nav, shell, state
from app.ui.state import widget_key
from app.ui.text import md

ws = shell.workspace()
st.title(md(ws.project.name))
who = shell.annotator()
if not who:
    if st.session_state.get(state.SESSION_ENDED):
        st.info(st.session_state[state.SESSION_ENDED])
    with st.form("sign-in"):
        if shell.accounts():
            token = st.text_input("Your access token", type="password")
            if st.form_submit_button("Sign in", type="primary"):
                if shell.sign_in_with_token(token):
                    st.rerun()
                st.error("That token is not valid for this project.")
        else:
            name = st.text_input("Your annotator name", max_chars=64)
            if st.form_submit_button("Sign in", type="primary") and shell.clean_name(name):
                shell.sign_in(name)
                st.rerun()
    with st.sidebar:
        nav.unreadable_notice(ws)
    if not shell.accounts():
        st.caption("No access control is configured for this project: anyone who can reach this page "
                   "can annotate under any name. `?annotator=NAME` in the URL signs that name in.")
    st.stop()

nav.sidebar(ws)
nav.problems_banner(ws)
nav.unsupported_notice(ws)
rows = nav.progress_rows(ws, who)
done = sum(r["done"] for r in rows)
st.progress(done / len(rows) if rows else 0.0, text=f"{md(who)}: {done} of {len(rows)} items done")
# a click on a row opens that item on the first scheme's page; the table's key changes with each
# opening, so coming back here does not find the row still selected (and open it again)
opened = st.session_state.get(state.ITEMS_OPENED, 0)
picked = st.dataframe([{k: v for k, v in r.items() if k != "id"} for r in rows], hide_index=True,
                      width="stretch", on_select="rerun", selection_mode="single-row",
                      key=widget_key("home", "items", opened),
                      column_config={"#": st.column_config.NumberColumn("#", width="small"),
                                     "done": st.column_config.CheckboxColumn("done")})
st.caption("Click a row to open that item.")
if picked.selection.rows:
    st.session_state[state.ITEMS_OPENED] = opened + 1
    chosen = rows[picked.selection.rows[0]]["id"]
    shell.go_to(chosen)
    first = next(iter(nav.annotation_pages(ws)), None)
    if first is not None:
        st.switch_page(first, query_params=shell.url_params(item=chosen))
item = shell.current_item(ws)
if item is not None:
    st.markdown(f"Current item: **{md(item.id, 80)}**")
    for page in nav.annotation_pages(ws):
        st.page_link(page, width="content")
if st.button("Sign out", key=widget_key("home", "sign-out"),
             help="Ends every session of yours: each tab and browser asks for the token again"):
    shell.sign_out()
    st.rerun()
