"""Agent scorecard: a score per agent and dimension, team scores, milestones reached.

A grid of selectboxes (an agent per row, a dimension per column); "–" is "not scored",
distinct from every score. Each change saves at once (value format in app/scorecard.py).
"""
from __future__ import annotations

import streamlit as st

from ... import scorecard
from ...config import Scheme
from ...trace import Item
from ...workspace import Workspace
from .. import shell
from ..state import widget_key
from ..text import agent_badge, md

PAGE_SIZE = 15  # agent rows per page



def _steps(n: int) -> str:
    return f" · {n} step" + ("" if n == 1 else "s")


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    _scorecard(ws, item, scheme)


def _scorecard(ws: Workspace, item: Item, scheme: Scheme) -> None:
    d = shell.derivation(item, scheme)
    scale: int = scheme["scale"]
    dims: list[str] = scheme["agent_dimensions"]
    team_dims: list[str] = scheme["team_dimensions"] or []
    milestones: list[str] = scheme["milestones"] or []
    prefix = ("scorecard", scheme.name, item.id)
    ann = shell.load(ws, item, scheme.name)
    stored = ann.value if ann else None
    card = scorecard.parse(stored, scale)
    rows, extra = scorecard.rows(d.agents, stored, scale)
    options = [None] + list(range(1, scale + 1))

    def fmt(o):
        return "–" if o is None else str(o)

    def current():
        return shell.stored_value(ws, item, scheme.name)

    def commit(value) -> None:
        shell.commit(ws, item, scheme, value, empty=scorecard.is_empty(value))

    def on_agent(agent: str, dim: str, key: str):
        return lambda: commit(scorecard.with_agent_score(current(), agent, dim, st.session_state[key],
                                                         milestones, scale))

    def on_team(dim: str, key: str):
        return lambda: commit(scorecard.with_team_score(current(), dim, st.session_state[key], milestones, scale))

    def on_milestone(name: str, key: str):
        return lambda: commit(scorecard.with_milestone(current(), name, bool(st.session_state[key]),
                                                       milestones, scale))

    def select(label: str, key: str, value, cb) -> None:
        if key not in st.session_state:
            st.session_state[key] = value if value in options else None
        st.selectbox(label, options, key=key, format_func=fmt, on_change=cb, label_visibility="collapsed",
                     placeholder="–")

    st.caption(f"Scores from 1 (lowest) to {scale} (highest); “–” is not scored. "
               f"{md(scorecard.summary(stored, len(d.agents), dims, team_dims, scale))}.")

    # --- agents ---------------------------------------------------------------------------------
    st.markdown("**Agents**")
    if not rows:
        st.info("No agent acts in this trace.")
    else:
        n_pages = (len(rows) + PAGE_SIZE - 1) // PAGE_SIZE
        page = 0
        if n_pages > 1:
            page = st.selectbox("Agents page", list(range(n_pages)), key=widget_key(*prefix, "page"),
                                format_func=lambda p: f"Agents {p * PAGE_SIZE + 1}–"
                                f"{min(len(rows), (p + 1) * PAGE_SIZE)} of {len(rows)}")
        widths = [3] + [2] * len(dims)
        head = st.columns(widths, vertical_alignment="bottom")
        head[0].caption("agent")
        for c, dim in zip(head[1:], dims):
            c.caption(md(dim))
        for agent in rows[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]:
            cols = st.columns(widths, vertical_alignment="center")
            note = " (not in this trace)" if agent in extra else _steps(d.step_counts.get(agent, 0))
            cols[0].markdown(agent_badge(agent) + md(note))
            for c, dim in zip(cols[1:], dims):
                key = widget_key(*prefix, "agent", agent, dim)
                with c:
                    select(md(f"{dim} of {agent}"), key, card["agents"].get(agent, {}).get(dim),
                           on_agent(agent, dim, key))

    # --- team -----------------------------------------------------------------------------------
    if team_dims:
        st.markdown("**Team**")
        cols = st.columns(len(team_dims))
        for c, dim in zip(cols, team_dims):
            key = widget_key(*prefix, "team", dim)
            with c:
                st.caption(md(dim))
                select(md(f"team {dim}"), key, card["team"].get(dim), on_team(dim, key))

    # --- milestones -----------------------------------------------------------------------------
    if milestones:
        st.markdown("**Milestones reached**")
        for name in milestones:
            key = widget_key(*prefix, "milestone", name)
            if key not in st.session_state:
                st.session_state[key] = bool(card["milestones"].get(name, False))
            st.checkbox(md(name), key=key, on_change=on_milestone(name, key))

    def clean():
        shell.reviewed_clean(ws, item, scheme, scorecard.empty(), forget=prefix)

    st.button("Reviewed, nothing to flag", key=widget_key(*prefix, "clean"), on_click=clean,
              help="Record that you looked at this run and have no scores to give "
                   "(removes any scores given here)")
