"""Broken TRAIL-shaped files: every message names the file and the span or record, and the
rest of the file is still read."""
import json

import pytest

from app.traces.derive import derive
from app.traces.readers import read_file
from tests.conftest import shared_dataset

SRC = shared_dataset("trail", "gaia", "512475a321c616e45337da3575f6a185.json")  # copy in data/trail


def _trace():
    return json.loads(SRC.read_text())


def _write(tmp_path, obj, name="t.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj, indent=1))
    return p


def _all(spans):
    for s in spans:
        yield s
        yield from _all(s.get("child_spans") or [])


def _levels(problems):
    return [(p.level, f"{p.where}: {p.message}") for p in problems]


def test_truncated_file_reads_the_spans_before_the_cut(tmp_path):
    text = json.dumps(_trace(), indent=1)
    cut = text.index('"span_name": "Step 3"')  # inside the manager's third step
    p = _write(tmp_path, text[:cut])
    items, problems = read_file(p)
    assert len(items) == 1
    d = derive(items[0].data)
    assert len(d.steps) == 8 and d.agents == ["manager", "search_agent"]  # all steps before Step 3
    assert all(x.file == str(p) for x in problems)
    warn = [x for x in problems if x.level == "warning"]
    assert any("cut short" in x.message and x.where.startswith("line ") for x in warn)
    last = next(x for x in warn if "spans read" in x.message)
    # Step 3's chain was cut inside: read with the fields before the cut, and named
    assert "the last one read is b1767181d81b924f" in last.message and "span b1767181d81b924f" in last.where


def test_missing_parent_span_in_a_flat_span_list(tmp_path):
    spans = []
    for s in _all(_trace()["spans"]):
        s = dict(s)
        s.pop("child_spans", None)
        spans.append(s)
    victim = next(s for s in spans if s["span_name"] == "ToolCallingAgent.run")
    spans.remove(victim)  # its two LLM steps and its step chains lose their parent
    p = _write(tmp_path, {"trace_id": "flat", "spans": spans})
    items, problems = read_file(p)
    d = derive(items[0].data)
    assert len(d.steps) == 10  # every LLM span still read
    notes = [x for x in problems if x.level == "note"]
    assert any(f"name parent span {victim['span_id']}, which is not in the file" in x.message
               and x.where.startswith("trace flat, span ") for x in notes)
    # orphans are read as top-level spans: outside every agent, so the manager's
    assert "search_agent" not in d.agents


def test_wrong_shapes_are_named_and_skipped(tmp_path):
    t = _trace()
    llm = next(s for s in _all(t["spans"]) if s["span_id"] == "e2d6c38fc905811a")
    nameless = next(s for s in _all(t["spans"]) if s["span_id"] == "2ea32be9e67738f5")
    llm["child_spans"] = {"oops": 1}
    nameless["span_id"] = None
    t["spans"][0]["child_spans"].append("not a span")
    p = _write(tmp_path, {"trace_id": "shapes", "spans": t["spans"]})
    items, problems = read_file(p)
    assert len(derive(items[0].data).steps) == 10  # nothing else lost
    got = _levels(problems)
    assert ("warning", "trace shapes, span d9929bdf3e99d4d3, child_spans[2]: expected a span object, got str; "
                       "skipped") in got
    assert any(lv == "warning" and "span e2d6c38fc905811a" in m and "child_spans: expected a list" in m
               for lv, m in got)
    assert any(lv == "warning" and "has no span_id; read as (no id 1)" in m for lv, m in got)
    # a record that is not a trace at all, in a list of traces
    p2 = _write(tmp_path, [{"trace_id": "ok", "spans": t["spans"]}, {"spans": {"a": 1}}, 5], "many.json")
    items, problems = read_file(p2, data_format="trail")
    assert [i.id for i in items] == ["ok"]
    assert [(x.level, x.where) for x in problems if x.level == "error"] == [("error", "item 1"), ("error", "item 2")]
    assert "data_format is trail: expected a TRAIL trace" in problems[-1].message


@pytest.mark.parametrize("bad", [{"id": "a"}, ["a"]])
def test_a_parent_span_id_that_is_not_an_id(tmp_path, bad):
    # an object or a list as parent_span_id used to raise "TypeError: unhashable type"
    # (found by the mutation fuzz)
    p = _write(tmp_path, {"trace_id": "par", "spans": [
        {"span_id": "a", "span_name": "root", "timestamp": "2024-01-01T00:00:00Z", "child_spans": [
            {"span_id": "c", "parent_span_id": bad, "span_name": "nested", "timestamp": "2024-01-01T00:00:02Z"}]},
        {"span_id": "b", "parent_span_id": bad, "span_name": "llm", "timestamp": "2024-01-01T00:00:01Z",
         "span_attributes": {"openinference.span.kind": "LLM"}},
        {"span_id": 7, "span_name": "seven", "timestamp": "2024-01-01T00:00:03Z"},
        {"span_id": "d", "parent_span_id": 7, "span_name": "under seven", "timestamp": "2024-01-01T00:00:04Z"}]})
    items, problems = read_file(p)
    kind = type(bad).__name__
    assert ("warning", f"trace par, span b (llm): parent_span_id: expected an id (text or a number), got {kind}; "
                       "read as a top-level span") in _levels(problems)
    assert ("warning", f"trace par, span c (nested): parent_span_id: expected an id (text or a number), got {kind}; "
                       "ignored (the span is read under the span it is nested in)") in _levels(problems)
    assert all(x.file == str(p) for x in problems)
    spans = {s["id"]: s["parent"] for s in items[0].data["trace"]["spans"]}
    # a number is an id, read as text as span ids are: span d is under span 7
    assert spans == {"a": None, "c": "a", "b": None, "7": None, "d": "7"}
    assert [s["id"] for s in items[0].data["steps"]] == ["b"]


def test_unknown_attribute_value_shapes_and_contents(tmp_path):
    t = _trace()
    llm = next(s for s in _all(t["spans"]) if s["span_id"] == "fa2c008493ea02f7")
    llm["span_attributes"]["llm.input_messages.1.message.content"] = {"text": "a dict"}
    llm["span_attributes"]["custom.blob"] = {"nested": [1, {"x": 2}]}
    tool = next(s for s in _all(t["spans"]) if s["span_id"] == "e80e407c3ce9593b")
    tool["span_attributes"] = ["not", "an", "object"]
    p = _write(tmp_path, t)
    items, problems = read_file(p)
    it = items[0]
    got = _levels(problems)
    assert any(lv == "warning" and "span fa2c008493ea02f7" in m and "attribute custom.blob: unknown value shape (dict)"
               in m for lv, m in got)
    assert any(lv == "warning" and "attribute llm.input_messages.1.message.content: unknown value shape" in m
               for lv, m in got)
    assert any(lv == "warning" and "span e80e407c3ce9593b" in m and "span_attributes: expected an object" in m
               for lv, m in got)
    step = next(s for s in it.data["steps"] if s["id"] == "fa2c008493ea02f7")
    assert json.loads(step["input"][1]["content"]) == {"text": "a dict"}  # kept, as JSON text
    # the tool span lost its kind with its attributes: no longer a tool call, still in the tree
    assert "e80e407c3ce9593b" not in {c["span_id"] for c in it.data["calls"]}
    assert "e80e407c3ce9593b" in {s["id"] for s in it.data["trace"]["spans"]}


def test_bad_times_and_duplicate_ids(tmp_path):
    t = _trace()
    spans = list(_all(t["spans"]))
    next(s for s in spans if s["span_id"] == "e80e407c3ce9593b")["duration"] = "soon"
    other = next(s for s in spans if s["span_id"] == "e2d6c38fc905811a")
    other["span_id"] = "ffc0dcd563e6c655"  # clashes with a different span
    p = _write(tmp_path, t)
    items, problems = read_file(p)
    got = _levels(problems)
    assert any(lv == "warning" and "span e80e407c3ce9593b" in m and "duration: expected an ISO 8601 duration" in m
               for lv, m in got)
    assert any(lv == "note" and "tool span without start and end times" in m for lv, m in got)
    assert any(lv == "warning" and "span id ffc0dcd563e6c655 is used by two different spans; the second is read "
               "as ffc0dcd563e6c655~2" in m for lv, m in got)
    assert len(items[0].data["steps"]) == 10


def test_gold_whose_location_is_not_in_the_trace(tmp_path):
    (tmp_path / "gaia").mkdir()
    (tmp_path / "gold").mkdir()
    t = _trace()
    t["trace_id"] = "g1"
    (tmp_path / "gaia" / "g1.json").write_text(json.dumps(t))
    (tmp_path / "gold" / "g1.json").write_text(json.dumps({"trace_id": "g1", "errors": [
        {"category": "X", "location": "0000000000000000", "impact": "HIGH", "description": "d"},
        {"category": "Y", "location": "ffc0dcd563e6c655", "impact": "LOW", "description": "e"}, 7]}))
    items, problems = read_file(tmp_path / "gaia" / "g1.json")
    g = items[0].gold
    assert [(f["step"], f["agent"]) for f in g["failures"]] == [(None, None), (0, "manager")]
    assert g["mistake_step"] is None and g["mistake_basis"] == "first HIGH impact error"
    got = _levels(problems)
    assert any(lv == "warning" and "gold g1.json, errors[0]: location span 0000000000000000 is not in the trace" in m
               for lv, m in got)
    assert any(lv == "warning" and "errors[2]: expected an error object, got int; skipped" in m for lv, m in got)


@pytest.mark.parametrize("text", ["", "   ", "{", "[]"])
def test_empty_and_hopeless_files(tmp_path, text):
    p = _write(tmp_path, text)
    items, problems = read_file(p, data_format="trail")
    assert items == []
    if text.strip() not in ("[]",):
        assert problems and problems[0].file == str(p) and problems[0].level == "error"
