"""The derived structures of an item (its agents, steps, handoffs, calls) as the pages use
them: computed once per item, trace and keys, and kept for every session."""
from __future__ import annotations

import gc

import streamlit as st

from app.traces.derive import Derivation, derive, no_gc, scheme_keys
from app.traces.trace import Item


@st.cache_resource(max_entries=64)
def _derive(item_id: str, trace_hash: str, keys: tuple, _data: dict) -> Derivation:
    with no_gc():
        d = derive(_data, **dict(keys))
        gc.freeze()  # (kept as long as the cache: out of the collector's sight, see shell._settle_heap)
    return d


def per_derivation(d: Derivation, name: str, build):
    """What a surface computes from a derivation alone (e.g. its rows of step excerpts), kept
    with the cached derivation so a rerun does not redo it for every step of the run."""
    memo = d.__dict__.setdefault("_memo", {})
    if name not in memo:
        memo[name] = build()
    return memo[name]


def derivation(item: Item, scheme=None) -> Derivation:
    """The item's derived structures with the scheme's keys, computed once per item."""
    keys = tuple(sorted(scheme_keys(scheme).items()))
    return _derive(item.id, item.trace_hash, keys, item.data)


