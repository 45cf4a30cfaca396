"""Suggestions from a run's own signals (app/traces/suggestions.py) on literal traces and on the
real Who&When and TRAIL runs in data/, what the summary says of them (app/summary/suggestions.py),
and accepting them on the failure attribution and graph pages (AppTest)."""
from __future__ import annotations

from app.project.workspace import open_project
from app.store.storage import AnnotationStore
from app.summary import summarize as core
from app.traces import suggestions as sg
from app.traces.derive import derive
from app.types import traversal_review as tr
from app.ui.state import widget_key
from tests.conftest import ROOT, agent_card, make_app, open_page, write_project
from tests.summary_data import Saver, attribution

TRAIL = "512475a321c616e45337da3575f6a185"


def suggest(data):
    d = derive(data)
    found = sg.decisive_step(data, d)
    return found, sg.critical_path(data, d, found)


def test_error_status_and_tool_errors():
    data = {"steps": [{"agent": "Boss", "content": "do it"},
                      {"agent": "W", "content": "calling", "tool_calls": [{"name": "fetch", "result": "ok"}]},
                      {"agent": "W", "content": "again", "tool_calls": [
                          {"name": "fetch", "result": "Traceback (most recent call last):\nValueError: bad"}]},
                      {"agent": "W", "content": "x", "status": "ERROR", "status_message": "boom"},
                      {"agent": "Boss", "content": "FINAL ANSWER: 4"}]}
    found, path = suggest(data)
    kinds = [(s.step, s.kind) for s in found.signals]
    assert kinds == [(2, sg.TOOL_ERROR), (3, sg.ERROR_STATUS)]
    assert found.step == 2 and found.agent == "W" and "tool fetch returned an exception" in found.reason
    assert "first of 2 failing steps" in found.reason and "\n" not in found.reason
    assert path.agents == ("Boss", "W") and path.edges == (("Boss", "W"),) and "\n" not in path.reason


def test_verifier_rejection_exit_code_and_no_final_answer():
    data = {"steps": [{"agent": "Planner", "content": "plan"}, {"agent": "Coder", "content": "code"},
                      {"agent": "Critic", "content": "This is wrong: it violates the budget."},
                      {"agent": "Coder", "content": "fixed"}, {"agent": "Reviewer", "content": "LGTM, approved."}]}
    found, path = suggest(data)
    assert [(s.step, s.kind) for s in found.signals] == [(1, sg.VERIFIER_REJECTED), (4, sg.NO_FINAL_ANSWER)]
    assert found.step == 1 and found.reason.startswith("Verifier Critic rejected step 1 (Coder) at step 2")
    assert path.agents == ("Planner", "Coder")
    terminal = {"steps": [{"agent": "A", "content": "run this"}, {"agent": "Computer_terminal",
                                                                   "content": "exitcode: 1 (execution failed)"},
                          {"agent": "A", "content": "TERMINATE"}]}
    found, _ = suggest(terminal)
    assert found.step == 0 and found.signals[0].kind == sg.TOOL_ERROR and "exit code 1" in found.reason
    quiet = {"steps": [{"agent": "A", "content": "hello"}, {"agent": "B", "content": "Answer: 4"}]}
    assert suggest(quiet) == (None, None)  # nothing points anywhere: no suggestion
    unfinished = {"steps": [{"agent": "A", "content": "hello"}, {"agent": "B", "content": "working on it"}]}
    found, path = suggest(unfinished)
    assert found.step == 1 and found.signals[0].kind == sg.NO_FINAL_ANSWER and path.agents == ("A", "B")


def test_real_runs():
    ws = open_project(write_project_for([ROOT / "data" / "whowhen", ROOT / "data" / "trail"]))
    got = {it.id: suggest(it.data) for it in ws.items}
    trail, trail_path = got[TRAIL]  # gold: step 3 (manager); the tool error is at step 2
    assert (trail.step, trail.agent) == (2, "manager") and "inspect_file_as_text" in trail.reason
    assert trail_path.agents == ("manager",) and "agent spans" in trail_path.reason
    hc33, path33 = got["whowhen-hand-crafted-33"]  # gold: step 8 (WebSurfer), the run's last step
    assert (hc33.step, hc33.agent) == (8, "WebSurfer") and path33.agents == ("human", "Orchestrator", "WebSurfer")
    assert got["whowhen-algorithm-generated-1"] == (None, None)  # ends with TERMINATE, no error signal


def write_project_for(folders, tmp=None):
    import tempfile
    from pathlib import Path
    return write_project(Path(tempfile.mkdtemp()), data_files=[str(f) for f in folders])


def test_summary_accepted_corrected_ignored_and_accuracy(tmp_path):
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "whowhen"), str(ROOT / "data" / "trail")])
    save = Saver(cfg)
    save(TRAIL, "alice", "attribution", attribution("manager", 2))  # accepted (gold 3: within ±1)
    save(TRAIL, "bob", "attribution", attribution("manager", 3))  # corrected (exactly gold)
    save("whowhen-hand-crafted-33", "alice", "attribution", attribution(None, None),
         status="reviewed_clean")  # ignored
    save("whowhen-algorithm-generated-1", "alice", "attribution", attribution("Excel_Expert", 0))  # no suggestion
    save(TRAIL, "alice", "traversal", tr.add_root_cause({}, 2))
    save(TRAIL, "bob", "graph", {"critical_nodes": ["manager"], "edges": {}})
    s = core.summarize(open_project(cfg))["suggestions"]
    fa = s["schemes"]["attribution"]
    assert (fa["judgements_with_suggestion"], fa["accepted"], fa["corrected"], fa["ignored"]) == (3, 1, 1, 1)
    assert fa["accepted_right_within_k"] == 1.0 and fa["corrected_right_within_k"] == 1.0
    assert s["schemes"]["traversal"]["accepted"] == 1 and s["schemes"]["graph"]["accepted"] == 1
    acc = s["accuracy"]  # the suggestions themselves, on the five runs with gold
    assert (acc["runs_with_gold"], acc["runs_with_suggestion"]) == (5, 2)
    assert acc["step_exact"] == 0.5 and acc["step_within_k"] == 1.0 and acc["agent"] == 1.0  # 2 vs 3; 8 vs 8
    assert acc["gold_agent_on_path"] == 1.0


def test_accepting_on_the_attribution_and_graph_pages(tmp_path):
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")])
    store = AnnotationStore(tmp_path / "annotations")
    store_outcome = Saver(cfg)
    store_outcome(TRAIL, "alice", "outcome", {"failure": "true"})  # (attribution is asked on a failure)
    at = open_page(make_app(cfg, item=TRAIL), "failure_attribution")
    info = [i.value for i in at.info if "Suggested decisive step" in i.value]
    assert info and "step 2" in info[0] and "inspect\\_file\\_as\\_text" in info[0]
    assert store.load(TRAIL, "alice", "attribution") is None  # shown, not saved
    at.button(key=widget_key("fa", "attribution", TRAIL, "accept")).click().run()
    assert store.load(TRAIL, "alice", "attribution").value["decisive_step"] == 2
    assert store.load(TRAIL, "alice", "attribution").value["responsible_agent"] == "manager"
    assert agent_card(at)["stored"] == ["manager"]  # the agents' card shows the accepted agent
    assert not [i for i in at.info if "Suggested decisive step" in i.value]  # accepted: no longer offered
    at = open_page(make_app(cfg, item=TRAIL), "agent_interaction_graph")
    assert any("Suggested critical path" in i.value for i in at.info)
    at.button(key=widget_key("graph", "graph", TRAIL, "accept")).click().run()
    assert store.load(TRAIL, "alice", "graph").value["critical_nodes"] == ["manager"]
