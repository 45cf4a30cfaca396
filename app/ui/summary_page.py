"""The summary page: filters, then one tab per view, every chart with its numbers as a table.

The numbers come from app/summary/summarize.py (the same as `python -m app summary --json`); the figures
from app/summary/charts.py (trace text HTML-escaped). Visible to every signed-in annotator.
"""
from __future__ import annotations

import time
from typing import NamedTuple

import pandas as pd
import streamlit as st

from app.summary import rows as stored
from app.summary import summarize as core
from app.summary import charts, human, overview_charts
from app.summary.overview import flag_matrix
from app.summary.report import extra_tables
from app.project.workspace import Workspace
from app.ui import nav, orchestration_summary, overview_view, shell, traversal_summary
from app.ui.state import widget_key
from app.ui.text import excerpt, md

PAGE = shell.ROOT / "pages" / "summary.py"
ALL, SHARED, GOLD, CHOSEN = "All items", "Items with two or more annotators", "Items with gold", "Chosen items"
TTL = 10  # seconds a read of the store is reused at least (the Refresh button reads again at once)
SLOW_READ = 10  # ... and at least this many times as long as the read took (a large store)


def _k(*parts) -> str:
    return widget_key("summary", *parts)


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
@st.cache_resource(show_spinner="Computing the summary…", max_entries=4)
def _summary(project: str, rows: str, filters: str, _ws: Workspace, _df: pd.DataFrame, _f: dict) -> dict:
    # the numbers only: the records of what annotators disagree on are listed per scheme, when opened
    return core.summarize(_ws, _df, **_f, disagreements=False)


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


RATES = {"share", "flag_rate", "agent_accuracy", "step_accuracy", "step_accuracy_within_k", "failure_step_hit",
         "step_tag_recall", "percent_agreement", "exact", "within_k"}
MEANS = {"mean", "sd", "ci_low", "ci_high", "mean_quality"}


def _table(records, **kw) -> None:
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
    """A figure of app/summary_charts, built once per distinct input (Plotly figures are slow to build)."""
    return getattr(charts, builder)(*args, **dict(kwargs))


def _chart(key: str, builder: str, *args, **kwargs) -> None:
    st.plotly_chart(_figure(builder, args, tuple(sorted(kwargs.items()))), key=_k("chart", key), width="stretch")


def _filters(ws: Workspace, df: pd.DataFrame) -> dict:
    names = sorted(set(df["annotator"]))
    schemes = [s.name for s in ws.project.schemes]
    with st.expander(":material/filter_alt: Filters", expanded=False):
        c1, c2 = st.columns(2)
        who = c1.multiselect("Annotators", names, key=_k("annotators"), placeholder="All annotators")
        chosen_schemes = c2.multiselect("Schemes", schemes, key=_k("schemes"), placeholder="All schemes")
        c3, c4 = st.columns([2, 1])
        subset = c3.selectbox("Items", [ALL, SHARED, GOLD, CHOSEN], key=_k("subset"))
        k = c4.number_input("Step tolerance ±k", min_value=0, max_value=50, value=1, step=1, key=_k("k"),
                            help="Decisive steps this close count as agreeing (and as correct against gold)")
        items = None
        if subset == SHARED:
            judged = df[(df["scheme"] != shell.DONE) & (df["status"] != "cleared")]
            n = judged.groupby("item_id")["annotator"].nunique()
            items = [i for i in (it.id for it in ws.items) if n.get(i, 0) >= 2]
        elif subset == GOLD:
            items = [it.id for it in ws.items if it.gold]
        elif subset == CHOSEN:
            items = st.multiselect("Chosen items", [it.id for it in ws.items], key=_k("items"),
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
    if top[1].button("Refresh", key=_k("refresh"), icon=":material/refresh:", help="Read the annotations again"):
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
        _progress(s)
    listing = lambda scheme, what: _listing(project, rows, repr(sorted(f.items())), scheme, what, ws, df, f)  # noqa: E731
    with tabs[2]:
        _failures(s, listing)
    with tabs[3]:
        _scorecards(ws, s)
    with tabs[4]:
        _handoffs(s)
    with tabs[5]:
        _contention_tools(s)
    with tabs[6]:
        _behaviours_mast(s, listing)
        traversal_summary.rollups(s)
    with tabs[7]:
        _choices(s)
        orchestration_summary.draw(s.get("orchestration"))
    with tabs[8]:
        _agreement(ws, s, lambda scheme: _disagreements(project, rows, repr(sorted(f.items())), scheme, ws, df, f))
    with tabs[9]:
        _gold(s)
        traversal_summary.gold(s)
    with tabs[10]:
        _exports(ws, df, f)


def _progress(s: dict) -> None:
    p = s["progress"]
    st.subheader("Per annotator")
    recs = [{**{k: v for k, v in r.items() if k != "seconds"}, "time spent": human.duration(r["seconds"])}
            for r in p["by_annotator"]]  # rounded for people (12 min), not 724.5079 seconds
    _chart("progress", "bar", recs, "annotator", "items_done", "Items done per annotator")
    _table(recs)
    st.subheader("Per scheme")
    _table([{**{k: v for k, v in r.items() if k not in ("seconds", "seconds_per_judgement")},
             "time spent": human.duration(r["seconds"]), "per judgement": human.duration(r["seconds_per_judgement"])}
            for r in p["by_scheme"]])
    st.subheader("Items per annotator and scheme")
    grid = pd.DataFrame(p["by_annotator_scheme"])
    if not grid.empty:
        st.dataframe(grid.pivot(index="annotator", columns="scheme", values="items").fillna(0).astype(int),
                     width="stretch")


def _failures(s: dict, listing) -> None:
    """Blame and where the decisive steps fall, per scheme; `listing(scheme, "positions")` gives
    every decisive step (computed when someone asks for them)."""
    if not s["attribution"]:
        st.caption("The project has no failure-attribution scheme.")
    for name, att in s["attribution"].items():
        st.subheader(md(name))
        acting = att["acting_is_blamed"]
        st.caption(f"{att['attributions']} attributions · {att['no_failure']} without a responsible agent"
                   + (f" · the blamed agent acts at the decisive step in {acting['share']:.0%} "
                      f"({acting['count']} of {acting['of']})" if acting["of"] else ""))
        c1, c2 = st.columns(2)
        with c1:
            # only what each chart draws: its cache key is hashed on every rerun, and the
            # attribution holds a position per judgement
            _chart(f"blame-{name}", "blame", {"blame": att["blame"]})
            _table(att["blame"])
        with c2:
            _chart(f"pos-{name}", "position_histogram", {"position_histogram": att["position_histogram"]})
            _table(att["position_histogram"])
        _listed(name, "positions", "List every decisive step", listing)


@st.fragment
def _listed(scheme: str, what: str, label: str, listing) -> None:
    """Records the summary counts (every decisive step, each run's behaviours), a page at a
    time: listed only when asked (hundreds of thousands in a large study), and turning a page
    re-runs this alone."""
    if not st.toggle(label, key=_k("list", what, scheme)):
        return
    _paged(listing(scheme, what), ("list_page", what, scheme))


def _paged(records: list[dict], key: tuple) -> tuple[list[dict], int]:
    """A table of records, DIS_PAGE at a time (a page chooser when there are more): the records
    shown, and where they start."""
    pages = max(1, -(-len(records) // DIS_PAGE))
    at = 0
    if pages > 1:
        page_no = st.number_input(f"Page (of {pages:,}, {DIS_PAGE} a page)", min_value=1, max_value=pages, value=1,
                                  step=1, key=_k(*key))
        at = (int(page_no) - 1) * DIS_PAGE
    shown = records[at:at + DIS_PAGE]
    if not shown:
        st.caption("Nothing to list.")
    else:
        _table(shown)
    return shown, at


def _scorecards(ws: Workspace, s: dict) -> None:
    if not s["scorecards"]:
        st.caption("The project has no scorecard scheme.")
    for name, sc in s["scorecards"].items():
        st.subheader(md(name))
        _chart(f"heat-{name}", "scorecard_heatmap", sc["agents"], ws.project.scheme(name).get("scale"))
        st.caption("Mean and 95% interval (t) over every score given, across runs and annotators.")
        _table(sc["agents"])
        c1, c2 = st.columns(2)
        with c1:
            st.markdown("**Team dimensions**")
            _table(sc["team"])
        with c2:
            st.markdown("**Milestones reached**")
            _table(sc["milestones"])


def _handoffs(s: dict) -> None:
    inter = s["interaction"]
    if s["handoffs"]:
        # agents × agents, same-name agents of every run merged: legible at 30 agents, where a
        # circle of every agent is a hairball
        st.subheader("Handoffs flagged between agents, across runs")
        st.plotly_chart(overview_charts.flag_matrix(flag_matrix(s)), key=_k("chart", "flag-matrix"), width="stretch")
        st.caption("Row: the agent handing off; column: the one taking over; colour: the share of reviewed "
                   "handoffs flagged (0–100%). Agents of the same name in different runs are one row.")
    with st.expander("Interaction graph across runs", expanded=not s["handoffs"]):
        _chart("graph", "interaction_graph", inter)
        st.caption("Arrow width: handoffs across runs. Red: marked critical, orange: marked problematic on an "
                   "interaction graph; each label says how often.")
        _table(inter["edges"])
    for name, h in s["handoffs"].items():
        st.subheader(f"Handoff review: {md(name)}")
        recs = [{"pair": f"{p['src']} → {p['dst']}", **p} for p in h["pairs"]]
        _chart(f"ho-{name}", "bar", recs, "pair", "flag_rate", "Flag rate per ordered pair", percent=True)
        _table(recs)
        with st.expander("Per flag"):
            _table(h["flags"])
        if h["stale"]:
            st.caption(f"{h['stale']} label(s) made on other data are left out.")


def _contention_tools(s: dict) -> None:
    for name, ct in s["contention"].items():
        st.subheader(f"Contention: {md(name)}")
        _chart(f"ct-{name}", "bar", ct["labels"], "resource", "count", "Labels per resource", color="label")
        _table(ct["labels"])
    for name, tv in s["tool_verdicts"].items():
        st.subheader(f"Tool calls: {md(name)}")
        _chart(f"tv-{name}", "bar", tv, "tool", "count", "Verdicts per tool", color="verdict")
        _table(tv)
    if not s["contention"] and not s["tool_verdicts"]:
        st.caption("The project has no contention or tool-call scheme.")


def _behaviours_mast(s: dict, listing) -> None:
    for name, em in s["emergent"].items():
        st.subheader(f"Emergent behaviours: {md(name)}")
        _chart(f"em-{name}", "bar", em["totals"], "behavior", "runs", "Runs showing each behaviour")
        _table(em["totals"])
        _listed(name, "per_run", "List the runs showing each behaviour", listing)
    for name, m in s["mast"].items():
        st.subheader(f"MAST failure modes: {md(name)}")
        c1, c2 = st.columns(2)
        with c1:
            _chart(f"mc-{name}", "bar", m["by_category"], "category", "tags", "Tags per category")
            _table(m["by_category"])
        with c2:
            _chart(f"ma-{name}", "bar", m["by_agent"], "agent", "tags", "Tags per acting agent", color="category")
            _table(m["by_agent"])
        with st.expander("Per mode"):
            _table(m["by_mode"])


def _choices(s: dict) -> None:
    for name, ch in s["choices"].items():
        st.subheader(md(name))
        _chart(f"ch-{name}", "bar", ch["labels"], "label", "count", f"{name}")
        _table(ch["labels"])
        for title, records in extra_tables(ch):  # (win rates, means, per-criterion rows, ...)
            st.caption(md(title.capitalize()))
            _table(records)


DIS_PAGE = 100  # records a page: disagreements, decisive steps (a large study has hundreds of thousands)


def _agreement(ws: Workspace, s: dict, listing) -> None:
    """The main measure per scheme; then the objects annotators disagree on, one scheme at a
    time and a page at a time, each openable on its item's page. `listing(scheme)` gives a
    scheme's records (computed when the scheme is chosen here)."""
    from app.summary.report import headline_agreement
    st.subheader("Main measure per scheme")
    _table(headline_agreement(s["agreement"]))
    with st.expander("Every measure (JSON)"):
        st.json(s["agreement"], expanded=False)
    counts = {name: a["disagreements"] for name, a in s["agreement"].items() if a.get("disagreements")}
    st.subheader(f"Where annotators differ ({sum(counts.values()):,})")
    if not counts:
        st.caption("No disagreement among items with two or more annotators.")
        return
    _differences(ws, counts, listing)


@st.fragment
def _differences(ws: Workspace, counts: dict, listing) -> None:
    """The disagreement browser: choosing a scheme, turning a page or picking a record re-runs
    this alone, not the whole summary (whose tables are large in a large study)."""
    scheme = st.selectbox("Scheme", list(counts), key=_k("dis_scheme"),
                          format_func=lambda n: f"{n} ({counts[n]:,})")
    shown, at = _paged(listing(scheme), ("dis_page", scheme))
    if not shown:
        return
    labels = [f"{d['item_id']} · {d['object']}" for d in shown]
    i = st.selectbox("Disagreement", range(len(shown)), format_func=lambda j: excerpt(labels[j], 120),
                     key=_k("disagreement", scheme, at))
    d = shown[i]
    target = nav.scheme_page(ws, scheme)
    if st.button("Open this item on its page", key=_k("open"), icon=":material/open_in_new:",
                 disabled=d["item_id"] not in ws.by_id or target is None):
        shell.go_to(d["item_id"])
        st.switch_page(target)


def _gold(s: dict) -> None:
    g = s["gold_detail"]
    if not g["items_with_gold"]:
        st.caption("No item carries gold labels.")
        return
    st.caption(f"{g['items_with_gold']} items carry gold; compared with the attributions of "
               f"{md(g['scheme'] or 'no scheme')}.")
    _chart("gold", "gold_accuracy", s["gold"])
    _table([{"annotator": w, **x} for w, x in s["gold"].items()])
    st.markdown("**Confusion between agents** (gold agent × agent named)")
    _chart("confusion", "heatmap", g["confusion"], "annotated_agent", "gold_agent", "count", "Gold × annotated agent",
           fmt="{:.0f}", zmin=0, colorscale="Blues")  # counts: the scale starts at zero
    _table(g["confusion"])
    with st.expander("Per item"):
        _table(g["items"])


def _exports(ws: Workspace, df: pd.DataFrame, f: dict) -> None:
    from app.store import export as ex
    from app.summary.report import build_html
    st.subheader("Download every annotation")
    st.caption("One row per item, annotator and scheme, with the trace objects each index names.")

    def data(fmt):
        return lambda: ex.to_bytes(ex.export_frame(ws), fmt)

    cols = st.columns(3)
    for col, (fmt, mime) in zip(cols, [("parquet", "application/vnd.apache.parquet"), ("csv", "text/csv"),
                                       ("jsonl", "application/jsonl")]):
        col.download_button(f"Annotations (.{fmt})", data(fmt), file_name=f"annotations.{fmt}", mime=mime,
                            key=_k("dl", fmt), on_click="ignore", icon=":material/download:")
    st.subheader("Report")
    st.caption("One HTML file with the headline numbers, the charts and a few runs; opens offline.")
    st.download_button("HTML report (these filters)", lambda: build_html(ws, df, **f), file_name="report.html",
                       mime="text/html", key=_k("dl", "report"), on_click="ignore", icon=":material/download:")
