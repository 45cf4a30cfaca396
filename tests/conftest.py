"""Shared fixtures: real datasets, a demo project in a temporary folder, AppTest apps."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
# The real traces beside the clone (CI has them; a bare clone does not): reach them through
# shared_dataset() / shared_files(), which fall back to the copies below or skip.
DATASETS = ROOT.parent / "shared" / "datasets"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Byte-identical copies in this repository (licence beside each) of files of ../shared/datasets,
# by their path there. tests/test_dataset_copies.py checks them against the originals.
TEST_DATA = ROOT / "tests" / "data"
COPIES = {
    "whowhen/algorithm-generated/1.json": ROOT / "data" / "whowhen" / "algorithm-generated-1.json",
    "whowhen/algorithm-generated/45.json": ROOT / "data" / "whowhen" / "algorithm-generated-45.json",
    "whowhen/hand-crafted/5.json": ROOT / "data" / "whowhen" / "hand-crafted-5.json",
    "whowhen/hand-crafted/33.json": ROOT / "data" / "whowhen" / "hand-crafted-33.json",
    "trail/gaia/512475a321c616e45337da3575f6a185.json":
        ROOT / "data" / "trail" / "gaia" / "512475a321c616e45337da3575f6a185.json",
    "trail/gold/512475a321c616e45337da3575f6a185.json":
        ROOT / "data" / "trail" / "gold" / "512475a321c616e45337da3575f6a185.json",
    "mast/mad_human_sample.json": TEST_DATA / "mast" / "mad_human_sample.json",
    "otel/rag_earnings_agent.json": TEST_DATA / "otel" / "rag_earnings_agent.json",
}


def missing(rel: str) -> str:
    return f"needs ../shared/datasets/{rel} (not in a bare clone)"


def shared_dataset(*parts: str, stand_in: Path | None = None) -> Path:
    """A file or folder of ../shared/datasets; without it, its copy in this repository (COPIES) or
    `stand_in` (an in-repo file or folder the test accepts instead); without those, the test
    skips, saying what is missing. Safe at module level too (the module then skips)."""
    rel = "/".join(parts)
    for path in (DATASETS.joinpath(*parts), COPIES.get(rel), stand_in):
        if path is not None and path.exists():
            return path
    pytest.skip(missing(rel), allow_module_level=True)


def shared_files(folder: str, pattern: str = "*.json", stand_in: Path | None = None) -> list:
    """For parametrize: the files of ../shared/datasets/<folder> matching `pattern`; without the
    folder, the files below `stand_in` (an in-repo folder) named like `pattern`'s last part;
    without either, one parameter that skips, saying what is missing."""
    if (DATASETS / folder).is_dir():
        return sorted(p for p in (DATASETS / folder).glob(pattern) if p.is_file())
    if stand_in is not None and stand_in.is_dir():
        return sorted(p for p in stand_in.rglob(Path(pattern).name) if p.is_file())
    return [pytest.param(None, id="missing", marks=pytest.mark.skip(reason=missing(f"{folder}/{pattern}")))]


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


def demo_pages() -> list[str]:
    """The pages of the demo project's annotation types (by file stem), in name order."""
    from app.types.registry import TYPES
    used = {s["annotation_type"] for s in yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text())["annotation_schemes"]}
    return sorted({Path(TYPES[t].page).stem for t in used if TYPES[t].page})


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


def as_read(markdown: str) -> str:
    """Markdown made by app/ui/text.md as a reader sees it: escapes and the colon's entity undone,
    word joiners dropped (a test compares words, not the escaping)."""
    import re
    return re.sub(r"\\(.)", r"\1", markdown.replace("&#58;", ":").replace("\u2060", ""))


def instant_cards(at) -> dict[str, dict]:
    """The instant choice cards on the page (app/ui/instant.py), by key: the data the browser gets."""
    import json
    return {d["card"]: d for d in (json.loads(e.proto.json) for e in components(at, "baton_instant_choice"))}


def instant_card(at, key: str) -> dict:
    """The one instant card whose key is `key` or contains it."""
    cards = instant_cards(at)
    if key in cards:
        return cards[key]
    found = [d for k, d in cards.items() if key in k]
    assert len(found) == 1, (key, list(cards))
    return found[0]


def agent_card(at, scheme: str = "attribution") -> dict:
    """The failure attribution's instant card of agents (app/ui/surfaces/failure_attribution.py)."""
    from app.ui.state import widget_key
    return instant_card(at, widget_key("fa", scheme, "place", "agent"))


def click_card(at, key: str, value: list[str]):
    """What the browser sends when a click leaves the instant card `key` showing `value` (the
    next number of the card's acknowledged clicks, for the object it holds)."""
    card = instant_card(at, key)
    element = next(e for e in components(at, "baton_instant_choice") if json_of(e)["card"] == card["card"])
    ack = card["ack"]
    seq = ack["seq"] + 1 if ack["mount"] == "apptest" and ack["holds"] == card["holds"] else 1
    return send_trigger(at, element, "change", {"mount": "apptest", "seq": seq, "value": list(value),
                                                "holds": card["holds"]})


def clean_card(at) -> dict:
    """The scheme's "reviewed, nothing to flag" instant card (app/ui/instant_scheme.clean_card)."""
    found = [d for k, d in instant_cards(at).items() if k.endswith("\u241fclean")]
    assert len(found) == 1, list(instant_cards(at))
    return found[0]


def click_clean(at, on: bool = True):
    """A click on the "nothing to flag" card: recording it (`on`), or taking it back."""
    card = clean_card(at)
    return click_card(at, card["card"], [card["options"][0]["value"]] if on else [])


def text_cards(at) -> dict[str, dict]:
    """The instant text cards on the page (app/ui/instant_text.py), by key: the data the browser gets."""
    import json
    return {d["card"]: d for d in (json.loads(e.proto.json) for e in components(at, "baton_instant_text"))}


def text_card(at, key: str) -> dict:
    """The one instant text card whose key is `key` or contains it (or whose title is `key`)."""
    cards = text_cards(at)
    if key in cards:
        return cards[key]
    found = [d for k, d in cards.items() if key in k] or [d for d in cards.values() if d["title"] == key]
    assert len(found) == 1, (key, list(cards))
    return found[0]


def type_card(at, key: str, text: str):
    """What the browser sends when the text card `key` holds `text` after a pause in typing (the
    next number of the card's acknowledged texts, for the object it holds)."""
    card = text_card(at, key)
    element = next(e for e in components(at, "baton_instant_text") if json_of(e)["card"] == card["card"])
    ack = card["ack"]
    seq = ack["seq"] + 1 if ack["mount"] == "apptest" and ack["holds"] == card["holds"] else 1
    return send_trigger(at, element, "change", {"mount": "apptest", "seq": seq, "value": text,
                                                "holds": card["holds"]})


def json_of(element) -> dict:
    import json
    return json.loads(element.proto.json)
