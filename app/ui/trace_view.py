"""The trace beside every surface: numbered steps, agent as text in a stable colour,
long contents collapsed, tool calls pretty-printed, paged for long runs.

Steps that record their LLM input (span traces) show each agent's conversation once, as a
prefix tree (app/conversation.py): only the input messages new since that agent's earlier
calls, repeats folded into references, the full input one click away."""
from __future__ import annotations

import json

import streamlit as st

from .. import conversation
from ..derive import Derivation
from ..trace import UNKNOWN_AGENT, Item
from . import state
from .pager import arrows
from .text import agent_badge, md

HIGHLIGHT_UP_TO = 300  # characters of a tool call's arguments shown in colour
PAGE_SIZE = 10  # steps per page: a page turn or a new item draws this many cards
COLLAPSE_AT = 600  # characters: longer step contents start collapsed


def _page_of(item_id: str, n_pages: int) -> int:
    pages = st.session_state[state.STEP_PAGE]
    return min(pages.get(item_id, 0), max(n_pages - 1, 0))


def show_step_page(item_id: str, step_index: int) -> None:
    """Turn the trace view to the page holding this step (e.g. after picking it elsewhere).
    The trace view is outside the surfaces' fragments: a turn asks for a whole-page rerun."""
    pages = st.session_state[state.STEP_PAGE]
    if pages.get(item_id, 0) != step_index // PAGE_SIZE:
        st.session_state[state.FULL_RERUN] = True
    pages[item_id] = step_index // PAGE_SIZE


SHOW_AT_MOST = 200_000  # characters sent to the browser for one text; a 50 MB field would stall the tab


def _long_text(text: str, label: str) -> None:
    if len(text) > COLLAPSE_AT:
        st.text(text[:240].rstrip() + " …")
        with st.expander(f"{label} ({len(text):,} characters)"):
            st.text(text[:SHOW_AT_MOST])
            if len(text) > SHOW_AT_MOST:
                st.caption(f"First {SHOW_AT_MOST:,} of {len(text):,} characters shown; "
                           "`python -m app derive` or the data file has the rest.")
    else:
        st.text(text)


def _input(item_id: str, s, sv: conversation.StepView) -> None:
    """The new part of a step's input; earlier messages only referred to."""
    msgs = conversation.messages_of(s.raw) or []
    if sv.new_thread:
        st.caption(f"New conversation thread of {md(sv.agent, 60)}"
                   + (f" · {len(msgs)} input messages" if msgs else ""))
    else:
        note = f"Input: {sv.known} earlier message(s) of this conversation not repeated"
        if sv.branch_of is not None:
            note += f" · branches from step {sv.branch_of} (its later messages are not in this input)"
        st.caption(note)
    for p in range(sv.known, len(msgs)):
        role, text = msgs[p]
        echo = sv.echoes.get(p)
        who = f"{md(role or 'message', 30)} · message {p}"
        if echo is not None and not echo.partial:
            what = "its output" if echo.pos is None else f"its input message {echo.pos}"
            st.caption(f"{who}: repeats step {echo.step} ({what}), {len(text):,} characters")
            continue
        st.caption(who)
        if echo is not None:
            text = (text[:echo.start] + f"[… output of step {echo.step}, {echo.end - echo.start:,} characters …]"
                    + text[echo.end:])
        _long_text(text, "Full message")
    if msgs and (sv.known or sv.echoes):
        key = state.widget_key("trace", item_id, "full_input", s.index)
        if st.toggle(f"Full input ({len(msgs)} messages, {sv.input_chars:,} characters)", key=key):
            for p, (role, text) in enumerate(msgs):
                st.caption(f"{md(role or 'message', 30)} · message {p}")
                st.text(text)
    st.caption("Output")


@st.cache_resource(max_entries=64)
def _conversation(item_id: str, trace_hash: str, derivation_id: int, _steps) -> conversation.ConversationView:
    """The prefix-tree view of the item's conversations, built once per item (not per rerun)."""
    return conversation.build(_steps)


def warm(item: Item, d: Derivation) -> None:
    """Build the item's conversation view into the cache (see shell.prefetch)."""
    _conversation(item.id, item.trace_hash, id(d), d.steps)


@st.fragment
def render(item: Item, d: Derivation) -> None:
    """The trace column, as a fragment: its paging and "Full input" toggles re-run only it.
    (Another surface turning it to a step asks for a whole-page rerun: see show_step_page.)"""
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
    view = _conversation(item.id, item.trace_hash, id(d), d.steps)
    if view.has_inputs:
        st.caption(f"Conversations shown once per agent: {view.shown_chars:,} of {view.raw_chars:,} "
                   f"characters in the raw steps ({view.saved:.0%} not repeated)")
    if d.unknown_steps:
        st.warning(f"{d.unknown_steps} step(s) name no agent; they are shown as {UNKNOWN_AGENT}.")
    for p in d.problems:
        st.warning(p)
    if not n:
        return
    n_pages = (n + PAGE_SIZE - 1) // PAGE_SIZE
    page = _page_of(item.id, n_pages)
    if n_pages > 1:
        def turn(delta: int) -> None:  # a callback: the buttons below are drawn for the new page
            pages = st.session_state[state.STEP_PAGE]
            pages[item.id] = min(max(_page_of(item.id, n_pages) + delta, 0), n_pages - 1)

        st.session_state[state.STEP_PAGE][item.id] = page
        # keyed by place, not by item: the next item updates these buttons instead of mounting
        # new ones (the page itself is the item's own, in STEP_PAGE)
        arrows((state.widget_key("trace", "place", "prev"), state.widget_key("trace", "place", "next")),
               page, n_pages, turn, f"Steps {page * PAGE_SIZE}–{min(n, (page + 1) * PAGE_SIZE) - 1} of {n} "
                                    f"(page {page + 1}/{n_pages})")
    calls_by_step: dict[int, list] = {}
    for tc in d.tool_calls:
        calls_by_step.setdefault(tc.step, []).append(tc)
    for s in d.steps[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]:
        with st.container(border=True):
            st.markdown(f"**Step {s.index}** · {agent_badge(s.agent)}")
            sv = view.steps[s.index] if s.index < len(view.steps) else None
            if sv is not None and sv.has_input:
                _input(item.id, s, sv)
            text = s.text
            if not text:
                st.caption("(no text)")
            else:
                _long_text(text, "Full text")
            raw_calls = {str(x.get("id")): x for x in (s.raw.get("tool_calls") or [])
                         if isinstance(x, dict)} if isinstance(s.raw, dict) else {}
            for tc in calls_by_step.get(s.index, []):
                args = tc.arguments if isinstance(tc.arguments, str) else json.dumps(
                    tc.arguments, indent=2, ensure_ascii=False, default=str)
                failed = raw_calls.get(str(tc.call_id), {}).get("status") == "error"
                st.caption(f"Tool call {tc.index}: {md(tc.tool, 80)}" + (
                    f" · failed: {md(raw_calls[str(tc.call_id)].get('error') or 'error', 160)}" if failed else ""))
                # short blocks in colour; a long one plain (the browser's highlighter costs per character)
                plain = isinstance(tc.arguments, str) or len(args or "") > HIGHLIGHT_UP_TO
                st.code(args or "", language=None if plain else "json", wrap_lines=True)
