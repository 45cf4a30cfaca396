"""Accuracy against gold on the Who&When samples, with attributions right on some and wrong on others."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.summary import gold
from app.summary import summarize as core
from app.project.workspace import open_project
from tests.conftest import ROOT
from tests.summary_data import attribution, whowhen

# gold (mistake_agent, mistake_step) of the items used:
# algorithm-generated-1 Excel_Expert 0 · algorithm-generated-101 Tickets_Pricing_Expert 2 ·
# algorithm-generated-20 WebServing_Expert 0 · hand-crafted-33 WebSurfer 8 · hand-crafted-47 Orchestrator 51 ·
# hand-crafted-5 WebSurfer 12 · hand-crafted-54 WebSurfer 15 · whowhen-hand-crafted-5 WebSurfer 12


def annotate(save):
    # alice: agent right on 3 of 6, step exact on 2 of 6, within ±1 on 3 of 6
    save("algorithm-generated-1", "alice", "attribution", attribution("Excel_Expert", 0))  # right, right
    save("algorithm-generated-101", "alice", "attribution",
         attribution(" tickets_pricing_expert ", 3))  # agent right (case, blanks), step off by one
    save("hand-crafted-33", "alice", "attribution", attribution("Orchestrator", 8))  # agent wrong, step right
    save("hand-crafted-47", "alice", "attribution", attribution("WebSurfer", 40))  # both wrong
    save("hand-crafted-5", "alice", "attribution", attribution("WebSurfer", None))  # no step: wrong step
    save("whowhen-hand-crafted-5", "alice", "attribution", attribution(None, None),
         status="reviewed_clean")  # "no failure" on a failed run: wrong on both
    # bob: agent right on 2 of 2, step exact on 1, within ±1 on 2
    save("algorithm-generated-20", "bob", "attribution", attribution("WebServing_Expert", 1))
    save("hand-crafted-54", "bob", "attribution", attribution("WebSurfer", 15))


def test_accuracy_on_whowhen_samples(tmp_path):
    cfg, save = whowhen(tmp_path)
    annotate(save)
    s = core.summarize(open_project(cfg))
    assert s["counts"]["items_with_gold"] == 16
    a, b = s["gold"]["alice"], s["gold"]["bob"]
    assert (a["n"], a["agent_accuracy"], a["step_accuracy"], a["step_accuracy_within_k"]) == (6, 0.5, 2 / 6, 0.5)
    assert (b["n"], b["agent_accuracy"], b["step_accuracy"], b["step_accuracy_within_k"]) == (2, 1.0, 0.5, 1.0)
    conf = {(c["gold_agent"], c["annotated_agent"]): c["count"] for c in s["gold_detail"]["confusion"]}
    assert conf[("WebSurfer", "Orchestrator")] == 1 and conf[("Orchestrator", "WebSurfer")] == 1
    assert conf[("WebSurfer", "(none)")] == 1 and conf[("WebSurfer", "WebSurfer")] == 2
    row = next(r for r in s["gold_detail"]["items"] if r["item_id"] == "algorithm-generated-101")
    assert (row["agent_correct"], row["step_correct"], row["step_within_k"]) == (True, False, True)
    k0 = core.summarize(open_project(cfg), k=0)["gold"]["alice"]
    assert k0["step_accuracy_within_k"] == k0["step_accuracy"] == 2 / 6
    k20 = core.summarize(open_project(cfg), k=20)["gold"]["alice"]
    assert k20["step_accuracy_within_k"] == 4 / 6  # 40 vs 51 is within 20; the two without a step are not


def test_summary_json_command_has_gold_and_agreement(tmp_path):
    cfg, save = whowhen(tmp_path)
    annotate(save)
    # (step 7, not 9 as before issue 30: the run has steps 0–8, and a step it does not have is refused)
    save("hand-crafted-33", "bob", "attribution", attribution("WebSurfer", 7))
    r = subprocess.run([sys.executable, "-m", "app", "summary", str(cfg), "--json", "-k", "1"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"n", "agent_accuracy", "step_accuracy", "step_accuracy_within_k"} <= set(out["gold"]["alice"])
    assert out["gold"]["bob"]["n"] == 3 and out["gold"]["bob"]["agent_accuracy"] == 1.0
    att = out["agreement"]["attribution"]  # hand-crafted-33: Orchestrator @8 vs WebSurfer @7
    assert att["items_compared"] == 1 and att["agent"]["percent_agreement"] == 0.0
    assert att["step"]["exact"] == 0.0 and att["step"]["within_k"] == 1.0
    text = subprocess.run([sys.executable, "-m", "app", "summary", str(cfg)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert text.returncode == 0 and "alice: n=6 agent 50%, step 33%, step ±1 50%" in text.stdout
    acting = out["attribution"]["attribution"]["acting_is_blamed"]
    judged = [p["acting_is_blamed"] for p in out["attribution"]["attribution"]["positions"]]
    assert (acting["count"], acting["of"]) == (judged.count(True), len(judged) - judged.count(None)) and acting["of"]
    assert (f"the blamed agent acts at the decisive step: {acting['share']:.0%} ({acting['count']} of "
            f"{acting['of']})") in text.stdout
    # the text counts the disagreements the JSON lists
    assert f"\n{len(out['disagreements'])} disagreement(s): see --json" in text.stdout and out["disagreements"]
    # nothing is kept on disk between runs: the next run counts the rows again, one more save in
    assert not (Path(open_project(cfg).project.output_dir) / ".summary").exists()
    save("hand-crafted-33", "carol", "attribution", attribution("WebSurfer", 7))  # (a step of the run: 0–8)
    again = subprocess.run([sys.executable, "-m", "app", "summary", str(cfg)], cwd=ROOT, capture_output=True,
                           text=True, timeout=120)
    fresh = subprocess.run([sys.executable, "-m", "app", "summary", str(cfg), "--json"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "carol: n=1" in again.stdout
    assert f"\n{len(json.loads(fresh.stdout)['disagreements'])} disagreement(s): see --json" in again.stdout


def test_trail_and_agentrx_failures():
    g = gold.normalize({"failures": [{"step": 3, "agent": "manager", "category": "Formatting", "root_cause": False},
                                     {"step": 7, "agent": "search_agent", "category": "Tool misuse",
                                      "root_cause": True, "impact": "HIGH"}]})
    assert (g["agent"], g["step"]) == ("search_agent", 7)  # the root cause stands in for mistake_*
    explicit = gold.normalize({"mistake_agent": "manager", "mistake_step": "3", "failures": g["failures"]})
    assert (explicit["agent"], explicit["step"]) == ("manager", 3)
    assert gold.normalize(None) is None and gold.normalize({"mistake_reason": "x"}) is None
    res = gold.accuracy([{"item_id": "t1", "annotator": "ann", "agent": "search_agent", "step": 3},
                         {"item_id": "t2", "annotator": "ann", "agent": "x", "step": 1}],
                        {"t1": g}, k=0, step_tags={("t1", "ann"): {3, 4}})
    r = res["by_annotator"]["ann"]
    assert (r["n"], r["agent_accuracy"], r["step_accuracy"]) == (1, 1.0, 0.0)  # t2 has no gold: not counted
    assert r["failure_step_hit"] == 1.0  # step 3 is one of the gold failures
    assert r["step_tag_recall"] == pytest.approx(0.5)  # tagged step 3 of the failures at 3 and 7
