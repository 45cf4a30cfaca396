"""AgentRx: role tags stripped in trajectories, gold joined to Who&When runs by question_ID,
reason_for_root_cause kept; Who&When gold pointing outside the run; a lookup file beside the
traces reported once as not a trace."""
import json

from app.traces.derive import derive
from app.traces.readers import load_items, read_file
from app.project.config import load_config
from tests.conftest import ROOT, write_project

QID = "16d825ff-1623-4176-a5b5-42e0f5c2b0ac"


def whowhen_run(mistake_step="2", n=4):
    roles = ["human", "Orchestrator (thought)", "Orchestrator (-> WebSurfer)", "WebSurfer"]
    return {"question": "How many albums?", "question_ID": QID, "ground_truth": "3", "is_corrected": False,
            "mistake_agent": "WebSurfer", "mistake_reason": "wrong page", "mistake_step": mistake_step,
            "history": [{"role": roles[i % 4], "content": f"m{i}"} for i in range(n)]}


def annotation(tid=QID):
    return {"trajectory_id": tid, "failure_summary": "WebSurfer read the wrong page.", "num_failures": 1,
            "failures": [{"failure_id": 1, "step_number": 4, "step_reason": "opened the wrong page",
                          "failure_category": "Invention of new information", "category_reason": "made it up",
                          "failed_agent": "WebSurfer"}],
            "root_cause": {"failure_id": 1, "reason_for_root_cause": "the wrong page misled every later step"}}


def test_trajectory_roles_lose_their_tags(tmp_path):
    traj = {"trajectory_id": QID, "instruction": "How many albums?", "steps": [
        {"index": 1, "substeps": [{"sub_index": 1, "role": "Orchestrator (thought)", "content": "plan"},
                                  {"sub_index": 2, "role": "Orchestrator (-> WebSurfer)", "content": "search"}]},
        {"index": 2, "substeps": [{"sub_index": 1, "role": "WebSurfer", "content": "typed"}]},
        {"index": 3, "substeps": [{"sub_index": 1, "role": "Orchestrator (termination condition)", "content": "3"}]}]}
    p = tmp_path / "magentic_dataset.jsonl"
    p.write_text(json.dumps(traj))
    items, problems = read_file(p)
    assert problems == []
    d = derive(items[0].data)
    assert d.agents == ["Orchestrator", "WebSurfer"] and [s.agent for s in d.steps] == [
        "Orchestrator", "WebSurfer", "Orchestrator"]


def test_gold_joins_the_who_and_when_run_by_question_id(tmp_path):
    runs = tmp_path / "whowhen"
    runs.mkdir()
    (runs / "33.json").write_text(json.dumps(whowhen_run(n=5)))
    (tmp_path / "magentic_one.jsonl").write_text(json.dumps(annotation()))
    cfg = write_project(tmp_path, data_files=[str(runs), str(tmp_path / "magentic_one.jsonl")])
    project, _ = load_config(cfg)
    items, problems = load_items(project)
    assert [p for p in problems if p.level != "note"] == []
    it = next(i for i in items if i.id == "whowhen-33")
    g = it.gold
    assert g["failures"][0]["agent"] == "WebSurfer" and g["failures"][0]["step"] == 3
    assert g["reason_for_root_cause"] == "the wrong page misled every later step"
    assert g["failures"][0]["category_reason"] == "made it up"
    assert g["mistake_step"] == 2  # the run's own gold wins


def test_root_cause_reason_from_root_cause_when_no_root_cause_reason(tmp_path):
    rec = dict(whowhen_run(n=5), **{k: v for k, v in annotation().items() if k != "trajectory_id"})
    del rec["mistake_agent"], rec["mistake_step"]
    p = tmp_path / "run.json"
    p.write_text(json.dumps(rec))
    g = read_file(p)[0][0].gold
    assert g["mistake_reason"] == "the wrong page misled every later step" and g["mistake_basis"] == "root cause"


def test_who_and_when_gold_outside_the_run_is_a_warning_naming_the_file(tmp_path):
    for name, step in (("999.json", "999"), ("text.json", "step 9")):
        p = tmp_path / name
        p.write_text(json.dumps(whowhen_run(mistake_step=step, n=44)))
        items, problems = read_file(p)
        assert len(items) == 1 and items[0].gold["mistake_step"] is None
        assert items[0].gold["mistake_step_raw"] == step
        assert [(pr.level, pr.file) for pr in problems] == [("warning", str(p))]
        assert repr(step) in problems[0].message
    assert "outside the run (44 steps: 0 to 43)" in read_file(tmp_path / "999.json")[1][0].message
    assert "not a step index" in read_file(tmp_path / "text.json")[1][0].message


def test_lookup_file_in_a_data_folder_is_reported_once_as_not_a_trace(tmp_path):
    p = tmp_path / "steps_by_id.json"
    p.write_text(json.dumps([{"step_id": f"s{i}", "role": "Orchestrator (thought)", "text": "x", "index": i}
                             for i in range(3000)]))
    items, problems = read_file(p)
    assert items == [] and len(problems) == 1
    assert problems[0].message.startswith("not a trace: none of its 3,000 records")


def test_demo_whowhen_runs_still_read_without_problems():
    for p in sorted((ROOT / "data" / "whowhen").glob("*.json")):
        items, problems = read_file(p)
        assert problems == [] and items[0].gold["mistake_step"] is not None


def test_lookup_object_keyed_by_id_is_not_a_trace(tmp_path):
    p = tmp_path / "steps_by_id.json"
    p.write_text(json.dumps({f"id{i}": {"steps": "x"} for i in range(50)}))
    items, problems = read_file(p)
    assert items == [] and len(problems) == 1 and problems[0].message.startswith("not a trace:")
