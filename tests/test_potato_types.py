"""The annotation types of Potato's agent-trace examples (issue 28): span, error_span,
process_reward, rubric_eval, multirate, slider, number, select, trajectory_edit.

Per type: config keys, `validate` against scheme and trace, import `coerce` of Potato's stored
format, summary rows and rollup, agreement (alpha checked against the krippendorff package)."""
from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from app.project.config import load_config
from app.store.importer import coerce
from app.summary.summarize import summarize
from app.traces.derive import derive
from app.types.registry import TYPES
from tests.conftest import ROOT, write_project
from tests.summary_data import CODE, TRIP, Saver

SPAN = {"annotation_type": "span", "name": "spans", "labels": ["hallucination", "incorrect_fact"]}
ERR = {"annotation_type": "error_span", "name": "errors",
       "error_types": [{"name": "Accuracy", "subtypes": ["Omission"]}, {"name": "Style"}]}
PRM = {"annotation_type": "process_reward", "name": "prm", "mode": "per_step", "allow_neutral": True}
PRM1 = {"annotation_type": "process_reward", "name": "prm1"}
RUBRIC = {"annotation_type": "rubric_eval", "name": "rubric", "scale_points": 5, "show_overall": True,
          "criteria": [{"name": "helpfulness", "description": "answers?"}, {"name": "accuracy"}]}
MULTI = {"annotation_type": "multirate", "name": "multi", "options": ["Quality", "Price"],
         "labels": ["Poor", "Fair", "Good"]}
SLIDER = {"annotation_type": "slider", "name": "conf", "min_value": 0, "max_value": 10, "starting_value": 5}
NUMBER = {"annotation_type": "number", "name": "n", "min": 0, "max": 100, "step": 1}
SELECT = {"annotation_type": "select", "name": "genre", "labels": ["news", "opinion"]}
EDIT = {"annotation_type": "trajectory_edit", "name": "fix", "step_text_key": "content", "edit_final_answer": True}
ALL = [SPAN, ERR, PRM, PRM1, RUBRIC, MULTI, SLIDER, NUMBER, SELECT, EDIT]


@pytest.fixture
def study(tmp_path):
    cfg = write_project(tmp_path, schemes=ALL, data_files=[str(ROOT / "data" / "demo_runs.jsonl")])
    save = Saver(cfg)
    return save.ws, save


def scheme(ws, name):
    return ws.project.scheme(name)


def derivation(ws, item, name):
    s = scheme(ws, name)
    return derive(ws.by_id[item].data, s["steps_key"], s["agent_key"])


def check(ws, name, value, item=TRIP):
    s = scheme(ws, name)
    return TYPES[s.type].validate(value, s, derivation(ws, item, name) if TYPES[s.type].trace else None)


def step_text(ws, item, i):
    return ws.by_id[item].data["steps"][i]["content"]


def test_config_accepts_every_type_and_reports_ignored_keys(tmp_path):
    cfg = write_project(tmp_path, schemes=ALL + [
        {**SPAN, "name": "s2", "bad_text_label": {"label_content": "No answer"}, "turn_level": True},
        {**PRM1, "name": "p3", "ai_prelabel": True, "inline_with_trace": True}])
    project, problems = load_config(cfg)
    assert project is not None, [str(p) for p in problems if p.level == "error"]
    ignored = {p.where for p in problems if p.level == "ignored"}
    assert {"annotation_schemes[10].bad_text_label", "annotation_schemes[10].turn_level",
            "annotation_schemes[11].ai_prelabel", "annotation_schemes[11].inline_with_trace"} <= ignored


@pytest.mark.parametrize("scheme_, where, part", [
    ({**SLIDER, "min": 5, "max": 5}, "max", "above the minimum"),
    ({**SELECT, "labels": None, "use_predefined_labels": "country"}, "labels", "no built-in"),
    ({**PRM1, "mode": "every"}, "mode", "expected one of first_error, per_step"),
    ({**RUBRIC, "scale_labels": ["a", "b"]}, "scale_labels", "expected 5 labels"),
    ({**SPAN, "turn_binding": {"turn_range": [0]}}, "turn_binding.turn_range", "[first, last]"),
])
def test_config_refuses_keys_that_do_not_agree(tmp_path, scheme_, where, part):
    raw = {k: x for k, x in scheme_.items() if x is not None}
    project, problems = load_config(write_project(tmp_path, schemes=[raw]))
    errs = [f"{p.where}: {p.message}" for p in problems if p.level == "error"]
    assert project is None and any(e.startswith(f"annotation_schemes[0].{where}") and part in e for e in errs), errs


# --- span and error_span ------------------------------------------------------------------------------

def test_span_validate_against_step_text(study):
    ws, _ = study
    text = step_text(ws, TRIP, 3)
    ok = [{"step": 3, "start": 0, "end": 5, "text": text[:5], "label": "hallucination"}]
    assert check(ws, "spans", ok) == []
    bad = [{"step": 3, "start": 0, "end": 5, "text": "zzzzz", "label": "hallucination"},
           {"step": 99, "start": 0, "end": 2, "text": "", "label": "hallucination"},
           {"step": 3, "start": 4, "end": 2, "text": "", "label": "nope"},
           {"step": 3, "start": 0, "end": len(text) + 5, "text": "", "label": "incorrect_fact"},
           {"start": 0, "end": 1, "text": "x", "label": "hallucination"}]
    why = check(ws, "spans", bad)
    assert any("says it highlights" in w for w in why)
    assert any("step 99 is not a step of this trace" in w for w in why)
    assert any("start 4, end 2" in w for w in why) and any('"nope" is not one of' in w for w in why)
    assert any("past the end" in w for w in why) and any("names no step" in w for w in why)
    assert check(ws, "spans", {"x": 1}) == ["expected a list of spans, got {'x': 1}"]


def test_span_turn_binding_limits_the_steps(tmp_path):
    cfg = write_project(tmp_path, schemes=[{**SPAN, "turn_binding": {"agents": ["Planner"], "tools": ["x"]}}],
                        data_files=[str(ROOT / "data" / "demo_runs.jsonl")])
    ws = Saver(cfg).ws
    d = derivation(ws, TRIP, "spans")
    other = next(s.index for s in d.steps if s.agent != "Planner")
    text = step_text(ws, TRIP, other)
    why = TYPES["span"].validate([{"step": other, "start": 0, "end": 1, "text": text[0], "label": "hallucination"}],
                                 scheme(ws, "spans"), d)
    assert why and "turn_binding" in why[0]
    _, problems = load_config(cfg)
    assert any(p.where == "annotation_schemes[0].turn_binding.tools" and p.level == "ignored" for p in problems)


def test_span_import_coerces_potato_shapes(study):
    ws, _ = study
    s = scheme(ws, "spans")
    potato = [{"start": 0, "end": 5, "span": "Alice", "annotation": "hallucination", "turn_id": "t3"}]
    assert coerce("span", potato, s) == [{"step": 3, "start": 0, "end": 5, "text": "Alice", "label": "hallucination"}]
    wrapped = {"spans": '[{"step": 1, "start": 0, "end": 2, "text": "ab", "label": "x"}]'}
    assert coerce("span", wrapped, s) == [{"step": 1, "start": 0, "end": 2, "text": "ab", "label": "x"}]
    assert coerce("span", {"unrelated": 1}, s) == {"unrelated": 1}  # (left for the import to refuse)


def test_error_span_score_validate_coerce(study):
    ws, _ = study
    s = scheme(ws, "errors")
    text = step_text(ws, TRIP, 2)
    e = {"step": 2, "start": 0, "end": 4, "text": text[:4], "type": "Accuracy", "subtype": "Omission",
         "severity": "Major"}
    value = TYPES["error_span"].coerce({"errors": [e]}, s)
    from app.types.error_span import build
    assert build([e], s) == {"errors": [e], "score": 95}
    assert check(ws, "errors", {**value, "score": 95}) == []
    assert check(ws, "errors", {"errors": [e], "score": 90}) == ["score 90 does not follow from the errors (95)"]
    assert any("subtype" in w for w in check(ws, "errors", {"errors": [{**e, "subtype": "Grammar"}]}))
    assert any("severity" in w for w in check(ws, "errors", {"errors": [{**e, "severity": "Huge"}]}))


def test_span_and_error_span_summary(study):
    ws, save = study
    t3 = step_text(ws, TRIP, 3)
    a = {"step": 3, "start": 0, "end": 4, "text": t3[:4], "label": "hallucination"}
    b = {"step": 3, "start": 5, "end": 9, "text": t3[5:9], "label": "incorrect_fact"}
    save(TRIP, "alice", "spans", [a, b])
    save(TRIP, "bob", "spans", [a])
    save(CODE, "alice", "spans", [], "reviewed_clean")
    save(CODE, "bob", "spans", [])
    e = {"step": 3, "start": 0, "end": 4, "text": t3[:4], "type": "Style", "subtype": None, "severity": "Minor"}
    save(TRIP, "alice", "errors", {"errors": [e], "score": 99})
    save(TRIP, "bob", "errors", {"errors": [], "score": 100})
    s = summarize(ws)
    sp = s["choices"]["spans"]
    assert [(x["label"], x["count"]) for x in sp["labels"]] == [("hallucination", 2), ("incorrect_fact", 1)]
    assert sp["spans"] == 3 and sp["steps_highlighted"] == 1
    ag = s["agreement"]["spans"]
    # (trip: {a, b} vs {a}: 1/2; code: two empty sets agree: 1)
    assert ag["spans_jaccard"]["jaccard"] == pytest.approx(0.75)
    assert ag["steps_marked"]["n_units"] == 14 + 10
    er = s["choices"]["errors"]
    assert er["errors"] == 1 and er["by_severity"] == [{"severity": "Minor", "count": 1}]
    assert er["score"]["mean"] == pytest.approx(99.5)
    assert s["agreement"]["errors"]["spans_jaccard"]["jaccard"] == 0.0


# --- process_reward ------------------------------------------------------------------------------------

def test_process_reward_validate_and_coerce(study):
    ws, _ = study
    assert check(ws, "prm", {"mode": "per_step", "steps": [{"index": 0, "reward": 1}, {"index": 1, "reward": 0}]}) == []
    why = check(ws, "prm1", {"mode": "first_error", "steps": [{"index": 0, "reward": 0}, {"index": 40, "reward": 1}]})
    assert any("reward 0 is not one of 1, -1" in w for w in why) and any("40 is not a step" in w for w in why)
    assert check(ws, "prm1", {"mode": "first_error", "steps": [{"index": 0, "reward": -1}, {"index": 1, "reward": 1}]}) \
        == ["first_error mode: a step after the first incorrect one is marked correct"]
    # Potato's documented export; without allow_neutral its 0 is an unmarked step
    potato = {"mode": "first_error", "steps": [{"index": 0, "reward": 1, "source": "human", "verified": True},
                                               {"index": 1, "reward": 0}, {"index": 2, "reward": -1}]}
    got = coerce("process_reward", potato, scheme(ws, "prm1"))
    assert [e["reward"] for e in got["steps"]] == [1, None, -1] and got["steps"][0]["source"] == "human"
    assert coerce("process_reward", potato, scheme(ws, "prm"))["steps"][1]["reward"] == 0
    assert check(ws, "prm1", got) == []
    from app.types.process_reward import first_error
    assert first_error(scheme(ws, "prm1"), [0, 1, 2, 3], 2)["steps"] == [
        {"index": 0, "reward": 1}, {"index": 1, "reward": 1}, {"index": 2, "reward": -1}, {"index": 3, "reward": -1}]


def test_process_reward_summary_and_interval_alpha(study):
    ws, save = study
    alice = [1, 1, -1, 0, 1, -1, 1]
    bob = [1, 0, -1, 0, -1, -1, 1]
    save(TRIP, "alice", "prm", {"mode": "per_step", "steps": [{"index": i, "reward": r} for i, r in enumerate(alice)]})
    save(TRIP, "bob", "prm", {"mode": "per_step", "steps": [{"index": i, "reward": r} for i, r in enumerate(bob)]})
    s = summarize(ws)
    roll = s["choices"]["prm"]
    assert {x["label"]: x["count"] for x in roll["labels"]} == {"correct": 6, "neutral": 3, "incorrect": 5}
    assert roll["first_error_step"]["mean"] == pytest.approx(2.0)
    want = krippendorff.alpha(reliability_data=np.array([alice, bob], dtype=float), level_of_measurement="interval")
    assert s["agreement"]["prm"]["reward"]["alpha"] == pytest.approx(want)
    assert s["agreement"]["prm"]["first_error"]["exact"] == 1.0


# --- rubric_eval and multirate --------------------------------------------------------------------------

def test_rubric_and_multirate_validate_coerce(study):
    ws, _ = study
    assert check(ws, "rubric", {"helpfulness": "4", "accuracy": "5", "overall": "4"}) == []
    why = check(ws, "rubric", {"helpfulness": "9", "tone": "1"})
    assert any('"tone" is not a row' in w for w in why) and any('"9" is not a point' in w for w in why)
    assert coerce("rubric_eval", {"helpfulness": 4, "accuracy": "Excellent"}, scheme(ws, "rubric")) == {
        "helpfulness": "4", "accuracy": "5"}
    assert check(ws, "multi", {"Quality": "Good", "Price": "Poor"}) == []
    assert coerce("multirate", {"Quality": 3}, scheme(ws, "multi")) == {"Quality": "Good"}
    assert check(ws, "multi", {"Quality": "Great"}) != []


def test_rubric_summary_ordinal_alpha(study):
    ws, save = study
    a = {"helpfulness": "4", "accuracy": "5", "overall": "4"}
    b = {"helpfulness": "2", "accuracy": "5", "overall": "3"}
    c = {"helpfulness": "4", "accuracy": "1"}
    d = {"helpfulness": "5", "accuracy": "2"}
    save(TRIP, "alice", "rubric", a)
    save(TRIP, "bob", "rubric", b)
    save(CODE, "alice", "rubric", c)
    save(CODE, "bob", "rubric", d)
    s = summarize(ws)
    rows = {r["row"]: r for r in s["choices"]["rubric"]["rows"]}
    assert rows["helpfulness"]["mean"] == pytest.approx(3.75) and rows["overall"]["n"] == 2
    units = [("helpfulness", TRIP), ("accuracy", TRIP), ("overall", TRIP), ("helpfulness", CODE), ("accuracy", CODE)]
    by = {TRIP: (a, b), CODE: (c, d)}
    data = np.array([[float(by[i][k][r]) for r, i in units] for k in (0, 1)])
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    assert s["agreement"]["rubric"]["rating"]["alpha"] == pytest.approx(want)
    assert s["agreement"]["rubric"]["by_row"]["accuracy"]["n_units"] == 2


# --- slider, number, select -----------------------------------------------------------------------------

def test_slider_number_select_validate_coerce(study):
    ws, _ = study
    assert check(ws, "conf", {"conf": "7"}) == [] and check(ws, "conf", {"conf": "11"}) != []
    assert coerce("slider", {"conf": "7.5"}, scheme(ws, "conf")) == {"conf": "7.5"}
    assert coerce("slider", 3, scheme(ws, "conf")) == {"conf": "3"}
    assert coerce("slider", {"slider": "4"}, scheme(ws, "conf")) == {"slider": "4"}  # (Potato's label name kept)
    assert check(ws, "n", {"n": "2.5"}) == ["2.5 is not on the scheme's steps of 1 from 0"]
    assert check(ws, "n", {"n": "x"}) != []
    assert coerce("select", "news", scheme(ws, "genre")) == {"news": "true"}
    assert coerce("select", {"genre": "opinion"}, scheme(ws, "genre")) == {"opinion": "true"}
    assert check(ws, "genre", {"news": "true"}) == [] and check(ws, "genre", {"sports": "true"}) != []


def test_slider_select_summary_alpha(study):
    ws, save = study
    items = [it.id for it in ws.items]
    alice, bob = [2, 5, 9], [3, 5, 8]
    for item, x, y in zip(items, alice, bob):
        save(item, "alice", "conf", {"conf": str(x)})
        save(item, "bob", "conf", {"conf": str(y)})
    for item, x, y in zip(items, ["news", "opinion", "news"], ["news", "news", "news"]):
        save(item, "alice", "genre", {x: "true"})
        save(item, "bob", "genre", {y: "true"})
    s = summarize(ws)
    assert s["choices"]["conf"]["stats"]["mean"] == pytest.approx(32 / 6)
    want = krippendorff.alpha(reliability_data=np.array([alice, bob], dtype=float), level_of_measurement="interval")
    assert s["agreement"]["conf"]["value"]["alpha"] == pytest.approx(want)
    nominal = krippendorff.alpha(reliability_data=np.array([[0, 1, 0], [0, 0, 0]], dtype=float),
                                 level_of_measurement="nominal")
    assert s["agreement"]["genre"]["choice"]["alpha"] == pytest.approx(nominal)


# --- trajectory_edit ------------------------------------------------------------------------------------

def test_trajectory_edit_validate_rows_agreement(study):
    ws, save = study
    t1 = step_text(ws, TRIP, 1)
    edit = {"step_index": 1, "field": "content", "original": t1, "corrected": t1 + " (fixed)", "reason": "typo"}
    from app.types.trajectory_edit import build
    value = build([edit], {"original": "", "corrected": "It is sunny."})
    assert check(ws, "fix", value) == []
    stale = {**edit, "original": "something else"}
    assert any("no longer the trace's" in w for w in check(ws, "fix", build([stale])))
    assert any("not an editable field" in w for w in check(ws, "fix", build([{**edit, "field": "thought"}])))
    assert build([{**edit, "corrected": t1}]) == {"edits": []}
    save(TRIP, "alice", "fix", value)
    save(TRIP, "bob", "fix", {"edits": []}, "reviewed_clean")
    s = summarize(ws)
    roll = s["choices"]["fix"]
    assert {x["label"]: x["count"] for x in roll["labels"]} == {"content": 1, "final_answer": 1}
    assert roll["chars_changed"]["max"] == len("It is sunny.")
    ag = s["agreement"]["fix"]["steps_edited"]
    assert ag["n_units"] == 14 and ag["percent_agreement"] == pytest.approx(13 / 14)


def test_every_new_type_exports_and_headlines(study):
    ws, save = study
    t3 = step_text(ws, TRIP, 3)
    save(TRIP, "alice", "spans", [{"step": 3, "start": 0, "end": 2, "text": t3[:2], "label": "hallucination"}])
    from app.store.export import export_frame
    save(TRIP, "alice", "prm1", {"mode": "first_error", "steps": [{"index": 0, "reward": 1}, {"index": 1, "reward": -1}]})
    save(TRIP, "alice", "fix", {"edits": [{"step_index": 40, "field": "content", "original": "a", "corrected": "b",
                                           "reason": ""}]})
    frame = export_frame(ws)
    row = {name: frame[frame["scheme"] == name].iloc[0]["objects"] for name in ("spans", "prm1", "fix")}
    assert row["spans"]["steps"]["3"]["agent"] == ws.by_id[TRIP].data["steps"][3]["agent"]
    assert list(row["prm1"]["steps"]) == ["0", "1"] and row["fix"] == {"steps": {"40": None}}
    for name in ("span", "error_span", "process_reward", "rubric_eval", "multirate", "slider", "number",
                 "select", "trajectory_edit"):
        assert TYPES[name].headline({}) is None  # (each names its main measure; none without measures)


def test_import_potato_spans_and_refuse_misfits(study, tmp_path):
    import json

    from app.store.importer import import_file
    from app.store.storage import AnnotationStore
    ws, _ = study
    t3 = step_text(ws, TRIP, 3)
    out = tmp_path / "potato_output" / "ann1"
    out.mkdir(parents=True)
    (out / "user_state.json").write_text(json.dumps({
        "user_id": "ann1",
        "instance_id_to_label_to_value": {TRIP: {"conf": {"conf": "7"}, "genre": {"sports": "true"}}},
        "instance_id_to_span_to_value": {TRIP: {"spans": [
            {"start": 0, "end": 4, "span": t3[:4], "annotation": "hallucination", "turn_id": "t3"}]}}}))
    (out / "annotated_instances.jsonl").write_text(json.dumps({
        "id": CODE, "user": "ann2", "label_annotations": {},
        "span_annotations": [{"schema": "spans", "start": 0, "end": 3, "text": "zzz", "label": "hallucination",
                              "step": 0}]}) + "\n")
    r = import_file(ws, tmp_path / "potato_output")
    st = AnnotationStore(ws.project.output_dir)
    assert st.load(TRIP, "ann1", "spans").value == [
        {"step": 3, "start": 0, "end": 4, "text": t3[:4], "label": "hallucination"}]
    assert st.load(TRIP, "ann1", "conf").value == {"conf": "7"}
    assert st.load(TRIP, "ann1", "genre") is None and st.load(CODE, "ann2", "spans") is None
    assert any('genre: label "sports" is not one of' in p for p in r.problems), r.problems
    assert any("spans: span 0: says it highlights" in p for p in r.problems), r.problems
    assert r.imported == 2


def test_report_and_summary_page_draw_the_new_types(study):
    ws, save = study
    save(TRIP, "alice", "rubric", {"helpfulness": "4"})
    save(TRIP, "alice", "conf", {"conf": "3"})
    save(TRIP, "alice", "prm", {"mode": "per_step", "steps": [{"index": 0, "reward": 1}]})
    from app.summary.report import build_html
    html = build_html(ws)
    for name in ("rubric", "conf", "prm", "spans", "fix"):
        assert name in html
    assert "first error step" in html and "chars changed" in html  # (the rollups' numbers beside the counts)


def test_multirate_number_error_span_and_span_alphas_equal_the_package(study):
    ws, save = study
    items = [it.id for it in ws.items]  # the demo's three runs
    labels = ["Poor", "Fair", "Good"]
    a_q, b_q, a_p, b_p = [1, 3, 2], [1, 2, 2], [3, 3, 1], [2, 3, 1]
    a_n, b_n = [10, 40, 90], [12, 40, 70]
    for i, item in enumerate(items):
        save(item, "alice", "multi", {"Quality": labels[a_q[i] - 1], "Price": labels[a_p[i] - 1]})
        save(item, "bob", "multi", {"Quality": labels[b_q[i] - 1], "Price": labels[b_p[i] - 1]})
        save(item, "alice", "n", {"n": str(a_n[i])})
        save(item, "bob", "n", {"n": str(b_n[i])})
    t3 = step_text(ws, TRIP, 3)
    e = {"step": 3, "start": 0, "end": 4, "text": t3[:4], "type": "Style", "subtype": None}
    scores = {"alice": [[e, "Minor"], [e, "Critical"]], "bob": [[e, "Major"], None]}
    for who, per_item in scores.items():
        for item, got in zip(items[:2], per_item):
            t = step_text(ws, item, 3)
            err = [{**e, "text": t[:4], "severity": got[1]}] if got else []
            from app.types.error_span import build
            save(item, who, "errors", build(err, scheme(ws, "errors")))
    a_span = {"step": 3, "start": 0, "end": 4, "text": t3[:4], "label": "hallucination"}
    save(TRIP, "alice", "spans", [a_span])
    save(TRIP, "bob", "spans", [])
    s = summarize(ws)

    def alpha(rows, level):
        return krippendorff.alpha(reliability_data=np.array(rows, dtype=float), level_of_measurement=level)

    # (units item × option, in item then option order)
    multi = [[x for pair in zip(a_q, a_p) for x in pair], [x for pair in zip(b_q, b_p) for x in pair]]
    assert s["agreement"]["multi"]["rating"]["alpha"] == pytest.approx(alpha(multi, "ordinal"))
    assert s["agreement"]["n"]["value"]["alpha"] == pytest.approx(alpha([a_n, b_n], "interval"))
    assert s["agreement"]["errors"]["score"]["alpha"] == pytest.approx(alpha([[99, 90], [95, 100]], "interval"))
    # steps of the trip run: alice marked step 3, bob nothing (every other step unmarked by both)
    marks = [[1 if i == 3 else 0 for i in range(14)], [0] * 14]
    assert s["agreement"]["spans"]["steps_marked"]["alpha"] == pytest.approx(alpha(marks, "nominal"))


def test_potato_turn_and_session_keys_accepted_honoured_or_reported(tmp_path):
    cfg = write_project(tmp_path, schemes=[
        {"annotation_type": "radio", "name": "r", "labels": ["a", "b"], "turn_level": True, "per_step": {"x": 1},
         "session_level": True, "turn_binding": {"speakers": ["Assistant"]}},
        {**SPAN, "turn_binding": {"agents": ["Planner"], "turn_range": [0, 5]}}], trace_ingestion={"enabled": True})
    project, problems = load_config(cfg)
    assert project is not None
    ignored = {p.where: p.message for p in problems if p.level == "ignored"}
    for key in ("turn_level", "per_step", "session_level", "turn_binding"):
        assert f"annotation_schemes[0].{key}" in ignored
    assert "Baton asks it once per item" in ignored["annotation_schemes[0].turn_level"]
    assert not [w for w in ignored if w.startswith("annotation_schemes[1]")]  # (span honours turn_binding)
    assert "trace_ingestion" in ignored
    _, bad = load_config(write_project(tmp_path, schemes=[{**SPAN, "turn_level": "yes"}]))
    assert any(p.where == "annotation_schemes[0].turn_level" and p.level == "error" for p in bad)


JUNK = [None, 0, -1, 3.5, True, "x", "", [], {}, [1, "a", None], {"a": None}, {"steps": "x"}, {"errors": [1]},
        {"edits": [{"step_index": "z"}]}, [{"step": "t", "start": "a", "end": None, "label": 5}],
        {"steps": [{"index": True, "reward": "high"}, {"index": 2, "reward": 7}]}, {"conf": "nan"},
        {"helpfulness": [1]}, {"edits": [{"step_index": 0, "field": None, "corrected": None}], "final_answer": 3},
        [{"step": 10 ** 30, "start": 0, "end": 10 ** 30, "text": "x", "label": "hallucination"}]]
NEW = ["spans", "errors", "prm", "prm1", "rubric", "multi", "conf", "n", "genre", "fix"]


@pytest.mark.parametrize("name", NEW)
def test_junk_values_never_raise(study, name):
    """A hand-edited or imported value of any shape: coerce, validate and rows answer, never raise;
    validate refuses what is not of the type's shape."""
    ws, save = study
    s = scheme(ws, name)
    kind = TYPES[s.type]
    d = derivation(ws, TRIP, name) if kind.trace else None
    for junk in JUNK:
        value = kind.coerce(junk, s)
        why = kind.validate(value, s, d)
        assert isinstance(why, list)
        kind.rows(value, s)
        kind.objects(value, d)
        if not kind.looks_like(value):
            continue
        save(TRIP, "carol", name, value)
        save(TRIP, "dave", name, value)
        summarize(ws)  # (the summary reads whatever the store holds)
