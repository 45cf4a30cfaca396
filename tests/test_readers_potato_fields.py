"""Potato items whose trace is in one of Potato's trace fields (conversation, structured_turns,
sender/receiver messages, events, run_tree); Potato's data_files: [{type: json, path}] form;
check refusing a project whose items give a trace scheme nothing to annotate."""
import json
import subprocess
import sys

from app.project.config import load_config
from app.traces.derive import derive
from app.traces.readers import read_file
from tests.conftest import ROOT, write_project
from tests.test_readers_langsmith import tree

ITEMS = [
    {"id": "conv", "text": "Book a flight", "conversation": [
        {"speaker": "user", "text": "Book a flight to Oslo"}, {"speaker": "planner", "text": "Asking the booker"},
        {"speaker": "booker", "text": "Booked SK123"}]},
    {"id": "turns", "structured_turns": [
        {"role": "assistant", "agent": "researcher", "content": "searching",
         "tool_calls": [{"name": "web_search", "args": {"q": "oslo"}}]},
        {"role": "assistant", "agent": "writer", "content": "Oslo is nice"}]},
    {"id": "autogen", "messages": [
        {"sender": "user_proxy", "receiver": "assistant", "content": "plot NVDA"},
        {"sender": "assistant", "receiver": "user_proxy", "content": "```python\nplot()\n```"},
        {"sender": "user_proxy", "receiver": "assistant", "content": "exitcode: 0"}]},
    {"id": "graph", "events": [
        {"node": "__start__", "data": {}}, {"node": "supervisor", "output": "route to coder"},
        {"node": "coder", "output": "def f(): ..."}, {"node": "supervisor", "output": "FINISH"},
        {"node": "__end__", "data": {}}]},
    {"id": "tree", "run_tree": tree()},
]


def _read(tmp_path):
    p = tmp_path / "items.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in ITEMS))
    items, problems = read_file(p)
    assert problems == []
    return {it.id: (it, derive(it.data)) for it in items}


def test_each_field_reads_into_steps_with_the_right_agents(tmp_path):
    got = _read(tmp_path)
    it, d = got["conv"]
    assert [s.agent for s in d.steps] == ["user", "planner", "booker"] and d.steps[2].text == "Booked SK123"
    assert it.data["conversation"] == ITEMS[0]["conversation"]  # kept as it is
    _, d = got["turns"]
    assert d.agents == ["researcher", "writer"] and [t.tool for t in d.tool_calls] == ["web_search"]
    it, d = got["autogen"]
    assert [s.agent for s in d.steps] == ["user_proxy", "assistant", "user_proxy"]
    assert it.data["steps"][0]["receiver"] == "assistant" and len(d.handoffs) == 2
    _, d = got["graph"]
    assert [s.agent for s in d.steps] == ["supervisor", "coder", "supervisor"]
    assert d.steps[1].text == "def f(): ..."
    _, d = got["tree"]
    assert d.agents == ["researcher", "writer"] and len(d.steps) == 3
    assert [t.tool for t in d.tool_calls] == ["search"] and len(d.calls) == 1


def test_items_with_their_own_steps_are_untouched(tmp_path):
    p = tmp_path / "own.json"
    rec = {"id": "a", "steps": [{"agent": "x", "content": "y"}], "conversation": [{"speaker": "z", "text": "w"}]}
    p.write_text(json.dumps(rec))
    it = read_file(p)[0][0]
    assert it.data is not None and [s.agent for s in derive(it.data).steps] == ["x"]


def test_potato_data_files_type_form(tmp_path):
    p = tmp_path / "items.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in ITEMS))
    project, problems = load_config(write_project(tmp_path, data_files=[{"type": "json", "path": str(p)}]))
    assert problems == [] and [d.path for d in project.data_files] == [p]
    _, problems = load_config(write_project(tmp_path, data_files=[{"type": "csv", "path": str(p)}]))
    assert [x.where for x in problems] == ["data_files[0].type"]


def _check(cfg):
    return subprocess.run([sys.executable, "-m", "app", "check", str(cfg)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_check_fails_when_items_derive_no_steps_for_a_trace_scheme(tmp_path):
    p = tmp_path / "items.jsonl"
    p.write_text(json.dumps({"id": "x", "text": "t", "dialogue": [{"who": "a", "said": "b"}]}))
    r = _check(write_project(tmp_path, data_files=[str(p)]))
    assert r.returncode == 1 and "derive no steps and no timed calls" in r.stderr and "'x'" in r.stderr
    p.write_text("\n".join(json.dumps(x) for x in ITEMS))
    r = _check(write_project(tmp_path, data_files=[str(p)]))
    assert "derive no steps" not in r.stderr
