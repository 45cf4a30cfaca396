"""Potato's cot_segmentation: a reasoning string split into steps by each strategy, short steps
merged, the cap kept without losing text; checked in the config; applied when the project opens."""
from __future__ import annotations

import shutil

import pytest

from app.project.config import load_config
from app.project.workspace import open_project
from app.traces.cot import segment, split
from app.traces.derive import derive
from tests.conftest import ROOT, write_project

NUMBERED = "Step 1: add 2 and 2.\nStep 2: that is 4.\n3. Multiply by 3: 12."
PARAGRAPHS = "First we read.\n\nThen we add.\n \nDone."


@pytest.mark.parametrize("strategy, text, want", [
    ("numbered", NUMBERED, ["Step 1: add 2 and 2.", "Step 2: that is 4.", "3. Multiply by 3: 12."]),
    ("blank_line", PARAGRAPHS, ["First we read.", "Then we add.", "Done."]),
    ("markers", "<step>look</step><step>act</step>", ["look", "act"]),
    ("sentence", "One. Two! Three?", ["One.", "Two!", "Three?"]),
    ("auto", NUMBERED, ["Step 1: add 2 and 2.", "Step 2: that is 4.", "3. Multiply by 3: 12."]),
    ("auto", PARAGRAPHS, ["First we read.", "Then we add.", "Done."]),
    ("auto", "no boundary here", ["no boundary here"]),
])
def test_strategies(strategy, text, want):
    assert split(text, strategy) == want


def test_merge_short_steps_and_cap_without_losing_text():
    assert segment(PARAGRAPHS, {"strategy": "blank_line", "min_step_chars": 6}) == [
        "First we read.", "Then we add.\nDone."]
    assert split("a. b. c. d.", "sentence", sentences_per_step=2) == ["a. b.", "c. d."]
    assert segment("1. a\n2. b\n3. c\n4. d", {"strategy": "numbered", "max_steps": 2}) == ["1. a", "2. b\n3. c\n4. d"]


def test_config_checks_the_block(tmp_path):
    _, problems = load_config(write_project(tmp_path, cot_segmentation={"strategy": "paragraphs", "min_step_chars": -1,
                                                                        "color": "red"}))
    errs = {p.where for p in problems if p.level == "error"}
    assert {"cot_segmentation.source_key", "cot_segmentation.strategy", "cot_segmentation.min_step_chars"} <= errs
    assert any(p.where == "cot_segmentation.color" and p.level == "ignored" for p in problems)
    project, problems = load_config(write_project(tmp_path, cot_segmentation={"source_key": "reasoning",
                                                                             "strategy": "llm"}))
    assert project.cot_segmentation["target_key"] == "cot_steps"
    assert any(p.where == "cot_segmentation.strategy" and "auto" in p.message for p in problems)


def test_potato_example_reasoning_becomes_steps(tmp_path):
    folder = shutil.copytree(ROOT / "tests" / "data" / "potato_examples", tmp_path / "examples")
    ws = open_project(folder / "cot-process-reward.yaml")
    first = ws.by_id["cot_001"]
    assert [s[:7] for s in first.data["cot_steps"]] == ["Step 1:", "Step 2:", "Step 3:"]
    assert len(ws.by_id["cot_002"].data["cot_steps"]) == 3  # (blank lines: no numbering there)
    d = derive(first.data, steps_key="cot_steps")
    assert len(d.steps) == 3 and d.steps[1].text.startswith("Step 2: Each group")
    again = open_project(folder / "cot-process-reward.yaml").by_id["cot_001"]
    assert again.trace_hash == first.trace_hash  # (the same steps every time the project opens)
