"""The frame of an annotation page: trace on the left, the type's schemes on the right."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from app.project.config import Scheme
from app.types.registry import TYPES
from app.traces.trace import Item
from app.types.radio import choice as radio_choice
from app.project.workspace import Workspace
from app.ui import keyboard, nav, shell, state, trace_view
from app.ui.text import md

# draws a scheme's surface; returns shell.CARDS when its cards re-run alone and say what they saved
Renderer = Callable[[Workspace, Item, Scheme], object]
Warmer = Callable[[Item, object, Scheme], None]


def condition_unmet(ws: Workspace, item: Item, scheme: Scheme) -> str | None:
    """Why a `show_if` scheme is not asked on this item, or None if it is."""
    cond = scheme.get("show_if")
    if not cond:
        return None
    ann = shell.load(ws, item, cond["scheme"])
    choice = radio_choice(ann.value) if ann else None
    if choice in cond["any_of"]:
        return None
    wanted = " or ".join(f'"{md(x)}"' for x in cond["any_of"])
    got = f'"{md(choice)}"' if choice else "not answered yet"
    return f'Asked only when "{md(cond["scheme"])}" is {wanted} (it is {got}).'


def annotation_page(type_name: str, render_scheme: Renderer, warm: Warmer | None = None,
                    trace_hidden: Callable[[Workspace, Item, list[Scheme]], str | None] | None = None,
                    surface_first: bool = False) -> None:
    """The page of one annotation type; `warm(item, derivation, scheme)` builds ahead what a
    scheme's surface will draw of an item not yet opened (see shell.prefetch); `trace_hidden`
    says why the trace must not be on the page now (None: it may), the task then shown alone.
    `surface_first`: the schemes are drawn before the trace beside them (same places on the
    page), so a surface slow to show in the browser (the graph's component) starts first."""
    ws = shell.workspace()
    shell.require_annotator()
    item = shell.current_item(ws)
    # the page's scheme (its url names it); every scheme of the type on a former per-type url
    schemes = nav.page_schemes(ws, type_name)
    nav.sidebar(ws, schemes[0].name if schemes else None)
    st.title(md(nav.scheme_title(schemes[0])) if len(schemes) == 1 else TYPES[type_name].title)
    if item is None:
        st.info(nav.no_items_message(ws))
        st.stop()
    keyboard.listen()  # j/k between cards, 1-9 to pick, n/p/d (app/ui/keyboard.py)
    hidden = trace_hidden(ws, item, schemes) if trace_hidden is not None else None
    left = None
    if hidden is None and st.session_state.get(state.SHOW_TRACE, True):
        left, right = st.columns([5, 6], gap="large")
        if not surface_first:
            with left:
                trace_view.render(item, shell.derivation(item, shell.trace_scheme(ws)))
            left = None
    else:
        right = st.container()
    with right:
        if hidden is not None:  # (the trace column, with the task, is not drawn: the task here)
            st.caption(hidden)
            if item.text:
                with st.expander("Task", expanded=len(item.text) < 400):
                    st.text(item.text)
        for scheme in schemes:
            with st.container(border=True):
                st.subheader(md(scheme.name))
                if scheme.description:
                    st.caption(md(scheme.description))
                scheme_block(ws, item, scheme, render_scheme, _asked_about(ws, scheme))
        nxt = shell.neighbour(ws, item.id, 1)
        done_button(ws, item, nxt)
    if left is not None:  # (surface_first: the trace now, in its column on the left)
        with left:
            trace_view.render(item, shell.derivation(item, shell.trace_scheme(ws)))
    # the item "Done → next" opens, and the one after it, derived while this one is read: the
    # next item's page then finds the one after it ready to hand ahead to the browser (warm)
    for ahead in (nxt, shell.neighbour(ws, nxt, 1) if nxt else None):
        if ahead:
            shell.prefetch(ws.by_id[ahead], [shell.trace_scheme(ws)], extra=trace_view.warm)
            shell.prefetch(ws.by_id[ahead], schemes, extra=warm)


def _asked_about(ws: Workspace, scheme: Scheme) -> bool:
    """Whether another scheme of the project is asked only for some answers to this one."""
    return any((s.get("show_if") or {}).get("scheme") == scheme.name for s in ws.project.schemes)


@st.fragment
def scheme_block(ws: Workspace, item: Item, scheme: Scheme, render_scheme: Renderer, asked_about: bool) -> None:
    """One scheme's surface and its saved note, as a fragment: a click on the surface re-runs
    only this (the surface, then the note saying what is now on disk), not the whole page with
    its trace and sidebar. A change that something outside needs (the trace view's page, a
    `show_if` answer) asks for a whole-page rerun through `state.FULL_RERUN`."""
    why_not = condition_unmet(ws, item, scheme)
    if why_not:
        st.info(why_not)
        return
    per_card = render_scheme(ws, item, scheme) == shell.CARDS
    shell.saved_note(ws, item, scheme.name, per_card=per_card)
    if asked_about:  # another scheme's show_if reads this answer: redraw the page when it changed
        ann = shell.load(ws, item, scheme.name)
        now = radio_choice(ann.value) if ann else None
        k = state.widget_key("page", "answer", scheme.name, item.id)
        if k in st.session_state and st.session_state[k] != now:
            st.session_state[state.FULL_RERUN] = True
        st.session_state[k] = now
    shell.rerun_if_asked()


def done_button(ws: Workspace, item: Item, nxt: str | None) -> None:
    """Mark the item done for this annotator and move on to the next one (`nxt`)."""
    label = "Done with this item → next" if nxt else "Done with this item"

    def done():  # a callback: the one run that follows draws the next item (not this one, then it)
        if shell.save(ws, item, shell.DONE, shell.DONE, {"done": True}) is not None and nxt:
            shell.go_to(nxt)

    st.button(label, key=state.widget_key("done"), type="primary", width="stretch",
              shortcut=nav.SHORTCUTS["done with this item"], on_click=done)
    shell.not_saved_note(item, shell.DONE)  # not marked done, and still on this item
