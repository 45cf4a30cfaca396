"""Agents' colours: one function for the trace, the graph, the timeline and the summary.

An agent's colour follows from its name alone (a hash), so the same agent has the same colour
on every page, in every run and in every session, with nothing stored. The colours are
Streamlit's Markdown colours (an agent's name in a caption is written `:blue[...]`), with the hex
values the trace cards, the graph and the charts draw. The colour is never the only sign of an
agent: its name is always written beside it.
"""
from __future__ import annotations

import hashlib

# (Streamlit's Markdown colour name, the hex the pages draw it in)
PALETTE: list[tuple[str, str]] = [
    ("blue", "#1c83e1"), ("green", "#21a354"), ("orange", "#e07000"),
    ("violet", "#803df5"), ("red", "#e02b2b"), ("gray", "#808495"),
]


def _slot(agent: object) -> int:
    text = "" if agent is None else str(agent)
    return int(hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16) % len(PALETTE)


def agent_colour(agent: object) -> str:
    """The agent's colour as a Streamlit Markdown colour name ("blue", "green", ...)."""
    return PALETTE[_slot(agent)][0]


def agent_hex(agent: object) -> str:
    """The agent's colour as "#rrggbb"."""
    return PALETTE[_slot(agent)][1]


def agent_hexes(agents) -> dict[str, str]:
    """Each agent's "#rrggbb", for a chart's colour map."""
    return {a: agent_hex(a) for a in agents}
