"""app.stepreview: the trajectory_eval (MAST per step) value, on literal data and real traces."""
from __future__ import annotations

import difflib
import json

import yaml
from hypothesis import given, strategies as st

from app.types import trajectory_eval as sr
from app.project.config import load_config
from app.traces.derive import derive
from app.traces.trace import step_text
from tests.conftest import ROOT, shared_dataset

OPTS = ["correct", "incorrect", "partially_correct"]
SEV = [{"name": "minor", "weight": -1}, {"name": "major", "weight": -5}, {"name": "critical", "weight": -10}]
ET = [{"name": "Spec", "subtypes": ["1.1 a", "1.2 b"]}, {"name": "Inter", "subtypes": ["2.1 c"]},
      {"name": "Plain", "subtypes": []}]
KW = dict(show_score=True, severities=SEV, max_score=100, options=OPTS)


def test_modes_are_grouped_by_category():
    assert [m.label for m in sr.modes(ET)] == ["Spec › 1.1 a", "Spec › 1.2 b", "Inter › 2.1 c", "Plain"]
    assert sr.modes(ET)[3].as_dict() == {"type": "Plain", "subtype": None}


def test_is_correct_first_option_or_named_correct():
    assert sr.is_correct("correct", OPTS)
    assert sr.is_correct("ok", ["ok", "bad"])
    assert sr.is_correct("Correct", ["bad", "Correct"])
    assert not sr.is_correct("incorrect", OPTS)
    assert not sr.is_correct(None, OPTS)


def test_entry_several_modes_and_correct_clears_modes_and_severity():
    m = sr.modes(ET)
    e = sr.entry(3, "Planner", "incorrect", [m[0], m[2], m[0]], "major", "why", OPTS)
    assert e == {"step_index": 3, "agent": "Planner", "correctness": "incorrect",
                 "errors": [{"type": "Spec", "subtype": "1.1 a"}, {"type": "Inter", "subtype": "2.1 c"}],
                 "severity": "major", "rationale": "why"}
    assert sr.entry(3, "Planner", "correct", [m[0]], "major", "why", OPTS) == {
        "step_index": 3, "agent": "Planner", "correctness": "correct", "errors": [], "severity": None,
        "rationale": "why"}


def test_put_build_score_and_correct_again():
    m = sr.modes(ET)
    v = sr.put(None, sr.entry(5, "B", "incorrect", [m[1]], "critical", "", OPTS), **KW)
    v = sr.put(v, sr.entry(2, "A", "partially_correct", [m[3]], "minor", "", OPTS), **KW)
    assert [s["step_index"] for s in v["steps"]] == [2, 5] and v["score"] == 89
    # step 5 marked correct again: its severity no longer counts
    v = sr.put(v, sr.entry(5, "B", "correct", [m[1]], "critical", "", OPTS), **KW)
    assert v["steps"][1] == {"step_index": 5, "agent": "B", "correctness": "correct", "errors": [],
                             "severity": None, "rationale": ""}
    assert v["score"] == 99
    # untouched again: dropped; nothing left is empty
    v = sr.put(v, sr.entry(2, "A"), **KW)
    v = sr.drop(v, 5, **KW)
    assert v == {"steps": [], "score": 100} and sr.is_empty(v)


def test_no_score_without_show_score():
    v = sr.build([sr.entry(0, "A", "incorrect", [], "major")], options=OPTS)
    assert v == {"steps": [{"step_index": 0, "agent": "A", "correctness": "incorrect", "errors": [],
                            "severity": "major", "rationale": ""}]}


def test_score_is_clamped_and_whole_numbers_are_ints():
    steps = [{"severity": "critical"}] * 12
    assert sr.score(steps, SEV, 100) == 0
    assert sr.score([{"severity": "bonus"}], [{"name": "bonus", "weight": 7}], 100) == 100
    assert sr.score([{"severity": "x"}], [{"name": "x", "weight": -0.5}], 10) == 9.5
    assert sr.score([{"severity": "x"}] * 2, [{"name": "x", "weight": -0.5}], 10.0) == 9
    assert isinstance(sr.score([], SEV, 100.0), int)
    assert sr.score([{"severity": "unknown"}, {"severity": None}], SEV, 100) == 100


def test_parse_reads_potato_single_mode_shape_and_skips_junk():
    v = {"steps": [{"step_index": 1, "correctness": "incorrect", "error_type": "execution",
                    "error_subtype": "wrong_tool", "severity": "major", "rationale": "x"},
                   {"step_index": "2"}, "junk", {"step_index": 0, "correctness": "correct"}], "score": 95}
    assert sr.parse(v, OPTS) == [
        {"step_index": 0, "agent": "", "correctness": "correct", "errors": [], "severity": None, "rationale": ""},
        {"step_index": 1, "agent": "", "correctness": "incorrect",
         "errors": [{"type": "execution", "subtype": "wrong_tool"}], "severity": "major", "rationale": "x"}]
    assert sr.parse(None) == [] and sr.parse({"steps": "x"}) == []


def test_reconcile_keeps_labels_on_their_step_only():
    v = {"steps": [sr.entry(0, "A", "correct"), sr.entry(1, "B", "incorrect"), sr.entry(7, "A", "incorrect")]}
    matched, orphans = sr.reconcile(v, {0: "A", 1: "C", 2: "A"}, OPTS)
    assert list(matched) == [0] and [o["step_index"] for o in orphans] == [1, 7]


def test_summary():
    m = sr.modes(ET)
    v = {"steps": [sr.entry(0, "A", "correct"), sr.entry(1, "B", "incorrect", [m[0], m[1]]),
                   sr.entry(2, "B", None, [m[2]])]}
    assert sr.summary(v, 10, OPTS) == "2 of 10 steps judged · 2 with failure modes (3 modes tagged)"


def test_mast_configs_have_the_14_modes_in_3_categories_as_the_demo():
    demo = yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text())
    demo_block = next(s for s in demo["annotation_schemes"] if s["name"] == "mast_steps")
    for name in ("mast_steps.yaml", "potato_multi_agent.yaml"):
        project, problems = load_config(ROOT / "configs" / name)
        assert project is not None, problems
        raw = yaml.safe_load((ROOT / "configs" / name).read_text())
        block = next(s for s in raw["annotation_schemes"] if s["name"] == "mast_steps")
        assert block["error_types"] == demo_block["error_types"]
        modes = sr.modes(project.scheme("mast_steps")["error_types"])
        assert len(modes) == 14 and len({m.type for m in modes}) == 3
    assert yaml.safe_load((ROOT / "configs" / "mast_steps.yaml").read_text())["annotation_schemes"] == [demo_block]


def test_mast_modes_match_what_humans_labelled_in_the_mad_sample():
    """The configured subtypes are the 14 MAST modes (by code, names up to spelling)."""
    project, _ = load_config(ROOT / "configs" / "mast_steps.yaml")
    ours = {m.subtype.split(" ", 1)[0]: m.subtype.split(" ", 1)[1] for m in
            sr.modes(project.scheme("mast_steps")["error_types"])}
    record = json.loads(shared_dataset("mast", "mad_human_sample.json").read_text())[3]
    theirs = dict(a["failure mode"].split("\n")[0].strip().split(" ", 1) for a in record["annotations"])
    assert set(ours) == set(theirs)
    for code, name in ours.items():
        assert difflib.SequenceMatcher(None, name.lower(), theirs[code].lower()).ratio() > 0.85, code


def test_label_steps_of_a_real_ag2_trajectory():
    record = json.loads(shared_dataset("mast", "mad_human_sample.json").read_text())[0]
    data = json.loads(record["trace"])
    d = derive(data, steps_key="trajectory", agent_key="name")
    assert len(d.steps) == 10 and d.agents == ["mathproxyagent", "assistant"]
    assert all(step_text(s.raw, "content") for s in d.steps)  # content: a list of lines
    modes = sr.modes(load_config(ROOT / "configs" / "mast_steps.yaml")[0].scheme("mast_steps")["error_types"])
    v = None
    for s in d.steps:
        if s.agent == "assistant":
            v = sr.put(v, sr.entry(s.index, s.agent, "incorrect", [modes[12]], "major", "", OPTS), **KW)
    assert [e["step_index"] for e in v["steps"]] == [1, 3, 5, 7, 9]
    assert v["score"] == 75
    assert sr.reconcile(v, {s.index: s.agent for s in d.steps}, OPTS)[1] == []


def test_whowhen_steps_keep_their_trace_indices():
    from app.traces.readers import whowhen
    path = shared_dataset("whowhen", stand_in=ROOT / "data" / "whowhen")
    f = next(iter(sorted(path.rglob("*.json"))))
    item = whowhen.to_item(json.loads(f.read_text()), str(f), "id", "text", file=f)
    d = derive(item.data)
    assert [s.index for s in d.steps] == list(range(len(d.steps)))
    last = d.steps[-1]
    v = sr.put(None, sr.entry(last.index, last.agent, "incorrect"), **KW)
    assert v["steps"][0]["step_index"] == len(d.steps) - 1


@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from(["A", "B"]),
                          st.sampled_from([None] + OPTS),
                          st.lists(st.integers(0, 3), max_size=3),
                          st.sampled_from([None, "minor", "major", "critical"]),
                          st.sampled_from(["", " ", "why"])), max_size=12))
def test_put_is_order_independent_and_round_trips(ops):
    m = sr.modes(ET)
    entries = {}
    v = sr.build([], **KW)
    for i, a, c, errs, sev, why in ops:
        e = sr.entry(i, a, c, [m[j] for j in errs], sev, why, OPTS)
        v = sr.put(v, e, **KW)
        entries[i] = e
    expected = sr.build(list(entries.values()), **KW)
    assert v == expected
    assert sr.build(sr.parse(json.loads(json.dumps(v)), OPTS), **KW) == v
    assert v["score"] == max(0, 100 + sum({"minor": -1, "major": -5, "critical": -10}.get(e["severity"], 0)
                                           for e in v["steps"]))
    assert all(not e["errors"] and e["severity"] is None for e in v["steps"] if e["correctness"] == "correct")
