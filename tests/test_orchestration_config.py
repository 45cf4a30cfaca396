"""The orchestration question and lens in the project (issue 29): how the question is recognised,
`orchestration_scheme` and `orchestration_lens` checked with their config paths."""
from __future__ import annotations

from app.project.config import load_config
from app.project.orchestration import DEFAULT_LENS, lens_for
from tests.conftest import write_project

PATTERNS = ["single_agent", "sequential_pipeline", "hierarchical_manager", "group_chat", "blackboard",
            "debate", "hub_and_spoke"]


def errors(path) -> list[str]:
    _, problems = load_config(path)
    return [f"{p.where}: {p.message}" for p in problems if p.level == "error"]


def test_the_demos_orchestration_radio_is_recognised_by_its_labels(tmp_path):
    project, _ = load_config(write_project(tmp_path))
    assert project.orchestration_scheme == "orchestration" and project.orchestration_lens == {}


def test_a_radio_with_other_labels_is_not_the_orchestration_question(tmp_path):
    schemes = [{"annotation_type": "radio", "name": "outcome", "labels": ["success", "failure"]},
               {"annotation_type": "radio", "name": "team", "labels": ["group_chat", "other"]}]
    project, _ = load_config(write_project(tmp_path, schemes))
    assert project.orchestration_scheme is None


def test_orchestration_scheme_names_the_question_explicitly(tmp_path):
    schemes = [{"annotation_type": "radio", "name": "shape", "labels": ["chain", "star", "chat"]},
               {"annotation_type": "radio", "name": "pattern", "labels": PATTERNS}]
    project, _ = load_config(write_project(tmp_path, schemes, orchestration_scheme="shape"))
    assert project.orchestration_scheme == "shape"
    assert errors(write_project(tmp_path, schemes, orchestration_scheme="shap")) == [
        'orchestration_scheme: expected the name of a radio scheme, got "shap"; did you mean "shape"?']
    schemes.append({"annotation_type": "text", "name": "notes"})
    assert errors(write_project(tmp_path, schemes, orchestration_scheme="notes")) == [
        'orchestration_scheme: expected a radio scheme, "notes" is text']


def test_the_lens_is_checked_with_its_config_paths(tmp_path):
    ok = write_project(tmp_path, orchestration_lens={"hierarchical_manager": ["graph", "handoffs"],
                                                     "group_chat": "emergent"})
    project, _ = load_config(ok)
    assert project.orchestration_lens == {"hierarchical_manager": ["graph", "handoffs"], "group_chat": ["emergent"]}
    bad = write_project(tmp_path, orchestration_lens={"hierarchical_manger": ["graph"],
                                                      "group_chat": ["graph", "handof"], "debate": []})
    assert errors(bad) == [
        "orchestration_lens.hierarchical_manger: expected a pattern name (" + ", ".join(PATTERNS)
        + '), got "hierarchical_manger"; did you mean "hierarchical_manager"?',
        'orchestration_lens.group_chat[1]: expected the name of a scheme of the project, got "handof"; '
        'did you mean "handoffs"?',
        "orchestration_lens.debate: expected a list of scheme names, got []"]
    assert errors(write_project(tmp_path, orchestration_lens=["graph"]))[0].startswith(
        "orchestration_lens: expected a mapping of pattern names to lists of scheme names")


def test_the_lens_a_project_names_and_the_default(tmp_path):
    project, _ = load_config(write_project(tmp_path, orchestration_lens={"hub_and_spoke": ["contention", "graph"]}))
    names = lambda p: [s.name for s in lens_for(p, project.orchestration_lens, project.schemes)]  # noqa: E731
    assert names("hub_and_spoke") == ["contention", "graph"]
    assert names("hierarchical_manager") == ["graph", "handoffs", "scorecard"]  # the default order of types
    assert names("sequential_pipeline") == ["handoffs", "attribution", "scorecard"]
    assert names(None) == [] and set(DEFAULT_LENS) == set(PATTERNS)
