"""configs/mast_steps.yaml and configs/potato_multi_agent.yaml: valid, and `check` passes."""
from __future__ import annotations

import pytest
import yaml

from app.__main__ import main
from tests.conftest import ROOT


@pytest.mark.parametrize("name", ["mast_steps.yaml", "potato_multi_agent.yaml"])
def test_check_exits_0(name, capsys):
    assert main(["check", str(ROOT / "configs" / name)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("ok")


def test_potato_config_holds_every_multi_agent_snippet():
    raw = yaml.safe_load((ROOT / "configs" / "potato_multi_agent.yaml").read_text())
    assert raw["data_files"] == ["../data/demo_runs.jsonl"]
    assert raw["output_annotation_dir"] == "../annotation_output/potato/"
    schemes = {s["name"]: s for s in raw["annotation_schemes"]}
    assert [(s["annotation_type"], s["name"]) for s in raw["annotation_schemes"]] == [
        ("failure_attribution", "attribution"), ("trajectory_eval", "mast_steps"),
        ("agent_interaction_graph", "graph"), ("handoff_review", "handoffs"), ("agent_scorecard", "scorecard"),
        ("tool_contention", "contention"), ("tool_call_review", "tool_review")]
    # blocks the demo has too are the same, up to the steps/agent keys Potato's docs spell out
    demo = {s["name"]: s for s in yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text())["annotation_schemes"]}
    for name, block in schemes.items():
        ours = {k: v for k, v in block.items() if k not in ("steps_key", "agent_key", "show_if")}
        theirs = {k: v for k, v in demo[name].items()
                  if k not in ("steps_key", "agent_key", "show_if", "show_score", "max_score", "title")}
        assert ours == theirs, name
    text = (ROOT / "configs" / "potato_multi_agent.yaml").read_text()
    assert "# verdict_options: [correct, wrong_tool, wrong_args, wrong_order]   # customizable" in text
    assert "# agents: [Planner, Coder, Reviewer]" in text


def test_mast_config():
    raw = yaml.safe_load((ROOT / "configs" / "mast_steps.yaml").read_text())
    assert raw["data_files"] == ["../data/demo_runs.jsonl", "../data/whowhen"]
    assert raw["output_annotation_dir"] == "../annotation_output/mast/"
    assert [s["annotation_type"] for s in raw["annotation_schemes"]] == ["trajectory_eval"]
