"""The trace beside every surface: numbered steps, agent as text in a stable colour,
long contents folded, tool calls pretty-printed, paged for long runs (the cards themselves:
app/step_cards.py, drawn by step_card_view).

Steps that record their LLM input (span traces) show each agent's conversation once, as a
prefix tree (app/conversation.py): only the input messages new since that agent's earlier
calls, repeats folded into references, the full input one click away.

Above the steps, the Layout control (app/ui/layout_view.py) draws the run as lanes, a tree or a
board instead, following its orchestration pattern."""
from __future__ import annotations

import streamlit as st

from app.traces import conversation, step_cards
from app.traces.derive import Derivation
from app.traces.orchestration import STEPS
from app.traces.trace import UNKNOWN_AGENT, Item
from app.ui import layout_view, shell, state, step_card_view
from app.ui.pager import TRACE, arrows
from app.ui.text import md

PAGE_SIZE = 10  # steps per page: a page turn or a new item draws this many cards


def _page_of(item_id: str, n_pages: int) -> int:
    pages = st.session_state[state.STEP_PAGE]
    return min(pages.get(item_id, 0), max(n_pages - 1, 0))


def show_step_page(item_id: str, step_index: int, why: str = "") -> None:
    """Show this step in the trace view (e.g. after picking it elsewhere): in the step list
    whatever layout the trace was in, turned to the page holding it, the step marked, and
    scrolled into view once per call (the count in FOCUS_STEP tells the browser a new call from
    a rerun). The trace view is outside the surfaces' fragments: this asks for a whole-page rerun."""
    state.init()
    st.session_state[state.STEP_PAGE][item_id] = step_index // PAGE_SIZE
    layout_view.show_steps(item_id)  # (the step's card: whatever layout the trace was in)
    focus = st.session_state[state.FOCUS_STEP]
    asked = focus.get(item_id, [None, 0, ""])[1] + 1
    focus[item_id] = [int(step_index), asked, why]
    st.session_state[state.FULL_RERUN] = True


def focus_of(item_id: str) -> tuple[int, int, str] | None:
    """(step, times asked, why) of the step a control last showed in this item's trace, or None."""
    found = st.session_state.get(state.FOCUS_STEP, {}).get(item_id)
    return (found[0], found[1], found[2]) if found else None


@st.cache_resource(max_entries=64)
def _conversation(item_id: str, trace_hash: str, derivation_id: int, _steps) -> conversation.ConversationView:
    """The prefix-tree view of the item's conversations, built once per item (not per rerun)."""
    return conversation.build(_steps)


def warm(item: Item, d: Derivation, scheme=None) -> None:
    """Build the item's conversation view, its suggested pattern and layout into the caches (see
    shell.prefetch)."""
    view = _conversation(item.id, item.trace_hash, id(d), d.steps)
    layout_view.warm(item, d, view)


@st.fragment
def render(item: Item, d: Derivation) -> None:
    """The trace column, as a fragment: its paging re-runs only it (folded texts and full
    inputs open in the browser, without a rerun).
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
    layout = layout_view.control(shell.workspace(), item, d)
    if layout != STEPS:
        layout_view.draw(item, d, layout, view)
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
                                    f"(page {page + 1}/{n_pages})",
               helps=("Previous page of steps (key: [)", "Next page of steps (key: ])"), row_key=TRACE)
    # one element keyed by place: a new item or page hands it new cards (see step_card_view)
    focus = focus_of(item.id)
    step_card_view.draw(step_cards.cards(d, view, page * PAGE_SIZE, (page + 1) * PAGE_SIZE),
                        key=state.widget_key("trace", "place", "cards"),
                        focus=focus if focus and page * PAGE_SIZE <= focus[0] < (page + 1) * PAGE_SIZE else None)
