"""Hierarchical labels: one searchable picker listing the tree's labels with their paths
(Science › Physics › Quantum Mechanics), in tree order; Potato's propagation to children and
parents applied on each change. Saved at once."""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import hierarchical_multiselect as tree_type
from app.ui import shell
from app.ui.state import follow, widget_key
from app.ui.text import excerpt, md


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    nodes = tree_type.nodes_of(scheme)
    names = [n["name"] for n in nodes]
    stored = shell.stored_value(ws, item, scheme.name)
    chosen = tree_type.parse(stored, names)
    options = names + [x for x in chosen if x not in names]  # a saved label the config lost stays visible, kept
    path = {n["name"]: " › ".join(n["path"]) for n in nodes}
    key = widget_key("tree", scheme.name)
    follow(widget_key("tree-holds", scheme.name), item.id, {key: chosen}, typed=())

    def changed():
        after = tree_type.propagate(nodes, chosen, list(st.session_state.get(key) or []), scheme)
        cap = scheme.get("max_selections")
        after = after[:cap] if cap else after
        st.session_state[key] = after
        shell.commit(ws, item, scheme, tree_type.build(after))

    st.multiselect(md(scheme.name), options, key=key, on_change=changed, label_visibility="collapsed",
                   format_func=lambda x: excerpt(path.get(x, f"{x} (not in the taxonomy)"), 120),
                   max_selections=scheme.get("max_selections"), placeholder="Type to search the labels")
    tips = scheme.get("tooltips") or {}
    with st.expander(f"The taxonomy ({len(nodes)} labels)", expanded=scheme.get("expand_depth", 1) > 0 and len(nodes) <= 30):
        st.markdown("\n".join("  " * n["depth"] + f"- {md(n['name'])}" + (f" · {md(tips[n['name']])}" if tips.get(n["name"]) else "")
                              for n in nodes))
