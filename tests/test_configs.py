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
    ws = open_project(ROOT / "configs" / "demo.yaml")
    assert set(ws.project.types()) == set(TYPES)
