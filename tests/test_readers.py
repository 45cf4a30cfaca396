"""Trace reading on literal data and on the real Who&When files."""
import json
from pathlib import Path

import pytest

from app.traces.derive import derive
from app.traces.readers import read_file
from app.traces.readers.whowhen import agent_of
from app.traces.trace import UNKNOWN_AGENT, read_steps
from tests.conftest import ROOT, shared_dataset, shared_files

WHOWHEN = shared_files("whowhen", "*/*.json", stand_in=ROOT / "data" / "whowhen")


@pytest.mark.parametrize("path", WHOWHEN, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_whowhen_files_read_with_gold(path: Path):
    items, problems = read_file(path)
    assert problems == [] and len(items) == 1
    it = items[0]
    raw = json.loads(path.read_text())
    assert it.format == "whowhen" and it.id == f"{path.parent.name}-{path.stem}"
    assert it.text == raw["question"]
    steps = read_steps(it.data)
    assert len(steps) == len(raw["history"])  # one step per history entry, none dropped
    assert it.gold["mistake_agent"] == raw["mistake_agent"]
    assert it.gold["mistake_step"] == int(raw["mistake_step"])
    assert 0 <= it.gold["mistake_step"] < len(steps)
    assert UNKNOWN_AGENT not in {s.agent for s in steps}


def test_whowhen_hand_crafted_agents_and_handoffs():
    items, _ = read_file(shared_dataset("whowhen", "hand-crafted", "33.json"))
    d = derive(items[0].data)
    assert d.agents == ["human", "Orchestrator", "WebSurfer"]
    assert ("Orchestrator", "WebSurfer") in {(a, b) for a, b, _ in d.edges}
    # the gold step is the step the annotator sees under that number
    assert d.steps[items[0].gold["mistake_step"]].index == items[0].gold["mistake_step"]


def test_whowhen_role_tags():
    assert agent_of({"role": "Orchestrator (-> WebSurfer)"}) == "Orchestrator"
    assert agent_of({"role": "Orchestrator (termination condition)"}) == "Orchestrator"
    assert agent_of({"role": "WebSurfer"}) == "WebSurfer"
    assert agent_of({"role": "assistant", "name": "Excel_Expert"}) == "Excel_Expert"
    assert agent_of({"role": "user"}) == UNKNOWN_AGENT


def test_algorithm_generated_agents_from_name():
    items, _ = read_file(shared_dataset("whowhen", "algorithm-generated", "45.json"))
    assert "Computer_terminal" in derive(items[0].data).agents
    assert "user" not in derive(items[0].data).agents


def test_jsonl_bad_line_reported_rest_read(tmp_path):
    p = tmp_path / "items.jsonl"
    p.write_text('{"id": "a", "steps": []}\n{not json\n\n{"text": "no id"}\n{"id": "b"}\n')
    items, problems = read_file(p)
    assert [i.id for i in items] == ["a", "b"]
    assert [p_.where for p_ in problems] == ["line 2", "line 4"]
    assert 'no "id"' in problems[1].message


def test_json_file_holding_json_lines(tmp_path):
    p = tmp_path / "items.json"
    p.write_text('{"id": "a"}\n{"id": "b"}\n')
    items, problems = read_file(p)
    assert [i.id for i in items] == ["a", "b"] and problems == []


def test_json_list_and_broken_json(tmp_path):
    p = tmp_path / "items.json"
    p.write_text(json.dumps([{"id": 1, "text": ["turn 1", "turn 2"]}, 7]))
    items, problems = read_file(p)
    assert items[0].id == "1" and items[0].text == "turn 1\nturn 2"
    assert problems[0].where == "item 1"
    p.write_text('[{"id": 1}')  # cut short: the complete elements are still read, with a warning
    items, problems = read_file(p)
    assert [i.id for i in items] == ["1"] and problems[0].where.startswith("line 1, column")
    assert problems[0].level == "warning" and "cut short" in problems[0].message
    p.write_text('[{"id": ')
    items, problems = read_file(p)
    assert items == [] and problems[0].where.startswith("line 1, column")


def test_steps_keep_positions_and_unknown_agent_is_one_agent():
    data = {"steps": [{"agent": "A", "content": "x"}, {"content": ""}, "plain", {"agent": " ", "action": "go()"},
                      {"agent": "B"}]}
    steps = read_steps(data)
    assert [s.index for s in steps] == [0, 1, 2, 3, 4]
    assert [s.agent for s in steps] == ["A", UNKNOWN_AGENT, UNKNOWN_AGENT, UNKNOWN_AGENT, "B"]
    assert [s.text for s in steps] == ["x", "", "plain", "go()", ""]
    d = derive(data)
    assert d.agents == ["A", UNKNOWN_AGENT, "B"] and d.unknown_steps == 3
    assert [(h.step, h.src, h.dst) for h in d.handoffs] == [(1, "A", UNKNOWN_AGENT), (4, UNKNOWN_AGENT, "B")]


def test_custom_keys():
    data = {"turns": [{"speaker": "A", "msg": "hi"}, {"speaker": "B", "msg": "yo"}]}
    assert [s.agent for s in read_steps(data, "turns", "speaker", "msg")] == ["A", "B"]
    assert [s.text for s in read_steps(data, "turns", "speaker", "msg")] == ["hi", "yo"]
