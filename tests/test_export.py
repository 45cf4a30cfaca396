"""Export (Parquet, CSV, JSON Lines) and import (simple JSON Lines, Baton's export, Potato's output)."""
from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from app.store import export as ex
from app.store.importer import import_file
from app.store.storage import AnnotationStore
from app.project.workspace import open_project
from tests.conftest import ROOT, write_project
from tests.summary_data import CODE, TRIP, attribution, demo


def fill(save):
    save(CODE, "alice", "attribution", attribution("Coder", 4, "waited on the lock"), seconds=31.5)
    save(CODE, "alice", "handoffs", [{"index": 1, "step": 3, "from": "Coder", "to": "Tester",
                                      "flags": ["info_loss"], "quality": 2}])
    save(CODE, "alice", "contention", {"contentions": {"1": "deadlock"}})
    save(CODE, "alice", "tool_review", [{"index": 3, "step": 7, "tool": "open_pull_request", "verdict": "correct",
                                         "notes": ""}])
    save(CODE, "alice", "emergent", {"echoing": {"turns": [2, 3], "note": "ü"}})
    save(CODE, "alice", "graph", {"critical_nodes": ["Coder"], "edges": {"Coder->Tester": "problematic"}})
    save(CODE, "alice", "mast_steps", {"steps": [{"step_index": 8, "agent": "Reviewer", "correctness": "incorrect",
                                                  "errors": [{"type": "Task Verification & Termination",
                                                              "subtype": "3.3 Incorrect verification"}],
                                                  "severity": "minor", "rationale": ""}], "score": 99})
    save(CODE, "bob", "outcome", {"failure": "true"})
    save(CODE, "bob", "_item", {"done": True})
    save(TRIP, "bob", "tool_review", [], status="reviewed_clean")
    save(TRIP, "bob", "notes", None, status="cleared")


def rows(store: AnnotationStore) -> dict:
    return {a.key: (a.annotation_type, a.value, a.status, a.trace_hash, a.updated_at, a.seconds_spent)
            for a in store.all()}


def test_export_names_the_objects_behind_each_index(tmp_path):
    cfg, save = demo(tmp_path)
    fill(save)
    df = ex.export_frame(open_project(cfg))
    assert list(df.columns) == ex.COLUMNS
    assert len(df) == 10  # the cleared row is not an annotation
    by = {(r["annotator"], r["scheme"]): r for r in df.to_dict("records")}
    assert by[("alice", "attribution")]["objects"] == {
        "decisive_step": {"agent": "Coder", "text": "Waiting for the repository lock held by Tester."}}
    assert by[("alice", "handoffs")]["objects"]["handoffs"]["1"] == {"step": 3, "from": "Coder", "to": "Tester",
                                                                     "matches": True}
    region = by[("alice", "contention")]["objects"]["regions"]["1"]
    assert region["resource"] == "repo_lock" and region["agents"] == ["Coder", "Tester"]
    assert by[("alice", "tool_review")]["objects"]["tool_calls"]["3"]["tool"] == "open_pull_request"
    assert by[("alice", "emergent")]["objects"]["turns"]["2"]["agent"] == "Coder"
    assert by[("alice", "mast_steps")]["objects"]["steps"]["8"]["agent"] == "Reviewer"
    assert by[("alice", "graph")]["objects"]["edges"]["Coder->Tester"]["handoffs"] == 2
    assert by[("bob", "outcome")]["objects"] is None and not by[("bob", "outcome")]["stale"]
    assert by[("alice", "attribution")]["item_text"].startswith("Fix the failing date-parsing test")


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_round_trip_through_each_format(tmp_path, suffix):
    cfg, save = demo(tmp_path / "a")
    fill(save)
    path = tmp_path / f"annotations{suffix}"
    n = ex.write(ex.export_frame(open_project(cfg)), path)
    assert n == 10
    if suffix == ".parquet":
        assert len(pd.read_parquet(path)) == 10
    elif suffix == ".csv":
        back = pd.read_csv(path)
        assert json.loads(back.loc[back["scheme"] == "attribution", "value"].iloc[0])["decisive_step"] == 4
    else:
        first = json.loads(path.read_text().splitlines()[0])
        assert isinstance(first["value"], dict)
    (tmp_path / "b").mkdir()
    fresh = write_project(tmp_path / "b")
    ws_b = open_project(fresh)
    r = import_file(ws_b, path)
    assert (r.imported, r.kept_existing, r.problems) == (10, 0, [])
    source = AnnotationStore(open_project(cfg).project.output_dir)
    target = AnnotationStore(ws_b.project.output_dir)
    expected = {k: v for k, v in rows(source).items() if v[2] != "cleared"}
    assert rows(target) == expected
    again = import_file(ws_b, path)
    assert (again.imported, again.kept_existing) == (0, 10)
    assert import_file(ws_b, path, overwrite=True).imported == 10


def test_import_simple_jsonl_with_coercions_and_problems(tmp_path):
    cfg = write_project(tmp_path)
    ws = open_project(cfg)
    lines = [
        {"item_id": CODE, "annotator": "carol", "scheme": "outcome", "value": "partial"},
        {"item_id": CODE, "annotator": "carol", "scheme": "symptoms", "value": ["premature_stop", "loop"]},
        {"item_id": CODE, "annotator": "carol", "scheme": "confidence", "value": 4},
        {"item_id": CODE, "annotator": "carol", "scheme": "notes", "value": "see step 4"},
        {"item_id": CODE, "annotator": "carol", "scheme": "attribution", "value": attribution("Tester", 5)},
        {"item_id": "nope", "annotator": "carol", "scheme": "outcome", "value": "partial"},
        {"item_id": CODE, "annotator": "carol", "scheme": "nope", "value": {}},
        {"item_id": CODE, "annotator": "carol", "scheme": "handoffs", "value": {"not": "a list"}},
        {"item_id": CODE, "scheme": "outcome", "value": "success"},
    ]
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n{broken\n")
    r = import_file(ws, f)
    assert r.imported == 5 and r.skipped == 5
    text = "\n".join(r.problems)
    assert "line 6: item 'nope' is not in this project" in text
    assert "line 7: scheme 'nope' is not in this project" in text
    assert "line 8: value" in text and "is not a handoff_review value" in text
    assert "line 9: no annotator" in text and "line 10: not JSON" in text
    st = AnnotationStore(ws.project.output_dir)
    assert st.load(CODE, "carol", "outcome").value == {"partial": "true"}
    assert st.load(CODE, "carol", "symptoms").value == {"premature_stop": "true", "loop": "true"}
    assert st.load(CODE, "carol", "confidence").value == {"scale_4": "4"}
    assert st.load(CODE, "carol", "notes").value == {"text_box": "see step 4"}
    assert st.load(CODE, "carol", "attribution").trace_hash == ws.by_id[CODE].trace_hash
    r2 = import_file(ws, f, annotator="dave")  # names the annotator of the record without one
    assert st.load(CODE, "dave", "outcome").value == {"success": "true"} and r2.imported == 1


def test_import_potato_annotation_output(tmp_path):
    cfg = write_project(tmp_path)
    ws = open_project(cfg)
    out = tmp_path / "potato_output"
    (out / "ann1").mkdir(parents=True)
    (out / "ann2").mkdir(parents=True)
    hidden = json.dumps({"responsible_agent": "Coder", "decisive_step": 4, "reason": "lock"})
    ho = json.dumps([{"index": 1, "step": 3, "from": "Coder", "to": "Tester", "flags": ["garbling"], "quality": 3}])
    (out / "ann1" / "annotated_instances.jsonl").write_text("\n".join(json.dumps(x) for x in [
        {"id": CODE, "displayed_text": "…", "label_annotations": {
            "outcome": {"failure": "true"}, "attribution": {"attribution": hidden}, "handoffs": {"handoffs": ho},
            "confidence": {"scale_2": "2"}, "potato_only": {"x": "true"}},
         "span_annotations": [], "behavioral_data": {"time_spent": 42}},
        {"id": TRIP, "label_annotations": {"symptoms": {"loop": True, "premature_stop": False}}},
    ]) + "\n")
    (out / "ann2" / "user_state.json").write_text(json.dumps({
        "user_id": "ann2",
        "instance_id_to_label_to_value": {
            CODE: [[{"schema": "outcome", "name": "partial"}, "true"],
                   [{"schema": "contention", "name": "contention"}, json.dumps({"contentions": {"0": "benign"}})]],
        }}))
    r = import_file(ws, out)
    assert r.imported == 7, r.problems
    assert r.sources == {"potato": 3}
    assert any("'potato_only'" in p for p in r.problems)
    st = AnnotationStore(ws.project.output_dir)
    assert st.load(CODE, "ann1", "attribution").value == {"responsible_agent": "Coder", "decisive_step": 4,
                                                          "reason": "lock"}
    assert st.load(CODE, "ann1", "handoffs").value[0]["flags"] == ["garbling"]
    assert st.load(CODE, "ann1", "outcome").seconds_spent == 42.0
    assert st.load(TRIP, "ann1", "symptoms").value == {"loop": "true"}
    assert st.load(CODE, "ann2", "outcome").value == {"partial": "true"}
    assert st.load(CODE, "ann2", "contention").value == {"contentions": {"0": "benign"}}


def test_export_and_import_commands(tmp_path):
    cfg, save = demo(tmp_path / "a")
    fill(save)
    out = tmp_path / "all.parquet"
    r = subprocess.run([sys.executable, "-m", "app", "export", str(cfg), "--to", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "10 annotation(s) written" in r.stdout, r.stderr
    (tmp_path / "b").mkdir()
    fresh = write_project(tmp_path / "b")
    r = subprocess.run([sys.executable, "-m", "app", "import", str(fresh), str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "imported 10, kept 0 existing" in r.stdout, r.stderr
    bad = subprocess.run([sys.executable, "-m", "app", "export", str(cfg), "--to", str(tmp_path / "x.txt")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "cannot tell the format" in bad.stderr
