"""The summary page's orchestration section (app/summary/orchestration.py): outcomes and failure
rates per confirmed pattern, how often annotators kept the suggested pattern. Tables only: every
name in them is the project's or a trace's, shown as text by the data grid."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app.ui.text import md


def _table(records: list[dict]) -> None:
    if records:
        st.dataframe(pd.DataFrame(records), hide_index=True, width="stretch")
    else:
        st.caption("Nothing yet.")


def draw(section: dict | None) -> None:
    st.subheader("Outcomes per confirmed pattern")
    if not section or section.get("scheme") is None:
        st.caption("The project asks no orchestration question (see docs/layouts.md).")
        return
    outcome = section.get("outcome_scheme")
    st.caption(f"Patterns from {md(section['scheme'])}, outcomes from "
               + (md(outcome) if outcome else "no outcome question (a radio with a failure label)")
               + "; each annotator's answers on the same item.")
    _table([{**{k: v for k, v in row.items() if k != "outcomes"},
             **{f"outcome: {label}": n for label, n in row["outcomes"].items()}} for row in section["patterns"]])
    kept = section.get("suggestion") or {}
    st.subheader("Suggested patterns kept")
    if kept.get("judgements"):
        st.caption(f"{kept['kept']} of {kept['judgements']} answers kept the pattern suggested from the trace "
                   f"({kept['kept_rate']:.0%}).")
    _table(kept.get("by_annotator") or [])
    _table([{**{k: v for k, v in r.items() if k != "chosen_instead"},
             "chosen instead": ", ".join(f"{p} ({n})" for p, n in r["chosen_instead"].items())}
            for r in kept.get("by_suggested") or []])
