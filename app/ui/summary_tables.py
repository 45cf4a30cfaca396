"""How the summary page draws: a table that scrolls when wide (rates as percentages), a chart of
app/summary/charts.py built once per distinct input, and long lists of records a page at a time.

Every widget of the summary's modules is keyed through `summary_key`, so their keys stay apart
from the annotation pages'.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app.summary import charts
from app.ui import figure_view
from app.ui.state import widget_key

DIS_PAGE = 100  # records a page: disagreements, decisive steps (a large study has hundreds of thousands)


def summary_key(*parts) -> str:
    return widget_key("summary", *parts)


RATES = {"share", "flag_rate", "agent_accuracy", "step_accuracy", "step_accuracy_within_k", "failure_step_hit",
         "step_tag_recall", "percent_agreement", "exact", "within_k"}
MEANS = {"mean", "sd", "ci_low", "ci_high", "mean_quality"}


def table(records, **kw) -> None:
    """Records as a table that scrolls when wide; rates as percentages, means to two digits."""
    if records:
        frame = pd.DataFrame(records)
        config = {c: st.column_config.NumberColumn(format="percent") for c in frame.columns if c in RATES}
        config.update({c: st.column_config.NumberColumn(format="%.2f") for c in frame.columns if c in MEANS})
        kw["column_config"] = {**config, **kw.get("column_config", {})}
        st.dataframe(frame, hide_index=True, width="stretch", **kw)
    else:
        st.caption("Nothing yet.")


@st.cache_resource(max_entries=256, show_spinner=False)
def _figure(builder: str, args: tuple, kwargs: tuple):
    """A figure of app/summary/charts.py, built once per distinct input (Plotly figures are slow to build)."""
    return getattr(charts, builder)(*args, **dict(kwargs))


def chart(key: str, builder: str, *args, **kwargs) -> None:
    figure_view.figure(_figure(builder, args, tuple(sorted(kwargs.items()))), summary_key("chart", key))


@st.fragment
def listed(scheme: str, what: str, label: str, listing) -> None:
    """Records the summary counts (every decisive step, each run's behaviours), a page at a
    time: listed only when asked (hundreds of thousands in a large study), and turning a page
    re-runs this alone."""
    if not st.toggle(label, key=summary_key("list", what, scheme)):
        return
    paged(listing(scheme, what), ("list_page", what, scheme))


def paged(records: list[dict], key: tuple) -> tuple[list[dict], int]:
    """A table of records, DIS_PAGE at a time (a page chooser when there are more): the records
    shown, and where they start."""
    pages = max(1, -(-len(records) // DIS_PAGE))
    at = 0
    if pages > 1:
        page_no = st.number_input(f"Page (of {pages:,}, {DIS_PAGE} a page)", min_value=1, max_value=pages, value=1,
                                  step=1, key=summary_key(*key))
        at = (int(page_no) - 1) * DIS_PAGE
    shown = records[at:at + DIS_PAGE]
    if not shown:
        st.caption("Nothing to list.")
    else:
        table(shown)
    return shown, at
