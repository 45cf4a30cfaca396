"""Agent scorecard: a score per agent and dimension, team scores, milestones reached.

An instant card per agent (app/ui/instant_scheme.py), a radio row per dimension, the scores
1..scale side by side: one click or one number key per cell, painted at once and saved behind
(the keys pick in the card's current row and move on to the next, ↑/↓ move between rows; j/k
between the cards). No score chosen is "not scored", distinct from every score; clicking the
chosen score again takes it back. The team's scores are one such card, the milestones one card
of toggles. A click reruns the scheme's fragment (app/ui/page.scheme_block), so the count at the
top is worked out after the save, from the stored value: it always agrees with the cards below
it (value format in app/types/agent_scorecard.py).

A click saves only what it changed, on top of what is on disk (app/types/merge.py): the value
the card was drawn from, or its last save left, is its `base`. A second tab of the same
annotator that scored the same cell differently meanwhile keeps its score; the card says so,
and every card is drawn from the disk on each run, so it shows that score.
"""
from __future__ import annotations

from typing import Callable

import streamlit as st

from app.types import agent_scorecard as scorecard
from app.project.config import Scheme
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import shell
from app.ui.instant import Row
from app.ui.instant_scheme import clean_card, scheme_card
from app.ui.state import widget_key
from app.ui.text import agent_badge, md

PAGE_SIZE = 15  # agent rows per page

Scored = Callable[[object, str, object], dict]  # (value, dimension, score or None) → the new value


def _steps(n: int) -> str:
    return f" · {n} step" + ("" if n == 1 else "s")


def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    return _scorecard(ws, item, scheme)


def _prefix(item: Item, scheme: Scheme) -> tuple:
    return ("scorecard", scheme.name, item.id)


def _place(scheme: Scheme, *parts) -> str:
    """A card's key by its place on the page (the next item updates the same cards)."""
    return widget_key("scorecard", scheme.name, "place", *parts)


def score_rows(dims: list[str], scale: int, of: str) -> list[Row]:
    """A radio row per dimension, its scores 1..scale (an option is "dimension's index:score");
    `of` names whose scores they are, for the row's accessible name ("role fidelity of Planner")."""
    return [Row(dim, tuple(f"{i}:{n}" for n in range(1, scale + 1)), label=f"{dim} of {of}")
            for i, dim in enumerate(dims)]


def _chosen(scores: dict, dims: list[str]) -> list[str]:
    return [f"{i}:{scores[d]}" for i, d in enumerate(dims) if scores.get(d) is not None]


def _with_scores(base, picked: list[str], dims: list[str], scored: Scored) -> dict:
    """`base` with each dimension of the card scored as the card shows it (None: not scored)."""
    got = {dims[int(i)]: int(n) for i, n in (p.split(":") for p in picked)}  # (checked by the card)
    value = base
    for dim in dims:
        value = scored(value, dim, got.get(dim))
    return value


def _score_card(ws: Workspace, item: Item, scheme: Scheme, key: str, *, title: str, of: str, holds: str,
                dims: list[str], scores_of: Callable[[dict], dict], scored: Scored) -> None:
    """A card of scores, a row per dimension (an agent's, or the team's)."""
    rows = score_rows(dims, scheme["scale"], of)
    options = [o for row in rows for o in row.options]
    # a click reruns the scheme's fragment: the count at the top follows it
    scheme_card(ws, item, scheme, key, title=title, options=options, rows=rows, multi=False, holds=holds,
                labels={o: o.split(":")[1] for o in options}, hide_title=True, own_fragment=False,
                chosen=lambda v: _chosen(scores_of(scorecard.parse(v, scheme["scale"])), dims),
                build=lambda picked, base: _with_scores(base, picked, dims, scored))


def _scorecard(ws: Workspace, item: Item, scheme: Scheme) -> str:
    d = shell.derivation(item, scheme)
    scale: int = scheme["scale"]
    dims: list[str] = scheme["agent_dimensions"]
    team_dims: list[str] = scheme["team_dimensions"] or []
    milestones: list[str] = scheme["milestones"] or []
    prefix = _prefix(item, scheme)
    stored = shell.stored_value(ws, item, scheme.name)
    rows, extra = scorecard.rows(d.agents, stored, scale)

    # read after this run's saves (callbacks run first): the count agrees with the cards below
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
        for slot, agent in enumerate(rows[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]):
            note = " (not in this trace)" if agent in extra else _steps(d.step_counts.get(agent, 0))
            _agent_card(ws, item, scheme, slot, agent, note)

    if team_dims:
        st.markdown("**Team**")
        with st.container(border=True):  # (a card of its own for the keys' j/k)
            _score_card(ws, item, scheme, _place(scheme, "team"), title="Team scores", of="the team", holds="team",
                        dims=team_dims, scores_of=lambda card: card["team"],
                        scored=lambda v, dim, x: scorecard.with_team_score(v, dim, x, milestones, scale))
    if milestones:
        st.markdown("**Milestones reached**")
        with st.container(border=True):
            _milestones(ws, item, scheme, stored)

    clean_card(ws, item, scheme, empty=scorecard.empty(), forget=prefix,
               tip="Record that you looked at this run and have no scores to give (removes any scores given here)")
    return shell.CARDS


def _agent_card(ws: Workspace, item: Item, scheme: Scheme, slot: int, agent: str, note: str) -> None:
    """One agent's scores: its name in its colour, then a row per dimension."""
    milestones: list[str] = scheme["milestones"] or []
    with st.container(border=True):  # (a card of its own for the keys' j/k)
        st.markdown(agent_badge(agent) + md(note))
        _score_card(ws, item, scheme, _place(scheme, "agent", slot), title=agent, of=agent, holds=agent,
                    dims=scheme["agent_dimensions"], scores_of=lambda card: card["agents"].get(agent, {}),
                    scored=lambda v, dim, x: scorecard.with_agent_score(v, agent, dim, x, milestones,
                                                                         scheme["scale"]))


def _milestones(ws: Workspace, item: Item, scheme: Scheme, stored) -> None:
    """The milestones reached: a card of toggles, and how many are reached."""
    milestones: list[str] = scheme["milestones"] or []
    scale: int = scheme["scale"]

    def build(picked: list[str], base) -> dict:
        value = base
        for name in milestones:
            value = scorecard.with_milestone(value, name, name in picked, milestones, scale)
        return value

    scheme_card(ws, item, scheme, _place(scheme, "milestones"), title="Milestones reached", options=milestones,
                multi=True, hide_title=True, own_fragment=False,
                chosen=lambda v: [m for m, r in scorecard.parse(v, scale)["milestones"].items() if r], build=build)
    reached = scorecard.parse(stored, scale)["milestones"]
    st.caption(f"Milestones: {sum(bool(reached.get(m)) for m in milestones)} of {len(milestones)} reached")
