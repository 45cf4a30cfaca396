"""The interaction graph across runs: steps per agent, and per ordered pair of agents its handoffs,
the runs holding it, how often it was marked on an interaction-graph scheme and flagged on a
handoff review.

No Streamlit here.
"""
from __future__ import annotations


def interaction(per_scheme: dict, chosen: list, item_ids: list[str], derivations) -> dict:
    return {"nodes": [], "edges": []}
