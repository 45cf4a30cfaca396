"""The summary's views, one function per tab: progress, failures, scorecards, handoffs, contention
and tools, behaviours and MAST, choices, agreement, gold, export. Each draws a chart with its
numbers as a table (app/ui/summary_tables.py); the numbers come from app/summary/summarize.py.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from app.project.workspace import Workspace
from app.store import export as ex
from app.summary import human, overview_charts
from app.summary.overview import GRAPH_MATRIX_TITLE, flag_matrix, graph_matrix
from app.summary.report import build_html, extra_tables, headline_agreement
from app.ui import figure_view, nav, shell
from app.ui.summary_tables import chart, listed, paged, summary_key, table
from app.ui.text import excerpt, md


def progress(s: dict) -> None:
    p = s["progress"]
    st.subheader("Per annotator")
    recs = [{**{k: v for k, v in r.items() if k != "seconds"}, "time spent": human.duration(r["seconds"])}
            for r in p["by_annotator"]]  # rounded for people (12 min), not 724.5079 seconds
    chart("progress", "bar", recs, "annotator", "items_done", "Items done per annotator")
    table(recs)
    st.subheader("Per scheme")
    table([{**{k: v for k, v in r.items() if k not in ("seconds", "seconds_per_judgement")},
             "time spent": human.duration(r["seconds"]), "per judgement": human.duration(r["seconds_per_judgement"])}
            for r in p["by_scheme"]])
    st.subheader("Items per annotator and scheme")
    grid = pd.DataFrame(p["by_annotator_scheme"])
    if not grid.empty:
        st.dataframe(grid.pivot(index="annotator", columns="scheme", values="items").fillna(0).astype(int),
                     width="stretch")


def failures(s: dict, listing) -> None:
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
            chart(f"blame-{name}", "blame", {"blame": att["blame"]})
            table(att["blame"])
        with c2:
            chart(f"pos-{name}", "position_histogram", {"position_histogram": att["position_histogram"]})
            table(att["position_histogram"])
        listed(name, "positions", "List every decisive step", listing)



def scorecards(ws: Workspace, s: dict) -> None:
    if not s["scorecards"]:
        st.caption("The project has no scorecard scheme.")
    for name, sc in s["scorecards"].items():
        st.subheader(md(name))
        chart(f"heat-{name}", "scorecard_heatmap", sc["agents"], ws.project.scheme(name).get("scale"))
        st.caption("Mean and 95% interval (t) over every score given, across runs and annotators.")
        table(sc["agents"])
        c1, c2 = st.columns(2)
        with c1:
            st.markdown("**Team dimensions**")
            table(sc["team"])
        with c2:
            st.markdown("**Milestones reached**")
            table(sc["milestones"])


def handoffs(s: dict) -> None:
    inter = s["interaction"]
    if s["handoffs"]:
        # agents × agents, same-name agents of every run merged: legible at 30 agents, where a
        # circle of every agent is a hairball
        st.subheader("Handoffs flagged between agents, across runs")
        figure_view.figure(overview_charts.flag_matrix(flag_matrix(s)), summary_key("chart", "flag-matrix"))
        st.caption("Row: the agent handing off; column: the one taking over; colour: the share of reviewed "
                   "handoffs flagged (0–100%). Agents of the same name in different runs are one row.")
    marked = graph_matrix(s)
    if marked["cells"]:  # the graph reviews' marks, agents × agents as above (no circle of every agent)
        st.subheader("Handoffs marked on the interaction graph, across runs")
        figure_view.figure(overview_charts.flag_matrix(marked, title=GRAPH_MATRIX_TITLE, flagged="problematic"),
                           summary_key("chart", "graph-matrix"))
        st.caption("Colour: the share of interaction-graph reviews of the runs holding the pair that marked it "
                   "problematic (0–100%); each cell also says how often it was marked critical.")
    if inter["edges"]:
        with st.expander("Every ordered agent pair across runs: handoffs, runs, marks, flags",
                         expanded=not s["handoffs"] and not marked["cells"]):
            table(inter["edges"])
    for name, h in s["handoffs"].items():
        st.subheader(f"Handoff review: {md(name)}")
        recs = [{"pair": f"{p['src']} → {p['dst']}", **p} for p in h["pairs"]]
        chart(f"ho-{name}", "bar", recs, "pair", "flag_rate", "Flag rate per ordered pair", percent=True)
        table(recs)
        with st.expander("Per flag"):
            table(h["flags"])
        if h["stale"]:
            st.caption(f"{h['stale']} label(s) made on other data are left out.")


def contention_tools(s: dict) -> None:
    for name, ct in s["contention"].items():
        st.subheader(f"Contention: {md(name)}")
        chart(f"ct-{name}", "bar", ct["labels"], "resource", "count", "Labels per resource", color="label")
        table(ct["labels"])
    for name, tv in s["tool_verdicts"].items():
        st.subheader(f"Tool calls: {md(name)}")
        chart(f"tv-{name}", "bar", tv, "tool", "count", "Verdicts per tool", color="verdict")
        table(tv)
    if not s["contention"] and not s["tool_verdicts"]:
        st.caption("The project has no contention or tool-call scheme.")


def behaviours_mast(s: dict, listing) -> None:
    for name, em in s["emergent"].items():
        st.subheader(f"Emergent behaviours: {md(name)}")
        chart(f"em-{name}", "bar", em["totals"], "behavior", "runs", "Runs showing each behaviour")
        table(em["totals"])
        listed(name, "per_run", "List the runs showing each behaviour", listing)
    for name, m in s["mast"].items():
        st.subheader(f"MAST failure modes: {md(name)}")
        c1, c2 = st.columns(2)
        with c1:
            chart(f"mc-{name}", "bar", m["by_category"], "category", "tags", "Tags per category")
            table(m["by_category"])
        with c2:
            chart(f"ma-{name}", "bar", m["by_agent"], "agent", "tags", "Tags per acting agent", color="category")
            table(m["by_agent"])
        with st.expander("Per mode"):
            table(m["by_mode"])


def choices(s: dict) -> None:
    for name, ch in s["choices"].items():
        st.subheader(md(name))
        chart(f"ch-{name}", "bar", ch["labels"], "label", "count", f"{name}")
        table(ch["labels"])
        for title, records in extra_tables(ch):  # (win rates, means, per-criterion rows, ...)
            st.caption(md(title.capitalize()))
            table(records)



def agreement(ws: Workspace, s: dict, listing) -> None:
    """The main measure per scheme; then the objects annotators disagree on, one scheme at a
    time and a page at a time, each openable on its item's page. `listing(scheme)` gives a
    scheme's records (computed when the scheme is chosen here)."""
    st.subheader("Main measure per scheme")
    table(headline_agreement(s["agreement"]))
    with st.expander("Every measure (JSON)"):
        st.json(s["agreement"], expanded=False)
    counts = {name: a["disagreements"] for name, a in s["agreement"].items() if a.get("disagreements")}
    st.subheader(f"Where annotators differ ({sum(counts.values()):,})")
    if not counts:
        st.caption("No disagreement among items with two or more annotators.")
        return
    differences(ws, counts, listing)


@st.fragment
def differences(ws: Workspace, counts: dict, listing) -> None:
    """The disagreement browser: choosing a scheme, turning a page or picking a record re-runs
    this alone, not the whole summary (whose tables are large in a large study)."""
    scheme = st.selectbox("Scheme", list(counts), key=summary_key("dis_scheme"),
                          format_func=lambda n: f"{n} ({counts[n]:,})")
    shown, at = paged(listing(scheme), ("dis_page", scheme))
    if not shown:
        return
    labels = [f"{d['item_id']} · {d['object']}" for d in shown]
    i = st.selectbox("Disagreement", range(len(shown)), format_func=lambda j: excerpt(labels[j], 120),
                     key=summary_key("disagreement", scheme, at))
    d = shown[i]
    target = nav.scheme_page(ws, scheme)
    if st.button("Open this item on its page", key=summary_key("open"), icon=":material/open_in_new:",
                 disabled=d["item_id"] not in ws.by_id or target is None):
        shell.go_to(d["item_id"])
        st.switch_page(target)


def gold(s: dict) -> None:
    g = s["gold_detail"]
    if not g["items_with_gold"]:
        st.caption("No item carries gold labels.")
        return
    st.caption(f"{g['items_with_gold']} items carry gold; compared with the attributions of "
               f"{md(g['scheme'] or 'no scheme')}.")
    chart("gold", "gold_accuracy", s["gold"])
    table([{"annotator": w, **x} for w, x in s["gold"].items()])
    st.markdown("**Confusion between agents** (gold agent × agent named)")
    chart("confusion", "heatmap", g["confusion"], "annotated_agent", "gold_agent", "count", "Gold × annotated agent",
           fmt="{:.0f}", zmin=0, colorscale="Blues")  # counts: the scale starts at zero
    table(g["confusion"])
    with st.expander("Per item"):
        table(g["items"])


def exports(ws: Workspace, df: pd.DataFrame, f: dict) -> None:
    st.subheader("Download every annotation")
    st.caption("One row per item, annotator and scheme, with the trace objects each index names.")

    def data(fmt):
        return lambda: ex.to_bytes(ex.export_frame(ws), fmt)

    cols = st.columns(3)
    for col, (fmt, mime) in zip(cols, [("parquet", "application/vnd.apache.parquet"), ("csv", "text/csv"),
                                       ("jsonl", "application/jsonl")]):
        col.download_button(f"Annotations (.{fmt})", data(fmt), file_name=f"annotations.{fmt}", mime=mime,
                            key=summary_key("dl", fmt), on_click="ignore", icon=":material/download:")
    st.subheader("Report")
    st.caption("One HTML file with the headline numbers, the charts and a few runs; opens offline.")
    st.download_button("HTML report (these filters)", lambda: build_html(ws, df, **f), file_name="report.html",
                       mime="text/html", key=summary_key("dl", "report"), on_click="ignore", icon=":material/download:")
