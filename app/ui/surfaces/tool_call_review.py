"""Tool-call review: a card per tool call with its arguments and result, a verdict and notes.

Cards are paged; clicks re-run only this scheme's fragment (app/ui/page.scheme_block). Each change saves at once
(value format in app/toolreview.py).
"""
from __future__ import annotations

import streamlit as st

from ... import toolreview
from ...config import Scheme
from ...trace import Item
from ...workspace import Workspace
from .. import shell
from ..pager import pager
from ..state import widget_key
from ..text import agent_badge, md

PAGE_SIZE = 10
LONG = 1500  # characters: longer arguments/results start collapsed
SHORT = 400  # characters: a result this short is shown open



def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    _review(ws, item, scheme)


def _show_data(label: str, data, expanded: bool) -> None:
    text, lang = toolreview.pretty(data)
    if len(text) > LONG:
        with st.expander(f"{label} ({len(text):,} characters)", expanded=False):
            st.code(text, language=lang, wrap_lines=True)
    elif expanded:
        st.caption(label)
        st.code(text, language=lang, wrap_lines=True)
    else:
        with st.expander(label, expanded=False):
            st.code(text, language=lang, wrap_lines=True)


def _review(ws: Workspace, item: Item, scheme: Scheme) -> None:
    d = shell.derivation(item, scheme)
    verdicts: list[str] = scheme["verdict_options"]
    prefix = ("toolreview", scheme.name, item.id)
    ann = shell.load(ws, item, scheme.name)
    stored = ann.value if ann else None
    matched, orphans = toolreview.reconcile(stored, d.tool_calls)
    calls = d.tool_calls
    options = [None] + list(verdicts)

    def current():
        return shell.stored_value(ws, item, scheme.name)

    def commit(value) -> None:
        shell.commit(ws, item, scheme, value)

    def on_change(call, k_verdict: str, k_notes: str):
        def cb():
            e = toolreview.entry(call, st.session_state.get(k_verdict), st.session_state.get(k_notes, ""))
            commit(toolreview.put(current(), e))
        return cb

    def discard(index: int):
        return lambda: commit(toolreview.drop(current(), index))

    st.caption(md(toolreview.summary(stored, len(calls), verdicts)))
    if not calls:
        st.info("No tool calls were found in this trace.")
    else:
        page = pager(prefix, len(calls), PAGE_SIZE, "Calls")
        for call in calls[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]:
            e = matched.get(call.index)
            k_verdict = widget_key(*prefix, call.index, "verdict")
            k_notes = widget_key(*prefix, call.index, "notes")
            if k_verdict not in st.session_state:
                st.session_state[k_verdict] = e["verdict"] if e and e["verdict"] in verdicts else None
            if k_notes not in st.session_state:
                st.session_state[k_notes] = e["notes"] if e else ""
            with st.container(border=True):
                st.markdown(f"**Call {call.index}** · step {call.step} · {agent_badge(call.agent)} · "
                            f"tool **{md(call.tool, 120)}**")
                if call.arguments is None:
                    st.caption("No arguments")
                else:
                    _show_data("Arguments", call.arguments, expanded=True)
                if call.result is not None:
                    _show_data("Result", call.result, expanded=len(toolreview.pretty(call.result)[0]) <= SHORT)
                cb = on_change(call, k_verdict, k_notes)
                c1, c2 = st.columns([1, 2])
                c1.selectbox(md(f"Verdict on call {call.index}"), options, key=k_verdict, on_change=cb,
                             format_func=lambda o: "– no verdict" if o is None else o, placeholder="– no verdict")
                c2.text_input(md(f"Notes on call {call.index}"), key=k_notes, on_change=cb,
                              placeholder="What is wrong with it, or why it is right")
                if e and e["verdict"] and e["verdict"] not in verdicts:
                    st.caption(f"Saved verdict “{md(e['verdict'])}” is not among this scheme's verdicts.")

    if orphans:
        with st.expander(f":material/warning: {len(orphans)} saved label(s) no longer match a call of this "
                         "trace (the data changed)", expanded=True):
            for o in orphans:
                c1, c2 = st.columns([4, 1], vertical_alignment="center")
                c1.text(f"call {o['index']} · step {o['step']} · {o['tool']}: "
                        f"{o['verdict'] or 'no verdict'} · {o['notes']}")
                c2.button("Discard", key=widget_key(*prefix, "orphan", o["index"]), on_click=discard(o["index"]))

    def clean():
        shell.reviewed_clean(ws, item, scheme, [], forget=prefix)

    st.button("Reviewed, nothing to flag", key=widget_key(*prefix, "clean"), on_click=clean,
              help="Record that you checked every call and found nothing wrong "
                   "(removes any verdicts given here)")
