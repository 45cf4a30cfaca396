"""Summary numbers on small literal annotation sets, checked against values computed by hand.

code-team-002 has 10 steps (Manager, Coder, Coder, Tester, Coder, Tester, Manager, Coder,
Reviewer, Manager), so 8 handoffs: #0 M→C (step 1), #1 C→T (3), #2 T→C (4), #3 C→T (5),
#4 T→M (6), #5 M→C (7), #6 C→R (8), #7 R→M (9); contention region 0 is ci_runner, 1 repo_lock.
trip-planner-001 has 14 steps.
"""
from __future__ import annotations

import json
import math

import pytest

from app.stats.counting import t975
from app.summary import rows as stored
from app.summary import summarize as core
from app.project.workspace import open_project
from tests.summary_data import CODE, OLDER, TRIP, attribution, demo


def summarize(cfg, **kw):
    return core.summarize(open_project(cfg), **kw)


def entry(i, step, a, b, flags=(), q=None):
    return {"index": i, "step": step, "from": a, "to": b, "flags": list(flags), "quality": q}


def test_attribution_blame_positions_and_agreement_of_three(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    save(CODE, "bob", "attribution", attribution("Coder", 5))
    save(CODE, "carol", "attribution", attribution("Tester", 3))
    save(TRIP, "alice", "attribution", attribution("FlightAgent", 4))
    save(TRIP, "bob", "attribution", attribution(None, None), status="reviewed_clean")
    s = summarize(cfg)
    att = s["attribution"]["attribution"]
    assert [(b["agent"], b["count"], b["share"]) for b in att["blame"]] == [
        ("Coder", 2, 0.5), ("FlightAgent", 1, 0.25), ("Tester", 1, 0.25)]
    assert att["no_failure"] == 1 and att["attributions"] == 5
    pos = {(p["item_id"], p["annotator"]): p["position"] for p in att["positions"]}
    assert pos[(CODE, "alice")] == pytest.approx(4 / 9) and pos[(TRIP, "alice")] == pytest.approx(4 / 13)
    assert [h["count"] for h in att["position_histogram"]] == [0, 2, 2, 0, 0]
    # bob blames the Coder at step 5, where the Tester acts; the three others blame who acts
    assert att["acting_is_blamed"] == {"count": 3, "of": 4, "share": 0.75}
    assert [p["acting_is_blamed"] for p in att["positions"]] == [True, True, False, True]
    # the summary's numbers leave the records out; they are listed per scheme, under the filters
    ws = open_project(cfg)
    assert "positions" not in core.summarize(ws, disagreements=False)["attribution"]["attribution"]
    assert core.listing(ws, None, "attribution", "positions") == att["positions"]
    assert core.listing(ws, None, "attribution", "positions", annotators=["bob"], items=[CODE]) == [att["positions"][2]]
    # Fleiss (three raters overall), CODE: Coder 2, Tester 1 -> P = 1/3; TRIP: FlightAgent 1,
    # no failure 1 -> P = 0; P̄ = 1/6; p = 2/5, 1/5, 1/5, 1/5 -> Pe = 7/25; kappa = -17/108
    a = s["agreement"]["attribution"]
    assert a["agent"]["measure"] == "fleiss_kappa" and a["items_compared"] == 2
    assert a["agent"]["kappa"] == pytest.approx((1 / 6 - 7 / 25) / (1 - 7 / 25))
    assert a["agent"]["percent_agreement"] == pytest.approx(1 / 6)
    # steps 4, 5, 3 on CODE: no pair equal, 2 of 3 pairs within ±1; TRIP has one step only
    assert a["step"]["exact"] == 0 and a["step"]["within_k"] == pytest.approx(2 / 3) and a["step"]["n_units"] == 1
    dis = [(d["item_id"], d["object"]) for d in s["disagreements"] if d["scheme"] == "attribution"]
    assert sorted(dis) == sorted([(CODE, "responsible agent"), (TRIP, "responsible agent"),
                                  (CODE, "decisive step")])  # 5 - 3 = 2 > k = 1
    assert summarize(cfg, k=2)["agreement"]["attribution"]["step"]["within_k"] == 1.0


def test_scorecard_mean_interval_ties_and_missing(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "scorecard", {"agents": {"Coder": {"role fidelity": 2}}, "team": {"coordination": 3},
                                      "milestones": {"plan produced": True}})
    save(CODE, "bob", "scorecard", {"agents": {"Coder": {"role fidelity": 4}}, "team": {"coordination": 3},
                                    "milestones": {"plan produced": False}})
    save(CODE, "carol", "scorecard", {"agents": {"Coder": {"role fidelity": 3}}, "team": {},
                                      "milestones": {}})  # carol scores no team dimension: missing
    save(TRIP, "alice", "scorecard", {"agents": {"Planner": {"contribution": 5}}, "team": {}, "milestones": {}})
    s = summarize(cfg)
    sc = s["scorecards"]["scorecard"]
    rf = next(r for r in sc["agents"] if r["agent"] == "Coder")
    half = 4.3027 * 1.0 / math.sqrt(3)  # t(0.975, 2) * sd / sqrt(n), sd of 2, 4, 3 = 1
    assert (rf["n"], rf["mean"], rf["sd"]) == (3, 3.0, 1.0)
    assert rf["ci_low"] == pytest.approx(3 - half) and rf["ci_high"] == pytest.approx(3 + half)
    single = next(r for r in sc["agents"] if r["agent"] == "Planner")
    assert single["n"] == 1 and single["mean"] == 5 and single["ci_low"] is None and single["sd"] is None
    team = sc["team"][0]
    assert (team["n"], team["mean"], team["ci_low"], team["ci_high"]) == (2, 3.0, 3.0, 3.0)
    assert sc["milestones"][0] == {"milestone": "plan produced", "n": 2, "reached": 1, "rate": 0.5}
    a = s["agreement"]["scorecard"]
    rfa = a["agent_dimensions"]["role fidelity"]
    # one unit with 2, 4, 3: D_o = D_e = 2 -> alpha 0; mean |difference| over pairs = (2 + 1 + 1) / 3
    assert rfa["alpha"] == pytest.approx(0.0) and rfa["mean_abs_diff"] == pytest.approx(4 / 3)
    tie = a["team_dimensions"]["coordination"]
    assert tie["alpha"] is None and tie["percent_agreement"] == 1.0 and "undefined" in tie["note"]
    assert a["milestones"]["plan produced"]["percent_agreement"] == 0.0
    objs = {d["object"] for d in s["disagreements"] if d["scheme"] == "scorecard"}
    assert objs == {"Coder · role fidelity", "milestone plan produced"}  # 4 - 2 >= 2 points


def test_handoff_rates_kappa_per_flag_order_and_stale(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "handoffs", [entry(0, 1, "Manager", "Coder", q=4),
                                     entry(1, 3, "Coder", "Tester", ["info_loss", "garbling"], 2),
                                     entry(9, 99, "Ghost", "Coder", ["info_loss"])],  # made on other data
         trace_hash=OLDER)
    save(CODE, "bob", "handoffs", [entry(1, 3, "Coder", "Tester", ["garbling", "info_loss"], 3),
                                   entry(3, 5, "Coder", "Tester", ["goal_drift"])])
    s = summarize(cfg)
    h = s["handoffs"]["handoffs"]
    assert h["stale"] == 1
    pairs = {(p["src"], p["dst"]): p for p in h["pairs"]}
    ct = pairs[("Coder", "Tester")]  # 2 handoffs x 2 annotators, 3 flagged
    assert (ct["handoffs_reviewed"], ct["flagged"], ct["flag_rate"], ct["mean_quality"], ct["rated"]) == \
        (4, 3, 0.75, 2.5, 2)
    mc = pairs[("Manager", "Coder")]
    assert (mc["handoffs_reviewed"], mc["flagged"], mc["mean_quality"]) == (4, 0, 4.0)
    a = s["agreement"]["handoffs"]
    assert a["flags"]["info_loss"]["kappa"] == pytest.approx(1.0)  # same handoff, flags in another order
    assert a["flags"]["garbling"]["kappa"] == pytest.approx(1.0)
    # goal_drift: p_o = 7/8, p_e = 1 * 7/8 -> kappa 0
    assert a["flags"]["goal_drift"]["kappa"] == pytest.approx(0.0) and a["flags"]["goal_drift"]["n_units"] == 8
    assert a["flags"]["dropped_constraint"]["kappa"] is None  # nobody flagged it: undefined, not NaN
    dis = [d for d in s["disagreements"] if d["scheme"] == "handoffs"]
    assert [d["object"] for d in dis] == ["handoff 3 (Coder → Tester)"]  # quality 2 vs 3 is within a point
    assert dis[0]["judgements"] == "alice: (none); bob: goal_drift"
    edge = next(e for e in s["interaction"]["edges"] if (e["src"], e["dst"]) == ("Coder", "Tester"))
    assert edge["handoff_review_flags"] == 3


def test_graph_order_insensitive_and_interaction_edges(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "graph", {"critical_nodes": ["Coder", "Tester"], "edges": {"Manager->Coder": "problematic"}})
    save(CODE, "bob", "graph", {"critical_nodes": ["Tester", "Coder"], "edges": {"Manager->Coder": "critical"}})
    s = summarize(cfg)
    a = s["agreement"]["graph"]
    assert a["critical_nodes"]["jaccard"] == 1.0 and a["flagged_edges"]["jaccard"] == 1.0
    assert [d["object"] for d in s["disagreements"]] == ["edge Manager → Coder"]
    e = next(x for x in s["interaction"]["edges"] if (x["src"], x["dst"]) == ("Manager", "Coder"))
    assert (e["handoffs"], e["critical"], e["problematic"], e["graph_reviews"], e["marked_rate"]) == (2, 1, 1, 2, 1.0)
    nodes = {n["agent"]: n["critical_marks"] for n in s["interaction"]["nodes"]}
    assert nodes["Coder"] == 2 and nodes["Manager"] == 0


def test_mast_by_category_and_acting_agent(tmp_path):
    cfg, save = demo(tmp_path)
    m1 = {"type": "Inter-Agent Misalignment", "subtype": "2.3 Task derailment"}
    m2 = {"type": "Task Verification & Termination", "subtype": "3.2 No or incomplete verification"}

    def step(i, agent, modes):
        return {"step_index": i, "agent": agent, "correctness": "incorrect", "errors": modes,
                "severity": "major", "rationale": ""}
    save(CODE, "alice", "mast_steps", {"steps": [step(4, "Coder", [m1, m2])], "score": 95})
    # bob: same modes in the other order; the stored agent is wrong, the trace's acting agent counts
    save(CODE, "bob", "mast_steps", {"steps": [step(4, "Somebody", [m2, m1]), step(8, "Reviewer", [m2])],
                                     "score": 90})
    s = summarize(cfg)
    m = s["mast"]["mast_steps"]
    cat = {r["category"]: (r["tags"], r["steps"], r["runs"]) for r in m["by_category"]}
    assert cat == {"Inter-Agent Misalignment": (2, 1, 1), "Task Verification & Termination": (3, 2, 1)}
    by_agent = {(r["agent"], r["category"]): r["tags"] for r in m["by_agent"]}
    assert by_agent == {("Coder", "Inter-Agent Misalignment"): 2, ("Coder", "Task Verification & Termination"): 2,
                        ("Reviewer", "Task Verification & Termination"): 1}
    a = s["agreement"]["mast_steps"]
    # tagged steps: 4 (same set: 1) and 8 (alice none, bob one: 0)
    assert a["modes_jaccard_on_tagged_steps"] == {"jaccard": 0.5, "n_units": 2}
    # any mode per step over 10 steps: alice 1 step, bob 2 -> p_o = 9/10, p_e = .1*.2 + .9*.8 = .74
    assert a["any_mode"]["kappa"] == pytest.approx((0.9 - 0.74) / (1 - 0.74))
    assert [d["object"] for d in s["disagreements"]] == ["step 8 (Reviewer)"]


def test_contention_per_resource_tools_and_choices(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "contention", {"contentions": {"0": "deadlock", "1": "race_condition", "7": "benign"}},
         trace_hash=OLDER)  # (made on other data: region 7 is stale)
    save(CODE, "bob", "contention", {"contentions": {"0": "deadlock"}})
    save(CODE, "alice", "tool_review", [{"index": 0, "step": 1, "tool": "run_tests", "verdict": "correct", "notes": ""},
                                        {"index": 1, "step": 2, "tool": "edit_file", "verdict": "wrong_args",
                                         "notes": ""}])
    save(CODE, "bob", "tool_review", [{"index": 1, "step": 2, "tool": "edit_file", "verdict": "correct",
                                       "notes": "fine"}])
    save(CODE, "alice", "symptoms", {"loop": "true", "premature_stop": "true"})
    save(CODE, "bob", "symptoms", {"premature_stop": "true", "loop": "true"})
    save(CODE, "alice", "confidence", {"scale_4": "4"})
    save(CODE, "bob", "confidence", {"scale_2": "2"})
    save(TRIP, "alice", "orchestration", {"hub_and_spoke": "true", "free_response": "planner hub"})
    s = summarize(cfg)
    ct = {(r["resource"], r["label"]): r["count"] for r in s["contention"]["contention"]["labels"]}
    assert ct == {("ci_runner", "deadlock"): 2, ("repo_lock", "race_condition"): 1}
    assert s["contention"]["contention"]["stale"] == 1  # region 7 does not exist
    a = s["agreement"]["contention"]["label"]  # regions 0: deadlock/deadlock, 1: race/unlabelled
    assert a["percent_agreement"] == 0.5 and a["n_units"] == 2
    tv = {(r["tool"], r["verdict"]): r["count"] for r in s["tool_verdicts"]["tool_review"]}
    assert tv == {("edit_file", "correct"): 1, ("edit_file", "wrong_args"): 1, ("run_tests", "correct"): 1}
    assert s["agreement"]["tool_review"]["verdict"]["n_units"] == 1  # only call 1 has two verdicts
    assert s["agreement"]["symptoms"]["jaccard"]["jaccard"] == 1.0  # same labels, other order
    assert s["agreement"]["confidence"]["rating"]["mean_abs_diff"] == 2.0
    assert {d["object"] for d in s["disagreements"]} == {"region 1 (repo_lock)", "call 1 (edit_file)", "rating"}
    # each scheme counts its disagreements; the records are listed on demand, one scheme at a time
    counts = {n: a["disagreements"] for n, a in s["agreement"].items() if a.get("disagreements")}
    assert counts == {"contention": 1, "tool_review": 1, "confidence": 1}
    ws = open_project(cfg)
    numbers = core.summarize(ws, disagreements=False)
    assert numbers["disagreements"] is None
    # listed: the disagreements, and every decisive step (listed on demand too, per scheme)
    listed_steps = {n: a.pop("positions") for n, a in s["attribution"].items()}
    listed_runs = {n: e.pop("per_run") for n, e in s["emergent"].items()}
    assert "positions" not in numbers["attribution"]["attribution"] and "per_run" not in numbers["emergent"]["emergent"]
    assert json.dumps({**numbers, "disagreements": None}, sort_keys=True) == \
        json.dumps({**s, "disagreements": None}, sort_keys=True)
    assert core.listing(ws, None, "attribution", "positions") == listed_steps["attribution"]
    assert core.listing(ws, None, "emergent", "per_run") == listed_runs["emergent"]
    with pytest.raises(ValueError, match="outcome is a radio scheme; per_run lists emergent_behavior schemes"):
        core.listing(ws, None, "outcome", "per_run")
    for name in counts:
        assert core.disagreements(ws, None, name) == [d for d in s["disagreements"] if d["scheme"] == name]
    assert core.disagreements(ws, None, "contention", annotators=["alice"]) == []  # one annotator: nothing to differ
    orch = s["choices"]["orchestration"]["labels"]
    assert orch == [{"label": "hub_and_spoke", "count": 1, "runs": 1, "share": 1.0}]
    assert s["agreement"]["orchestration"]["items_compared"] == 0  # a single annotator
    assert s["agreement"]["notes"]["note"] == "free text: no agreement measure"


def test_single_annotator_progress_filters_and_json_safety(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", 4), seconds=30)
    save(CODE, "alice", "outcome", {"failure": "true"}, seconds=12)
    save(CODE, "alice", "_item", {"done": True}, seconds=0)
    save(TRIP, "bob", "outcome", {"success": "true"}, seconds=8)
    save(TRIP, "bob", "notes", None, status="cleared", seconds=5)  # not a judgement, but time spent
    s = summarize(cfg)
    json.dumps(s, allow_nan=False)  # no NaN anywhere
    prog = {p["annotator"]: p for p in s["progress"]["by_annotator"]}
    assert prog["alice"] == {"annotator": "alice", "items_done": 1, "items_total": 7, "items_touched": 1,
                             "judgements": 2, "seconds": 42.0}
    assert prog["bob"]["judgements"] == 1 and prog["bob"]["seconds"] == 13.0
    for a in s["agreement"].values():
        assert a["items_compared"] == 0 and "note" in a
    only = summarize(cfg, annotators=["alice"])
    assert only["counts"]["annotators"] == 1 and only["counts"]["judgements"] == 2
    one_scheme = summarize(cfg, schemes=["outcome"])
    assert set(one_scheme["agreement"]) == {"outcome"} and one_scheme["counts"]["judgements"] == 2
    assert one_scheme["attribution"] == {}
    items = summarize(cfg, items=[TRIP])
    assert items["counts"] == {"items": 1, "annotators": 1, "judgements": 1, "items_with_gold": 0}


def test_t_quantiles():
    assert t975(1) == pytest.approx(12.7062) and t975(30) == pytest.approx(2.0423)
    for df, t in [(40, 2.0211), (60, 2.0003), (120, 1.9799), (1000, 1.9623)]:
        assert t975(df) == pytest.approx(t, abs=2e-4)


def test_report_lists_the_first_disagreements_and_counts_them_all(tmp_path, monkeypatch):
    from app.summary import report
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    save(CODE, "bob", "attribution", attribution("Tester", 7))
    ws = open_project(cfg)
    assert "Where annotators differ (2)" in report.build_html(ws)
    monkeypatch.setattr(report, "LISTED", 1)
    html = report.build_html(ws)
    assert "Where annotators differ (2; the first 1 listed" in html
    assert "<td>responsible agent</td>" in html and "<td>decisive step</td>" not in html
    assert "The blamed agent acts at the decisive step in 50% of attributions (1 of 2)." in html
    # a report of the numbers only (the summary page's) lists each run's behaviours too
    save(CODE, "alice", "emergent", {"echoing": {"turns": [2], "note": ""}})
    numbers = core.summarize(ws, disagreements=False)
    assert "per_run" not in numbers["emergent"]["emergent"]
    html = report.build_html(ws, summary=numbers)
    assert html.count("<td>echoing</td>") == 2  # (the totals and the run)


def test_fingerprint_changes_with_a_value_rewritten_under_the_same_save_time(tmp_path):
    # `import --overwrite` of an edited export keeps updated_at and seconds_spent: the summary
    # page must not keep the summary of the old value (it reuses one while the fingerprint holds)
    cfg, save = demo(tmp_path)  # the test saver stamps every row with the same time
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    save(CODE, "bob", "attribution", attribution("Coder", 4))
    ws = open_project(cfg)
    before = core.fingerprint(stored.load(ws))
    assert core.fingerprint(stored.load(ws)) == before  # unchanged store, same fingerprint
    save(CODE, "bob", "attribution", attribution("Tester", 7))
    assert core.fingerprint(stored.load(ws)) != before


def test_json_keys_keep_their_order(tmp_path):
    # summarize() hands the long lists past clean(); the JSON keeps the order it always had
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "emergent", {"sycophantic_agreement": {"turns": [3], "note": ""}})
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    s = summarize(cfg)
    assert list(s["emergent"]["emergent"]) == ["per_run", "totals"]
    assert list(s["attribution"]["attribution"])[-1] == "positions"
    assert s["emergent"]["emergent"]["per_run"][0]["marks"] == 1
    save(CODE, "bob", "emergent", {"sycophantic_agreement": {"turns": [3, 4], "note": ""}, "echoing": {"turns": [1]}})
    s = summarize(cfg)
    runs = [(r["behavior"], r["annotators"], r["turns"], r["marks"]) for r in s["emergent"]["emergent"]["per_run"]]
    assert runs == [("echoing", 1, 1, 1), ("sycophantic_agreement", 2, 2, 3)]
    assert s["emergent"]["emergent"]["totals"] == [
        {"behavior": "echoing", "runs": 1, "annotators": 1, "marks": 1},
        {"behavior": "sycophantic_agreement", "runs": 1, "annotators": 2, "marks": 3}]
    assert core.listing(open_project(cfg), None, "emergent", "per_run") == s["emergent"]["emergent"]["per_run"]


def test_decisive_steps_out_of_the_run_fall_in_the_end_bins(tmp_path):
    # an attribution made on other data (a longer run) may name a step past the last (10 steps
    # here): it falls in the last bin; a step before the first is no step of any run (issue 30:
    # left out, listed as invalid; it was counted in the first bin before)
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", -20), trace_hash=OLDER)
    save(CODE, "bob", "attribution", attribution("Coder", -1), trace_hash=OLDER)
    save(CODE, "carol", "attribution", attribution("Coder", 99), trace_hash=OLDER)
    s = summarize(cfg)
    hist = s["attribution"]["attribution"]["position_histogram"]
    assert [h["count"] for h in hist] == [0, 0, 0, 0, 1]
    assert s["invalid"]["count"] == 2 and {r["annotator"] for r in s["invalid"]["rows"]} == {"alice", "bob"}


@pytest.mark.parametrize("index", [2 ** 62, 2 ** 63 - 1])
def test_a_handoff_index_beyond_any_run_is_stale_not_misplaced(tmp_path, index):
    """Keys of (item, handoff index) would not fit in 64 bits: the merges place entries, and an
    entry naming a handoff no run has is stale, never put on another handoff."""
    cfg, save = demo(tmp_path)
    for item in (TRIP, CODE):
        save(item, "alice", "handoffs", [])
        save(item, "bob", "handoffs", [])
    save(CODE, "ann", "handoffs", [entry(index, 3, "Coder", "Tester", ["garbling"], 1)],  # #1's step and agents
         trace_hash=OLDER)
    h = summarize(cfg)["handoffs"]["handoffs"]
    assert h["stale"] == 1
    assert all(p["flagged"] == 0 and p["mean_quality"] is None for p in h["pairs"])


def test_progress_counts_a_row_without_scheme_for_its_annotator(tmp_path):
    """A row missing its scheme still counts for its annotator (pandas leaves it out of the
    per-scheme groups only), as the per-annotator figures always did."""
    import pandas as pd
    ws = open_project(demo(tmp_path)[0])
    df = pd.DataFrame({"item_id": [CODE, TRIP], "annotator": ["alice", "alice"], "scheme": ["outcome", None],
                       "annotation_type": ["radio", "radio"], "value": ['{"success": "true"}'] * 2,
                       "status": ["annotated"] * 2, "trace_hash": ["h"] * 2,
                       "updated_at": pd.Timestamp("2025-01-01", tz="UTC"), "seconds_spent": [1.0, 1.0]}, dtype=object)
    df["seconds_spent"] = df["seconds_spent"].astype(float)
    p = core.summarize(ws, df)["progress"]
    assert (p["by_annotator"][0]["judgements"], p["by_annotator"][0]["items_touched"]) == (2, 2)
    assert [(s["scheme"], s["judgements"]) for s in p["by_scheme"]] == [("outcome", 1)]


def test_progress_time_leaves_out_a_missing_time_as_pandas_sums_do(tmp_path):
    """Seconds per annotator and per scheme, summed on codes: a row without a time (a file
    written by hand) adds nothing, and an annotator with none has 0 seconds, not a gap."""
    import pandas as pd
    ws = open_project(demo(tmp_path)[0])
    df = pd.DataFrame({"item_id": [CODE, TRIP, CODE], "annotator": ["alice", "alice", "bob"],
                       "scheme": ["outcome", "notes", "outcome"], "annotation_type": ["radio", "text", "radio"],
                       "value": ['{"success": "true"}', '{"text_box": "x"}', '{"failure": "true"}'],
                       "status": ["annotated"] * 3, "trace_hash": ["h"] * 3,
                       "updated_at": pd.Timestamp("2025-01-01", tz="UTC"), "seconds_spent": [2.5, None, None]},
                      dtype=object)
    df["seconds_spent"] = df["seconds_spent"].astype(float)
    for rows in (df, df.astype({c: "category" for c in ("item_id", "annotator", "scheme")})):
        p = core.summarize(ws, rows)["progress"]
        assert [(a["annotator"], a["seconds"]) for a in p["by_annotator"]] == [("alice", 2.5), ("bob", 0.0)]
        assert {s["scheme"]: s["seconds"] for s in p["by_scheme"]} == {"outcome": 2.5, "notes": 0.0}


def test_progress_times_add_up_exactly_however_large(tmp_path):
    """Seconds are summed as whole microseconds, exactly, whatever the rows' order, even for
    times no annotator spends (a hand-made file)."""
    import pandas as pd
    ws = open_project(demo(tmp_path)[0])
    df = pd.DataFrame({"item_id": [CODE, TRIP, CODE], "annotator": ["alice"] * 3, "scheme": ["outcome", "notes", "notes"],
                       "annotation_type": ["radio", "text", "text"],
                       "value": ['{"success": "true"}', '{"text_box": "x"}', '{"text_box": "y"}'],
                       "status": ["annotated"] * 3, "trace_hash": ["h"] * 3,
                       "updated_at": pd.Timestamp("2025-01-01", tz="UTC"), "seconds_spent": [1e10, 0.1, 1e30]},
                      dtype=object).astype({"seconds_spent": float})
    p = core.summarize(ws, df)["progress"]
    assert p["by_annotator"][0]["seconds"] == (10 ** 16 + 100_000 + 9 * 10 ** 18) / 1e6  # (the last one capped)


def test_progress_grid_is_by_annotator_then_scheme_order_however_the_rows_were_read(tmp_path):
    """The annotator × scheme grid: annotators by name, schemes in the order of the per-scheme
    list, whether the rows came from the row index (as dictionaries) or straight from the files."""
    import os
    import time
    cfg, save = demo(tmp_path)
    save(TRIP, "bob", "notes", {"text_box": "x"})
    save(TRIP, "alice", "notes", {"text_box": "x"})
    past = time.time() - 60  # outside the row index's racy window: the next read indexes them
    for root, _dirs, files in os.walk(tmp_path / "annotations"):
        for f in files:
            os.utime(os.path.join(root, f), (past, past))
    summarize(cfg)
    save(CODE, "alice", "outcome", {"success": "true"})
    p = summarize(cfg)["progress"]
    order = [s["scheme"] for s in p["by_scheme"]]
    grid = [(g["annotator"], g["scheme"]) for g in p["by_annotator_scheme"]]
    assert grid == sorted(grid, key=lambda g: (g[0], order.index(g[1])))
    assert grid == [("alice", "outcome"), ("alice", "notes"), ("bob", "notes")]


def test_an_old_summary_folder_in_the_store_is_ignored(tmp_path):
    """Stores written by earlier versions hold a `.summary/` folder of kept tallies: it is
    neither read nor an error, and the summary counts the rows alone."""
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "outcome", {"success": "true"})
    kept = tmp_path / "annotations" / ".summary"
    kept.mkdir(parents=True)
    (kept / "state.v5.bin").write_bytes(b"\x00not a state")
    s = summarize(cfg)
    assert s["counts"]["judgements"] == 1 and s["choices"]["outcome"]["labels"][0]["label"] == "success"
