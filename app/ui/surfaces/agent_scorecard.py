"""Agent scorecard: a score per agent and dimension, team scores, milestones reached.

A grid of segmented controls (an agent per row, a dimension per column, the scores 1..scale
side by side): one click or one key per cell, no dropdown to open. No score chosen is "not
scored", distinct from every score; clicking the chosen score again takes it back. A change
saves at once (value format in app/types/agent_scorecard.py) and re-runs the scheme's fragment
(app/ui/page.scheme_block), so the count at the top is worked out after the save, from the
stored value: it always agrees with the cells below it.

A click saves only the cell it changed, on top of what is on disk (app/types/merge.py): the
value the cells were drawn from is its `base`. A second tab of the same annotator that scored
the same cell differently meanwhile keeps its score; the row says so, and every cell is drawn
from the disk on each run, so it shows that score.
"""
from __future__ import annotations

import streamlit as st

from app.types import agent_scorecard as scorecard
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import shell
from app.ui.state import widget_key
from app.ui.text import agent_badge, md

PAGE_SIZE = 15  # agent rows per page



def _steps(n: int) -> str:
    return f" · {n} step" + ("" if n == 1 else "s")


def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    return _scorecard(ws, item, scheme)


def _options(scheme: Scheme) -> list:
    return list(range(1, scheme["scale"] + 1))


def _prefix(item: Item, scheme: Scheme) -> tuple:
    return ("scorecard", scheme.name, item.id)


def _drawn(ws: Workspace, item: Item, scheme: Scheme):
    """The stored value the cells are drawn from now (a click's change from it is saved)."""
    return shell.stored_value(ws, item, scheme.name)


def _saver(ws: Workspace, item: Item, scheme: Scheme, key: str, saved: str, drawn, update):
    """A widget's callback: `update(drawn, the widget's value)`, its change from `drawn` saved
    at once on top of the disk. The cells show the disk on the next run (saved, refused, failed
    or kept by another tab's save)."""
    def cb():
        value = update(drawn, st.session_state[key])
        shell.card_saved(ws, item, scheme, value, saved, empty=scorecard.is_empty(value), base=drawn)
    return cb


def _select(scheme: Scheme, label: str, key: str, value, cb) -> None:
    """One cell: the scores side by side, one click (or Tab, then Enter/Space) picks one."""
    st.session_state[key] = value if value in _options(scheme) else None  # the disk is the truth
    st.segmented_control(label, _options(scheme), key=key, on_change=cb, label_visibility="collapsed",
                         selection_mode="single", width="content")


def _cell(scheme: Scheme, dim: str, label: str, key: str, value, cb) -> None:
    """A dimension's line: its name, then its scores."""
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    with row:
        st.caption(md(dim), width=120)
        _select(scheme, label, key, value, cb)


def _scorecard(ws: Workspace, item: Item, scheme: Scheme) -> str:
    d = shell.derivation(item, scheme)
    scale: int = scheme["scale"]
    dims: list[str] = scheme["agent_dimensions"]
    team_dims: list[str] = scheme["team_dimensions"] or []
    milestones: list[str] = scheme["milestones"] or []
    prefix = _prefix(item, scheme)
    stored = shell.stored_value(ws, item, scheme.name)
    rows, extra = scorecard.rows(d.agents, stored, scale)

    # read after this run's saves (callbacks run first): the count agrees with the cells below
    st.caption(f"Scores from 1 (lowest) to {scale} (highest); no score chosen is not scored (click the "
               f"chosen score again to take it back). {md(scorecard.summary(stored, len(d.agents), dims, team_dims, scale))}.")

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
        for agent in rows[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]:
            note = " (not in this trace)" if agent in extra else _steps(d.step_counts.get(agent, 0))
            _agent_row(ws, item, scheme, agent, note)

    if team_dims:
        st.markdown("**Team**")
        _team(ws, item, scheme)
    if milestones:
        st.markdown("**Milestones reached**")
        _milestones(ws, item, scheme)

    def clean():
        shell.reviewed_clean(ws, item, scheme, scorecard.empty(), forget=prefix)

    st.button("Reviewed, nothing to flag", key=widget_key(*prefix, "clean"), on_click=clean,
              help="Record that you looked at this run and have no scores to give "
                   "(removes any scores given here)")
    return shell.CARDS


def _agent_row(ws: Workspace, item: Item, scheme: Scheme, agent: str, note: str) -> None:
    """One agent's scores."""
    dims: list[str] = scheme["agent_dimensions"]
    prefix = _prefix(item, scheme)
    saved = widget_key(*prefix, "agent", agent, "saved")
    drawn = _drawn(ws, item, scheme)
    scores = scorecard.parse(drawn, scheme["scale"])["agents"].get(agent, {})
    # the agent on a line of its own, then a line per dimension: its name and the scores side by
    # side (three controls in a row of the narrow column cut off the highest scores)
    st.markdown(agent_badge(agent) + md(note) + md(shell.card_note(saved)))
    for dim in dims:
        key = widget_key(*prefix, "agent", agent, dim)
        changed = _saver(ws, item, scheme, key, saved, drawn, lambda v, x, dim=dim: scorecard.with_agent_score(
            v, agent, dim, x, scheme["milestones"] or [], scheme["scale"]))
        _cell(scheme, dim, md(f"{dim} of {agent}"), key, scores.get(dim), changed)


def _team(ws: Workspace, item: Item, scheme: Scheme) -> None:
    """The team's scores."""
    team_dims: list[str] = scheme["team_dimensions"] or []
    prefix = _prefix(item, scheme)
    saved = widget_key(*prefix, "team", "saved")
    drawn = _drawn(ws, item, scheme)
    scores = scorecard.parse(drawn, scheme["scale"])["team"]
    for dim in team_dims:
        key = widget_key(*prefix, "team", dim)
        changed = _saver(ws, item, scheme, key, saved, drawn, lambda v, x, dim=dim: scorecard.with_team_score(
            v, dim, x, scheme["milestones"] or [], scheme["scale"]))
        _cell(scheme, dim, md(f"team {dim}"), key, scores.get(dim), changed)
    if saved in st.session_state:
        st.caption("Team scores" + md(shell.card_note(saved)))


def _milestones(ws: Workspace, item: Item, scheme: Scheme) -> None:
    """The milestones reached."""
    milestones: list[str] = scheme["milestones"] or []
    prefix = _prefix(item, scheme)
    saved = widget_key(*prefix, "milestone", "saved")
    drawn = _drawn(ws, item, scheme)
    reached = scorecard.parse(drawn, scheme["scale"])["milestones"]
    for name in milestones:
        key = widget_key(*prefix, "milestone", name)
        st.session_state[key] = bool(reached.get(name, False))  # the disk is the truth
        changed = _saver(ws, item, scheme, key, saved, drawn, lambda v, x, name=name: scorecard.with_milestone(
            v, name, bool(x), milestones, scheme["scale"]))
        st.checkbox(md(name), key=key, on_change=changed)
    if saved in st.session_state:
        st.caption(f"Milestones: {sum(bool(reached.get(m)) for m in milestones)} of {len(milestones)} "
                   f"reached{md(shell.card_note(saved))}")
