"""Potato's agent-trace example projects as its documentation prints them
(tests/data/potato_examples, see its README) open unmodified: every scheme loads and its page
draws; a scheme of a type Baton lacks (audio) is listed on the items page as not supported,
and `check` exits non-zero naming it."""
from __future__ import annotations

import shutil

import pytest

from app.__main__ import main
from app.project.config import load_config
from tests.conftest import ROOT, make_app, open_page

EXAMPLES = ROOT / "tests" / "data" / "potato_examples"
SUPPORTED = ["process-supervision.yaml", "trajectory-correction.yaml", "schemes-and-scales.yaml",
             "cot-process-reward.yaml"]
FIRST = {"cot-process-reward.yaml": "cot_001"}  # (the others read data/agent-steps.jsonl)


@pytest.fixture
def examples(tmp_path):
    """A copy of the folder (the app and `check` may create its annotation folder)."""
    return shutil.copytree(EXAMPLES, tmp_path / "examples")


@pytest.mark.parametrize("name", SUPPORTED)
def test_loads_unmodified_and_check_passes(examples, name, capsys):
    project, problems = load_config(examples / name)
    assert project is not None, [str(p) for p in problems if p.level == "error"]
    assert not project.unsupported
    assert main(["check", str(examples / name)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("ok")


@pytest.mark.parametrize("name", SUPPORTED)
def test_every_scheme_is_shown(examples, name):
    project, _ = load_config(examples / name)
    for t in project.types():
        at = open_page(make_app(examples / name, item=FIRST.get(name, "traj_001")), t)
        shown = [h.value.replace("\\", "") for h in at.subheader]  # (names drawn as plain text: md-escaped)
        for s in project.schemes_of(t):
            assert s.name in shown, (t, shown)
        assert not [i.value for i in at.info if "has no step" in i.value]  # (the steps are read)


def test_unsupported_scheme_listed_and_check_fails(examples, capsys):
    project, problems = load_config(examples / "with-audio.yaml")
    assert project is not None and [s.name for s in project.schemes] == ["genre"]
    assert [(u.name, u.type) for u in project.unsupported] == [("speaker_diarization", "audio_annotation")]
    assert main(["check", str(examples / "with-audio.yaml")]) == 1
    out = capsys.readouterr()
    assert "speaker_diarization (audio_annotation): not supported" in out.out
    assert 'annotation type "audio_annotation" (scheme "speaker_diarization") is not supported' in out.err
    at = make_app(examples / "with-audio.yaml")
    at.run()
    assert not at.exception
    assert any("do not support" in w.value or "does not support" in w.value for w in at.warning)
    table = [d.value for d in at.dataframe]
    assert any("speaker_diarization" in t["scheme"].tolist() for t in table if "scheme" in t)
    open_page(make_app(examples / "with-audio.yaml", item="traj_001"), "select")
