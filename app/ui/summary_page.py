"""The summary page: filters, then one tab per view, every chart with its numbers as a table.

The numbers come from app/summary/summarize.py (the same as `python -m app summary --json`); the figures
from app/summary/charts.py (trace text HTML-escaped). Visible to every signed-in annotator.

The tabs' views are app/ui/summary_tabs.py, their tables and charts app/ui/summary_tables.py.
"""
from __future__ import annotations

import time
from typing import NamedTuple

import pandas as pd
import streamlit as st

from app.summary import rows as stored
from app.summary import summarize as core
from app.project.workspace import Workspace
from app.ui import nav, orchestration_summary, overview_view, shell, summary_tabs as views, traversal_summary
from app.ui.summary_tables import summary_key
from app.ui.text import excerpt, md

PAGE = shell.ROOT / "pages" / "summary.py"
ALL, SHARED, GOLD, CHOSEN = "All items", "Items with two or more annotators", "Items with gold", "Chosen items"
TTL = 10  # seconds a read of the store is reused at least (the Refresh button reads again at once)
SLOW_READ = 10  # ... and at least this many times as long as the read took (a large store)


class _Read(NamedTuple):
    project: str  # the project stamp it was read under
    rows: pd.DataFrame
    fingerprint: str
    at: float  # time.monotonic() when read
    took: float  # seconds the read took


@st.cache_resource(show_spinner=False)
def _reads() -> dict[str, _Read]:
    """config path -> its last read of the store."""
    return {}


def _frame(config: str, ws: Workspace, project: str) -> tuple[pd.DataFrame, str, float]:
    """The stored rows, their fingerprint and how many seconds ago they were read. Read again
    when the project changed or the last read is older than TTL, or than SLOW_READ times what
    it took: a store of a million rows takes seconds just to stat, and a click on this page must
    not wait for that every ten seconds. Shared by sessions; never copied (the page only reads)."""
    reads = _reads()
    got = reads.get(config)
    now = time.monotonic()
    if got is None or got.project != project or now - got.at > max(TTL, SLOW_READ * got.took):
        with st.spinner("Reading the annotations…"):
            df = stored.load(ws)
            done = time.monotonic()
            got = reads[config] = _Read(project, df, core.fingerprint(df), done, done - now)
    return got.rows, got.fingerprint, time.monotonic() - got.at


# The summary and the disagreement lists are kept for as long as the rows they were computed
# from and the project are unchanged (the read above is redone every TTL seconds, the summary
# only if that read found a change): at a million rows a summary costs seconds, a read of an
# unchanged store a fraction of that. Shared by every session (cache_resource: no copy made
# on each rerun); the page only reads them.
@st.cache_resource(show_spinner=False)
def _summaries() -> dict[tuple, dict]:
    """(project, rows' fingerprint, filters) -> the summary, the last KEPT of them."""
    return {}


KEPT = 4


def _summary(project: str, rows: str, filters: str, ws: Workspace, df: pd.DataFrame, f: dict) -> dict:
    """The summary of these rows under these filters: from memory, else computed with a bar
    saying which scheme it is on (a million rows take seconds)."""
    kept = _summaries()
    key = (project, rows, filters)
    if key not in kept:
        bar = st.empty()

        def on_scheme(done: int, of: int, scheme: str) -> None:
            bar.progress(done / max(of, 1), text=f"Computing the summary: {md(scheme)} ({done + 1} of {of})")
        # the numbers only: the records of what annotators disagree on are listed per scheme, when opened
        found = core.summarize(ws, df, **f, disagreements=False, on_scheme=on_scheme)
        bar.empty()
        while len(kept) >= KEPT:
            kept.pop(next(iter(kept)))
        kept[key] = found
    return kept[key]


@st.cache_resource(show_spinner="Listing…", max_entries=4)
def _listing(project: str, rows: str, filters: str, scheme: str, what: str, _ws: Workspace, _df: pd.DataFrame,
             _f: dict) -> list[dict]:
    return core.listing(_ws, _df, scheme, what, annotators=_f["annotators"], items=_f["items"])


@st.cache_resource(show_spinner="Listing the disagreements…", max_entries=8)
def _disagreements(project: str, rows: str, filters: str, scheme: str, _ws: Workspace, _df: pd.DataFrame,
                   _f: dict) -> list[dict]:
    return core.disagreements(_ws, _df, scheme, annotators=_f["annotators"], items=_f["items"], k=_f["k"])


def _ago(seconds: float) -> str:
    return "just now" if seconds < 2 else f"{seconds:.0f} s ago" if seconds < 120 else f"{seconds / 60:.0f} min ago"


def _filters(ws: Workspace, df: pd.DataFrame) -> dict:
    names = sorted(set(df["annotator"]))
    schemes = [s.name for s in ws.project.schemes]
    with st.expander(":material/filter_alt: Filters", expanded=False):
        c1, c2 = st.columns(2)
        who = c1.multiselect("Annotators", names, key=summary_key("annotators"), placeholder="All annotators")
        chosen_schemes = c2.multiselect("Schemes", schemes, key=summary_key("schemes"), placeholder="All schemes")
        c3, c4 = st.columns([2, 1])
        subset = c3.selectbox("Items", [ALL, SHARED, GOLD, CHOSEN], key=summary_key("subset"))
        k = c4.number_input("Step tolerance ±k", min_value=0, max_value=50, value=1, step=1, key=summary_key("k"),
                            help="Decisive steps this close count as agreeing (and as correct against gold)")
        items = None
        if subset == SHARED:
            judged = df[(df["scheme"] != shell.DONE) & (df["status"] != "cleared")]
            n = judged.groupby("item_id")["annotator"].nunique()
            items = [i for i in (it.id for it in ws.items) if n.get(i, 0) >= 2]
        elif subset == GOLD:
            items = [it.id for it in ws.items if it.gold]
        elif subset == CHOSEN:
            items = st.multiselect("Chosen items", [it.id for it in ws.items], key=summary_key("items"),
                                   format_func=lambda i: excerpt(i, 60))
    return {"annotators": who or None, "schemes": chosen_schemes or None, "items": items, "k": int(k)}


def render() -> None:
    # the project's stamp before the workspace: were the project to change in between, a
    # summary of the newer workspace would be filed under the older stamp (and redone), never
    # the reverse (a summary of the older workspace kept under the newer stamp)
    project = shell.project_stamp()
    ws = shell.workspace()
    shell.require_annotator()
    nav.sidebar(ws)
    st.title("Summary")
    if not shell.is_admin():
        # With tokens configured, annotators see only their own work; the summary shows everyone's.
        st.info("The summary shows every annotator's work: it is open to admins only.")
        st.stop()
    df, rows, age = _frame(shell.config_path(), ws, project)
    top = st.columns([4, 1])
    if top[1].button("Refresh", key=summary_key("refresh"), icon=":material/refresh:",
                     help="Read the annotations again"):
        _reads().pop(shell.config_path(), None)
        st.rerun()
    f = _filters(ws, df)
    s = _summary(project, rows, repr(sorted(f.items())), ws, df, f)
    c = s["counts"]
    top[0].caption(f"{c['items']} items · {c['annotators']} annotators · {c['judgements']} judgements · "
                   f"{c['items_with_gold']} items with gold · annotations as read {_ago(age)}")
    if not c["judgements"]:
        st.info("No annotations yet (for these filters).")
    tabs = st.tabs(["Overview", "Progress", "Failures", "Scorecards", "Handoffs", "Contention & tools", "Behaviours & MAST",
                    "Orchestration & choices", "Agreement", "Gold", "Export & report"])
    with tabs[0]:
        overview_view.render(ws, s)
    with tabs[1]:
        views.progress(s)
    listing = lambda scheme, what: _listing(project, rows, repr(sorted(f.items())), scheme, what, ws, df, f)  # noqa: E731
    with tabs[2]:
        views.failures(s, listing)
    with tabs[3]:
        views.scorecards(ws, s)
    with tabs[4]:
        views.handoffs(s)
    with tabs[5]:
        views.contention_tools(s)
    with tabs[6]:
        views.behaviours_mast(s, listing)
        traversal_summary.rollups(s)
    with tabs[7]:
        views.choices(s)
        orchestration_summary.draw(s.get("orchestration"))
    with tabs[8]:
        views.agreement(ws, s, lambda scheme: _disagreements(project, rows, repr(sorted(f.items())), scheme, ws, df, f))
    with tabs[9]:
        views.gold(s)
        traversal_summary.gold(s)
    with tabs[10]:
        views.exports(ws, df, f)
