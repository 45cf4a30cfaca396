"""The summary's Overview (app/summary/overview.py): ties stay ties, shares of failed runs, the
runs behind each figure, agreement in words; and the numbers rounded for people."""
from __future__ import annotations

import pytest

from app.summary import human, overview_charts
from app.summary.overview import agreement_line, flag_matrix, graph_matrix, overview, ranked, strength
from tests.summary_data import CODE, attribution, demo


def _blame(*rows):
    return {"attribution": {"att": {"attributions": sum(r[1] for r in rows), "blame": [
        {"agent": a, "count": n, "runs": r, "annotators": 1, "share": 0} for a, n, r in rows]}}}


def test_ranked_keeps_ties_at_the_cut_and_shares_ranks():
    recs = [{"a": x, "n": n} for x, n in [("A", 5), ("B", 5), ("C", 3), ("D", 2), ("E", 2), ("F", 0)]]
    got = ranked(recs, "n", top=4)
    assert [(r["a"], r["rank"]) for r in got] == [("A", 1), ("B", 1), ("C", 3), ("D", 4), ("E", 4)]
    assert [r["a"] for r in ranked(recs, "n", top=1)] == ["A", "B"]  # never one winner of a tie


def test_a_tie_is_never_reported_as_one_winner():
    s = {**_blame(("Coder", 3, 2), ("Tester", 3, 2), ("Manager", 1, 1)),
         "runs": {"attribution": {"att": {"failed_runs": ["r1", "r2", "r3", "r4"],
                                          "by_agent": {"Coder": ["r1", "r2"], "Tester": ["r2", "r3"]}}}}}
    b = overview(s)["blamed"][0]
    assert b["leaders"] == ["Coder", "Tester"]
    assert b["sentence"] == "Coder and Tester are blamed most, tied: 3 attributions each, each in 2 of 4 failed runs (50%)."
    assert b["agents"][0]["share_of_failed_runs"] == 0.5 and b["agents"][0]["run_ids"] == ["r1", "r2"]
    s = {**_blame(("Coder", 4, 3), ("Tester", 3, 2)), "runs": {"attribution": {"att": {"failed_runs": ["a", "b", "c"]}}}}
    assert overview(s)["blamed"][0]["sentence"] == "Coder is blamed most: 4 attributions, in 3 of 3 failed runs (100%)."


def test_agreement_in_words():
    assert strength(-0.1) == "worse than chance" and strength(0.45) == "moderate" and strength(0.95) == "almost perfect"
    line = agreement_line("outcome", {"type": "radio", "items_compared": 4,
                                      "choice": {"kappa": 0.45, "percent_agreement": 0.75, "n_units": 4}})
    assert line["meaning"] == "moderate agreement beyond chance (κ 0.45; identical on 75% of units)"
    assert agreement_line("notes", {"type": "text", "items_compared": 3, "note": "free text: no agreement measure"})[
        "meaning"] == "free text: no agreement measure"


def test_flag_matrix_merges_agents_of_the_same_name_across_schemes():
    s = {"handoffs": {"h1": {"pairs": [{"src": "A", "dst": "B", "flagged": 1, "handoffs_reviewed": 4}]},
                      "h2": {"pairs": [{"src": "A", "dst": "B", "flagged": 1, "handoffs_reviewed": 4},
                                       {"src": "B", "dst": "C", "flagged": 0, "handoffs_reviewed": 1}]}}}
    m = flag_matrix(s)
    assert m["agents"] == ["B", "A", "C"]
    assert m["cells"][0] == {"src": "A", "dst": "B", "flagged": 2, "reviewed": 8, "flag_rate": 0.25}


def test_the_cross_run_graph_is_a_matrix_of_agents_not_a_circle_of_every_agent():
    # issue 27: 30 agents of unrelated runs stay legible: one row and one column per agent name
    names = [f"agent-{i:02d}" for i in range(30)]
    edges = [{"src": a, "dst": b, "handoffs": 2, "runs": 1, "graph_reviews": 2, "critical": i % 2,
              "problematic": 1 if i % 3 == 0 else 0, "marked_rate": None, "handoff_review_flags": 0}
             for i, (a, b) in enumerate(zip(names, names[1:] + names[:1]))]
    edges.append({"src": "x", "dst": "y", "handoffs": 1, "runs": 1, "graph_reviews": 0, "critical": 0,
                  "problematic": 0, "marked_rate": None, "handoff_review_flags": 0})  # (never reviewed: left out)
    m = graph_matrix({"interaction": {"nodes": [], "edges": edges}})
    assert sorted(m["agents"]) == names and len(m["cells"]) == 30
    assert m["cells"][0] == {"src": "agent-00", "dst": "agent-01", "flagged": 1, "reviewed": 2, "flag_rate": 0.5,
                             "critical": 0, "handoffs": 2}
    fig = overview_charts.flag_matrix(m, title="t", flagged="problematic").to_dict()
    (heat,) = fig["data"]
    assert len(heat["x"]) == len(heat["y"]) == 30 and heat["zmin"] == 0 and heat["zmax"] == 1
    assert fig["layout"]["height"] >= 24 * 30  # a row per agent, the labels never squeezed
    assert "50% of 2 · 1 critical" in {t for row in heat["text"] for t in row}
    assert graph_matrix({"interaction": {"nodes": [], "edges": []}}) == {"agents": [], "cells": []}


def test_numbers_for_people():
    assert human.duration(724.5079) == "12 min" and human.duration(12) == "12 s" and human.duration(7200) == "2.0 h"
    assert human.percent(0.1666) == "17%" and human.duration(None) == "–"


def test_the_runs_behind_each_figure_are_the_ones_counted(tmp_path):
    cfg, save = demo(tmp_path)
    research, websurfing = "research-003", "whowhen-hand-crafted-33"  # (Orchestrator acts in both)
    save(research, "alice", "attribution", attribution("Orchestrator", 4))
    save(research, "bob", "attribution", attribution("Searcher", 5))
    save(websurfing, "alice", "attribution", attribution("Orchestrator", 1))
    save(websurfing, "bob", "attribution", attribution("Orchestrator", 2))
    from app.summary.summarize import summarize
    o = overview(summarize(save.ws, disagreements=False))
    b = o["blamed"][0]
    assert b["failed_runs"] == 2 and b["leaders"] == ["Orchestrator"]
    leader = b["agents"][0]
    assert (leader["count"], leader["runs"], leader["share_of_failed_runs"]) == (3, 2, 1.0)
    assert leader["run_ids"] == sorted([research, websurfing])
    assert b["agents"][1]["run_ids"] == [research]


@pytest.mark.parametrize("value", [0.0, 0.19999, 0.2, 0.6, 0.8])
def test_strength_bounds_are_half_open(value):
    words = {0.0: "slight", 0.19999: "slight", 0.2: "fair", 0.6: "substantial", 0.8: "almost perfect"}
    assert strength(value) == words[value]


def test_the_report_opens_with_the_overview_and_reports_a_tie_as_a_tie(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    save(CODE, "bob", "attribution", attribution("Tester", 7))
    from app.summary.report import build_html
    page = build_html(save.ws)
    assert page.index("<h2>Overview</h2>") < page.index("Progress per annotator") < page.index("<h2>Failure attribution")
    assert "Coder and Tester are blamed most, tied: 1 attribution each, each in 1 of 1 failed runs (100%)." in page
    assert "most blamed (attribution), tied</div>" in page.replace("<div class='card'><b>Coder and Tester (1)</b>", "")
    assert "<b>Coder (1)</b>" not in page and "<b>Tester (1)</b>" not in page  # never one winner of a tie
    assert "724.5" not in page and "time spent" in page


def test_the_summary_page_opens_on_the_overview(tmp_path):
    from tests.conftest import make_app, open_page
    cfg, save = demo(tmp_path)
    first, second = "whowhen-hand-crafted-33", "whowhen-hand-crafted-5"  # (both agents act in both runs)
    save(first, "alice", "attribution", attribution("Orchestrator", 3), seconds=724.5079)
    save(first, "bob", "attribution", attribution("WebSurfer", 4))
    save(second, "alice", "attribution", attribution("Orchestrator", 2))
    save(second, "bob", "attribution", attribution("WebSurfer", 8))
    at = open_page(make_app(cfg, annotator="carol"), "summary")
    assert at.tabs[0].label == "Overview"
    overview_tab = at.tabs[0]
    texts = [m.value for m in overview_tab.markdown]
    from app.ui.text import md
    assert md("Orchestrator and WebSurfer are blamed most, tied: 2 attributions each, each in 2 of 2 failed runs (100%).") in texts
    assert any("attribution" in s.value for s in overview_tab.subheader)
    # the runs behind the figure: a link per run, to the attribution scheme's page with the item
    links = [p.proto for p in overview_tab.get("page_link")]
    assert {p.label for p in links} >= {first, second}
    assert all("attribution" in p.page for p in links)
    # durations for people in the progress tab
    progress = at.tabs[1]
    frames = [d.value for d in progress.dataframe]
    assert any("time spent" in f.columns and "12 min" in f["time spent"].tolist() for f in frames)


def test_headlines_answer_each_question_in_one_sentence():
    s = {**_blame(("Coder", 3, 2), ("Tester", 3, 2)),
         "handoffs": {"h": {"pairs": [{"src": "A", "dst": "B", "flagged": 2, "handoffs_reviewed": 2},
                                      {"src": "B", "dst": "C", "flagged": 2, "handoffs_reviewed": 5}]}},
         "agreement": {"outcome": {"type": "radio", "items_compared": 4, "choice": {"kappa": 0.2}}},
         "runs": {"attribution": {"att": {"failed_runs": ["r1", "r2", "r3"]}}}}
    h = overview(s)["headlines"]
    assert h[0].startswith("Coder and Tester are blamed most, tied")
    assert h[1] == "Handoffs flagged most: A → B and B → C (2 flagged handoffs each, tied)."
    assert h[2] == "Agreement is measured on 1 scheme; weak (below 0.4) on outcome: read those numbers with care."
