"""traversal_review (app/types/traversal_review.py) and its summary (app/summary/traversal.py):
the order of the pass, the stored value, validate/coerce, rollup and agreement, accuracy against
the gold of real Who&When and TRAIL runs (data/)."""
from __future__ import annotations

import pytest

from app.project.workspace import open_project
from app.summary import summarize as core
from app.traces.derive import derive
from app.types import traversal_review as tr
from app.types.base import Scheme
from tests.conftest import ROOT, write_project
from tests.summary_data import Saver

MAST = [{"name": "Inter-Agent Misalignment", "subtypes": ["2.3 Task derailment"]}, {"name": "Other", "subtypes": []}]
SCHEME = Scheme(0, "traversal_review", "traversal", "", {"error_types": MAST})
STEPS = {"steps": [{"agent": "A", "content": "plan"}, {"agent": "B", "content": "do"}, {"agent": "A", "content": "x"},
                   {"agent": "B", "content": "y"}]}


def test_order_is_trace_order_for_flat_traces_and_depth_first_for_span_trees():
    assert tr.order(STEPS, 4) == [0, 1, 2, 3]
    # two parallel workers: step 1 (w2's first call) started before step 2 (w1's second), but the
    # span tree lists w1's subtree first
    data = {"steps": [{"id": "a"}, {"id": "c"}, {"id": "b"}, {"id": "z"}],
            "trace": {"spans": [{"id": "root"}, {"id": "w1"}, {"id": "a"}, {"id": "b"}, {"id": "w2"}, {"id": "c"}]}}
    assert tr.order(data, 4) == [0, 2, 3, 1]  # step z (no span) right after step 2 (b), the one before it
    trail = open_project(write_project_trail()).items[0]
    walk = tr.order(trail.data, len(trail.data["steps"]))
    assert sorted(walk) == list(range(10))


def write_project_trail(tmp=None):
    import tempfile
    from pathlib import Path
    return write_project(Path(tempfile.mkdtemp()), data_files=[str(ROOT / "data" / "trail")])


def test_passes_flags_verdicts_and_root_causes():
    walk = [0, 1, 2, 3]
    v = tr.flag({}, 0, tr.FINE, note="ok")
    assert tr.forward_at(v, walk) == 1 and tr.phase(v, walk) == tr.FORWARD
    v = tr.flag(v, 1, tr.ERROR, [{"type": "Other", "subtype": None}], "odd")
    v = tr.flag(v, 2, tr.ERROR)
    v = tr.flag(v, 3, tr.FINE, [{"type": "Other"}])  # a fine step keeps no modes
    assert v["forward"]["3"] == {"flag": "fine"}  # (empty modes and note are left out)
    assert tr.parse(v)["forward"][3] == {"flag": "fine", "modes": [], "note": ""}
    assert v["forward"]["0"] == {"flag": "fine", "note": "ok"}
    assert tr.phase(v, walk) == tr.BACKWARD and tr.flagged(v, walk) == [2, 1]
    assert tr.causes(v, walk, 2) == [1] and tr.causes(v, walk, 1) == []
    v = tr.judge(v, 2, tr.CONSEQUENCE, 1)
    assert tr.backward_at(v, walk) == 1
    v = tr.judge(v, 1, tr.ROOT_CAUSE)
    assert tr.phase(v, walk) == tr.DONE and v["root_causes"] == [1]
    v = tr.add_root_cause(v, 0)
    assert v["root_causes"] == [0, 1] and tr.validate(v, SCHEME, derive(STEPS)) == []
    v2 = tr.judge(v, 1, tr.REDUNDANT)  # no longer a root cause
    assert v2["root_causes"] == [0] and v2["backward"]["1"] == {"verdict": "redundant", "caused_by": None}
    v3 = tr.flag(v, 1, tr.FINE)  # unflagged: its verdict and root cause go
    assert "1" not in v3["backward"] and v3["root_causes"] == [0]
    assert tr.remove_root_cause(v, 1)["backward"].keys() == {"2"}
    assert tr.is_empty({}) and tr.is_empty(tr.empty()) and not tr.is_empty(v)


@pytest.mark.parametrize("value, reason", [
    ([], "expected {forward"),
    ({"forward": {"9": {"flag": "fine"}}}, "step 9 is not in this trace"),
    ({"forward": {"x": {"flag": "fine"}}}, "'x' is not a step number"),
    ({"forward": {"0": {"flag": "bad"}}}, "expected {flag: error | fine"),
    ({"forward": {"0": {"flag": "error", "modes": [{"type": "Nope"}]}}}, "is not a failure mode of this scheme"),
    ({"forward": {"0": {"flag": "fine", "modes": [{"type": "Other"}]}}}, "a step flagged fine has no failure modes"),
    ({"forward": {"0": {"flag": "fine"}}, "backward": {"0": {"verdict": "redundant"}}}, "was not flagged"),
    ({"forward": {"1": {"flag": "error"}}, "backward": {"1": {"verdict": "consequence"}}}, "names the earlier step"),
    ({"forward": {"1": {"flag": "error"}}, "backward": {"1": {"verdict": "root_cause"}}}, "not in root_causes"),
    ({"root_causes": [1, 1]}, "listed twice"),
    ({"root_causes": [7]}, "step 7 is not in this trace"),
    ({"forward": {}, "extra": 1}, "unknown key 'extra'"),
])
def test_validate_names_what_does_not_fit(value, reason):
    found = tr.validate(value, SCHEME, derive(STEPS))
    assert any(reason in p for p in found), found


def test_coerce_unwraps_potato_and_writes_step_keys_as_text():
    import json
    inner = {"forward": {0: {"flag": "error", "modes": [], "note": ""}}, "root_causes": [0]}
    assert tr.coerce({"traversal": json.dumps({"forward": {"0": inner["forward"][0]}})}, SCHEME)["forward"] == {
        "0": inner["forward"][0]}
    got = tr.coerce(inner, SCHEME)
    assert list(got["forward"]) == ["0"] and tr.validate(got, SCHEME, derive(STEPS)) == []
    assert tr.objects(got, derive(STEPS)) == {"steps": {"0": {"agent": "A", "text": "plan"}}}


def full_pass(n: int, flags: dict[int, str], verdicts: dict[int, tuple], added=()) -> dict:
    v: dict = {}
    for i in range(n):
        v = tr.flag(v, i, tr.ERROR if i in flags else tr.FINE, note=flags.get(i, ""))
    for i, (what, cause) in verdicts.items():
        v = tr.judge(v, i, what, cause)
    for i in added:
        v = tr.add_root_cause(v, i)
    return v


def test_summary_rollup_gold_and_agreement_on_real_runs(tmp_path):
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "whowhen"), str(ROOT / "data" / "trail")])
    save = Saver(cfg)
    trail = "512475a321c616e45337da3575f6a185"  # gold: step 3 (failures at 3, 7, 8)
    hc5 = "whowhen-hand-crafted-5"  # gold: step 12 (20 steps)
    # alice: flags 2, 3, 8 on TRAIL; 2 redundant, 3 root cause, 8 consequence of 3
    save(trail, "alice", "traversal", full_pass(10, {2: "tool error", 3: "misreads", 8: ""},
                                                {8: (tr.CONSEQUENCE, 3), 3: (tr.ROOT_CAUSE, None), 2: (tr.REDUNDANT, None)}))
    # bob: flags 2 and 6 on TRAIL, both root causes (earliest 2: off by one from gold)
    save(trail, "bob", "traversal", full_pass(10, {2: "", 6: ""}, {6: (tr.ROOT_CAUSE, None), 2: (tr.ROOT_CAUSE, None)}))
    # alice on hand-crafted-5: flags 4 and 12, 4 redundant, 12 root cause; plus a half-done pass elsewhere
    save(hc5, "alice", "traversal", full_pass(20, {4: "", 12: ""}, {12: (tr.ROOT_CAUSE, None), 4: (tr.REDUNDANT, None)}))
    save("whowhen-hand-crafted-33", "alice", "traversal", tr.flag({}, 0, tr.FINE))
    s = core.summarize(open_project(cfg))
    roll = s["traversal"]["traversal"]
    a = roll["by_annotator"]["alice"]
    assert (a["runs"], a["forward_complete"], a["flags_forward"], a["pruned_redundant"]) == (3, 2, 5, 2)
    assert a["share_pruned"] == 2 / 5 and a["root_causes"] == 2 and a["root_causes_per_run"] == 2 / 3
    assert roll["overall"]["flags_forward"] == 7 and roll["overall"]["root_causes"] == 4
    g = s["traversal_gold"]["traversal"]
    ga = g["by_annotator"]["alice"]
    # alice: root causes 3 (TRAIL) and 12 (hc5) both gold; her flags 2,3,8,4,12: 3, 8, 12 are gold failure steps
    assert ga["root_cause"]["step_accuracy"] == 2 / 3  # the half-done run names no root cause: wrong
    assert ga["root_cause"]["precision"] == 1.0 and ga["forward_flags"]["precision"] == 3 / 5
    assert ga["precision_gain"] == pytest.approx(1.0 - 3 / 5)
    gb = g["by_annotator"]["bob"]
    assert gb["root_cause"]["step_accuracy"] == 0.0 and gb["root_cause"]["step_accuracy_within_k"] == 1.0
    assert gb["root_cause"]["precision_within_k"] == 1.0  # 2 is next to 3, 6 next to 7
    ag = s["agreement"]["traversal"]["root_cause_step"]
    assert ag["n_units"] == 1 and ag["exact"] == 0.0 and ag["within_k"] == 1.0  # 3 vs 2
    assert s["agreement"]["traversal"]["root_cause_sets"]["jaccard"] == 0.0


def test_import_and_export_a_traversal_value(tmp_path):
    import json
    from app.store import export as ex
    from app.store.importer import import_file
    from app.store.storage import AnnotationStore
    cfg = write_project(tmp_path)
    ws = open_project(cfg)
    item = "whowhen-algorithm-generated-45"
    value = {"forward": {"0": {"flag": "fine"}, "1": {"flag": "error", "note": "1000 articles?"}},
             "backward": {}, "root_causes": []}
    wrapped = {"traversal": json.dumps(value)}  # Potato's hidden input holding the JSON
    f = tmp_path / "in.jsonl"
    f.write_text(json.dumps({"item_id": item, "annotator": "carol", "scheme": "traversal", "value": wrapped}) + "\n"
                 + json.dumps({"item_id": item, "annotator": "dave", "scheme": "traversal",
                               "value": {"forward": {0: {"flag": "fine"}}, "root_causes": [0]}}) + "\n")
    r = import_file(ws, f)
    assert r.imported == 2, r.problems
    db = AnnotationStore(ws.project.output_dir)
    got = db.load(item, "carol", "traversal").value
    assert got == value and tr.validate(got, ws.project.scheme("traversal"), derive(ws.by_id[item].data)) == []
    assert db.load(item, "dave", "traversal").value["forward"] == {"0": {"flag": "fine"}}
    df = ex.export_frame(open_project(cfg))
    row = df[(df["annotator"] == "carol") & (df["scheme"] == "traversal")].iloc[0]
    objects = row["objects"] if isinstance(row["objects"], dict) else json.loads(row["objects"])
    assert objects["steps"]["1"]["agent"] == "PublicationData_Expert"


def test_gold_measures_with_agentrx_shaped_gold():
    """AgentRx gold as the reader normalises it: several failures, one the root cause."""
    from types import SimpleNamespace

    from app.summary import traversal
    from app.types.panel import SchemeRows

    gold = {"failures": [{"step": 4, "agent": "B", "root_cause": False}, {"step": 2, "agent": "A", "root_cause": True},
                         {"step": 7, "agent": "B", "root_cause": False}]}
    ws = SimpleNamespace(items=[SimpleNamespace(id="run", gold=gold)])
    value = full_pass(9, {1: "", 4: "", 7: ""}, {7: (tr.CONSEQUENCE, 4), 4: (tr.CONSEQUENCE, 1), 1: (tr.ROOT_CAUSE, None)})
    rows = [{"item_id": "run", "annotator": "ann", "status": "annotated", **r} for r in tr.rows(value, SCHEME)]
    import pandas as pd
    scheme_rows = SchemeRows(scheme=SCHEME, judged=pd.DataFrame(), table=pd.DataFrame(rows), item_ids=["run"], k=1,
                             derive=lambda item: None)
    got = traversal.against_gold(ws, {"traversal": scheme_rows}, [SCHEME], ["run"], 1)["traversal"]["overall"]
    # gold step 2 (the root cause); failure steps 2, 4, 7
    assert got["root_cause"]["step_accuracy"] == 0.0 and got["root_cause"]["step_accuracy_within_k"] == 1.0
    assert got["root_cause"]["precision"] == 0.0 and got["root_cause"]["precision_within_k"] == 1.0
    assert got["forward_flags"]["precision"] == 2 / 3 and got["forward_flags"]["precision_within_k"] == 1.0
    assert got["precision_gain"] == pytest.approx(-2 / 3)


def test_the_report_carries_traversal_gold_and_the_suggestions(tmp_path):
    from app.summary.report import build_html
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "whowhen"), str(ROOT / "data" / "trail")])
    save = Saver(cfg)
    trail = "512475a321c616e45337da3575f6a185"
    save(trail, "alice", "traversal", full_pass(10, {3: "<b>misreads</b>"}, {3: (tr.ROOT_CAUSE, None)}))
    page = build_html(open_project(cfg))
    assert "<h2>Traversal review against gold: traversal</h2>" in page
    assert "<h2>Suggestions from the runs" in page
    assert "<b>misreads</b>" not in page
