"""Ranking: each candidate gets a rank (1 best); once every candidate has one (distinct unless
ties are allowed), the order is saved at once."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import ranking as ranking_type
from app.ui import shell
from app.ui.state import follow, widget_key
from app.ui.surfaces.shared import show_candidate
from app.ui.text import md


def order_of(chosen: dict[str, int | None], allow_ties: bool) -> tuple[list[list[str]] | None, str]:
    """The rank groups the chosen ranks make, or None and why not (not every candidate ranked,
    or a tie where ties are not allowed)."""
    missing = [n for n, r in chosen.items() if r is None]
    if missing:
        return None, f"Not saved yet: give {', '.join(missing)} a rank."
    by_rank: dict[int, list[str]] = {}
    for name, r in chosen.items():
        by_rank.setdefault(int(r), []).append(name)
    groups = [by_rank[r] for r in sorted(by_rank)]
    if not allow_ties and any(len(g) > 1 for g in groups):
        return None, "Not saved: two candidates share a rank, and this scheme allows no ties."
    return groups, ""


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    cands = ranking_type.candidates(item.data, scheme)
    if not cands:
        st.info(f'This item holds nothing to rank (no list under "{md(scheme.get("items_key"))}").')
        return
    stored = shell.stored_value(ws, item, scheme.name) or {}
    now = ranking_type.ranks(ranking_type.parse(stored.get("rank_order"), ranking_type.known_names(scheme)) or [])
    names = [n for n, _ in cands]
    keys = {n: widget_key("rank", scheme.name, i) for i, n in enumerate(names)}
    note = widget_key("rank-note", scheme.name)
    follow(widget_key("rank-holds", scheme.name), (item.id, tuple(names)),
           {keys[n]: now.get(n) if now.get(n, 0) <= len(names) else None for n in names}, forget=(note,), typed=())

    def changed():
        groups, why = order_of({n: st.session_state.get(keys[n]) for n in names}, bool(scheme.get("allow_ties")))
        st.session_state[note] = why
        if groups is not None:
            shell.commit(ws, item, scheme, ranking_type.build(groups))

    lost = [n for n in now if n not in names]
    if lost:  # (never dropped unseen: a new rank here saves the order without them)
        st.warning(f"The saved ranking also names {', '.join(map(md, lost))}, which this scheme no longer lists "
                   f"(saved order: {md(stored.get('rank_order'))}); a change here saves the order without them.")
    st.caption("Rank 1 is the best." + (" Candidates may share a rank." if scheme.get("allow_ties") else ""))
    for name, shown in cands:
        left, right = st.columns([1, 4], vertical_alignment="top")
        left.selectbox(f"Rank of {md(name)}", list(range(1, len(names) + 1)), index=None, key=keys[name],
                       on_change=changed, placeholder="rank")
        with right:
            if scheme.get("items_key"):
                show_candidate(name, shown)
            else:
                st.markdown(f"**{md(name)}**" + (f" · {md(shown)}" if shown else ""))
    if st.session_state.get(note):
        st.warning(st.session_state[note])
