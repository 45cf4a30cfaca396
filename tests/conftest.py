"""Shared fixtures: real datasets, a demo project in a temporary folder, AppTest apps."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pytest_addoption(parser):
    parser.addoption("--run-long", action="store_true", help="also run the long (marked `long`) tests")


def pytest_configure(config):
    config.addinivalue_line("markers", "long: slow stress tests, run with `make test-long`")
    config.addinivalue_line("markers", "browser: drives headless Chromium through Playwright")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-long"):
        return
    skip = pytest.mark.skip(reason="long test: run with `make test-long` (pytest --run-long)")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    """st.cache_* survive between AppTest instances in one pytest run."""
    import streamlit as st
    st.cache_data.clear()
    st.cache_resource.clear()
    yield


def write_project(tmp_path: Path, schemes: list[dict] | None = None, data_files: list | None = None,
                  **extra) -> Path:
    """A copy of the demo project writing its annotations under tmp_path."""
    cfg = yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text())
    cfg["data_files"] = data_files or [str(ROOT / "data" / "demo_runs.jsonl"), str(ROOT / "data" / "whowhen")]
    cfg["output_annotation_dir"] = str(tmp_path / "annotations")
    if schemes is not None:
        cfg["annotation_schemes"] = schemes
    cfg.update(extra)
    path = tmp_path / "project.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))
    return path


@pytest.fixture
def demo_project(tmp_path) -> Path:
    return write_project(tmp_path)


def make_app(config: Path, annotator: str | None = "alice", item: str | None = None):
    """An AppTest of the whole app on a project, signed in through the URL."""
    from streamlit.testing.v1 import AppTest
    os.environ["BATON_CONFIG"] = str(config)
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=30)
    if annotator:
        at.query_params["annotator"] = annotator
    if item:
        at.query_params["item"] = item
    return at


def open_page(at, page: str):
    """Run the app, then switch to pages/<page>.py and run it."""
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def components(at, name: str) -> list:
    """The v2 components named `name` on the page (AppTest shows them as unknown elements)."""
    out = []

    def walk(node):
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for c in children.values():
                walk(c)
        elif getattr(node, "type", None) == "bidi_component" and node.proto.component_name == name:
            out.append(node)
    walk(at._tree)
    return out


def send_trigger(at, element, event: str, value):
    """What the browser sends when a v2 component fires the trigger `event` with `value`, added
    to the next run (AppTest has no API for components: they are unknown elements; private
    AppTest API: _tree, _run)."""
    import json
    from streamlit.components.v2.bidi_component.main import _make_trigger_id
    states = at._tree.get_widget_states()
    w = states.widgets.add()
    w.id = _make_trigger_id(element.proto.id, "events")
    w.json_trigger_value = json.dumps([{"event": event, "value": value}])
    at._run(states)
    assert not at.exception, [e.value for e in at.exception]
    return at


def drawn_cards(at) -> list[dict]:
    """Every card drawn by app/ui/step_card_view, as the browser gets them (app/step_cards.py)."""
    import json
    return [c for e in components(at, "baton_step_cards") for c in json.loads(e.proto.json)["cards"]]


def step_cards(at) -> list[dict]:
    """The trace view's step cards."""
    return [c for c in drawn_cards(at) if "step" in c]


def call_cards(at) -> list[dict]:
    """The tool-call review's call cards."""
    return [c for c in drawn_cards(at) if "call" in c]


def card_codes(card: dict) -> list[str]:
    """A card's code blocks (arguments, results), folded ones included."""
    out = []

    def walk(blocks):
        for b in blocks:
            if b["k"] == "code":
                out.append(b["t"])
            elif b["k"] == "more":
                walk(b["b"])
    walk(card["blocks"])
    return out


def card_lines(at) -> list[str]:
    """Every line of text in the trace view's cards, folded ones included."""
    from app.traces.step_cards import plain
    return [line for card in step_cards(at) for line in plain(card)]
