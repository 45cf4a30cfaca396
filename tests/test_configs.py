"""Every project in configs/ loads, and every annotation page exists for its types."""
from pathlib import Path

import pytest

from app.types.registry import TYPES
from app.project.workspace import open_project
from tests.conftest import ROOT

CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_loads_with_no_problems(path: Path):
    ws = open_project(path)
    assert ws.items, path
    assert [p for p in ws.problems if p.level != "ignored"] == []


def test_every_type_has_a_page_file():
    for t in TYPES.values():
        assert t.page and (ROOT / t.page).exists(), f"{t.name}: page {t.page} missing"


def test_demo_uses_every_type():
    """Every type is used by the demo, or (Potato's types that fit no multi-agent demo run: the
    comparisons, reviews, triage of issue 28) by an example project of tests/data/potato_examples*;
    the demo's own types stay those its golden summaries hold."""
    used = set(open_project(ROOT / "configs" / "demo.yaml").project.types())
    for example in sorted((ROOT / "tests" / "data").glob("potato_examples*/*.yaml")):
        used |= set(open_project(example).project.types())
    assert used == set(TYPES)
