"""Config validation: exact paths, fixes, suggestions, Potato compatibility."""
from pathlib import Path

import pytest
import yaml

from app.project.config import load_config
from app.types.registry import TYPES
from tests.conftest import ROOT

DATA = str(ROOT / "data" / "demo_runs.jsonl")


def write(tmp_path: Path, cfg) -> Path:
    p = tmp_path / "c.yaml"
    p.write_text(cfg if isinstance(cfg, str) else yaml.safe_dump(cfg, sort_keys=False))
    return p


def base(*schemes, **extra):
    return {"annotation_task_name": "t", "data_files": [DATA], "output_annotation_dir": "out",
            "annotation_schemes": list(schemes), **extra}


def messages(tmp_path, cfg, level="error"):
    project, problems = load_config(write(tmp_path, cfg))
    return project, [f"{p.where}: {p.message}" for p in problems if p.level == level]


def test_quality_scale_not_an_integer(tmp_path):
    _, errs = messages(tmp_path, base(
        {"annotation_type": "radio", "name": "o", "labels": ["a", "b"]},
        {"annotation_type": "likert", "name": "l", "size": 5},
        {"annotation_type": "handoff_review", "name": "h", "quality_scale": "five"}))
    assert errs == ['annotation_schemes[2].quality_scale: expected an integer from 2 to 10, got "five"']


def test_unknown_key_suggests_closest(tmp_path):
    _, errs = messages(tmp_path, base({"annotation_type": "handoff_review", "name": "h", "quality_scal": 5}))
    assert len(errs) == 1 and "annotation_schemes[0].quality_scal" in errs[0]
    assert 'did you mean "quality_scale"' in errs[0]


def test_unknown_type_lists_supported(tmp_path):
    # (a type Baton lacks no longer refuses the project: issue 28; the scheme is named as unsupported)
    project, errs = messages(tmp_path, base({"annotation_type": "handof_review", "name": "h"},
                                            {"annotation_type": "text", "name": "t"}), level="unsupported")
    assert errs[0].startswith('annotation_schemes[0].annotation_type: annotation type "handof_review" '
                              '(scheme "h") is not supported by Baton')
    for t in TYPES:
        assert t in errs[0]
    assert 'did you mean "handoff_review"' in errs[0]
    assert [s.name for s in project.schemes] == ["t"]
    assert [(u.index, u.type, u.name) for u in project.unsupported] == [(0, "handof_review", "h")]


def test_duplicate_names_missing_data_and_required_keys(tmp_path):
    cfg = base({"annotation_type": "text", "name": "n"}, {"annotation_type": "text", "name": "n"},
               {"annotation_type": "agent_scorecard", "name": "s"})
    cfg["data_files"] = ["nope.jsonl"]
    _, errs = messages(tmp_path, cfg)
    assert any("duplicate scheme name \"n\"" in e for e in errs)
    assert any(e.startswith("data_files[0]: data file not found") for e in errs)
    assert any(e.startswith("annotation_schemes[2].agent_dimensions: required") for e in errs)


def test_yaml_syntax_error_names_line_and_column(tmp_path):
    project, problems = load_config(write(tmp_path, "annotation_task_name: t\nannotation_schemes: [\n  - x: 1\n"))
    assert project is None
    assert problems[0].file.endswith("c.yaml") and problems[0].where.startswith("line ")
    assert "column" in problems[0].where


def test_potato_keys_are_ignored_not_rejected(tmp_path):
    cfg = base({"annotation_type": "radio", "name": "o", "labels": ["a"], "sequential_key_binding": True},
               port=8000, instance_display={"fields": []}, output_annotation_format="jsonl",
               item_properties={"id_key": "id", "text_key": "text", "context_key": "ctx"})
    project, errs = messages(tmp_path, cfg)
    assert project is not None and errs == []
    _, ignored = messages(tmp_path, cfg, "ignored")
    assert {"port: Potato key, ignored by Baton", "instance_display: Potato key, ignored by Baton"} <= set(ignored)
    assert any(i.startswith("annotation_schemes[0].sequential_key_binding") for i in ignored)
    assert any(i.startswith("item_properties.context_key") for i in ignored)


def test_nested_paths_for_error_types_and_labels(tmp_path):
    _, errs = messages(tmp_path, base(
        {"annotation_type": "trajectory_eval", "name": "m", "error_types": [{"name": "x", "subtypes": ["a", 3]}],
         "severities": [{"name": "minor", "weight": "low"}]},
        {"annotation_type": "radio", "name": "r", "labels": ["a", {"tooltip": "no name"}]}))
    assert "annotation_schemes[0].error_types[0].subtypes[1]: expected a non-empty string, got 3" in errs
    assert 'annotation_schemes[0].severities[0].weight: expected a number, got "low"' in errs
    assert any(e.startswith("annotation_schemes[1].labels[1]: expected a label name") for e in errs)


def test_defaults_filled_and_labels_normalised(tmp_path):
    project, errs = messages(tmp_path, base(
        {"annotation_type": "radio", "name": "o", "labels": ["a", {"name": "b", "tooltip": "B!"}]},
        {"annotation_type": "tool_call_review", "name": "t"}))
    assert errs == []
    r, t = project.schemes
    assert r["labels"] == [{"name": "a", "tooltip": ""}, {"name": "b", "tooltip": "B!", "key_value": None}]
    assert t["verdict_options"] == ["correct", "wrong_tool", "wrong_args", "wrong_order"]
    assert t["steps_key"] == "steps" and t["agent_key"] == "agent"
    assert project.output_dir == (tmp_path / "out").resolve()


def test_show_if_must_name_a_radio_and_its_labels(tmp_path):
    _, errs = messages(tmp_path, base(
        {"annotation_type": "radio", "name": "outcome", "labels": ["success", "failure"]},
        {"annotation_type": "failure_attribution", "name": "a", "show_if": {"scheme": "outcome", "any_of": ["fail"]}},
        {"annotation_type": "failure_attribution", "name": "b", "show_if": {"scheme": "outcom", "any_of": ["x"]}}))
    assert any(e.startswith("annotation_schemes[1].show_if.any_of[0]") and "failure" in e for e in errs)
    assert any(e.startswith("annotation_schemes[2].show_if.scheme") and 'did you mean "outcome"' in e for e in errs)


def test_task_dir_is_the_base_for_paths(tmp_path):
    (tmp_path / "proj" / "d").mkdir(parents=True)
    (tmp_path / "proj" / "d" / "x.jsonl").write_text('{"id": "1", "text": "t"}\n')
    project, errs = messages(tmp_path, {"annotation_task_name": "t", "task_dir": "proj", "data_files": ["d/x.jsonl"],
                                        "annotation_schemes": [{"annotation_type": "text", "name": "n"}]})
    assert errs == [] and project.data_files[0].path == (tmp_path / "proj" / "d" / "x.jsonl").resolve()


@pytest.mark.parametrize("cfg", [None, [], "just text", {"annotation_schemes": []}])
def test_not_a_project(tmp_path, cfg):
    project, problems = load_config(write(tmp_path, yaml.safe_dump(cfg)))
    assert project is None and problems


def test_unknown_top_level_key(tmp_path):
    _, errs = messages(tmp_path, base({"annotation_type": "text", "name": "n"}, data_file=["x"]))
    assert any(e.startswith("data_file: unknown project key") and 'did you mean "data_files"' in e for e in errs)
