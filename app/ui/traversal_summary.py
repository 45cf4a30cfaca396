"""The summary page's part for traversal reviews and suggestions (app/summary/traversal.py,
app/summary/suggestions.py): tables of plain numbers, drawn under the MAST rollups and the gold."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app.ui.text import md


def _table(records: list[dict]) -> None:
    if records:
        st.dataframe(pd.DataFrame(records), hide_index=True, width="stretch")
    else:
        st.caption("Nothing yet.")


def rollups(s: dict) -> None:
    """Flags forward, the share pruned backward, root causes per run: per annotator and overall."""
    for name, r in (s.get("traversal") or {}).items():
        st.subheader(f"Traversal review: {md(name)}")
        _table([{"annotator": "(all)", **r["overall"]}] + [{"annotator": w, **x} for w, x in r["by_annotator"].items()])


def gold(s: dict) -> None:
    """Traversal reviews against gold, and the suggestions: what annotators did, how right they were."""
    for name, g in (s.get("traversal_gold") or {}).items():
        st.subheader(f"Traversal review against gold: {md(name)}")
        st.caption(f"{g['reviews']} reviews of runs with a gold step; within ±{g['overall']['k']} steps.")
        rows = []
        for who, m in [("(all)", g["overall"])] + list(g["by_annotator"].items()):
            for part in ("root_cause", "forward_flags"):
                rows.append({"annotator": who, "steps named": part.replace("_", " "), **m[part]})
        _table(rows)
    hints = s.get("suggestions") or {}
    if hints.get("schemes"):
        st.subheader("Suggestions from the runs' own signals")
        _table([{"scheme": n, **x} for n, x in hints["schemes"].items()])
        acc = hints.get("accuracy")
        if acc:
            st.caption(f"The suggestions against gold: made on {acc['runs_with_suggestion']} of "
                       f"{acc['runs_with_gold']} runs with gold.")
            _table([{k: v for k, v in acc.items() if k != "runs"}])
            with st.expander("Per run"):
                _table(acc["runs"])
