"""Code review: a verdict, comments (category, file, line, text) and 1-5 ratings of each file the
trace's tool calls touch. Each change saves at once."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import code_review as review
from app.ui import shell
from app.ui.state import follow, widget_key
from app.ui.text import md


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    stored = review.parse(shell.stored_value(ws, item, scheme.name))
    verdicts, categories = scheme["verdict_options"], scheme["comment_categories"]

    def current() -> dict:
        return review.parse(shell.stored_value(ws, item, scheme.name))

    def save(**parts) -> None:
        shell.commit(ws, item, scheme, review.changed(current(), **parts))

    # --- verdict ---
    k_verdict = widget_key("cr", scheme.name, "verdict")
    follow(widget_key("cr", scheme.name, "verdict-holds"), item.id,
           {k_verdict: stored["verdict"] if stored["verdict"] in verdicts else None}, typed=())
    st.radio("Verdict", verdicts, index=None, key=k_verdict, horizontal=True,
             format_func=lambda x: md(x.replace("_", " ")),
             on_change=lambda: save(verdict=st.session_state.get(k_verdict)))

    # --- comments (keyed by item and position: a removal forgets them all, they take the stored ones again) ---
    st.markdown(f"**Comments** ({len(stored['comments'])})")
    base = ("cr", scheme.name, item.id, "comment")

    def forget() -> None:
        start = widget_key(*base, "")
        for k in [k for k in st.session_state if isinstance(k, str) and k.startswith(start)]:
            del st.session_state[k]

    for i, c in enumerate(stored["comments"]):
        k = {f: widget_key(*base, i, f) for f in ("category", "file", "line", "text")}
        cats = categories + ([c["category"]] if c["category"] not in categories else [])
        for f, x in (("category", c["category"]), ("file", c["file"]), ("line", c["line"]), ("text", c["text"])):
            st.session_state.setdefault(k[f], x)

        def edited(i=i, k=k):
            comments = current()["comments"]
            if i < len(comments):
                comments[i] = review.comment(st.session_state[k["category"]], st.session_state[k["file"]].strip(),
                                             st.session_state[k["line"]], st.session_state[k["text"]])
                save(comments=comments)

        def removed(i=i):
            comments = current()["comments"]
            save(comments=comments[:i] + comments[i + 1:])
            forget()

        with st.container(border=True):
            row = st.container(horizontal=True, vertical_alignment="bottom")
            row.selectbox(f"Category of comment {i + 1}", cats, key=k["category"], on_change=edited, width=180,
                          format_func=md)
            row.text_input(f"File of comment {i + 1}", key=k["file"], on_change=edited, placeholder="optional")
            row.number_input(f"Line of comment {i + 1}", min_value=1, step=1, value=None, key=k["line"],
                             on_change=edited, width=120)
            row.button("Remove", key=widget_key(*base, i, "remove"), on_click=removed)
            st.text_area(f"Comment {i + 1}", key=k["text"], on_change=edited, placeholder="Describe the issue…")

    def added():
        save(comments=current()["comments"] + [review.comment(categories[0])])

    st.button("Add a comment", key=widget_key("cr", scheme.name, "add"), on_click=added)

    # --- file ratings ---
    dims = scheme["file_rating_dimensions"]
    files = review.trace_files(shell.derivation(item, shell.trace_scheme(ws)).tool_calls, item.data)
    files += [f for f in stored["file_ratings"] if f not in files]
    if not dims:
        return
    if not files:
        st.caption("The trace's tool calls name no file to rate.")
    for f in files:
        st.markdown(f"**{md(f)}**")
        row = st.container(horizontal=True)
        for d in dims:
            key = widget_key("cr", scheme.name, item.id, "rate", f, d)
            st.session_state.setdefault(key, stored["file_ratings"].get(f, {}).get(d))

            def rated(f=f, d=d, key=key):
                ratings = current()["file_ratings"]
                ratings.setdefault(f, {})[d] = st.session_state.get(key)
                save(file_ratings=ratings)

            row.selectbox(f"{md(d)} of {md(f)}", [None, *review.SCALE], key=key, on_change=rated, width=200,
                          format_func=lambda x: "– not rated" if x is None else str(x))
