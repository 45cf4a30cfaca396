"""The summary's Overview tab: the answers a reviewer wants first (app/summary/overview.py), each
figure with links to the runs behind it. Numbers rounded for people; names shown as text."""
from __future__ import annotations

import streamlit as st

from app.project.workspace import Workspace
from app.summary import human, overview_charts
from app.summary.overview import flag_matrix, overview
from app.ui import figure_view, nav, shell
from app.ui.state import widget_key
from app.ui.text import excerpt, md

RUN_LINKS = 12  # links listed per entry (the rest counted)


def _k(*parts) -> str:
    return widget_key("overview", *parts)


def _chart(fig, key: str) -> None:
    figure_view.figure(fig, _k("chart", key))


def runs_links(ws: Workspace, scheme: str, entries: list[tuple[str, list[str]]], key: str) -> None:
    """A popover listing, per entry (an agent, a pair), links that open each run behind it on
    the scheme's page."""
    total = len({r for _, runs in entries for r in runs})
    page = nav.scheme_page(ws, scheme)
    with st.popover(f"Runs behind this figure ({total})", width="content", disabled=not total or page is None,
                    key=_k("runs", key)):
        for label, runs in entries:
            if not runs:
                continue
            st.markdown(f"**{md(label)}** · {len(runs)} run{'s' * (len(runs) != 1)}")
            for run in runs[:RUN_LINKS]:
                if run in ws.by_id:
                    st.page_link(page, label=excerpt(run, 60), query_params=shell.url_params(item=run))
            if len(runs) > RUN_LINKS:
                st.caption(f"and {len(runs) - RUN_LINKS} more")


def render(ws: Workspace, s: dict) -> None:
    o = overview(s)
    if not s["counts"]["judgements"]:
        st.info("No annotations yet (for these filters): the overview fills as annotators save.")
    if o["headlines"]:
        st.subheader("At a glance")
        st.markdown("\n".join(f"- {md(h)}" for h in o["headlines"]))
    for b in o["blamed"]:
        st.subheader(f"Who is blamed most · {md(b['scheme'])}")
        st.markdown(md(b["sentence"]))
        st.caption(f"{b['attributions']} attributions · {b['failed_runs']} failed runs (runs where an annotator "
                   "named a responsible agent). Each agent in its colour on the trace; the agents sharing first "
                   "place are outlined alike and marked \"most blamed\": a tie is a tie.")
        _chart(overview_charts.blamed(b), f"blamed-{b['scheme']}")
        st.dataframe([{"rank": r["rank"], "agent": r["agent"], "attributions": r["count"], "runs": r["runs"],
                       "share of failed runs": r["share_of_failed_runs"]} for r in b["agents"]],
                     hide_index=True, width="stretch",
                     column_config={"share of failed runs": st.column_config.NumberColumn(format="percent")})
        runs_links(ws, b["scheme"], [(r["agent"], r["run_ids"]) for r in b["agents"]], f"blamed-{b['scheme']}")
    for p in o["pairs"]:
        st.subheader(f"Most-flagged handoffs · {md(p['scheme'])}")
        if p["leaders"]:
            tied = len(p["leaders"]) > 1
            st.markdown(md(f"{human.names(p['leaders'])} {'are' if tied else 'is'} flagged most"
                           f"{', tied' if tied else ''}: {p['pairs'][0]['flagged']} flagged handoff(s)"
                           f"{' each' if tied else ''}."))
        st.dataframe([{"rank": r["rank"], "from → to": r["pair"], "flagged": r["flagged"],
                       "reviewed": r["handoffs_reviewed"], "flag rate": r["flag_rate"],
                       "mean quality": r["mean_quality"]} for r in p["pairs"]], hide_index=True, width="stretch",
                     column_config={"flag rate": st.column_config.NumberColumn(format="percent"),
                                    "mean quality": st.column_config.NumberColumn(format="%.1f")})
        runs_links(ws, p["scheme"], [(r["pair"], r["run_ids"]) for r in p["pairs"]], f"pairs-{p['scheme']}")
    if s["handoffs"]:
        with st.expander("Every agent pair: share of handoffs flagged (agents of the same name merged)"):
            _chart(overview_charts.flag_matrix(flag_matrix(s)), "flag-matrix")
    for m in o["mast"]:
        st.subheader(f"Failure modes by agent (MAST) · {md(m['scheme'])}")
        if m["modes"]:
            top = [r for r in m["modes"] if r["rank"] == 1]
            st.markdown(md(f"Most tagged mode{'s, tied' if len(top) > 1 else ''}: "
                           f"{human.names([r['mode'] for r in top])} ({top[0]['tags']} tags"
                           f"{' each' if len(top) > 1 else ''})."))
        _chart(overview_charts.mast_by_agent(m), f"mast-{m['scheme']}")
        runs_links(ws, m["scheme"], [(r["agent"], r["run_ids"]) for r in m["agents"]], f"mast-{m['scheme']}")
    for t in o["team"]:
        st.subheader(f"Team scores · {md(t['scheme'])}")
        scale = ws.project.scheme(t["scheme"]).get("scale") if t["scheme"] in {x.name for x in ws.project.schemes} else None
        st.caption(f"Mean of every team score given ({t['runs']} runs), with its 95% interval: "
                   "a wide interval means few or scattered scores.")
        _chart(overview_charts.team_means(t, scale), f"team-{t['scheme']}")
        st.dataframe([{"dimension": d["dimension"], "mean": d["mean"], "95% interval":
                       f"{human.mean(d['ci_low'], 1)}–{human.mean(d['ci_high'], 1)}", "scores": d["n"]}
                      for d in t["dimensions"]], hide_index=True, width="stretch",
                     column_config={"mean": st.column_config.NumberColumn(format="%.1f")})
        runs_links(ws, t["scheme"], [("judged", t["run_ids"])], f"team-{t['scheme']}")
    st.subheader("How far annotators agree")
    st.caption("One line per scheme: its main measure and what it means (Landis and Koch's words for "
               "chance-corrected agreement). The Agreement tab lists every disagreement.")
    for a in o["agreement"]:
        st.markdown(f"- **{md(a['scheme'])}** ({a['items_compared']} items compared): {md(a['meaning'])}")
    g = o["gold"]
    if g:
        st.subheader("Accuracy against gold")
        st.markdown(md(f"Annotators named the gold culprit in {human.percent(g['agent_accuracy'])} of "
                       f"{g['judged']} judgements on {g['items_with_gold']} runs with gold, and the decisive "
                       f"step within ±{s['filters']['k']} in {human.percent(g['step_accuracy_within_k'])}."))
        st.dataframe([{"annotator": r["annotator"], "runs": r["n"], "agent": r["agent_accuracy"],
                       f"step ±{r['k']}": r["step_accuracy_within_k"]} for r in g["by_annotator"]],
                     hide_index=True, width="stretch",
                     column_config={"agent": st.column_config.NumberColumn(format="percent"),
                                    f"step ±{s['filters']['k']}": st.column_config.NumberColumn(format="percent")})
        if g["scheme"]:
            runs_links(ws, g["scheme"], [("with gold", g["run_ids"])], "gold")
