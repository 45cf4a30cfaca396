"""TRAIL span trees read as items: agents, handoffs, steps, tool calls, timed calls and gold,
checked against what the files themselves say (../shared/datasets/trail, README there; in a bare
clone only the GAIA run copied to data/trail)."""
import json
from pathlib import Path

import pytest

from app.traces.conversation import savings
from app.traces.derive import derive
from app.traces.readers import attach_golds, data_paths, read_file, read_path
from app.traces.timeparse import parse_duration, parse_time
from tests.conftest import ROOT, shared_dataset, shared_files

GAIA = shared_files("trail", "gaia/*.json", stand_in=ROOT / "data" / "trail" / "gaia")
SWE = shared_files("trail", "swe-bench/*.json")
HANDOFF = {"512475a321c616e45337da3575f6a185", "b159cbc7eb989d874a0337cbee8a373c",
           "fcdcb46c7df316b571138b53bd3c822a"}


def _spans(path: Path) -> list[dict]:
    """Every span of a TRAIL file, depth first, each distinct span id once."""
    out, seen = [], set()
    stack = list(reversed(json.loads(path.read_text())["spans"]))
    while stack:
        s = stack.pop()
        if s["span_id"] in seen:
            continue
        seen.add(s["span_id"])
        out.append(s)
        stack.extend(reversed(s.get("child_spans") or []))
    return out


def _kind(s):
    return s["span_attributes"].get("openinference.span.kind")


@pytest.mark.parametrize("path", GAIA + SWE, ids=lambda p: f"{p.parent.name}/{p.stem[:8]}")
def test_trail_file_reads_with_steps_calls_and_gold(path):
    items, problems = read_file(path)
    assert [p for p in problems if p.level != "note"] == []
    assert len(items) == 1
    it = items[0]
    spans = _spans(path)
    assert it.format == "trail" and it.id == path.stem
    d = derive(it.data)
    assert d.problems == []
    # one step per LLM span, in start order, the span id as the step id
    llm = sorted((s for s in spans if _kind(s) == "LLM"), key=lambda s: parse_time(s["timestamp"]))
    assert [s.id for s in d.steps] == [s["span_id"] for s in llm]
    # every TOOL span is a tool call, and a timed call from its timestamp and duration
    tools = [s for s in spans if _kind(s) == "TOOL"]
    ids = {t.call_id for t in d.tool_calls}
    assert {s["span_id"] for s in tools} <= ids
    by_span = {c["span_id"]: c for c in it.data["calls"]}
    assert set(by_span) == {s["span_id"] for s in tools}
    for s in tools:
        c = by_span[s["span_id"]]
        assert c["tool"] == s["span_attributes"]["tool.name"] == c["resource"]
        assert c["start"] == pytest.approx(parse_time(s["timestamp"]))
        assert c["end"] - c["start"] == pytest.approx(parse_duration(s["duration"]), abs=1e-5)
    assert len(d.calls) == len(tools) and all(c.problem is None for c in d.calls)
    # gold: every error, on the step of its span and the agent that span belongs to
    gold_raw = json.loads((path.parent.parent / "gold" / f"{path.stem}.json").read_text())
    g = it.gold
    assert g is not None and it.data["gold"] == g
    assert len(g["failures"]) == len(gold_raw["errors"])
    for f, e in zip(g["failures"], gold_raw["errors"]):
        assert f["category"] == e["category"] and f["impact"] == e["impact"] and f["location"] == e["location"]
        step = d.steps[f["step"]]
        assert step.id == e["location"] or e["location"] in {t.call_id for t in d.tool_calls if t.step == step.index}
        assert f["agent"] == step.agent
        assert f["root_cause"] is False
    highs = [f for f in g["failures"] if f["impact"] == "HIGH"]
    if highs:
        first = min(highs, key=lambda f: f["step"])
        assert (g["mistake_step"], g["mistake_agent"]) == (first["step"], first["agent"])
        assert g["mistake_basis"] == "first HIGH impact error"
    assert g["scores"]["overall"] == gold_raw["scores"][0]["overall"]


@pytest.mark.parametrize("path", GAIA, ids=lambda p: p.stem[:8])
def test_gaia_manager_and_search_agent_handoffs(path):
    it = read_file(path)[0][0]
    d = derive(it.data)
    agent_spans = [s for s in _spans(path) if _kind(s) == "AGENT"]
    if path.stem in HANDOFF:
        assert d.agents == ["manager", "search_agent"]
        n_sub = len(agent_spans) - 1  # each nested ToolCallingAgent.run is one handoff and back
        assert [(h.src, h.dst) for h in d.handoffs] == [("manager", "search_agent"), ("search_agent", "manager")] * n_sub
        sub = [a for a in it.data["trace"]["agents"] if a["agent"] == "search_agent"]
        assert len(sub) == n_sub and all(a["parent_agent"] == "manager" for a in sub)
        assert "search_agent" in sub[0]["task"]
    else:
        assert d.agents == ["manager"] and d.handoffs == []
    assert it.text.startswith("You have one question to answer")


def test_swe_bench_is_one_agent_and_its_repeated_span_read_once():
    items, problems = read_file(sorted(shared_dataset("trail", "swe-bench").glob("*.json"))[0])
    d = derive(items[0].data)
    assert d.agents == ["agent"] and d.handoffs == [] and len(d.steps) == 6
    notes = [p for p in problems if p.level == "note"]
    assert any("b14646a5fcac02fd appears twice, identical; read once" in p.message for p in notes)
    assert any("not in the file; read as top-level" in p.message and "1b34d02d2b7f4ecd" in p.message
               for p in notes)


def test_a_trail_folder_reads_traces_and_gold_without_warnings():
    items, problems, golds = [], [], []
    for p in data_paths(shared_dataset("trail")):  # all five runs
        got, probs, gs = read_path(p)
        items += got
        problems += probs
        golds += gs
    problems += attach_golds(items, golds, "from the data files")
    assert len(items) == 5 and len(golds) == 5
    assert [p for p in problems if p.level != "note"] == []
    assert all(it.gold and it.gold["failures"] for it in items)


def test_steps_carry_inputs_outputs_and_requested_calls():
    it = read_file(shared_dataset("trail", "gaia", "512475a321c616e45337da3575f6a185.json"))[0][0]
    steps = it.data["steps"]
    assert all(isinstance(s["input"], list) and s["input"] for s in steps)
    assert steps[2]["input"][0]["role"] == "system" and steps[2]["content"].startswith("Thought:")
    # a ToolCallingAgent call with no text: its requested call is the content
    s6 = steps[6]
    assert s6["agent"] == "search_agent" and s6["content"].startswith("→ inspect_file_as_text(")
    assert s6["tool_calls"][0]["status"] == "error" and "FileConversionException" in s6["tool_calls"][0]["error"]
    assert s6["requested_tool_calls"][0]["function"]["name"] == "inspect_file_as_text"
    # repeated conversation text is one string object, not one per span
    assert steps[3]["input"][0]["content"] is steps[2]["input"][0]["content"]


@pytest.mark.parametrize("path", GAIA + SWE, ids=lambda p: p.stem[:8])
def test_conversation_shown_once_saves_characters(path):
    v = savings(read_file(path)[0][0].data)
    assert v.has_inputs and 0 < v.shown_chars < v.raw_chars
    assert v.saved > 0.15


def test_demo_has_the_trail_run():
    from app.project.workspace import open_project
    ws = open_project(ROOT / "configs" / "demo.yaml")
    it = ws.by_id["512475a321c616e45337da3575f6a185"]
    d = derive(it.data)
    assert d.agents == ["manager", "search_agent"] and len(d.calls) == 3 and it.gold["failures"]
    assert not [p for p in ws.problems if p.level in ("error", "warning")]
    assert (ROOT / "data" / "trail" / "LICENSE").read_text().startswith("MIT License")
