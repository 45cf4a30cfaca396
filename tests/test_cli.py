"""`python -m app` as a user runs it: real processes, real files."""
import json
import subprocess
import sys

import yaml

from tests.conftest import ROOT, write_project


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_check_demo_reports_what_it_found(demo_project):
    r = run("check", str(demo_project))
    assert r.returncode == 0, r.stderr
    assert "items: 7" in r.stdout and "schemes: 14" in r.stdout
    assert "Orchestrator" in r.stdout and "(unknown)" in r.stdout
    assert "1 step(s) without" in r.stdout


def test_check_lists_every_problem_and_fails(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(yaml.safe_dump({"annotation_task_name": "x", "data_files": ["missing.jsonl"],
                                   "annotation_schemes": [{"annotation_type": "handoff_review", "name": "h",
                                                           "quality_scale": "five"},
                                                          {"annotation_type": "nope", "name": "n"}]}))
    r = run("check", str(cfg))
    assert r.returncode == 1
    assert "data_files[0]: data file not found" in r.stderr
    assert 'annotation_schemes[0].quality_scale: expected an integer from 2 to 10, got "five"' in r.stderr
    assert "annotation_schemes[1].annotation_type" in r.stderr


def test_check_fails_on_bad_data(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "steps": [], "calls": [{"agent": "A", "tool": "t", "start": 5, "end": 1}]}\n'
                    '{"steps": []}\n')
    cfg = write_project(tmp_path, data_files=[str(data)])
    r = run("check", str(cfg))
    assert r.returncode == 1
    assert "line 2" in r.stderr and 'no "id"' in r.stderr
    assert "calls[0]" in r.stderr


def test_derive_prints_one_json_object_per_item(demo_project):
    r = run("derive", str(demo_project))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(rows) == 7
    keys = {"id", "agents", "steps", "handoffs", "edges", "tool_calls", "calls", "contentions"}
    assert all(keys <= set(row) for row in rows)
    code = next(row for row in rows if row["id"] == "code-team-002")
    assert code["agents"] == ["Manager", "Coder", "Tester", "Reviewer"]
    assert code["handoffs"][0] == {"index": 0, "step": 1, "from": "Manager", "to": "Coder"}
    repo = [c for c in code["contentions"] if c["resource"] == "repo_lock"]
    assert repo and repo[0]["agents"] == ["Coder", "Tester"] and repo[0]["start"] == 50.0
    trip = next(row for row in rows if row["id"] == "trip-planner-001")
    assert trip["calls"][0]["start"] == 1740823200.0  # ISO 8601 as seconds since the epoch
    # the three booking_api calls overlap pairwise in a chain: one region, not two
    booking = [c for c in trip["contentions"] if c["resource"] == "booking_api"]
    assert len(booking) == 1 and booking[0]["calls"] == [0, 1, 2]
    assert {t["tool"] for t in trip["tool_calls"]} >= {"search_flights", "search_hotels", "search_restaurants"}


def test_derive_one_item_and_unknown_item(demo_project):
    r = run("derive", str(demo_project), "--item", "whowhen-hand-crafted-33")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1
    assert json.loads(r.stdout)["agents"] == ["human", "Orchestrator", "WebSurfer"]
    r = run("derive", str(demo_project), "--item", "nope")
    assert r.returncode == 2 and "no item with id 'nope'" in r.stderr
