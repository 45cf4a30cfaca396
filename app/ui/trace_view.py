"""The trace beside every surface: numbered steps, agent as text in a stable colour,
long contents collapsed, tool calls pretty-printed, paged for long runs."""
from __future__ import annotations

import json

import streamlit as st

from ..derive import Derivation
from ..trace import UNKNOWN_AGENT, Item
from . import state
from .text import agent_badge, md

PAGE_SIZE = 20
COLLAPSE_AT = 600  # characters: longer step contents start collapsed


def _page_of(item_id: str, n_pages: int) -> int:
    pages = st.session_state[state.STEP_PAGE]
    return min(pages.get(item_id, 0), max(n_pages - 1, 0))


def show_step_page(item_id: str, step_index: int) -> None:
    """Turn the trace view to the page holding this step (e.g. after picking it elsewhere)."""
    st.session_state[state.STEP_PAGE][item_id] = step_index // PAGE_SIZE


def render(item: Item, d: Derivation) -> None:
    state.init()
    st.markdown(f"**Item** {md(item.id, 80)}")
    if item.text:
        with st.expander("Task", expanded=len(item.text) < 400):
            st.text(item.text)
    n = len(d.steps)
    summary = f"{n} steps · {len(d.agents)} agents · {len(d.handoffs)} handoffs"
    if d.tool_calls:
        summary += f" · {len(d.tool_calls)} tool calls"
    st.caption(summary)
    if d.unknown_steps:
        st.warning(f"{d.unknown_steps} step(s) name no agent; they are shown as {UNKNOWN_AGENT}.")
    for p in d.problems:
        st.warning(p)
    if not n:
        return
    n_pages = (n + PAGE_SIZE - 1) // PAGE_SIZE
    page = _page_of(item.id, n_pages)
    if n_pages > 1:
        c1, c2, c3 = st.columns([1, 2, 1])
        if c1.button("◀ Earlier", key=state.widget_key("trace", item.id, "prev"), disabled=page == 0,
                     width="stretch"):
            page -= 1
        if c3.button("Later ▶", key=state.widget_key("trace", item.id, "next"), disabled=page >= n_pages - 1,
                     width="stretch"):
            page += 1
        st.session_state[state.STEP_PAGE][item.id] = page
        c2.caption(f"Steps {page * PAGE_SIZE}–{min(n, (page + 1) * PAGE_SIZE) - 1} of {n} "
                   f"(page {page + 1}/{n_pages})")
    calls_by_step: dict[int, list] = {}
    for tc in d.tool_calls:
        calls_by_step.setdefault(tc.step, []).append(tc)
    for s in d.steps[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]:
        with st.container(border=True):
            st.markdown(f"**Step {s.index}** · {agent_badge(s.agent)}")
            text = s.text
            if not text:
                st.caption("(no text)")
            elif len(text) > COLLAPSE_AT:
                st.text(text[:240].rstrip() + " …")
                with st.expander(f"Full text ({len(text):,} characters)"):
                    st.text(text)
            else:
                st.text(text)
            for tc in calls_by_step.get(s.index, []):
                args = tc.arguments if isinstance(tc.arguments, str) else json.dumps(
                    tc.arguments, indent=2, ensure_ascii=False, default=str)
                st.caption(f"Tool call {tc.index}: {md(tc.tool, 80)}")
                st.code(args or "", language="json" if not isinstance(tc.arguments, str) else None,
                        wrap_lines=True)
