"""The summary's orchestration section (issue 29): outcomes and failure rates per confirmed
pattern, how often annotators kept the suggestion; the other sections unchanged."""
from __future__ import annotations

import json
import subprocess
import sys

from app.project.workspace import open_project
from app.store.storage import Annotation, AnnotationStore
from app.summary.summarize import summarize
from tests.conftest import ROOT, write_project

# suggested: trip-planner-001 hub_and_spoke, code-team-002 hierarchical_manager,
# whowhen-algorithm-generated-1 group_chat (tests/test_orchestration.py)
ANSWERS = [
    ("alice", "trip-planner-001", "hub_and_spoke", "failure"),
    ("alice", "code-team-002", "hierarchical_manager", "success"),
    ("alice", "whowhen-algorithm-generated-1", "group_chat", "failure"),
    ("bob", "trip-planner-001", "hierarchical_manager", "partial"),
    ("bob", "code-team-002", "hierarchical_manager", "failure"),
    ("bob", "whowhen-algorithm-generated-1", "sequential_pipeline", None),
]


def study(tmp_path):
    path = write_project(tmp_path)
    store = AnnotationStore(tmp_path / "annotations")
    for who, item, pattern, outcome in ANSWERS:
        store.save(Annotation(item, who, "orchestration", "radio", {pattern: "true"}))
        if outcome:
            store.save(Annotation(item, who, "outcome", "radio", {outcome: "true"}))
    # an answer with only a free response is no confirmed pattern
    store.save(Annotation("research-003", "carol", "orchestration", "radio", {"free_response": "unsure"}))
    return path


def test_outcomes_and_failure_rates_per_confirmed_pattern(tmp_path):
    ws = open_project(study(tmp_path))
    section = summarize(ws)["orchestration"]
    assert section["scheme"] == "orchestration" and section["outcome_scheme"] == "outcome"
    rows = {r["pattern"]: r for r in section["patterns"]}
    assert list(rows) == ["sequential_pipeline", "hierarchical_manager", "group_chat", "hub_and_spoke"]
    h = rows["hierarchical_manager"]
    assert (h["judgements"], h["items"], h["outcomes"], h["outcomes_answered"], h["failures"]) == \
        (3, 2, {"success": 1, "partial": 1, "failure": 1}, 3, 1)
    assert abs(h["failure_rate"] - 1 / 3) < 1e-12 and h["suggested_and_kept"] == 2
    assert rows["group_chat"]["failure_rate"] == 1.0
    assert rows["group_chat"]["items_with_gold_failure"] == 1  # a Who&When run: its gold locates the failure
    assert rows["sequential_pipeline"]["outcomes_answered"] == 0 and rows["sequential_pipeline"]["failure_rate"] is None


def test_how_often_annotators_kept_the_suggestion(tmp_path):
    ws = open_project(study(tmp_path))
    kept = summarize(ws)["orchestration"]["suggestion"]
    assert (kept["judgements"], kept["kept"], kept["changed"]) == (6, 4, 2)
    assert kept["by_annotator"] == [{"annotator": "alice", "judgements": 3, "kept": 3, "kept_rate": 1.0},
                                    {"annotator": "bob", "judgements": 3, "kept": 1, "kept_rate": 1 / 3}]
    by = {r["suggested"]: r for r in kept["by_suggested"]}
    assert by["hub_and_spoke"] == {"suggested": "hub_and_spoke", "judgements": 2, "kept": 1,
                                   "chosen_instead": {"hierarchical_manager": 1}}
    assert by["group_chat"]["chosen_instead"] == {"sequential_pipeline": 1}


def test_filters_apply_and_a_project_without_the_question_says_so(tmp_path):
    ws = open_project(study(tmp_path))
    only_bob = summarize(ws, annotators=["bob"])["orchestration"]
    assert only_bob["suggestion"]["judgements"] == 3
    (tmp_path / "other").mkdir()
    no_q = open_project(write_project(tmp_path / "other", [
        {"annotation_type": "radio", "name": "outcome", "labels": ["success", "failure"]}]))
    section = summarize(no_q)["orchestration"]
    assert section["scheme"] is None and section["patterns"] == [] and "no orchestration question" in section["note"]


def test_summary_json_has_the_section_beside_the_existing_keys(tmp_path):
    path = study(tmp_path)
    out = subprocess.run([sys.executable, "-m", "app", "summary", str(path), "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert {"project", "counts", "progress", "agreement", "gold", "disagreements", "orchestration"} <= set(got)
    assert got["orchestration"]["suggestion"]["kept"] == 4
    text = subprocess.run([sys.executable, "-m", "app", "summary", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert "\nOrchestration (orchestration; outcomes from outcome):\n" in text.stdout
    assert "  hierarchical_manager: 3 judgements, failure rate 33%\n" in text.stdout
    assert "  suggested pattern kept: 4 of 6 (67%)\n" in text.stdout


def test_the_summary_page_shows_the_section(tmp_path):
    from tests.conftest import make_app, open_page
    at = open_page(make_app(study(tmp_path), annotator="carol"), "summary")
    frames = [df.value for df in at.dataframe]
    per = next(f for f in frames if "failure_rate" in f.columns)
    assert list(per["pattern"]) == ["sequential_pipeline", "hierarchical_manager", "group_chat", "hub_and_spoke"]
    assert "outcome: failure" in per.columns
    kept = next(f for f in frames if "kept_rate" in f.columns and "annotator" in f.columns)
    assert dict(zip(kept["annotator"], kept["kept"])) == {"alice": 3, "bob": 1}
    assert any("4 of 6 answers kept the pattern suggested" in c.value for c in at.caption)
