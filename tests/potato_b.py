"""The project of tests/data/potato_examples_b (every type of issue 28's second batch) copied
under a test's folder, and a writer of annotations into it."""
from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from tests.conftest import ROOT
from tests.summary_data import Saver

EXAMPLES = ROOT / "tests" / "data" / "potato_examples_b"
ONE, TWO = "deliberation_001", "deliberation_002"


def project(tmp_path: Path) -> tuple[Path, Saver]:
    """The example project under tmp_path (annotations written there too)."""
    folder = tmp_path / "potato_b"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns("annotation_output"))
    cfg = folder / "config.yaml"
    raw = yaml.safe_load(cfg.read_text())
    raw["output_annotation_dir"] = str(tmp_path / "annotations")
    cfg.write_text(yaml.safe_dump(raw, sort_keys=False, allow_unicode=True))
    return cfg, Saver(cfg)
